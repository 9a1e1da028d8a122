# SPDX-License-Identifier: GPL-2.0
# Installing what ptscope needs (deps*), and checking for it (need-deps*).

.PHONY: deps deps-static deps-vm deps-kernel deps-deb deps-image need-deps \
	need-deps-static need-deps-vm need-deps-kernel need-deps-deb need-deps-image

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

# Only check, demo (the README's two commands) and deps* install packages.
# The other targets check, cheaply, for some commands and libraries that
# deps* would install (need-deps* after deps*) and name the deps target to
# run when one is missing.
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
	$(call need,deps-image,buildah skopeo umoci podman runc catatonit \
		qemu-aarch64-static debootstrap docker-registry node npm)

