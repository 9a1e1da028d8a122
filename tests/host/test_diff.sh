#!/bin/bash
# ptscope stat --repeat and ptscope diff over real recordings:
# - a recording keeps every run, and each run's counts are the workload's;
# - the same command recorded twice is "no significant change" (or, where
#   the machine's own reference says the times cannot be compared on this
#   busy box, "unreliable": never "changed");
# - two workloads whose mremaps really differ in latency are "changed",
#   with the latency named and the counts that moved with it;
# - one run a side is "not enough runs", never a change;
# - stat -p PID -d S windows a running process;
# - a metric attached on one side only is listed as such, and inputs that
#   do not compare exit 2 with a reason.
. "$(dirname "$0")/lib.sh"
require_root

# stat_rep OUT N CMD...: ptscope stat --repeat N, the recording in OUT
stat_rep() {
	local out=$1 n=$2
	shift 2
	"$PTSCOPE" stat --repeat "$n" -o "$out" -- "$@" >"$TMP/workload.out" \
		2>"$TMP/stat.err"
	local rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
		echo "# ptscope stat --repeat $n failed (rc $rc):"
		sed 's/^/#   /' "$TMP/stat.err"
		return 1
	fi
}

# diff_ok NAME OUT ARGS...: ptscope diff ARGS exits 0, report in OUT
diff_ok() {
	local name=$1 out=$2 rc
	shift 2
	"$PTSCOPE" diff "$@" >"$out" 2>"$TMP/diff.err"
	rc=$?
	if [ $rc -eq 0 ] && [ -s "$out" ]; then
		return 0
	fi
	not_ok "$name: ptscope diff exited $rc: $(head -n1 "$TMP/diff.err")"
	return 1
}

# expect_bad NAME NEEDLE BASE NEW: exit 2, nothing on stdout, NEEDLE on stderr
expect_bad() {
	local name=$1 needle=$2 rc
	"$PTSCOPE" diff "$3" "$4" >"$TMP/bad.out" 2>"$TMP/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && [ ! -s "$TMP/bad.out" ] &&
	   grep -qF -- "$needle" "$TMP/bad.err"; then
		ok "$name exits 2: $(head -n1 "$TMP/bad.err")"
	else
		not_ok "$name: exit $rc, stderr '$(head -n1 "$TMP/bad.err")'"
	fi
}

# edit IN OUT PYTHON: OUT is IN with the statements applied to "d"
edit() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
exec(sys.argv[3])
json.dump(d, open(sys.argv[2], "w"))' "$1" "$2" "$3"
}

# row FILE NAME KEYS...: the diff JSON row NAME's KEYS, space separated
row() {
	local file=$1 name=$2
	shift 2
	json "$file" "' '.join(str(r[k]) for r in d['rows'] if r['name'] == '$name' for k in '$*'.split())"
}

# fail_on_change_rc A B: the exit code of diff --fail-on-change
fail_on_change_rc() {
	"$PTSCOPE" diff --fail-on-change "$1" "$2" >/dev/null 2>&1
	echo $?
}

pmd=("$BENCH" mremap --size 16M --align pmd --thp never)

# ---- the recording: every run, each the workload's own ----
if stat_rep "$TMP/rep3.json" 3 "${pmd[@]}" --count 3; then
	check_eq "--repeat 3: format version, runs, repeat" "3 3 3" \
		"$(json "$TMP/rep3.json" "'%d %d %d' % (d['ptscope_version'], len(d['runs']), d['run']['repeat'])")"
	check_eq "--repeat 3: 3 PMD moves in every run" "3 3 3" \
		"$(json "$TMP/rep3.json" "' '.join(str(r['counters']['mremap']['classes']['pmd']['calls']) for r in d['runs'])")"
	check_eq "--repeat 3: 9 PMD moves in the totals" 9 \
		"$(json "$TMP/rep3.json" "d['counters']['mremap']['classes']['pmd']['calls']")"
	check_eq "--repeat 3: each run one process, with its wall time" True \
		"$(json "$TMP/rep3.json" "all(len(r['counters']['processes']) == 1 and 0 < r['seconds'] < d['run']['seconds'] for r in d['runs'])")"
	check_eq "--repeat 3: each run with the machine's reference timed before and after it" True \
		"$(json "$TMP/rep3.json" "all(0 < r['reference']['before_s'] < 1 and 0 < r['reference']['after_s'] < 1 for r in d['runs']) and d['reference']['hash_rounds'] > 0")"
else
	not_ok "ptscope stat --repeat 3 on the 16M pmd workload"
fi

# the text report: on stderr, never in the command's stdout, perf stat -r style
"$PTSCOPE" stat --repeat 3 -- "${pmd[@]}" --count 2 >"$TMP/text.out" 2>"$TMP/text.err"
check_eq "stat --repeat 3 text: the command's stdout holds no report" 0 \
	"$(grep -c 'ptscope stat' "$TMP/text.out")"
check_eq "stat --repeat 3 text: on stderr, 3 runs" 1 \
	"$(grep -c "^ptscope stat: .*, 3 runs, exit 0" "$TMP/text.err")"
check_eq "stat --repeat 3 text: PMD moves 2 in every run" 1 \
	"$(grep -cE '^  mremap\.pmd\.calls +2  \(every run\)$' "$TMP/text.err")"
check_eq "stat --repeat 3 text: latency mean ± spread, min – max" 1 \
	"$(grep -cE '^  mremap\.pmd\.latency_mean +[0-9.]+ [mun]?s ± [0-9.]+%  \(.* – .*\)$' "$TMP/text.err")"
check_eq "stat --repeat 3 text: the machine's reference over the runs" 1 \
	"$(grep -cE "^  reference_ns \(the machine's own speed\) +[0-9.]+ [mun]?s( ± [0-9.]+%)?  \(" "$TMP/text.err")"

# --json without -o: stderr too; -o NAME.json without --json: JSON
"$PTSCOPE" stat --json -- "${pmd[@]}" --count 1 >"$TMP/j.out" 2>"$TMP/j.err"
check_eq "stat --json: JSON on stderr, not in the command's stdout" "3 0" \
	"$(python3 -c 'import json, sys; t = open(sys.argv[1]).read(); print(json.loads(t[t.index("{"):])["ptscope_version"])' "$TMP/j.err") $(grep -c ptscope_version "$TMP/j.out")"
"$PTSCOPE" stat -o "$TMP/implied.json" -- "${pmd[@]}" --count 1 >/dev/null 2>&1
check_eq "stat -o NAME.json: JSON without --json" 1 \
	"$(json "$TMP/implied.json" "d['run']['repeat']")"

# Ctrl-C during run 1 of 5: the command gets it, no more runs start, and
# the report holds the run that was cut
"$PTSCOPE" stat --repeat 5 -o "$TMP/cut.json" -- sleep 3 >/dev/null 2>"$TMP/cut.err" &
spid=$!
sleep 1.5
kill -INT "$spid"
wait "$spid"
check_eq "stat --repeat 5, Ctrl-C in run 1: exit as the command (130), 1 of 5 runs said" \
	"130 1" "$? $(grep -c '^ptscope: stopped after 1 of 5 runs' "$TMP/cut.err")"
check_eq "stat --repeat 5, Ctrl-C in run 1: the recording holds that run, marked partial, 5 asked" \
	"1 130 True 5" \
	"$(json "$TMP/cut.json" "'%d %d %s %d' % (len(d['runs']), d['runs'][0]['exit_status'], d['run'].get('partial'), d['run'].get('repeat_asked', 0))")"
check_eq "stat -o NAME.json, all runs done: not marked partial" None \
	"$(json "$TMP/implied.json" "d['run'].get('partial')")"

# ---- the same command twice: no significant change ----
# Recorded as one --repeat 10, its runs dealt out to two recordings in
# the order ABBAABBAAB: the same command twice, interleaved, so that the
# machine's drift over time (tens of percent here, between one minute
# and the next) falls on both sides alike, as any A/B timing on this box
# must be done.  Not ABABAB...: on two CPUs consecutive runs can land on
# alternate CPUs, and one CPU slower than the other (a busy neighbour of
# this guest) would then be a difference between the sides.
move=("$BENCH" move-loop --class page --size 4M)
deal=(0 1 1 0 0 1 1 0 0 1)
if stat_rep "$TMP/same10.json" 10 "${move[@]}" --count 40; then
	for half in 0 1; do
		edit "$TMP/same10.json" "$TMP/same_$half.json" "deal = '${deal[*]}'.split()
d['runs'] = [r for r, side in zip(d['runs'], deal) if side == '$half']
d['run']['repeat'] = len(d['runs'])"
	done
fi
if [ -s "$TMP/same_0.json" ] &&
   diff_ok "same command twice" "$TMP/same.json" --json "$TMP/same_0.json" "$TMP/same_1.json" &&
   diff_ok "same command twice, text" "$TMP/same.txt" "$TMP/same_0.json" "$TMP/same_1.json"; then
	check_eq "same command twice (5 runs each, interleaved): verdict, nothing changed" \
		"True []" "$(json "$TMP/same.json" "'%s %s' % (d['verdict'] in ('no significant change', 'unreliable'), [r['name'] for r in d['changed']])")"
	check_eq "same command twice: the latency was tested by Welch's t-test" "welch False" \
		"$(row "$TMP/same.json" mremap.pte.latency_mean test changed)"
	check_eq "same command twice: the machine's reference compared, on the machine: line" \
		"True 1" "$(json "$TMP/same.json" "d['reference']['base_present'] and d['reference']['new_present']") $(grep -c '^  machine: reference ' "$TMP/same.txt")"
	check_eq "same command twice: 40 calls in every run, exact" "40 40 exact False" \
		"$(row "$TMP/same.json" mremap.pte.calls base new test changed)"
	check_eq "same command twice: text leads with the verdict" 1 \
		"$(head -n1 "$TMP/same.txt" | grep -cE '^ptscope diff: (no significant change|no count changed, and the times cannot be compared: .+)$')"
	check_eq "same command twice: --fail-on-change exits 0" 0 \
		"$(fail_on_change_rc "$TMP/same_0.json" "$TMP/same_1.json")"
	echo "# $(sed -n 2p "$TMP/same.txt")"
	echo "# latency: $(row "$TMP/same.json" mremap.pte.latency_mean base new change ci_low_pct ci_high_pct p_adjusted)"
else
	not_ok "same command twice: no recordings"
fi

# The same command recorded twice, one after the other: the counts must
# be the same and exact; a time may drift between the two, and when one
# is called changed, the report must say that no count changed with it.
if stat_rep "$TMP/seq_a.json" 5 "${move[@]}" --count 40 &&
   stat_rep "$TMP/seq_b.json" 5 "${move[@]}" --count 40 &&
   diff_ok "same command, one after the other" "$TMP/seq.json" --json "$TMP/seq_a.json" "$TMP/seq_b.json" &&
   diff_ok "same command, one after the other, text" "$TMP/seq.txt" "$TMP/seq_a.json" "$TMP/seq_b.json"; then
	check_eq "one after the other: every count exact and unchanged" "[]" \
		"$(json "$TMP/seq.json" "[r['name'] for r in d['rows'] if r['kind'] == 'count' and (r['test'] != 'exact' or r['changed'])]")"
	check_eq "one after the other: what changed, if anything, is a time" "[]" \
		"$(json "$TMP/seq.json" "[r['name'] for r in d['changed'] if r['kind'] != 'time']")"
	case $(json "$TMP/seq.json" "d['verdict']") in
	changed)
		check_eq "one after the other: a drifted time is explained as such" 1 \
			"$(grep -c '^  with them: no count of the traced work changed: the same work took a different time' "$TMP/seq.txt")" ;;
	unreliable)
		check_eq "one after the other: times not compared, each said, none changed" "True True" \
			"$(json "$TMP/seq.json" "d['reference']['state'].startswith('unreliable'), not d['changed']") $(grep -q '^times not compared' "$TMP/seq.txt" && echo True)" ;;
	*)
		check_eq "one after the other: verdict" "no significant change" \
			"$(json "$TMP/seq.json" "d['verdict']")" ;;
	esac
	echo "# one after the other: $(head -n1 "$TMP/seq.txt")"
else
	not_ok "same command, one after the other: no recordings"
fi

# ---- two workloads whose mremaps differ in latency: changed ----
# the same 40 calls moving 64 KiB or 64 MiB of page-aligned PTEs: the
# bytes per call are exact in every run; the latency per call grows with
# the PTEs moved (16 against 16384), though on this box a call of a few
# PTEs already costs 50-350 us (shadow paging), so only a large ratio
# stands out of the noise in 8 runs
if stat_rep "$TMP/small.json" 8 "${move[@]/4M/64K}" --count 40 &&
   stat_rep "$TMP/big.json" 8 "${move[@]/4M/64M}" --count 40 &&
   diff_ok "64K vs 64M moves" "$TMP/ch.json" --json "$TMP/small.json" "$TMP/big.json" &&
   diff_ok "64K vs 64M moves, text" "$TMP/ch.txt" "$TMP/small.json" "$TMP/big.json"; then
	check_eq "64K vs 64M moves: verdict" changed "$(json "$TMP/ch.json" "d['verdict']")"
	# a busy box can make the machine's reference unreliable: then no
	# time is a change, and the latency is listed as not compared
	if [ "$(json "$TMP/ch.json" "d['reference']['state'].startswith('unreliable')")" = True ]; then
		check_eq "64K vs 64M moves: reference unreliable ($(json "$TMP/ch.json" "d['reference']['unreliable']")): the latency not compared, listed" \
			"True False 1" \
			"$(row "$TMP/ch.json" mremap.pte.latency_mean unreliable changed) $(sed -n '/^times not compared/,/^$/p' "$TMP/ch.txt" | grep -c '^  mremap\.pte\.latency_mean +')"
	else
		check_eq "64K vs 64M moves: the latency is a change, by Welch's t-test, as measured and relative to the machine" \
			"welch True True True True" \
			"$(json "$TMP/ch.json" "' '.join(str(x) for r in d['changed'] if r['name'] == 'mremap.pte.latency_mean' for x in (r['test'], r['ci_low_pct'] > 2, r['p_adjusted'] < 0.05, r['raw_changed'], r['relative_changed']))")"
		check_eq "64K vs 64M moves: the latency among the times that changed" 1 \
			"$(sed -n '/^why:/,$p' "$TMP/ch.txt" | grep -cE '^  mremap\.pte\.latency_mean \+[0-9.]+% \[\+[0-9.]+%, \+[0-9.]+%\] p=')"
		check_eq "64K vs 64M moves: explained by the bytes per call, named first" 1 \
			"$(grep -cE '^  with them: mremap\.pte\.bytes_per_call 64.0 KiB -> 64.0 MiB, ' "$TMP/ch.txt")"
	fi
	check_eq "64K vs 64M moves: bytes per call 64 KiB -> 64 MiB, exact" \
		"65536 67108864 exact True bytes" \
		"$(row "$TMP/ch.json" mremap.pte.bytes_per_call base new test changed unit)"
	check_eq "64K vs 64M moves: the mean latency's unit is ns in JSON" ns \
		"$(row "$TMP/ch.json" mremap.pte.latency_mean unit)"
	check_eq "64K vs 64M moves: calls unchanged" "40 40 False" \
		"$(row "$TMP/ch.json" mremap.pte.calls base new changed)"
	check_eq "64K vs 64M moves: text leads with the count of changes" \
		"ptscope diff: $(json "$TMP/ch.json" "len(d['changed'])") metrics changed" \
		"$(head -n1 "$TMP/ch.txt")"
	check_eq "64K vs 64M moves: --fail-on-change exits 1" 1 \
		"$(fail_on_change_rc "$TMP/small.json" "$TMP/big.json")"
	diff_ok "64K vs 64M moves, --all" "$TMP/all.txt" --all "$TMP/small.json" "$TMP/big.json" &&
		check_eq "--all: one table line per row" \
			"$(json "$TMP/ch.json" "len(d['rows'])")" \
			"$(sed -n '/^all rows:/,/^$/p' "$TMP/all.txt" | grep -v '^  metric ' | grep -c '^  [a-z]')"
	sed -n '1,/^$/d; /^changed:/,$p' "$TMP/ch.txt" | head -n 12 | sed 's/^/#   /'
else
	not_ok "64K vs 64M moves: no recordings"
fi

# ---- one run a side: not enough runs, never a change ----
if stat_json "$TMP/one3.json" "${pmd[@]}" --count 3 &&
   stat_json "$TMP/one12.json" "${pmd[@]}" --count 12 &&
   diff_ok "one run a side" "$TMP/one.json" --json "$TMP/one3.json" "$TMP/one12.json" &&
   diff_ok "one run a side, text" "$TMP/one.txt" "$TMP/one3.json" "$TMP/one12.json"; then
	check_eq "one run a side: verdict" "not enough runs 0" \
		"$(json "$TMP/one.json" "d['verdict'] + ' ' + str(len(d['changed']))")"
	check_eq "one run a side: 3 -> 12 calls differ, untested" "3 12 none True False" \
		"$(row "$TMP/one.json" mremap.pmd.calls base new test differs changed)"
	check_eq "one run a side: says so first, with what to do" 1 \
		"$(head -n1 "$TMP/one.txt" | grep -c 'not enough runs (1 in base, 1 in new).*record with --repeat 5')"
	check_eq "one run a side: the counts that differ are named" 1 \
		"$(grep -cE '^  mremap\.pmd\.calls +3 +12 +\+300\.0%  untested$' "$TMP/one.txt")"
	check_eq "one run a side: --fail-on-change exits 0" 0 \
		"$(fail_on_change_rc "$TMP/one3.json" "$TMP/one12.json")"
else
	not_ok "one run a side: no recordings"
fi

# a version 1 recording (one run, no "runs") is still read
if [ -s "$TMP/rep3.json" ]; then
	edit "$TMP/rep3.json" "$TMP/v1.json" "d['ptscope_version'] = 1
del d['runs']"
	if diff_ok "version 1 vs 2" "$TMP/v1v2.json" --json "$TMP/v1.json" "$TMP/rep3.json"; then
		check_eq "version 1 vs 2: 1 run against 3" "1 3 not enough runs" \
			"$(json "$TMP/v1v2.json" "'%d %d %s' % (d['base']['runs'], d['new']['runs'], d['verdict'])")"
	fi
fi

# ---- stat -p PID -d S: windows of a running process ----
# mmap.resize of an anonymous map is one mremap(MREMAP_MAYMOVE); the
# script makes 200 once the file appears, then waits
cat >"$TMP/resizer.py" <<'PY'
import mmap, os, sys, time
m = mmap.mmap(-1, 4096)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
for i in range(200):
    m.resize(8192 if i % 2 == 0 else 4096)
open(sys.argv[1] + ".done", "w").close()
time.sleep(30)
PY
python3 "$TMP/resizer.py" "$TMP/go" &
rpid=$!
"$PTSCOPE" stat -p "$rpid" -d 2 --repeat 2 -o "$TMP/win.json" 2>"$TMP/win.err" &
spid=$!
if wait_for 20 grep -q '^ptscope: tracing pid' "$TMP/win.err"; then
	touch "$TMP/go"
	wait_for 10 test -e "$TMP/go.done"
fi
wait "$spid"
check_eq "stat -p PID -d 2 --repeat 2: exit" 0 "$?"
kill "$rpid" 2>/dev/null
wait "$rpid" 2>/dev/null
if [ -s "$TMP/win.json" ]; then
	check_eq "stat -p: two windows of the pid" "pid 2" \
		"$(json "$TMP/win.json" "d['run']['target'] + ' ' + str(len(d['runs']))")"
	check_eq "stat -p: the 200 resizes, all in the windows" 200 \
		"$(json "$TMP/win.json" "sum(r['counters']['mremap']['calls'] for r in d['runs'])")"
	check_eq "stat -p: each window about 2 s" True \
		"$(json "$TMP/win.json" "all(1.9 < r['seconds'] < 3 for r in d['runs'])")"
else
	not_ok "stat -p: no recording: $(head -n 3 "$TMP/win.err" | tr '\n' ' ')"
fi

# ---- setup differences and -o ----
if [ -s "$TMP/rep3.json" ]; then
	edit "$TMP/rep3.json" "$TMP/unavail.json" "d['metrics']['thp.collapse'] = {'status': 'unavailable', 'reason': 'test: refused'}
d['counters'].pop('khugepaged_collapse', None)
for r in d['runs']: r['counters'].pop('khugepaged_collapse', None)
d['system']['kernel'] = '9.9.9-test'"
	if diff_ok "unavailable in new" "$TMP/un.txt" "$TMP/rep3.json" "$TMP/unavail.json"; then
		check_eq "unavailable in new: listed once, with the reason" 1 \
			"$(grep -cxF '  only in base: thp.collapse (unavailable in new: test: refused)' "$TMP/un.txt")"
		check_eq "unavailable in new: kernels differ" 1 \
			"$(grep -cxF "  kernels differ: base $(uname -r), new 9.9.9-test" "$TMP/un.txt")"
	fi
	if "$PTSCOPE" diff -o "$TMP/o.txt" "$TMP/rep3.json" "$TMP/rep3.json" >"$TMP/o.stdout" 2>&1 &&
	   [ ! -s "$TMP/o.stdout" ] && grep -q '^ptscope diff: no significant change' "$TMP/o.txt"; then
		ok "-o FILE writes the report there"
	else
		not_ok "-o FILE: stdout '$(head -n1 "$TMP/o.stdout")'"
	fi
fi

# ---- inputs that do not compare ----
base=$TMP/one3.json
new=$TMP/rep3.json
echo 'not json' >"$TMP/text.json"
"$PTSCOPE" stat -o "$TMP/report.txt" -- true 2>/dev/null
: >"$TMP/empty.json"
head -c 200 "$new" >"$TMP/cut.json"
"$PTSCOPE" probe --json >"$TMP/probe.json" 2>/dev/null
edit "$new" "$TMP/v4.json" "d['ptscope_version'] = 4"
edit "$new" "$TMP/noruns.json" "del d['runs']"
edit "$new" "$TMP/noversion.json" "del d['ptscope_version']"
edit "$new" "$TMP/pages.json" "d['system']['page_size'] = 65536"
edit "$new" "$TMP/norun.json" "del d['run']"
edit "$new" "$TMP/nocounters.json" "del d['counters']"
edit "$new" "$TMP/negative.json" "d['runs'][1]['counters']['mremap']['classes']['pte']['calls'] = -3"
edit "$new" "$TMP/absurd.json" "d['runs'][0]['counters']['mremap']['classes']['pmd']['old_bytes'] = 1e300"
expect_bad "missing file" "cannot read $TMP/missing.json: No such file" \
	"$base" "$TMP/missing.json"
expect_bad "directory" "cannot read $TMP: Is a directory" "$TMP" "$new"
expect_bad "not JSON" "$TMP/text.json is not JSON" "$base" "$TMP/text.json"
expect_bad "a text report" "$TMP/report.txt is a text report of 'ptscope stat': record with --json" \
	"$base" "$TMP/report.txt"
expect_bad "empty file" "$TMP/empty.json is not JSON: the file is empty" \
	"$TMP/empty.json" "$new"
expect_bad "truncated JSON" "$TMP/cut.json is not JSON: it ends in the middle" \
	"$base" "$TMP/cut.json"
expect_bad "probe output" "$TMP/probe.json has no ptscope_version" \
	"$TMP/probe.json" "$new"
expect_bad "no ptscope_version" "$TMP/noversion.json has no ptscope_version" \
	"$base" "$TMP/noversion.json"
expect_bad "a newer format" "$TMP/v4.json is ptscope_version 4; this ptscope reads versions 1 to 3" \
	"$base" "$TMP/v4.json"
expect_bad "version 2 without runs" "$TMP/noruns.json is not a 'ptscope stat --json' recording: no runs array" \
	"$base" "$TMP/noruns.json"
expect_bad "other page size" "has 4096-byte pages, $TMP/pages.json has 65536-byte pages" \
	"$base" "$TMP/pages.json"
expect_bad "not from stat (no run)" "$TMP/norun.json is not a 'ptscope stat --json' recording: no run" \
	"$TMP/norun.json" "$new"
expect_bad "not from stat (no counters)" "recording: no counters" \
	"$base" "$TMP/nocounters.json"
expect_bad "negative counter in a run" "$TMP/negative.json is not a valid recording: mremap.pte.calls is -3" \
	"$base" "$TMP/negative.json"
expect_bad "absurd counter in a run" "$TMP/absurd.json is not a valid recording: mremap.pmd.old_bytes is 1e+300" \
	"$base" "$TMP/absurd.json"
"$PTSCOPE" diff "$base" >/dev/null 2>"$TMP/one.err"
check_eq "one recording only: exit 2" "2 1" "$? $(grep -c 'ptscope diff BASE.json NEW.json' "$TMP/one.err")"

tap_finish
