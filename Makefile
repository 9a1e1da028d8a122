# SPDX-License-Identifier: GPL-2.0
# ptscope: live eBPF tracer of mremap page-table moves and hugepage faults.

ARCH ?= $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
CC ?= gcc
CLANG ?= clang
LLVM_STRIP ?= llvm-strip
BPFTOOL ?= bpftool
PREFIX ?= /usr/local
DESTDIR ?=

OUT := build
BPF_OUT := $(OUT)/bpf/$(ARCH)
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Iinclude -I$(BPF_OUT) -Isrc
# libRmath (R's standalone math library: the t distribution of diff) is
# linked statically: Debian ships it for /usr/lib only, with no shlibs
LDLIBS := -lbpf -lelf -lz -ljson-c -lmicrohttpd -lseccomp -l:libRmath.a -lm
# user-space compiles also write what they include beside their output
# (.d, included at the end): a header change rebuilds only its users
DEPFLAGS := -MMD -MP
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Iinclude -Ibpf

BPF_NAMES := mremap thp task
BPF_OBJS := $(patsubst %,$(BPF_OUT)/%.bpf.o,$(BPF_NAMES))
SKELS := $(patsubst %,$(BPF_OUT)/%.skel.h,$(BPF_NAMES))
# one directory per layer; a layer includes only the ones below it:
# engine (attach) <- data (maps to meaning) <- export <- views <- main.c
ENGINE_SRCS := $(wildcard src/engine/*.c)
DATA_SRCS := $(wildcard src/data/*.c)
EXPORT_SRCS := $(wildcard src/export/*.c)
VIEW_SRCS := $(wildcard src/views/*.c)
LIB_SRCS := $(ENGINE_SRCS) $(DATA_SRCS) $(EXPORT_SRCS) $(VIEW_SRCS)
LIB_OBJS := $(patsubst src/%.c,$(OUT)/$(ARCH)/%.o,$(LIB_SRCS))
PTSCOPE := $(OUT)/ptscope
BENCH := $(OUT)/ptscope-bench
CASES := $(OUT)/ptscope-cases
# the overhead bench's floor: empty programs on ptscope's hooks
FLOOR := $(OUT)/ptscope-floor
FLOOR_LIBS := -lbpf -lelf -lz -ljson-c
FLOOR_STATIC_LIBS := -l:libbpf.a -l:libelf.a -l:libz.a -l:libzstd.a \
	-l:libjson-c.a

# Debian packages ptscope needs to build, test and demo.
DEPS_PKGS := clang llvm gcc make pkg-config bpftool libbpf-dev libelf-dev \
	zlib1g-dev libzstd-dev libjson-c-dev libcmocka-dev libmicrohttpd-dev libseccomp-dev strace \
	r-mathlib \
	prometheus curl \
	python3 python3-yaml \
	bpftrace stress-ng \
	libclang-rt-14-dev
# (bpftrace, stress-ng: the comparison rows of make bench-overhead;
# libclang-rt-14-dev: clang's ASan, UBSan and libFuzzer runtimes, for the
# sanitizer and fuzz passes of make check)
DEPS_ARM64_PKGS := gcc-aarch64-linux-gnu libc6-dev-arm64-cross \
	libbpf-dev:arm64 libelf-dev:arm64 zlib1g-dev:arm64 libzstd-dev:arm64 \
	libjson-c-dev:arm64 libseccomp-dev:arm64 dpkg-dev xz-utils
# make image: an OCI archive of the static binary, the dashboards and
# the rules on an empty base, in $(IMAGE_OUT), with its digest beside it
# (deploy/image/build.sh).  Only this architecture's binary is built.
IMAGE_OUT := $(OUT)/image
VERSION := $(shell sed -n 's/^\#define PTSCOPE_VERSION "\(.*\)"/\1/p' src/main.c)
# the qemu kernel matrix (kernels come from tests/vm/fetch-kernel.sh)
DEPS_VM_PKGS := qemu-system-x86 qemu-system-arm busybox-static cpio zstd lz4 \
	binutils
VM_KERNELS ?= 6.1-amd64 6.1-arm64 6.12-amd64 6.12-arm64 7.3-amd64 7.3-arm64 \
	7.3-arm64-16k
# kernel/build: Debian's linux-source-7.3 (kernel/fetch-source.sh, from
# trixie-backports, pinned) and what building it needs, for amd64 and
# cross-compiled for arm64 (dwarves is an Architecture: all package)
DEPS_KERNEL_PKGS := flex bison dwarves:all bc libssl-dev libelf-dev git perl \
	xz-utils gcc-aarch64-linux-gnu
KERNEL_VARIANTS := stock patched regression
# make deb: debhelper and dpkg-dev build the package, lintian checks it;
# for tests/host/test_deb.sh: systemd (systemd-analyze verify, security,
# syscall-filter on the exporter's unit), bash-completion (the completion's
# helpers), libcap2-bin (capsh --decode)
DEPS_DEB_PKGS := debhelper dpkg-dev lintian systemd bash-completion \
	libcap2-bin
# make image: buildah builds it, skopeo and umoci read it back; podman
# tries to run it (tests/host/test_image.sh).  npm installs the pinned
# Kubernetes and Prometheus Operator schemas that tests/tree/
# test_manifests.sh validates deploy/kubernetes/ with, into
# /var/cache/ptscope (deploy/kubernetes/validate/install.sh)
# (npm comes with this machine's nodejs; dpkg-dev: dpkg-source, for the
# static binary's libmicrohttpd)
DEPS_IMAGE_PKGS := buildah skopeo umoci podman nodejs dpkg-dev:all

.SECONDARY:

.PHONY: fuzz-levels all deps deps-static deps-vm deps-kernel deps-deb deb \
	deps-image image need-deps need-deps-static need-deps-vm need-deps-kernel \
	need-deps-deb need-deps-image \
	install install-bench static check unit-check tree-check \
	host-check harness-check san san-check fuzz fuzz-build \
	vm-check kernel kernel-check demo bench bench-overhead bench-overhead-vm \
	bench-kernel-off \
	clean

all: $(PTSCOPE) $(BENCH) $(CASES) $(FLOOR)

deps:
	@./tests/deps.sh $(DEPS_PKGS)

deps-static: deps
	@./tests/deps.sh --arm64 $(DEPS_ARM64_PKGS)

deps-vm: deps-static
	@./tests/deps.sh $(DEPS_VM_PKGS)

deps-kernel: deps
	@./tests/deps.sh $(DEPS_KERNEL_PKGS)
	@./kernel/fetch-source.sh >/dev/null

deps-deb: deps
	@./tests/deps.sh $(DEPS_DEB_PKGS)

deps-image: deps
	@./tests/deps.sh $(DEPS_IMAGE_PKGS)
	@./deploy/kubernetes/validate/install.sh >/dev/null

# Only check, demo, deb, kernel, the bench targets and deps* install
# packages.  The other targets check, cheaply, for some commands and
# libraries that deps* would install (need-deps* after deps*) and name the
# deps target to run when one is missing.
# $(call need,DEPS-TARGET,COMMANDS,PKG-CONFIG MODULES[,PKG_CONFIG_LIBDIR])
need = @for c in $(2); do command -v $$c >/dev/null || \
		{ echo "ptscope: $$c not found: run 'make $(1)' as root" >&2; exit 1; }; \
	done; \
	for m in $(3); do $(if $(4),PKG_CONFIG_LIBDIR=$(4)) pkg-config --exists $$m || \
		{ echo "ptscope: library $$m$(if $(4), in $(4)) not found: run 'make $(1)' as root" >&2; \
		  exit 1; }; \
	done

need-deps:
	$(call need,deps,$(CC) $(CLANG) $(LLVM_STRIP) $(BPFTOOL) pkg-config strace \
		promtool curl python3,libbpf libelf zlib libzstd json-c libmicrohttpd \
		libseccomp libRmath cmocka)

need-deps-static: need-deps
	$(call need,deps-static,aarch64-linux-gnu-gcc dpkg-source xz,libbpf libelf \
		zlib libzstd json-c libseccomp,/usr/lib/aarch64-linux-gnu/pkgconfig)

need-deps-vm: need-deps-static
	$(call need,deps-vm,qemu-system-x86_64 qemu-system-aarch64 busybox cpio \
		zstd lz4 objcopy)

need-deps-kernel: need-deps
	$(call need,deps-kernel,flex bison pahole bc git perl aarch64-linux-gnu-gcc,openssl)

need-deps-deb: need-deps
	$(call need,deps-deb,dpkg-buildpackage dh lintian systemd-analyze capsh)

need-deps-image: need-deps
	$(call need,deps-image,buildah skopeo umoci podman node npm)

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c bpf/ptscope.bpf.h include/ptscope/ptscope.h include/ptscope/log2.h vmlinux/$(ARCH)/vmlinux.h
	@mkdir -p $(BPF_OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(BPF_OUT)/floor.bpf.o: bench/floor.bpf.c vmlinux/$(ARCH)/vmlinux.h
	@mkdir -p $(BPF_OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# $(call compile,DIR,COMMAND): the objects DIR/%.o of src/%.c, built by
# COMMAND (compiler and flags) for one flavour: native (and static), san,
# fuzz.  The sources include the skeletons, so they come first; after
# that the .d files list what each object includes.
define compile
$(1)/%.o: src/%.c | $$(SKELS)
	@mkdir -p $$(@D)
	$(2) $$(DEPFLAGS) -c $$< -o $$@
endef

$(eval $(call compile,$(OUT)/$(ARCH),$$(CC) $$(CPPFLAGS) $$(CFLAGS)))

$(PTSCOPE): $(LIB_OBJS) $(OUT)/$(ARCH)/main.o
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

$(BENCH): bench/ptscope-bench.c
	@mkdir -p $(OUT)
	$(CC) -O2 -Wall -Wextra $(DEPFLAGS) -o $@ $<

# the seeded mremap case generator of the differential level test
$(CASES): bench/mremap-cases.c
	@mkdir -p $(OUT)
	$(CC) -O2 -Wall -Wextra $(DEPFLAGS) -o $@ $<

$(FLOOR): bench/ptscope-floor.c $(BPF_OUT)/floor.skel.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) $(DEPFLAGS) $< -o $@ $(FLOOR_LIBS)

# Static binaries for the qemu kernel matrix (x86_64 and aarch64).
# Debian's libmicrohttpd.a needs GnuTLS and so p11-kit, which Debian ships
# no static library of: a TLS-less one is built from Debian's source.
MHD_STATIC := $(OUT)/static/$(ARCH)/microhttpd
# r-mathlib of the target architecture, unpacked (tests/vm/extract-rmath.sh)
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

$(MHD_STATIC)/lib/libmicrohttpd.a: tests/vm/build-microhttpd.sh
	./tests/vm/build-microhttpd.sh $(ARCH) $(MHD_STATIC)

$(RMATH_STATIC)/usr/lib/libRmath.a: tests/vm/extract-rmath.sh
	./tests/vm/extract-rmath.sh $(ARCH) $(RMATH_STATIC)

$(OUT)/static/$(ARCH)/ptscope: $(LIB_OBJS) $(OUT)/$(ARCH)/main.o \
		$(MHD_STATIC)/lib/libmicrohttpd.a $(RMATH_STATIC)/usr/lib/libRmath.a
	@mkdir -p $(dir $@)
	$(CC) -static $(filter %.o,$^) -o $@ $(STATIC_LIBS)

$(OUT)/static/$(ARCH)/ptscope-bench: bench/ptscope-bench.c
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -Wall -Wextra $(DEPFLAGS) -o $@ $<

$(OUT)/static/$(ARCH)/ptscope-floor: bench/ptscope-floor.c $(BPF_OUT)/floor.skel.h
	@mkdir -p $(dir $@)
	$(CC) -static $(CFLAGS) $(DEPFLAGS) $< -o $@ $(FLOOR_STATIC_LIBS)

$(OUT)/static/$(ARCH)/ptscope-cases: bench/mremap-cases.c
	@mkdir -p $(dir $@)
	$(CC) -static -O2 -Wall -Wextra $(DEPFLAGS) -o $@ $<

UNIT_TESTS := test_hist test_options test_engine test_catalog test_format test_diff test_stats test_prom \
	test_schema test_listen test_httpd test_mapscan test_cgroup test_selfcheck \
	test_kube
UNIT_BINS := $(patsubst %,$(OUT)/tests/%,$(UNIT_TESTS))

$(OUT)/tests/%: tests/unit/%.c $(LIB_OBJS)
	@mkdir -p $(OUT)/tests
	$(CC) $(CFLAGS) $(DEPFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

unit-check: need-deps $(UNIT_BINS)
	@./tests/run.sh unit $(UNIT_BINS)

# Sanitizer build: the unit tests and ptscope once more through clang's
# AddressSanitizer and UndefinedBehaviorSanitizer, in $(SAN_OUT); make
# check runs the unit and host tests again with them.  Any report ends the
# process with exit code 86 and is also written under $(SAN_LOGS), which
# tests/san/check_reports.sh turns into a failed test (a host test that
# expects exit 1 would not notice the exit code alone).  LeakSanitizer
# works as root here (it needs ptrace-like access to the process's own
# threads, which this box allows), so leaks are reported too.
SAN_OUT := $(OUT)/asan
SAN_LOGS := $(SAN_OUT)/reports
SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
SAN_CFLAGS := -O1 -g $(SAN_FLAGS) -std=gnu11 -Wall -Wextra \
	-Wno-unused-parameter -Wno-missing-field-initializers -Iinclude \
	-I$(BPF_OUT) -Isrc
SAN_LIB_OBJS := $(patsubst src/%.c,$(SAN_OUT)/$(ARCH)/%.o,$(LIB_SRCS))
SAN_PTSCOPE := $(SAN_OUT)/ptscope
SAN_UNIT_BINS := $(patsubst %,$(SAN_OUT)/tests/%,$(UNIT_TESTS))
SAN_ENV := ASAN_OPTIONS=halt_on_error=1:exitcode=86:detect_leaks=1:log_path=$(abspath $(SAN_LOGS))/asan \
	UBSAN_OPTIONS=halt_on_error=1:exitcode=86:print_stacktrace=1:log_path=$(abspath $(SAN_LOGS))/ubsan \
	LSAN_OPTIONS=exitcode=86 PTSCOPE_SAN_LOGS=$(abspath $(SAN_LOGS))
# tests/run.sh arguments: the sanitizer pass over unit and host tests
# (not test_deb.sh nor test_image.sh: they test the package's and the
# image's own ptscope, never $(PTSCOPE))
SAN_RUN := --suite asan $(SAN_ENV) PTSCOPE=$(SAN_PTSCOPE) $(SAN_UNIT_BINS) \
	$(filter-out tests/host/test_deb.sh tests/host/test_image.sh,$(wildcard tests/host/test_*.sh)) \
	tests/san/check_reports.sh

$(eval $(call compile,$(SAN_OUT)/$(ARCH),$$(CLANG) $$(SAN_CFLAGS)))

$(SAN_PTSCOPE): $(SAN_LIB_OBJS) $(SAN_OUT)/$(ARCH)/main.o
	$(CLANG) $(SAN_FLAGS) $^ -o $@ $(LDLIBS)

$(SAN_OUT)/tests/%: tests/unit/%.c $(SAN_LIB_OBJS)
	@mkdir -p $(SAN_OUT)/tests
	$(CLANG) $(SAN_CFLAGS) $(DEPFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS) -lcmocka

san: $(SAN_PTSCOPE) $(SAN_UNIT_BINS)

# the sanitizer pass alone: unit tests, then the host tests with its ptscope
san-check: need-deps san all
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@./tests/run.sh asan $(SAN_RUN)

# tests/run.sh itself: short, planless or dying runs must turn it red
HARNESS_TESTS := tests/harness/test_run.sh tests/vm/test_harness.sh
harness-check:
	@./tests/run.sh harness $(HARNESS_TESTS)

# the source tree: no layer includes one above it (docs/layout.md); the
# Prometheus rules pass promtool and their unit tests, and name only
# families of the source; the Kubernetes manifests pass their schemas
# (the validator comes with deps-image)
TREE_TESTS := tests/tree/test_layers.sh tests/tree/test_rules.sh tests/tree/test_docs.sh \
	tests/tree/test_manifests.sh
tree-check: need-deps-image
	@./tests/run.sh tree $(TREE_TESTS)

host-check: need-deps need-deps-deb need-deps-image all
	@./tests/run.sh host tests/host/test_*.sh

vm-check: need-deps-vm static
	@VM_KERNELS="$(VM_KERNELS)" ./tests/run.sh vm tests/vm/test_matrix.sh

# The patched kernels (kernel/): the series must apply and pass checkpatch,
# then tests/vm/test_patched.sh builds each variant with kernel/build and
# boots it.
kernel-check: need-deps-vm need-deps-kernel all static
	@./tests/run.sh kernel kernel/check-patches.sh tests/vm/test_patched.sh

# long runs of the differential level test on the patched kernel
fuzz-levels: need-deps-vm need-deps-kernel all static
	@LEVELS_SEED=$(SEED) LEVELS_CASES=$(N) ./tests/run.sh levels tests/vm/fuzz_levels.sh

kernel: deps-kernel
	@for v in $(KERNEL_VARIANTS); do ./kernel/build $$v || exit 1; done

# libFuzzer targets, tests/fuzz/NAME.c, each run for FUZZ_SECONDS over a
# copy of its seed corpus tests/fuzz/corpus/NAME/ by tests/fuzz/run.sh,
# which reports TAP ("ok N - fuzz_diff 20 s, X runs").  Add new targets
# (fuzz_http for the HTTP path) to FUZZ_TARGETS.  The library sources are
# built with coverage and sanitizers into $(FUZZ_OUT)/$(ARCH).
FUZZ_TARGETS := fuzz_diff fuzz_options fuzz_listen fuzz_http
FUZZ_SECONDS ?= 20
FUZZ_OUT := $(OUT)/fuzz
FUZZ_CFLAGS := -O1 -g -fsanitize=fuzzer-no-link,address,undefined \
	-fno-sanitize-recover=all -fno-omit-frame-pointer -std=gnu11 -Wall \
	-Wextra -Wno-unused-parameter -Wno-missing-field-initializers \
	-Iinclude -I$(BPF_OUT) -Isrc
FUZZ_LIB_OBJS := $(patsubst src/%.c,$(FUZZ_OUT)/$(ARCH)/%.o,$(LIB_SRCS))
FUZZ_BINS := $(patsubst %,$(FUZZ_OUT)/%,$(FUZZ_TARGETS))
# tests/run.sh arguments: the fuzz pass
FUZZ_RUN := --suite fuzz FUZZ_BIN=$(abspath $(FUZZ_OUT)) \
	FUZZ_SECONDS=$(FUZZ_SECONDS) "FUZZ_TARGETS=$(FUZZ_TARGETS)" \
	tests/fuzz/run.sh

$(eval $(call compile,$(FUZZ_OUT)/$(ARCH),$$(CLANG) $$(FUZZ_CFLAGS)))

$(FUZZ_OUT)/%: tests/fuzz/%.c $(FUZZ_LIB_OBJS)
	$(CLANG) $(FUZZ_CFLAGS) -fsanitize=fuzzer $(DEPFLAGS) $(filter %.c %.o,$^) -o $@ $(LDLIBS)

fuzz-build: $(FUZZ_BINS)

fuzz: need-deps fuzz-build
	@./tests/run.sh fuzz $(FUZZ_RUN)

check: deps-vm deps-kernel deps-deb deps-image
	$(MAKE) all $(UNIT_BINS) san fuzz-build
	$(MAKE) static
	@rm -rf $(SAN_LOGS) && mkdir -p $(SAN_LOGS)
	@VM_KERNELS="$(VM_KERNELS)" ./tests/run.sh all $(HARNESS_TESTS) $(TREE_TESTS) $(UNIT_BINS) \
		tests/host/test_*.sh tests/vm/test_matrix.sh \
		kernel/check-patches.sh tests/vm/test_patched.sh \
		$(SAN_RUN) $(FUZZ_RUN)

demo: deps all
	./bench/demo.sh

# The upstream experiment: 1 GiB remapped at PUD, PMD and page alignment,
# user-side times from the bench, kernel-side times from ptscope.
bench: deps all
	./bench/bench.sh
	./bench/bench-thp.sh

# What tracing adds per mremap and per fault: no tracer, the floor (empty
# programs on ptscope's hooks), ptscope top/export/stat and bpftrace, one
# interleaved run of ROUNDS rounds; tables on stdout, rows in build/bench/.
ROUNDS ?= 5
bench-overhead: deps all
	./bench/overhead.sh --rounds $(ROUNDS)

# the same inside one qemu kernel (fentry and kprobe modes), ratios only
KERNEL ?= 6.12-amd64
VM_ROUNDS ?= 3
bench-overhead-vm: deps-vm static
	./tests/vm/bench_overhead.sh $(KERNEL) $(VM_ROUNDS)

# what the tracepoint series costs while off: stock 7.3 against patched,
# booted in turn (bench/kernel-off.sh), ROUNDS pairs of boots
bench-kernel-off: deps-vm deps-kernel static
	./bench/kernel-off.sh $(ROUNDS)

# What a box that runs ptscope needs: the binary, its man page, the
# dashboards and rules (dashboards/*.json, *.yml), the bash completion.
# debian/rules installs exactly this; install-bench adds the workloads.
DASHBOARDS := $(wildcard dashboards/*.json dashboards/*.yml)
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
install: $(PTSCOPE)
	install -D -m 0755 $(PTSCOPE) $(DESTDIR)$(PREFIX)/sbin/ptscope
	install -D -m 0644 man/ptscope.8 $(DESTDIR)$(PREFIX)/share/man/man8/ptscope.8
	install -d $(DESTDIR)$(PREFIX)/share/ptscope
	install -m 0644 $(DASHBOARDS) $(DESTDIR)$(PREFIX)/share/ptscope/
	install -D -m 0644 completions/ptscope $(DESTDIR)$(BASHCOMPDIR)/ptscope

install-bench: $(BENCH) $(FLOOR)
	install -D -m 0755 $(BENCH) $(DESTDIR)$(PREFIX)/bin/ptscope-bench
	install -D -m 0755 $(FLOOR) $(DESTDIR)$(PREFIX)/bin/ptscope-floor

# The Debian package (debian/), ptscope_VERSION_ARCH.deb in build/deb/,
# with the source package (.dsc, .tar.xz) and the .changes that lintian
# reads both from.  dpkg-buildpackage writes its results next to the
# source directory, so it builds a copy of the tree (the files git tracks,
# and new ones it does not ignore, as they are now) in build/deb/src: the
# checkout stays clean and the package never holds a stale build/.
# debian/rules checks that src/main.c, debian/changelog and the man page
# name one version.
DEB_OUT := $(OUT)/deb
deb: deps deps-deb
	@git rev-parse --git-dir >/dev/null || \
		{ echo "make deb: needs a git checkout (it packages the files git lists)" >&2; exit 1; }
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src
	{ git ls-files -z --cached --others --exclude-standard; \
	  git ls-files -z --deleted; } | sort -z | uniq -zu | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_OUT)/src
	cd $(DEB_OUT)/src && dpkg-buildpackage -us -uc
	@ls $(DEB_OUT)/*.deb

image: need-deps-image
	$(MAKE) $(OUT)/static/$(ARCH)/ptscope
	./deploy/image/build.sh $(OUT)/static/$(ARCH)/ptscope $(VERSION) $(IMAGE_OUT)

clean:
	rm -rf $(OUT)

# what the compiler found each output to include (DEPFLAGS), for the
# outputs of this ARCH built so far
DEPFILES := $(patsubst %.o,%.d,$(LIB_OBJS) $(OUT)/$(ARCH)/main.o \
	$(SAN_LIB_OBJS) $(SAN_OUT)/$(ARCH)/main.o $(FUZZ_LIB_OBJS)) \
	$(addsuffix .d,$(BENCH) $(CASES) $(FLOOR) $(UNIT_BINS) \
	$(SAN_UNIT_BINS) $(FUZZ_BINS) \
	$(patsubst %,$(OUT)/static/$(ARCH)/%,ptscope-bench ptscope-cases ptscope-floor))
-include $(wildcard $(DEPFILES))
