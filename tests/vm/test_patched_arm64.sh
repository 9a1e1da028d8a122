#!/bin/bash
# tests/vm/test_patched.sh on arm64: the patched and regression kernels
# cross-built for arm64 and booted under qemu, where contpte makes the
# lookup rules differ most.  In make check and make kernel-check.
PATCHED_ARCH=arm64 exec "$(dirname "$0")/test_patched.sh" "$@"
