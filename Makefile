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
# The one place the version is written is debian/changelog's first entry
# (dch -v VERSION): ptscope --version, the installed man page, the package
# and the image take it from there.
VERSION := $(shell sed -n '1s/^ptscope (\([^)-]*\).*/\1/p' debian/changelog)
VERSION_DEF := -DPTSCOPE_VERSION='"$(VERSION)"'
CFLAGS ?= -O2 -g
CFLAGS += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Iinclude -I$(BPF_OUT) -Isrc \
	$(VERSION_DEF)
# libRmath (R's standalone math library: the t distribution of diff) is
# linked statically: Debian ships it for /usr/lib only, with no shlibs
LDLIBS := -lbpf -lelf -lz -ljson-c -lmicrohttpd -lseccomp -l:libRmath.a -lm
# user-space compiles also write what they include beside their output
# (.d, included at the end): a header change rebuilds only its users
DEPFLAGS := -MMD -MP
BPF_CFLAGS := -g -O2 -target bpf -D__TARGET_ARCH_$(ARCH) -Ivmlinux/$(ARCH) -Iinclude -Ibpf

BPF_NAMES := mremap thp task
# each object twice: as written, and NAME_fallback for kernels without
# task-local storage or bpf_loop() (-DPTS_BPF_FALLBACK, bpf/ptscope.bpf.h)
BPF_BUILDS := $(BPF_NAMES) $(patsubst %,%_fallback,$(BPF_NAMES))
BPF_OBJS := $(patsubst %,$(BPF_OUT)/%.bpf.o,$(BPF_BUILDS))
SKELS := $(patsubst %,$(BPF_OUT)/%.skel.h,$(BPF_BUILDS))
BPF_DEPS := bpf/ptscope.bpf.h bpf/pgtable.bpf.h bpf/mremap_classes.bpf.h \
	bpf/mremap_levels.bpf.h bpf/mremap_batch.bpf.h include/ptscope/ptscope.h \
	include/ptscope/counters.h include/ptscope/log2.h vmlinux/$(ARCH)/vmlinux.h
# one directory per layer; a layer includes only the ones below it:
# engine (attach) <- data (maps to meaning) <- maps (ptscope maps' page
# readers) <- tracer (engine and data attached as one) <- export <- views
# <- main.c
ENGINE_SRCS := $(wildcard src/engine/*.c)
DATA_SRCS := $(wildcard src/data/*.c)
MAPS_SRCS := $(wildcard src/maps/*.c)
TRACER_SRCS := $(wildcard src/tracer/*.c)
EXPORT_SRCS := $(wildcard src/export/*.c)
RENDER_SRCS := $(wildcard src/render/*.c)
VIEW_SRCS := $(wildcard src/views/*.c)
LIB_SRCS := $(ENGINE_SRCS) $(DATA_SRCS) $(MAPS_SRCS) $(TRACER_SRCS) \
	$(EXPORT_SRCS) $(RENDER_SRCS) $(VIEW_SRCS)
LIB_OBJS := $(patsubst src/%.c,$(OUT)/$(ARCH)/%.o,$(LIB_SRCS))
PTSCOPE := $(OUT)/ptscope
# the workload driver: its dispatch, one file per workload family and
# the parts they share (bench/bench_common.h)
BENCH := $(OUT)/ptscope-bench
BENCH_SRCS := bench/ptscope-bench.c $(wildcard bench/bench_*.c)
BENCH_OBJS := $(patsubst bench/%.c,$(OUT)/$(ARCH)/bench/%.o,$(BENCH_SRCS))
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
# make image: one OCI archive in $(IMAGE_OUT) holding an image index of
# two images, linux/amd64 and linux/arm64, each the static binary of its
# architecture, the dashboards and the rules on an empty base; the
# index's digest beside it (deploy/image/build.sh)
IMAGE_OUT := $(OUT)/image
# the qemu kernel matrix (kernels come from tests/vm/infra/fetch-kernel.sh);
# VM_KERNELS: the kernels of tests/vm/infra/kernels.tsv unless given
DEPS_VM_PKGS := qemu-system-x86 qemu-system-arm busybox-static cpio zstd lz4 \
	binutils
VM_KERNELS ?= $(shell tests/vm/infra/kernels.sh '*' label)
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
# runs it with runc (crun refuses hybrid cgroup hosts) and plays the
# DaemonSet's pod, whose pause container needs catatonit
# (tests/host/test_image.sh); qemu-user-static runs the arm64 binary;
# debootstrap makes the clean Debian 12 that tests/host/test_deb_chroot.sh
# installs the .deb into.  npm installs the pinned Kubernetes and
# Prometheus Operator schemas that tests/tree/test_manifests.sh validates
# deploy/kubernetes/ with, into /var/cache/ptscope
# (deploy/kubernetes/validate/install.sh) (npm comes with this machine's
# nodejs; dpkg-dev: dpkg-source, for the static binary's libmicrohttpd)
DEPS_IMAGE_PKGS := buildah skopeo umoci podman runc catatonit \
	qemu-user-static debootstrap docker-registry nodejs dpkg-dev:all

.SECONDARY:

.PHONY: all install install-bench deb image clean version man

all: $(PTSCOPE) $(BENCH) $(CASES) $(FLOOR)

$(BPF_OUT)/%.bpf.o: bpf/%.bpf.c $(BPF_DEPS)
	@mkdir -p $(BPF_OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(BPF_OUT)/%_fallback.bpf.o: bpf/%.bpf.c $(BPF_DEPS)
	@mkdir -p $(BPF_OUT)
	$(CLANG) $(BPF_CFLAGS) -DPTS_BPF_FALLBACK -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(BPF_OUT)/floor.bpf.o: bench/floor.bpf.c vmlinux/$(ARCH)/vmlinux.h
	@mkdir -p $(BPF_OUT)
	$(CLANG) $(BPF_CFLAGS) -c $< -o $@.tmp
	$(LLVM_STRIP) -g $@.tmp -o $@ && rm -f $@.tmp

$(BPF_OUT)/%.skel.h: $(BPF_OUT)/%.bpf.o
	$(BPFTOOL) gen skeleton $< name $*_bpf > $@

# $(call compile,DIR,COMMAND): the objects DIR/%.o of src/%.c, built by
# COMMAND (compiler and flags) for one flavour: native (and static) here,
# san and fuzz in mk/tests.mk.  The sources include the skeletons, so they
# come first; after that the .d files list what each object includes.
define compile
$(1)/%.o: src/%.c | $$(SKELS)
	@mkdir -p $$(@D)
	$(2) $$(DEPFLAGS) -c $$< -o $$@
endef

$(eval $(call compile,$(OUT)/$(ARCH),$$(CC) $$(CPPFLAGS) $$(CFLAGS)))

# main.c prints the version: a new changelog entry rebuilds it
$(OUT)/$(ARCH)/main.o $(SAN_OUT)/$(ARCH)/main.o: debian/changelog

$(PTSCOPE): $(LIB_OBJS) $(OUT)/$(ARCH)/main.o
	$(CC) $(CFLAGS) $^ -o $@ $(LDFLAGS) $(LDLIBS)

# libc only, no CFLAGS: the static links (mk/static.mk) take these objects
$(OUT)/$(ARCH)/bench/%.o: bench/%.c
	@mkdir -p $(@D)
	$(CC) -O2 -Wall -Wextra $(DEPFLAGS) -c $< -o $@

$(BENCH): $(BENCH_OBJS)
	$(CC) $^ -o $@

# the seeded mremap case generator of the differential level test
$(CASES): tests/vm/cases/mremap-cases.c
	@mkdir -p $(OUT)
	$(CC) -O2 -Wall -Wextra $(DEPFLAGS) -o $@ $<

$(FLOOR): bench/ptscope-floor.c $(BPF_OUT)/floor.skel.h
	@mkdir -p $(OUT)
	$(CC) $(CFLAGS) $(DEPFLAGS) $< -o $@ $(FLOOR_LIBS)

# What a box that runs ptscope needs: the binary, its man page, the
# dashboards and rules (dashboards/*.json, *.yml), the bash completion.
# debian/rules installs exactly this; install-bench adds the workloads.
DASHBOARDS := $(wildcard dashboards/*.json dashboards/*.yml)
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
# the man page with the version in its header
$(OUT)/ptscope.8: man/ptscope.8 debian/changelog
	@mkdir -p $(OUT)
	sed '1s/^\(\.TH PTSCOPE 8 "[^"]*"\) "ptscope"/\1 "ptscope $(VERSION)"/' $< >$@

man: $(OUT)/ptscope.8

# what the one version is (tests, scripts)
version:
	@echo $(VERSION)

install: $(PTSCOPE) $(OUT)/ptscope.8
	install -D -m 0755 $(PTSCOPE) $(DESTDIR)$(PREFIX)/sbin/ptscope
	install -D -m 0644 $(OUT)/ptscope.8 $(DESTDIR)$(PREFIX)/share/man/man8/ptscope.8
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
DEB_OUT := $(OUT)/deb
deb: need-deps need-deps-deb
	@git rev-parse --git-dir >/dev/null || \
		{ echo "make deb: needs a git checkout (it packages the files git lists)" >&2; exit 1; }
	rm -rf $(DEB_OUT) && mkdir -p $(DEB_OUT)/src
	{ git ls-files -z --cached --others --exclude-standard; \
	  git ls-files -z --deleted; } | sort -z | uniq -zu | \
		tar --null -T - -cf - | tar -xf - -C $(DEB_OUT)/src
	cd $(DEB_OUT)/src && dpkg-buildpackage -us -uc
	@ls $(DEB_OUT)/*.deb

image: need-deps-image need-deps-static
	$(MAKE) ARCH=x86 $(OUT)/static/x86/ptscope
	$(MAKE) ARCH=arm64 CC=aarch64-linux-gnu-gcc $(OUT)/static/arm64/ptscope
	./deploy/image/build.sh $(VERSION) $(IMAGE_OUT) $(OUT)/static/x86/ptscope \
		$(OUT)/static/arm64/ptscope

clean:
	rm -rf $(OUT)

# what the compiler found each output to include (DEPFLAGS); the included
# files add theirs.  Only the outputs of this ARCH built so far have one.
DEPFILES := $(patsubst %.o,%.d,$(LIB_OBJS) $(OUT)/$(ARCH)/main.o $(BENCH_OBJS)) \
	$(addsuffix .d,$(CASES) $(FLOOR))

# provisioning (deps*), static builds, tests, kernels, benchmarks
include mk/deps.mk mk/static.mk mk/tests.mk mk/kernel.mk mk/bench.mk

-include $(wildcard $(DEPFILES))
