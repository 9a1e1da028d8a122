# SPDX-License-Identifier: GPL-2.0
# Static binaries for the qemu kernel matrix (x86_64 and aarch64).

.PHONY: static

# Debian's libmicrohttpd.a needs GnuTLS and so p11-kit, which Debian ships
# no static library of: a TLS-less one is built from Debian's source.
MHD_STATIC := $(OUT)/static/$(ARCH)/microhttpd
# r-mathlib of the target architecture, unpacked (tests/vm/infra/extract-rmath.sh)
RMATH_STATIC := $(OUT)/static/$(ARCH)/rmath
STATIC_LIBS := -L$(MHD_STATIC)/lib -L$(RMATH_STATIC)/usr/lib \
	-l:libmicrohttpd.a -l:libbpf.a -l:libelf.a -l:libz.a -l:libzstd.a \
	-l:libjson-c.a -l:libseccomp.a -l:libRmath.a -lm -lpthread
static: need-deps-static
	$(MAKE) $(OUT)/static/x86/ptscope $(OUT)/static/x86/ptscope-bench \
		$(OUT)/static/x86/ptscope-cases $(OUT)/static/x86/ptscope-floor
	$(MAKE) ARCH=arm64 CC=aarch64-linux-gnu-gcc $(OUT)/static/arm64/ptscope \
		$(OUT)/static/arm64/ptscope-bench $(OUT)/static/arm64/ptscope-cases \
		$(OUT)/static/arm64/ptscope-floor

$(MHD_STATIC)/lib/libmicrohttpd.a: tests/vm/infra/build-microhttpd.sh
	./tests/vm/infra/build-microhttpd.sh $(ARCH) $(MHD_STATIC)

$(RMATH_STATIC)/usr/lib/libRmath.a: tests/vm/infra/extract-rmath.sh
	./tests/vm/infra/extract-rmath.sh $(ARCH) $(RMATH_STATIC)

$(OUT)/static/$(ARCH)/ptscope: $(LIB_OBJS) $(OUT)/$(ARCH)/main.o \
		$(MHD_STATIC)/lib/libmicrohttpd.a $(RMATH_STATIC)/usr/lib/libRmath.a
	@mkdir -p $(dir $@)
	$(CC) -static $(filter %.o,$^) -o $@ $(STATIC_LIBS)

$(OUT)/static/$(ARCH)/ptscope-bench: $(BENCH_OBJS)
	@mkdir -p $(dir $@)
	$(CC) -static $^ -o $@

$(OUT)/static/$(ARCH)/ptscope-floor: bench/ptscope-floor.c $(BPF_OUT)/floor.skel.h
	@mkdir -p $(dir $@)
	$(CC) -static $(CFLAGS) $(DEPFLAGS) $< -o $@ $(FLOOR_STATIC_LIBS)

$(OUT)/static/$(ARCH)/ptscope-cases: tests/vm/cases/mremap-cases.c
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -Wall -Wextra $(DEPFLAGS) -o $@ $<

DEPFILES += $(patsubst %,$(OUT)/static/$(ARCH)/%.d,ptscope-cases ptscope-floor)
