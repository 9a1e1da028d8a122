#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The Prometheus rules (dashboards/ptscope.rules.yml): promtool accepts
# them, their unit tests pass (synthetic series, every alert firing and
# not), and every name they query is a family of "ptscope schema"
# (tests/check_dashboard.py --rules, with $PTSCOPE, build/ptscope by
# default), which must also catch a name, a recorded name and a metric
# label that are not there.  Needs promtool (Debian's prometheus package,
# in make deps) and a built ptscope.
cd "$(dirname "$0")/../.." || exit 1
# TAP helpers (ok, not_ok, tap_finish) and $TMP; nothing here needs root
. tests/host/lib.sh
PROMTOOL=${PROMTOOL:-promtool}
RULES=dashboards/ptscope.rules.yml
export PTSCOPE=${PTSCOPE:-build/ptscope}

# run NAME CMD...: ok when CMD exits 0, else its output as comments
run() {
	local name=$1
	shift
	if "$@" >"$TMP/out" 2>&1; then
		ok "$name: $(grep . "$TMP/out" | tail -1 | sed 's/^ *//')"
	else
		not_ok "$name:"
		sed 's/^/#   /' "$TMP/out" | head -40
	fi
}

if ! command -v "$PROMTOOL" >/dev/null; then
	not_ok "no promtool: apt-get install prometheus (make deps)"
	tap_finish
	exit 1
fi
echo "# $("$PROMTOOL" --version 2>&1 | head -1)"
run "promtool check rules $RULES" "$PROMTOOL" check rules "$RULES"
run "promtool test rules dashboards/tests/ptscope.rules.test.yml" \
	"$PROMTOOL" test rules dashboards/tests/ptscope.rules.test.yml
run "the rules' names are in the schema" tests/check_dashboard.py --rules "$RULES"

# mutant_fails WHAT SED: the rules edited by SED must fail their unit
# tests, on PtscopeTHPFaultFallbackHigh
mutant_fails() {
	mkdir -p "$TMP/mut/tests"
	sed "$2" "$RULES" >"$TMP/mut/ptscope.rules.yml"
	cp dashboards/tests/ptscope.rules.test.yml "$TMP/mut/tests/"
	if cmp -s "$RULES" "$TMP/mut/ptscope.rules.yml"; then
		not_ok "the edit ($1) changed nothing in $RULES"
	elif "$PROMTOOL" test rules "$TMP/mut/tests/ptscope.rules.test.yml" >"$TMP/out" 2>&1; then
		not_ok "promtool test rules passes with $1"
	elif grep -q 'PtscopeTHPFaultFallbackHigh' "$TMP/out"; then
		ok "promtool test rules fails with $1"
	else
		not_ok "promtool test rules fails with $1, but not on PtscopeTHPFaultFallbackHigh: $(grep . "$TMP/out" | tail -1)"
	fi
}

# the unit tests bite: with the 2 MiB fallback threshold at 80% instead
# of 50%, the node at 75% must make them fail; without the self-check's
# gate, so must the node whose counts it disowned
mutant_fails "the fallback threshold at 80%" 's/{size="2M"} > 0.5$/{size="2M"} > 0.8/'
mutant_fails "no self-check gate" 's/ptscope_hugepage_fault_selfcheck{size="2M"} == 0$/ptscope_hugepage_fault_selfcheck{size="none"} == 0/'

# the check fails, naming it, on a family, a recorded name and a metric
# label value that do not exist
for bad in 's/rate(ptscope_mremap_calls_total/rate(ptscope_mremap_call_total/;ptscope_mremap_call_total' \
	's/(instance_class:ptscope_mremap_calls:rate5m)/(instance_class:ptscope_mremap_call:rate5m)/;instance_class:ptscope_mremap_call:rate5m' \
	's/mremap.calls|thp.fault_alloc/mremap.call|thp.fault_alloc/;metric=~"mremap.call"'; do
	edit=${bad%;*}
	want=${bad##*;}
	sed "$edit" "$RULES" >"$TMP/bad.yml"
	tests/check_dashboard.py --rules "$TMP/bad.yml" >"$TMP/out" 2>&1
	rc=$?
	if cmp -s "$RULES" "$TMP/bad.yml"; then
		not_ok "the edit '$edit' changed nothing in $RULES"
	elif [ $rc -eq 1 ] && grep -qF "$want" "$TMP/out"; then
		ok "the check names $want"
	else
		not_ok "the check on $want: exit $rc, $(tail -1 "$TMP/out")"
	fi
done

# against a page: a family missing from it passes only when the attach
# path its probe reports does not give it (the schema's needs)
# page_case NAME WANT FAMILY PROBE: WANT 0 (a note) or 1 (not exported)
page_case() {
	printf '{"panels": [{"targets": [{"expr": "rate(%s[5m])"}]}]}\n' "$3" \
		>"$TMP/dash.json"
	printf '# TYPE ptscope_probe_attached gauge\nptscope_probe_attached%s 1\n' \
		"$4" >"$TMP/page.txt"
	tests/check_dashboard.py "$TMP/dash.json" "$TMP/page.txt" >"$TMP/out" 2>&1
	rc=$?
	if [ $rc -eq "$2" ] && grep -qF "$3" "$TMP/out"; then
		ok "$1: exit $rc, $(grep -F "$3" "$TMP/out" | tail -1)"
	else
		not_ok "$1: exit $rc (want $2), $(tail -1 "$TMP/out")"
	fi
}
page_case "THP splits missing where levels are patched tracepoints" 0 \
	ptscope_pagetable_thp_splits_total \
	'{metric="mremap.levels",path="patched",status="exact"}'
page_case "THP splits missing where levels are fentry markers" 1 \
	ptscope_pagetable_thp_splits_total \
	'{metric="mremap.levels",path="fentry",status="exact"}'
page_case "PTEs moved missing where levels are patched tracepoints" 1 \
	ptscope_ptes_moved_total \
	'{metric="mremap.levels",path="patched",status="exact"}'
page_case "a family no schema has" 1 ptscope_pagetable_thp_split_total \
	'{metric="mremap.levels",path="patched",status="exact"}'
tap_finish
