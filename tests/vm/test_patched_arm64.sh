#!/bin/bash
# tests/vm/test_patched.sh on arm64: the patched and regression kernels
# cross-built for arm64 and booted under qemu.  In make kernel-check, not
# in make check: an arm64 build from an empty cache takes longer than the
# whole check may.
PATCHED_ARCH=arm64 exec "$(dirname "$0")/test_patched.sh" "$@"
