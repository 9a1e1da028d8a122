#!/bin/bash
# ptscope diff over real recordings: the metric that changed most comes
# first, identical inputs show no change, a metric attached on one side only
# is listed as such, and inputs that do not compare exit 2 with a reason.
. "$(dirname "$0")/lib.sh"
require_root

# pmd_run OUT COUNT: COUNT 16 MiB PMD moves after a fixed 40 ms sleep.  The
# sleep keeps run time from scaling with COUNT: 3 -> 12 calls makes the run
# about 2x longer, so neither run.seconds nor calls_per_sec comes near the
# +300% of the call counts, and mremap.calls leads the tie by name.
pmd_run() {
	stat_json "$1" sh -c "sleep 0.04; exec $BENCH mremap --size 16M \
--align pmd --thp never --count $2"
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

# the first changed row's "metric base new change_pct" (new/gone left out)
top_changed() {
	json "$1" "' '.join(str(x) for x in next((r['metric'], r['base'], r['new'], r['change_pct']) for r in d['rows'] if r['change_pct'] is not None))"
}

# the first line of the "what changed" summary
summary_top() {
	sed -n '/^what changed/{n;p;q}' "$1"
}

base=$TMP/base.json
new=$TMP/new.json
if ! pmd_run "$base" 3 || ! pmd_run "$new" 12; then
	not_ok "ptscope stat on the 16M pmd workloads"
	finish
	exit
fi

# 3 -> 12 calls: +300%, the largest change, in JSON and in the text
if diff_ok "3 vs 12 calls, --json" "$TMP/d.json" --json "$base" "$new"; then
	check_eq "3 vs 12 calls: largest change" "mremap.calls 3 12 300" \
		"$(top_changed "$TMP/d.json")"
	check_eq "3 vs 12 calls: pmd class row" "3 12 300 +300.0%" \
		"$(json "$TMP/d.json" "' '.join(str(r[k]) for r in d['rows'] if r['metric'] == 'mremap.pmd.calls' for k in ('base', 'new', 'change_pct', 'change'))")"
	check_eq "3 vs 12 calls: bytes per call unchanged" "16777216 16777216 0" \
		"$(json "$TMP/d.json" "' '.join(str(r[k]) for r in d['rows'] if r['metric'] == 'mremap.pmd.bytes_per_call' for k in ('base', 'new', 'change_pct'))")"
	check_eq "3 vs 12 calls: rows sorted by |change|" True \
		"$(json "$TMP/d.json" "(lambda s: s == sorted(s, reverse=True))([abs(r['change_pct']) for r in d['rows'] if r['change_pct'] is not None])")"
	check_eq "3 vs 12 calls: same kernel" False \
		"$(json "$TMP/d.json" "d['kernels_differ']")"
fi
if diff_ok "3 vs 12 calls, text" "$TMP/d.txt" "$base" "$new"; then
	check_eq "3 vs 12 calls: summary leads with" \
		"  mremap.calls +300.0% (3 -> 12)" "$(summary_top "$TMP/d.txt")"
	check_eq "3 vs 12 calls: header names both files" 2 \
		"$(grep -cE "^  (base|new) +$TMP/(base|new).json: 'sh -c sleep 0.04" "$TMP/d.txt")"
	check_eq "3 vs 12 calls: header names the kernel" 1 \
		"$(grep -cxF "  same kernel: $(uname -r)" "$TMP/d.txt")"
	check_eq "3 vs 12 calls: table row" 1 \
		"$(grep -cE '^  mremap\.calls +3 +12 +\+300\.0%$' "$TMP/d.txt")"
fi

# identical inputs: every row 0.0%, nothing significant
if diff_ok "identical, --json" "$TMP/same.json" --json "$new" "$new"; then
	check_eq "identical: every change is 0" True \
		"$(json "$TMP/same.json" "len(d['rows']) > 5 and all(r['change_pct'] == 0 for r in d['rows'])")"
	check_eq "identical: nothing only on one side" 0 \
		"$(json "$TMP/same.json" "len(d['only'])")"
fi
if diff_ok "identical, text" "$TMP/same.txt" "$new" "$new"; then
	check_eq "identical: summary" \
		"  no significant change: no metric moved by 10% or more" \
		"$(summary_top "$TMP/same.txt")"
fi

# different workloads: resizes in place vs PMD moves
if stat_json "$TMP/grow.json" "$BENCH" grow --start 128K --step 64K --count 100 &&
   diff_ok "grow vs pmd" "$TMP/gp.json" --json "$TMP/grow.json" "$new"; then
	check_eq "grow vs pmd: in-place calls" "gone" \
		"$(json "$TMP/gp.json" "[r['change'] for r in d['rows'] if r['metric'] == 'mremap.in_place.calls'][0]")"
	check_eq "grow vs pmd: pmd calls" "new 0 12" \
		"$(json "$TMP/gp.json" "' '.join(str(r[k]) for r in d['rows'] if r['metric'] == 'mremap.pmd.calls' for k in ('change', 'base', 'new'))")"
	check_eq "grow vs pmd: 100 -> 12 calls" "-88.0%" \
		"$(json "$TMP/gp.json" "[r['change'] for r in d['rows'] if r['metric'] == 'mremap.calls'][0]")"
else
	not_ok "grow vs pmd: no comparison"
fi

# a metric attached in base only; another kernel in new
edit "$new" "$TMP/unavail.json" "d['metrics']['thp.collapse'] = {'status': 'unavailable', 'reason': 'test: refused'}
d['counters'].pop('khugepaged_collapse', None)
d['system']['kernel'] = '9.9.9-test'"
if diff_ok "unavailable in new" "$TMP/un.txt" "$new" "$TMP/unavail.json"; then
	check_eq "unavailable in new: listed once, with the reason" 1 \
		"$(grep -cxF '  only in base: thp.collapse (unavailable in new: test: refused)' "$TMP/un.txt")"
	check_eq "unavailable in new: no khugepaged rows" 0 \
		"$(grep -c '^  khugepaged\.' "$TMP/un.txt")"
	check_eq "unavailable in new: kernels differ" 1 \
		"$(grep -cxF "  kernels differ: base $(uname -r), new 9.9.9-test" "$TMP/un.txt")"
fi

# -o FILE: the report goes to the file, nothing to stdout
if "$PTSCOPE" diff -o "$TMP/o.txt" "$base" "$new" >"$TMP/o.stdout" 2>&1 &&
   [ ! -s "$TMP/o.stdout" ] && grep -q '^what changed' "$TMP/o.txt"; then
	ok "-o FILE writes the report there"
else
	not_ok "-o FILE: stdout '$(head -n1 "$TMP/o.stdout")'"
fi

# inputs that do not compare
echo 'not json' >"$TMP/text.json"
: >"$TMP/empty.json"
head -c 200 "$new" >"$TMP/cut.json"
"$PTSCOPE" probe --json >"$TMP/probe.json" 2>/dev/null
edit "$new" "$TMP/v2.json" "d['ptscope_version'] = 2"
edit "$new" "$TMP/noversion.json" "del d['ptscope_version']"
edit "$new" "$TMP/pages.json" "d['system']['page_size'] = 65536"
edit "$new" "$TMP/norun.json" "del d['run']"
edit "$new" "$TMP/nocounters.json" "del d['counters']"
edit "$new" "$TMP/negative.json" "d['counters']['mremap']['classes']['pte']['calls'] = -3"
edit "$new" "$TMP/absurd.json" "d['counters']['mremap']['classes']['pmd']['old_bytes'] = 1e300"
expect_bad "missing file" "cannot read $TMP/missing.json: No such file" \
	"$base" "$TMP/missing.json"
expect_bad "directory" "cannot read $TMP: Is a directory" "$TMP" "$new"
expect_bad "not JSON" "$TMP/text.json is not JSON" "$base" "$TMP/text.json"
expect_bad "empty file" "$TMP/empty.json is not JSON: the file is empty" \
	"$TMP/empty.json" "$new"
expect_bad "truncated JSON" "$TMP/cut.json is not JSON: it ends in the middle" \
	"$base" "$TMP/cut.json"
expect_bad "probe output" "$TMP/probe.json has no ptscope_version" \
	"$TMP/probe.json" "$new"
expect_bad "no ptscope_version" "$TMP/noversion.json has no ptscope_version" \
	"$base" "$TMP/noversion.json"
expect_bad "other ptscope_version" "is ptscope_version 1, $TMP/v2.json is ptscope_version 2" \
	"$base" "$TMP/v2.json"
expect_bad "other page size" "has 4096-byte pages, $TMP/pages.json has 65536-byte pages" \
	"$base" "$TMP/pages.json"
expect_bad "not from stat (no run)" "$TMP/norun.json is not a 'ptscope stat --json' recording: no run" \
	"$TMP/norun.json" "$new"
expect_bad "not from stat (no counters)" "recording: no counters" \
	"$base" "$TMP/nocounters.json"
expect_bad "negative counter" "$TMP/negative.json is not a valid recording: mremap.pte.calls is -3" \
	"$base" "$TMP/negative.json"
expect_bad "absurd counter" "$TMP/absurd.json is not a valid recording: mremap.pmd.old_bytes is 1e+300" \
	"$base" "$TMP/absurd.json"
"$PTSCOPE" diff "$base" >/dev/null 2>"$TMP/one.err"
check_eq "one recording only: exit 2" "2 1" "$? $(grep -c 'ptscope diff BASE.json NEW.json' "$TMP/one.err")"

finish
