#!/bin/sh
# Guest-side helpers shared by the VM scenarios (sourced, busybox sh).
# A scenario sets $mode, then calls run/scenario/fault_scenarios; each
# report is printed in an @@BEGIN/@@END block for the host to check.

THP=/sys/kernel/mm/transparent_hugepage

block() {	# block KIND ATTRS FILE
	echo "@@BEGIN $1 $2"
	cat "$3"
	echo "@@END"
}

# run NAME CMD...: one ptscope stat run, reported as scenario NAME;
# $extra holds more ptscope options (unquoted: words)
run() {
	name=$1
	shift
	# shellcheck disable=SC2086
	if ptscope stat --json --mode "$mode" $extra -o /tmp/stat.json -- \
		"$@" >/tmp/bench.out 2>/tmp/stat.err; then
		block stat "mode=$mode scenario=$name" /tmp/stat.json
		block bench "mode=$mode scenario=$name" /tmp/bench.out
	else
		block error "mode=$mode scenario=$name" /tmp/stat.err
	fi
}

# scenario NAME MREMAP-ARGS...
scenario() {
	name=$1
	shift
	run "$name" ptscope-bench mremap "$@"
}

set_size() {	# set_size SIZE_KB VALUE, where the kernel has the size (6.8+)
	[ -w "$THP/hugepages-$1kB/enabled" ] && echo "$2" >"$THP/hugepages-$1kB/enabled"
	return 0
}

# geometry: the page-table geometry of the running kernel, from its page
# size (ptscope-bench geometry: busybox has no getconf), in KiB: PAGE_KB,
# PMD_KB (a page of 8-byte entries: 2 MiB with 4 KiB pages, 32 MiB with
# 16 KiB), PUD_KB (1 GiB, 64 GiB).  A PUD-sized region is written in full
# when two of them fit in RAM, else one page per PMD (POP_PUD=sparse:
# 64 GiB with 16 KiB pages in a 4 GiB VM; a PUD move needs the entry
# present, not the memory).  Prints @@GEOMETRY for check_matrix.py.
geometry() {
	[ -n "$PAGE_KB" ] && return 0
	geo=$(ptscope-bench geometry) || return 1
	for word in $geo; do
		case $word in
		page=*) PAGE_KB=$((${word#*=} / 1024)) ;;
		pmd=*) PMD_KB=$((${word#*=} / 1024)) ;;
		pud=*) PUD_KB=$((${word#*=} / 1024)) ;;
		esac
	done
	mem_kb=$(awk '/^MemTotal:/ { print $2 }' /proc/meminfo)
	POP_PUD=full
	[ $((2 * PUD_KB)) -gt "$mem_kb" ] && POP_PUD=sparse
	echo "@@GEOMETRY $geo populate_pud=$POP_PUD"
}

# the mremap scenarios whose level counts check_matrix.py knows, sized
# from the geometry (the 4 KiB-page sizes in brackets): pud one PUD [1G],
# pmd and huge_pmd 8 PMDs [16M], pte half a PTE table and 3 pages [1036K],
# off4k one PUD moved a page off, mixed a PUD, 2 PMDs and 3 pages
# [1052684K], split 2 PMDs moved a page off [4M]
mremap_scenarios() {
	geometry
	scenario pud --size "${PUD_KB}K" --align pud --thp never --count 1 \
		--populate "$POP_PUD"
	scenario pmd --size "$((8 * PMD_KB))K" --align pmd --thp never --count 1
	scenario huge_pmd --size "$((8 * PMD_KB))K" --align pmd --thp always --count 1
	scenario pte --size "$(((PAGE_KB * 64 + 3) * PAGE_KB))K" --align page \
		--thp never --count 1
	scenario off4k --size "${PUD_KB}K" --align pud --dst-offset "${PAGE_KB}K" \
		--thp never --count 1 --populate "$POP_PUD"
	scenario mixed --size "$(mixed_kb)K" --align pud --thp never --count 1 \
		--populate "$POP_PUD"
	scenario split --size "$((2 * PMD_KB))K" --align pmd --dst-offset "${PAGE_KB}K" \
		--thp always --count 1
}

# the mremap classes alone, where no attach mode gives the level breakdown
# (5.10): the syscall's class and bytes need only the syscall
class_scenarios() {
	geometry
	scenario pmd --size "$((8 * PMD_KB))K" --align pmd --thp never --count 1
	scenario pte --size "$(((PAGE_KB * 64 + 3) * PAGE_KB))K" --align page \
		--thp never --count 1
}

mixed_kb() {	# a PUD, 2 PMDs and 3 pages: each level moves
	echo $((PUD_KB + 2 * PMD_KB + 3 * PAGE_KB))
}

# Hugepage faults; the kernel's counters over each run are in the report.
# Sized in PMDs [4 KiB pages: 2 MiB]; the mTHP size is 64 KiB on any page
# size that has it (order 4 with 4 KiB pages, 2 with 16 KiB).
fault_scenarios() {
	geometry
	set_size "$PMD_KB" inherit
	set_size 64 never
	run fault_pmd ptscope-bench fault --size "$((4 * PMD_KB))K" --count 2 --thp always
	run fault_zero ptscope-bench fault --size "$((4 * PMD_KB))K" --count 1 \
		--thp always --read --stride "${PMD_KB}K"
	if [ -d "$THP/hugepages-64kB" ]; then
		set_size 64 always
		# 1 MiB is too small for a PMD: 16 x 64 KiB each, no madvise
		run fault_mthp ptscope-bench fault --size 1M --count 4 --thp default
		set_size 64 never
	fi
	# a memcg too small for more than two PMD folios: the others fall
	# back on the charge (high orders never OOM-kill, order 0 fits)
	cg=/sys/fs/cgroup/ptscope
	mkdir -p $cg
	echo +memory >/sys/fs/cgroup/cgroup.subtree_control
	echo "$((PMD_KB * 5 / 2))K" >$cg/memory.max
	run fault_charge sh -c "echo \$\$ >$cg/cgroup.procs && exec ptscope-bench fault --size $((16 * PMD_KB))K --count 1 --thp always --stride ${PMD_KB}K"
}

# scrape OUT [PORT]: GET /metrics of a local ptscope (top --listen, export);
# not "wget -T": it crashes Debian 12's busybox 1.35 (SIGSEGV)
scrape() {
	timeout 30 wget -q -O "$1" "http://127.0.0.1:${2:-9477}/metrics" ||
		echo "scrape failed: wget exit $?" >>"$1"
}

# wait_tracing ERRFILE: until ptscope says it is attached (300 s at most);
# false, with a note in ERRFILE, if it never did.  Remove ERRFILE before
# starting ptscope in the background: the shell may look before the child
# truncates it, and an earlier run's "tracing" line would let the workload
# start before the probes are attached (it did, in the kprobe runs that
# followed a fentry run).
wait_tracing() {
	i=0
	while ! grep -qs 'tracing, Ctrl-C' "$1"; do
		if [ $i -ge 300 ]; then
			echo "scenario: not tracing after $i s" >>"$1"
			return 1
		fi
		sleep 1
		i=$((i + 1))
	done
}

# probe MODE: the metric table as JSON, and as text in /tmp/probe.txt
probe() {
	# shellcheck disable=SC2086
	ptscope probe --json --mode "$1" $extra >/tmp/probe.json 2>/tmp/probe.err
	block probe "mode=$1" /tmp/probe.json
	# shellcheck disable=SC2086
	ptscope probe --mode "$1" $extra >/tmp/probe.txt 2>&1
}

# cmdline_value KEY DEFAULT: ptscope.KEY=VALUE from the kernel command line
cmdline_value() {
	for word in $(cat /proc/cmdline); do
		case $word in
		"ptscope.$1="*) echo "${word#*=}"; return ;;
		esac
	done
	echo "$2"
}

# levels_cases MODE: the seeded mremap cases (ptscope-cases) under one
# ptscope snoop of MODE; the host compares the per-call level breakdowns
# across modes and with the geometry (tests/vm/checkers/check_levels.py).  The seed
# and the number of cases come from the kernel command line.
levels_cases() {
	seed=$(cmdline_value seed 1)
	count=$(cmdline_value cases 300)
	rm -f /tmp/snoop.err	# see wait_tracing
	# shellcheck disable=SC2086
	ptscope snoop --json --mode "$1" -c ptscope-cases $extra \
		-o /tmp/snoop.json 2>/tmp/snoop.err &
	spid=$!
	if wait_tracing /tmp/snoop.err; then
		ptscope-cases --seed "$seed" --count "$count" >/tmp/cases.out 2>&1
		echo "cases exit $?" >>/tmp/cases.out
	else
		echo "cases not run: snoop not tracing" >/tmp/cases.out
	fi
	sleep 1
	kill -INT $spid
	wait $spid
	echo "snoop exit $?" >>/tmp/snoop.err
	block cases "mode=$1 scenario=levels" /tmp/cases.out
	block snoop "mode=$1 scenario=levels" /tmp/snoop.json
	block snooperr "mode=$1 scenario=levels" /tmp/snoop.err
}

# kernel_at_least MAJOR MINOR: the running release is MAJOR.MINOR or newer
kernel_at_least() {
	release=$(uname -r)
	major=${release%%.*}
	minor=${release#*.}
	minor=${minor%%[!0-9]*}
	[ "$major" -gt "$1" ] || { [ "$major" -eq "$1" ] && [ "$minor" -ge "$2" ]; }
}

# 6.17+ only.  multi: one mremap() moving three VMAs (two PMD spans, half
# a PMD span plus three pages, one PMD span).  batch_mthp / batch_pages:
# the same PTE-level move (source PMD aligned, destination one contpte
# block past a PMD boundary: congruent modulo the block, not modulo the
# PMD) over mTHP folios of an arm64 contpte block (64 KiB with 4 KiB
# pages, 2 MiB with 16 KiB; MADV_HUGEPAGE on a region smaller than a PMD)
# and over base pages, with the folio lookups traced; 16 blocks, or half a
# PMD when that is less (8 with 16 KiB pages: one PTE extent); then
# ptscope diff between the two recordings.  batch_big: the same move over
# mTHP folios of four blocks (256 KiB, or 8 MiB with 16 KiB pages).
batch_scenarios() {
	kernel_at_least 6 17 || return 0
	run multi ptscope-bench multi
	geometry
	if [ "$PAGE_KB" -eq 16 ]; then
		cont_kb=2048	# 128 PTEs of 16 KiB
	else
		cont_kb=64	# 16 PTEs of 4 KiB
	fi
	batch_kb=$((16 * cont_kb))
	[ "$batch_kb" -gt $((PMD_KB / 2)) ] && batch_kb=$((PMD_KB / 2))
	[ -d "$THP/hugepages-${cont_kb}kB" ] || return 0
	saved_extra=$extra
	extra="$extra --metric mremap.folio_lookups"
	# madvise, not always: only the bench's MADV_HUGEPAGE region gets
	# mTHP folios (with always, another task's fault made it 17 of 16)
	set_size "$cont_kb" madvise
	run batch_mthp ptscope-bench mremap --size "${batch_kb}K" --align pmd \
		--dst-offset "${cont_kb}K" --thp always --count 1
	cp /tmp/stat.json /tmp/batch_mthp.json
	set_size "$cont_kb" never
	run batch_pages ptscope-bench mremap --size "${batch_kb}K" --align pmd \
		--dst-offset "${cont_kb}K" --thp never --count 1
	cp /tmp/stat.json /tmp/batch_pages.json
	# folios of four blocks: one batch per folio, across its blocks
	big_kb=$((4 * cont_kb))
	if [ -d "$THP/hugepages-${big_kb}kB" ]; then
		set_size "$big_kb" madvise
		run batch_big ptscope-bench mremap --size "${batch_kb}K" \
			--align pmd --dst-offset "${cont_kb}K" --thp always --count 1
		set_size "$big_kb" never
	fi
	extra=$saved_extra
	ptscope diff --all /tmp/batch_pages.json /tmp/batch_mthp.json >/tmp/diff.txt 2>&1
	echo "diff exit $?" >>/tmp/diff.txt
	block diff "mode=$mode scenario=batch" /tmp/diff.txt
}
