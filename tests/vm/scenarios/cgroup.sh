#!/bin/sh
# Guest side of the cgroup v2 checks (tests/vm/checkers/check_cgroup.py), sourced
# after lib.sh (busybox sh): two cgroups under one parent, a workload in
# each, seen by "ptscope stat --json" three ways: all of it, --cgroup on
# one cgroup, --cgroup on the parent.  The caller sets $mode (and $extra).
# shellcheck disable=SC2154 # mode: set by the caller

CG_ROOT=/sys/fs/cgroup
CG_PARENT=$CG_ROOT/ptscope-cg
CG_A=$CG_PARENT/a
CG_B=$CG_PARENT/b

# cgroup v2 where ptscope looks first; the initramfs mounts nothing there
cgroup_mount() {
	grep -q "^[^ ]* $CG_ROOT cgroup2 " /proc/mounts && return 0
	mkdir -p $CG_ROOT
	mount -t cgroup2 none $CG_ROOT
}

# in a: three PMD-aligned 16 MiB moves (24 PMD entries); in b: one (8)
cgroup_workloads() {
	echo "sh -c 'echo \$\$ >$CG_A/cgroup.procs && exec ptscope-bench mremap --size 16M --align pmd --thp never --count 3' &" \
		"sh -c 'echo \$\$ >$CG_B/cgroup.procs && exec ptscope-bench mremap --size 16M --align pmd --thp never --count 1' &" \
		"wait"
}

# the ids the reports must carry: each directory's inode number
cgroup_ids() {
	for dir in $CG_A $CG_B; do
		# shellcheck disable=SC2046 # "INODE PATH": two words wanted
		set -- $(ls -di "$dir")
		echo "${dir#"$CG_ROOT"} $1"
	done >/tmp/cgroup-ids.txt
	block cgroupids "mode=$mode scenario=cgroup" /tmp/cgroup-ids.txt
}

cgroup_scenarios() {
	saved_extra=$extra
	if ! cgroup_mount || ! mkdir -p $CG_A $CG_B; then
		echo "cannot mount cgroup2 or make $CG_A $CG_B" >/tmp/stat.err
		block error "mode=$mode scenario=cgroup" /tmp/stat.err
		return 0
	fi
	cgroup_ids
	work=$(cgroup_workloads)
	run cgroup sh -c "$work"
	extra="$saved_extra --cgroup /ptscope-cg/a"
	run cgroup_a sh -c "$work"
	extra="$saved_extra --cgroup $CG_PARENT"
	run cgroup_parent sh -c "$work"
	extra=$saved_extra
	rmdir $CG_A $CG_B $CG_PARENT
}
