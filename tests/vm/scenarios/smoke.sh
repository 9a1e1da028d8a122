#!/bin/sh
# Smoke scenario for tests/vm/smoke-test.sh: shows that the kernel booted and
# that the interfaces the eBPF tests need are present.  Runs under busybox sh.
set -e
echo "uname-r: $(uname -r)"
echo "uname-m: $(uname -m)"
echo "kallsyms-lines: $(grep -c . /proc/kallsyms)"
echo "btf: $(ls /sys/kernel/btf/vmlinux)"
echo "thp: $(cat /sys/kernel/mm/transparent_hugepage/enabled)"
echo "cmdline: $(cat /proc/cmdline)"
for m in /sys/kernel/tracing /sys/kernel/debug /sys/fs/bpf /sys/fs/cgroup; do
	echo "mount: $m $(awk -v m="$m" '$2 == m { print $3 }' /proc/mounts)"
done
if [ -x /bin/hello-static ]; then
	/bin/hello-static one two
fi
