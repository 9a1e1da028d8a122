#!/bin/bash
# ptscope maps against regions of known backing (ptscope-bench hold).
# Ground truth comes from outside ptscope: the geometry of each region,
# the holder's own smaps (read here, and by the holder right after its
# faults), smaps_rollup, /proc/vmstat thp_* and the mTHP stats files.
# A case this kernel cannot run (no THP, no 64 KiB mTHP) fails unless
# PTSCOPE_ALLOW_SKIP=1, and then it says that it did not run.  The mTHP
# sizes are set to never (64 KiB to madvise for its cases) and restored.
. "$(dirname "$0")/lib.sh"
require_root

THP=/sys/kernel/mm/transparent_hugepage
MTHP64=$THP/hugepages-64kB
# a command name of our own: -c must count our holders and no other
# ptscope-bench that runs on the box meanwhile
HOLDER=$TMP/ptsmaps$$
cp "$BENCH" "$HOLDER" || exit 1
COMM=$(basename "$HOLDER" | cut -c1-15)
PAGE=$(getconf PAGESIZE)
PMD=$((PAGE / 8 * PAGE))
PMD_S="$((PMD >> 20))M"
holders=
declare -A saved

cleanup() {
	local p k
	for p in $holders; do
		kill -TERM "$p" 2>/dev/null
	done
	wait 2>/dev/null
	for k in "${!saved[@]}"; do
		echo "${saved[$k]}" >"$k"
	done
	rm -rf "$TMP"
}
trap cleanup EXIT

# the mTHP sizes other than the PMD size off while the test runs (and
# restored after), so no other large folio turns up in the holders
for k in "$THP"/hugepages-*kB/enabled; do
	[ "$k" = "$THP/hugepages-$((PMD >> 10))kB/enabled" ] && continue
	[ -w "$k" ] || continue
	v=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$k" 2>/dev/null)
	[ -n "$v" ] || continue
	saved[$k]=$v
	echo never >"$k"
done

# not_run CASE WHY: the case could not run on this kernel
not_run() {
	if [ "${PTSCOPE_ALLOW_SKIP:-}" = 1 ]; then
		echo "# $1: did not run ($2); PTSCOPE_ALLOW_SKIP=1 allows that"
	else
		not_ok "$1: did not run: $2 (PTSCOPE_ALLOW_SKIP=1 allows that)"
	fi
}

vmstat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# hold NAME ARGS...: start a holder, wait for its line; sets hold_pid
hold() {
	local name=$1 i
	shift
	hold_pid=
	"$HOLDER" hold "$@" --pause >"$TMP/$name.hold" 2>"$TMP/$name.err" &
	hold_pid=$!
	holders="$holders $hold_pid"
	for i in $(seq 1 100); do
		grep -qs '^hold ' "$TMP/$name.hold" && return 0
		kill -0 "$hold_pid" 2>/dev/null || break
		sleep 0.1
	done
	echo "# $name: the holder did not start: $(head -n1 "$TMP/$name.err")"
	return 1
}

release() {
	kill -TERM "$1" 2>/dev/null
	wait "$1" 2>/dev/null
}

# case_failed NAME: its holder or ptscope failed; the holder goes
case_failed() {
	not_ok "$1: holder or ptscope maps failed"
	[ -n "$hold_pid" ] && release "$hold_pid"
}

# field NAME KEY: KEY=VALUE of the holder's line
field() {
	sed -n "s/^hold.* $2=\([^ ]*\).*/\1/p" "$TMP/$1.hold"
}

# rollup_anon_bytes PID: Anonymous of the whole process (smaps_rollup)
rollup_anon_bytes() {
	awk '$1 == "Anonymous:" { print $2 * 1024 }' "/proc/$1/smaps_rollup"
}

# region_kb NAME KEY: KEY ("AnonHugePages") over the holder's VMAs in its region
region_kb() {
	python3 - "$(field "$1" pid)" "$(field "$1" start)" "$(field "$1" end)" "$2" <<'EOF'
import re, sys
pid, start, end, key = sys.argv[1], int(sys.argv[2], 16), int(sys.argv[3], 16), sys.argv[4] + ":"
total, inside = 0, False
for line in open("/proc/%s/smaps" % pid):
    vma = re.match(r"([0-9a-f]+)-([0-9a-f]+) ", line)
    if vma:
        inside = int(vma.group(1), 16) < end and int(vma.group(2), 16) > start
    elif inside and line.startswith(key):
        total += int(line.split()[1])
print(total)
EOF
}

# maps_json NAME: ptscope maps --json of the holder into $TMP/NAME.json
maps_json() {
	if ! "$PTSCOPE" maps --json -p "$(field "$1" pid)" -o "$TMP/$1.json" \
		2>"$TMP/$1.maps.err"; then
		echo "# ptscope maps failed: $(head -n1 "$TMP/$1.maps.err")"
		return 1
	fi
}

# pte FILE SIZE FIT KEY: total.pte_mapped[SIZE][FIT][KEY], 0 when absent
pte() {
	json "$1" "d['total']['pte_mapped'].get('$2', {}).get('$3', {}).get('$4', 0)"
}

# other_large FILE SIZE...: PTE-mapped large folios of sizes not listed
other_large() {
	local sizes
	sizes=$(printf "'%s'," "${@:2}")
	json "$1" "sum(f['folios'] for s, o in d['total']['pte_mapped'].items() if s not in ($sizes) for k, f in o.items() if k in ('aligned', 'unaligned', 'partial'))"
}

pmd_folios() {
	json "$1" "d['total']['pmd_mapped']['folios']"
}

# ---------------------------------------------------------------- 2M THP
# 64 MiB with MADV_HUGEPAGE, PMD aligned: 32 PMD-mapped folios when the
# kernel gives every fault a THP
thp_alloc0=$(vmstat_of thp_fault_alloc)
thp_fallback0=$(vmstat_of thp_fault_fallback)
if hold thp --size 64M --thp always && maps_json thp; then
	pid=$(field thp pid)
	gave=$(( $(field thp faulted_huge_kb) * 1024 / PMD ))
	echo "# 64M MADV_HUGEPAGE: the kernel gave $gave PMD folios (smaps), thp_fault_alloc +$(minus "$(vmstat_of thp_fault_alloc)" "$thp_alloc0") and thp_fault_fallback +$(minus "$(vmstat_of thp_fault_fallback)" "$thp_fallback0") on the box"
	if [ "$gave" -eq 0 ]; then
		not_run "PMD THP" "the kernel gave no THP to a MADV_HUGEPAGE region (THP $(cat $THP/enabled))"
	else
		check_eq "thp: PMD-mapped $PMD_S folios = smaps AnonHugePages / $PMD_S" \
			"$(( $(region_kb thp AnonHugePages) * 1024 / PMD ))" "$(pmd_folios "$TMP/thp.json")"
		check_eq "thp: the box's thp_fault_alloc rose by at least the THPs the holder has" True \
			"$(python3 -c "print($(minus "$(vmstat_of thp_fault_alloc)" "$thp_alloc0") >= $gave)")"
		if [ "$(minus "$(vmstat_of thp_fault_fallback)" "$thp_fallback0")" = 0 ]; then
			check_eq "thp: no fallback on the box, so geometry: 64M / $PMD_S PMD-mapped" \
				$((64 * 1024 * 1024 / PMD)) "$(pmd_folios "$TMP/thp.json")"
		else
			echo "# thp: THP faults fell back on the box meanwhile: the geometry check is left to the smaps one"
		fi
		check_eq "thp: no PTE-mapped large folio" 0 "$(other_large "$TMP/thp.json")"
		check_eq "thp: anonymous bytes = smaps_rollup Anonymous" \
			"$(rollup_anon_bytes "$pid")" "$(json "$TMP/thp.json" "d['total']['anon_bytes']")"
		check_eq "thp: the rest of the holder is order-0 pages" \
			"$(( $(rollup_anon_bytes "$pid") / PAGE - $(pmd_folios "$TMP/thp.json") * PMD / PAGE ))" \
			"$(json "$TMP/thp.json" "d['total']['order0']['pages']")"
		"$PTSCOPE" maps -p "$pid" >"$TMP/thp.txt" 2>&1
		check_eq "thp: text names the PMD row" \
			"PMD $PMD_S aligned $(pmd_folios "$TMP/thp.json")" \
			"$(awk '$1 == "PMD" { print $1, $2, $3, $4 }' "$TMP/thp.txt")"
	fi
	release "$pid"
else
	case_failed thp
fi

# ------------------------------------------------- mprotect of one page
# mprotect(PROT_READ) of the page at 33M splits the VMA in three and the
# PMD mapping that page (vma_adjust_trans_huge() -> split_huge_pmd()); the
# folio stays whole: 31 PMD-mapped, 1 PTE-mapped whole and aligned
split0=$(vmstat_of thp_split_page)
if hold mprotect --size 64M --thp always --split-mprotect 33M && maps_json mprotect; then
	pid=$(field mprotect pid)
	gave=$(( $(field mprotect faulted_huge_kb) * 1024 / PMD ))
	now=$(( $(region_kb mprotect AnonHugePages) * 1024 / PMD ))
	echo "# mprotect: the kernel gave $gave PMD folios, smaps now has $now PMD-mapped, thp_split_page +$(minus "$(vmstat_of thp_split_page)" "$split0") on the box"
	if [ "$gave" -eq 0 ]; then
		not_run "mprotect split" "no THP given"
	else
		check_eq "mprotect: PMD-mapped = smaps AnonHugePages / $PMD_S" "$now" \
			"$(pmd_folios "$TMP/mprotect.json")"
		check_eq "mprotect: one PMD fewer than faulted" $((gave - 1)) "$now"
		check_eq "mprotect: PTE-mapped whole aligned $PMD_S folios = faulted - PMD-mapped" \
			$((gave - now)) "$(pte "$TMP/mprotect.json" "$PMD_S" aligned folios)"
		check_eq "mprotect: nothing partial or unaligned" 0 \
			"$(( $(pte "$TMP/mprotect.json" "$PMD_S" partial folios) + $(pte "$TMP/mprotect.json" "$PMD_S" unaligned folios) ))"
	fi
	release "$pid"
else
	case_failed mprotect
fi

# ------------------------------------------------ one page unmapped
# munmap of the page at 33M: its folio is mapped in part (511 of 512
# pages) until a deferred split (deferred_split_scan(), under memory
# pressure) splits it; thp_split_page says whether one happened
split0=$(vmstat_of thp_split_page)
if hold punch --size 64M --thp always --punch 33M && maps_json punch; then
	pid=$(field punch pid)
	gave=$(( $(field punch faulted_huge_kb) * 1024 / PMD ))
	now=$(( $(region_kb punch AnonHugePages) * 1024 / PMD ))
	splits=$(minus "$(vmstat_of thp_split_page)" "$split0")
	if [ "$gave" -eq 0 ]; then
		not_run "punch" "no THP given"
	else
		check_eq "punch: PMD-mapped = smaps AnonHugePages / $PMD_S" "$now" \
			"$(pmd_folios "$TMP/punch.json")"
		if [ "$splits" = 0 ]; then
			check_eq "punch: one partial $PMD_S folio, no split on the box" \
				"1 $((PMD / PAGE - 1))" \
				"$(pte "$TMP/punch.json" "$PMD_S" partial folios) $(pte "$TMP/punch.json" "$PMD_S" partial pages)"
		else
			check_eq "punch: thp_split_page +$splits on the box: partial or split" True \
				"$(python3 -c "print($(pte "$TMP/punch.json" "$PMD_S" partial folios) in (0, 1))")"
		fi
		check_eq "punch: region Anonymous one page short of 64M" \
			$((64 * 1024 - PAGE / 1024)) "$(region_kb punch Anonymous)"
	fi
	release "$pid"
else
	case_failed punch
fi

# ------------------------------------------------ moved a page off alignment
# mremap to a page past a PMD boundary: no PMD can move whole, so each is
# split and its PTEs move (move_huge_pmd() fails, split_huge_pmd()); the
# folios stay whole, none aligned any more
if hold moved --size $((4 * PMD)) --thp always --move-offset "$PAGE" &&
   maps_json moved; then
	pid=$(field moved pid)
	gave=$(( $(field moved faulted_huge_kb) * 1024 / PMD ))
	if [ "$gave" -eq 0 ]; then
		not_run "moved" "no THP given"
	else
		check_eq "moved: $PMD_S folios PTE-mapped whole unaligned = faulted THPs" "$gave" \
			"$(pte "$TMP/moved.json" "$PMD_S" unaligned folios)"
		check_eq "moved: none PMD-mapped (smaps agrees: $(region_kb moved AnonHugePages) kB)" 0 \
			"$(pmd_folios "$TMP/moved.json")"
	fi
	release "$pid"
else
	case_failed moved
fi

# ------------------------------------------------------- 4K pages only
if hold small --size 64M --thp never && maps_json small; then
	pid=$(field small pid)
	check_eq "small: no large folio" 0 \
		"$(( $(pmd_folios "$TMP/small.json") + $(other_large "$TMP/small.json") ))"
	check_eq "small: order-0 bytes = smaps_rollup Anonymous" \
		"$(rollup_anon_bytes "$pid")" \
		"$(json "$TMP/small.json" "d['total']['order0']['bytes']")"
	check_eq "small: the region's pages are among them" True \
		"$(json "$TMP/small.json" "d['total']['order0']['pages'] >= $((64 * 1024 * 1024 / PAGE))")"
	check_eq "small: share of order-0 pages" 1.0 \
		"$(json "$TMP/small.json" "d['total']['order0']['share']")"
	release "$pid"
else
	case_failed small
fi

# ------------------------------------------------------------ 64K mTHP
# hugepages-64kB set to madvise for the cases, then restored: only
# MADV_HUGEPAGE regions (the holders) get 64 KiB folios.  1 MiB is too
# small for a PMD, so it is 16 folios of 64 KiB.
mthp_case() {	# mthp_case NAME WANT-FIT HOLD-ARGS...
	local name=$1 fit=$2 alloc0 fall0 alloc fall pid
	shift 2
	alloc0=$(cat "$MTHP64/stats/anon_fault_alloc")
	fall0=$(cat "$MTHP64/stats/anon_fault_fallback")
	if ! hold "$name" --size 1M --thp always "$@" || ! maps_json "$name"; then
		case_failed "$name"
		return
	fi
	pid=$(field "$name" pid)
	alloc=$(minus "$(cat "$MTHP64/stats/anon_fault_alloc")" "$alloc0")
	fall=$(minus "$(cat "$MTHP64/stats/anon_fault_fallback")" "$fall0")
	echo "# $name: hugepages-64kB anon_fault_alloc +$alloc, anon_fault_fallback +$fall on the box"
	if [ "$fall" = 0 ]; then
		check_eq "$name: $fit 64K folios = geometry 1M / 64K" 16 \
			"$(pte "$TMP/$name.json" 64K "$fit" folios)"
	else
		check_eq "$name: $fit 64K folios within what the box allocated" True \
			"$(python3 -c "print($(pte "$TMP/$name.json" 64K "$fit" folios) <= min(16, $alloc))")"
	fi
	check_eq "$name: the box allocated at least those 64K folios" True \
		"$(python3 -c "print($alloc >= $(pte "$TMP/$name.json" 64K "$fit" folios))")"
	check_eq "$name: no other large folios" 0 \
		"$(( $(pmd_folios "$TMP/$name.json") + $(other_large "$TMP/$name.json" 64K) ))"
	release "$pid"
}

if [ -n "${saved[$MTHP64/enabled]:-}" ] &&
   [ -r "$MTHP64/stats/anon_fault_alloc" ]; then
	echo madvise >"$MTHP64/enabled"
	mthp_case mthp aligned
	mthp_case mthp_moved unaligned --move-offset "$PAGE"
	# a page of the second folio unmapped: 15 whole aligned folios and one
	# partial
	if hold mthp_punch --size 1M --thp always --punch $((64 * 1024 + PAGE)) &&
	   maps_json mthp_punch; then
		check_eq "mthp_punch: 64K aligned, partial folios and partial pages" \
			"15 1 $((64 * 1024 / PAGE - 1))" \
			"$(pte "$TMP/mthp_punch.json" 64K aligned folios) $(pte "$TMP/mthp_punch.json" 64K partial folios) $(pte "$TMP/mthp_punch.json" 64K partial pages)"
		release "$hold_pid"
	else
		case_failed mthp_punch
	fi
	echo never >"$MTHP64/enabled"
else
	not_run "64K mTHP" "no writable $MTHP64/enabled with stats (kernel before 6.8?)"
fi

# ------------------------------------------------------- -c COMM, -i
if hold c_thp --size 64M --thp always && hold c_small --size 16M --thp never; then
	pids="$(field c_thp pid) $(field c_small pid)"
	if "$PTSCOPE" maps --json -c "$COMM" -o "$TMP/c.json" 2>"$TMP/c.err"; then
		check_eq "-c: both holders, by pid" "$(echo "$pids" | tr ' ' '\n' | sort -n | tr '\n' ' ')" \
			"$(json "$TMP/c.json" "' '.join(str(p['pid']) for p in d['processes']) + ' '")"
		check_eq "-c: total PMD-mapped = sum of the rows" \
			"$(json "$TMP/c.json" "sum(p['pmd_mapped']['folios'] for p in d['processes'])")" \
			"$(pmd_folios "$TMP/c.json")"
		check_eq "-c: total anonymous = sum of smaps_rollup" \
			"$(( $(rollup_anon_bytes "$(field c_thp pid)") + $(rollup_anon_bytes "$(field c_small pid)") ))" \
			"$(json "$TMP/c.json" "d['total']['anon_bytes']")"
	else
		not_ok "-c: ptscope maps failed: $(head -n1 "$TMP/c.err")"
	fi
	"$PTSCOPE" maps -c "$COMM" >"$TMP/c.txt" 2>&1
	check_eq "-c text: a row per holder" 2 "$(grep -c " $COMM " "$TMP/c.txt")"
	"$PTSCOPE" maps --json -p "$(field c_thp pid)" -i 0.2 -d 0.5 >"$TMP/i.json" 2>"$TMP/i.err"
	check_eq "-i 0.2 -d 0.5: exit 0, frames of the same PMD count" "0 True" \
		"$? $(python3 -c "import json, sys
f = [json.loads(l) for l in open(sys.argv[1])]
print(len(f) >= 2 and len({x['total']['pmd_mapped']['folios'] for x in f}) == 1)" "$TMP/i.json")"
	release "$(field c_thp pid)"
	release "$(field c_small pid)"
else
	not_ok "-c: holders did not start"
fi

# --------------------------------------------------------------- errors
expect_exit() {	# expect_exit NAME CODE GREP ARGS...
	local name=$1 code=$2 pattern=$3 rc
	shift 3
	"$@" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -eq "$code" ] && grep -q "$pattern" "$TMP/err"; then
		ok "$name: exit $code, $(head -n1 "$TMP/err")"
	else
		not_ok "$name: exit $rc, want $code and '$pattern': $(head -n1 "$TMP/err")"
	fi
}

sh -c 'exit 0' &
gone=$!
wait $gone
expect_exit "maps of a pid that is gone" 2 "no process has pid" "$PTSCOPE" maps -p "$gone"
expect_exit "maps of a name no process has" 2 "no process is named" "$PTSCOPE" maps -c nosuchproc$$
expect_exit "maps without -p or -c" 2 "maps needs" "$PTSCOPE" maps
expect_exit "maps with both -p and -c" 2 "maps needs" "$PTSCOPE" maps -p 1 -c init
if command -v setpriv >/dev/null; then
	expect_exit "maps as nobody" 1 "run ptscope maps as root" \
		setpriv --reuid=65534 --regid=65534 --clear-groups "$PTSCOPE" maps -p $$
else
	not_ok "maps as nobody: no setpriv to drop root with"
fi
# pid 1 as root: read, or (a sandbox's init) refused even to root, which
# is then said, not "run as root"
if head -c 1 /proc/1/smaps >/dev/null 2>&1; then
	"$PTSCOPE" maps -p 1 >/dev/null 2>"$TMP/err"
	check_eq "maps -p 1 as root, smaps readable: exit 0" 0 "$?"
else
	expect_exit "maps -p 1 as root, smaps refused even to root" 1 \
		"Permission denied, even as root" "$PTSCOPE" maps -p 1
	check_eq "maps -p 1 as root: not told to run as root" 0 \
		"$(grep -c 'run ptscope maps as root' "$TMP/err")"
fi

tap_finish
