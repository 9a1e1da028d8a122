# SPDX-License-Identifier: GPL-2.0
# The patched kernels (kernel/): building them and testing them.

.PHONY: kernel kernel-check fuzz-levels

# the series must apply and pass checkpatch, then tests/vm/test_patched.sh
# builds each variant with kernel/build and boots it, for amd64 and then
# arm64
kernel-check: need-deps-vm need-deps-kernel all static
	@./tests/run.sh kernel kernel/check-patches.sh tests/vm/test_patched.sh \
		tests/vm/test_patched_arm64.sh

# long runs of the differential level test on the patched kernel
fuzz-levels: need-deps-vm need-deps-kernel all static
	@LEVELS_SEED=$(SEED) LEVELS_CASES=$(N) ./tests/run.sh levels tests/vm/fuzz_levels.sh

kernel: need-deps-kernel
	@./kernel/fetch-source.sh >/dev/null
	@for v in $(KERNEL_VARIANTS); do ./kernel/build $$v || exit 1; done
