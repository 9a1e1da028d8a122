#!/bin/bash
# Fleet monitoring, live: two "ptscope export" (127.0.0.1 and 127.0.0.2),
# each filtered with -c to its own copy of the bench (bench-a, bench-b),
# and one real Prometheus scraping both every second with
# dashboards/ptscope.rules.yml loaded.  Through the HTTP API: up is 1 for
# both, each instance's counters equal its workload's geometry and sum()
# their sum, every rule evaluates, the recorded series exist per instance,
# no ptscope alert is pending on the healthy fleet, and an exporter that
# stops makes PtscopeExporterDown pending for it alone.
# Needs prometheus, curl and python3-yaml (make deps).
. "$(dirname "$0")/lib.sh"
require_root

PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
RULES=${RULES:-dashboards/ptscope.rules.yml}
MiB=1048576
KiB=1024
EXP_A=
EXP_B=
PROM=

cleanup() {
	[ -n "$EXP_A" ] && kill -INT "$EXP_A" 2>/dev/null && wait "$EXP_A"
	[ -n "$EXP_B" ] && kill -INT "$EXP_B" 2>/dev/null && wait "$EXP_B"
	[ -n "$PROM" ] && kill "$PROM" 2>/dev/null && wait "$PROM"
	rm -rf "$TMP"
}
trap cleanup EXIT

# give_up WHY [LOG]: a failure the rest cannot run without
give_up() {
	not_ok "$1"
	[ -n "${2:-}" ] && tail -5 "$2" | sed 's/^/#   /'
	tap_finish
	exit 1
}

# prom EXPR [LABEL]: the instant query's samples, "LABEL_VALUE=VALUE ..."
# sorted, or the one sample's value without LABEL; "none" for no sample,
# "error: ..." when the API refuses it
prom() {
	curl -sG --max-time 5 --data-urlencode "query=$1" "$PROM_URL/api/v1/query" |
		python3 -c 'import json, sys
try:
    d = json.load(sys.stdin)
except ValueError:
    sys.exit("error: no JSON from the API")
if d.get("status") != "success":
    sys.exit("error: %s" % d.get("error"))
r = sorted((s["metric"].get(sys.argv[1], ""), s["value"][1]) for s in d["data"]["result"])
if not r:
    print("none")
elif sys.argv[1]:
    print(" ".join("%s=%s" % kv for kv in r))
else:
    print(r[0][1] if len(r) == 1 else "%d samples" % len(r))' "${2:-}" 2>&1
}

# rules_health: "N rules: ok=N ..." over /api/v1/rules, then one comment
# line per rule whose health is not ok
rules_health() {
	curl -s --max-time 5 "$PROM_URL/api/v1/rules" | python3 -c 'import json, sys
rs = [r for g in json.load(sys.stdin)["data"]["groups"] for r in g["rules"]]
h = {}
for r in rs:
    h[r["health"]] = h.get(r["health"], 0) + 1
print("%d rules: %s" % (len(rs), " ".join("%s=%d" % kv for kv in sorted(h.items()))))
for r in rs:
    if r["health"] != "ok":
        print("# %s: %s %s" % (r["name"], r["health"], r.get("lastError", "")))' 2>&1
}

ready() {
	grep -qxF "ptscope: serving http://$1/metrics" "$2" &&
		grep -qxF "ptscope: tracing, Ctrl-C to stop" "$2"
}

# --- the geometry, from this kernel's page size ---
page=$(getconf PAGESIZE)
pmd_span=$((page / 8 * page))	# a page table holds page/8 entries
A_CALLS=3
A_BYTES=$((A_CALLS * 16 * MiB))
A_PMDS=$((A_BYTES / pmd_span))	# 24 with 4 KiB pages
B_CALLS=1
B_BYTES=$((B_CALLS * 1036 * KiB))
B_PTES=$((B_BYTES / page))	# 259 with 4 KiB pages
echo "# page size $page: A moves ${A_CALLS}x 16 MiB PMD-aligned ($A_PMDS PMD entries), B ${B_CALLS}x 1036 KiB a page off ($B_PTES PTEs)"

[ -x "$PROMETHEUS" ] || give_up "no $PROMETHEUS: apt-get install prometheus (make deps)"
python3 -c 'import yaml' 2>/dev/null || give_up "no python3-yaml (make deps)"
NR_RULES=$(python3 -c 'import sys, yaml
print(sum(len(g["rules"]) for g in yaml.safe_load(open(sys.argv[1]))["groups"]))' "$RULES")

# --- two exporters, each counting only its own copy of the bench ---
mkdir -p "$TMP/bin"
cp "$BENCH" "$TMP/bin/bench-a"
cp "$BENCH" "$TMP/bin/bench-b"
A="127.0.0.1:$(free_port 127.0.0.1)"
B="127.0.0.2:$(free_port 127.0.0.2)"
"$PTSCOPE" export --listen "$A" -c bench-a >/dev/null 2>"$TMP/a.err" &
EXP_A=$!
"$PTSCOPE" export --listen "$B" -c bench-b >/dev/null 2>"$TMP/b.err" &
EXP_B=$!
wait_for 60 ready "$A" "$TMP/a.err" || give_up "exporter A ($A) not ready within 60 s" "$TMP/a.err"
wait_for 60 ready "$B" "$TMP/b.err" || give_up "exporter B ($B) not ready within 60 s" "$TMP/b.err"
ok "two exporters serving: A $A -c bench-a, B $B -c bench-b"

# --- Prometheus: both targets every second, the rules every second ---
PPORT=$(free_port)
PROM_URL="http://127.0.0.1:$PPORT"
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
rule_files: ['$PWD/$RULES']
scrape_configs:
  - job_name: ptscope
    static_configs:
      - targets: ['$A', '$B']
EOF
"$PROMETHEUS" --config.file="$TMP/prometheus.yml" --storage.tsdb.path="$TMP/tsdb" \
	--web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
PROM=$!
prom_ready() {
	curl -sf --max-time 2 "$PROM_URL/-/ready" >/dev/null
}
wait_for 60 prom_ready || give_up "prometheus not ready within 60 s" "$TMP/prometheus.log"
both_up() {
	[ "$(prom 'up{job="ptscope"}' instance)" = "$A=1 $B=1" ]
}
if wait_for 30 both_up; then
	ok "up{job=\"ptscope\"} is 1 for both targets"
else
	give_up "up{job=\"ptscope\"}: want $A=1 $B=1, got $(prom 'up{job="ptscope"}' instance)" "$TMP/prometheus.log"
fi

# --- the workloads, then a scrape of both that started after them ---
"$TMP/bin/bench-a" mremap --size 16M --align pmd --thp never --count "$A_CALLS" >"$TMP/a.out" 2>&1 ||
	not_ok "workload A failed: $(head -c 300 "$TMP/a.out")"
"$TMP/bin/bench-b" mremap --size 1036K --align page --count "$B_CALLS" >"$TMP/b.out" 2>&1 ||
	not_ok "workload B failed: $(head -c 300 "$TMP/b.out")"
sed 's/^/# A: /' "$TMP/a.out"
sed 's/^/# B: /' "$TMP/b.out"
done_at=$(date +%s.%N)
# up's timestamp is the start of the target's last scrape
scraped_after_workloads() {
	python3 -c 'import sys; sys.exit(not float(sys.argv[1]) > float(sys.argv[2]))' \
		"$(prom 'min(timestamp(up{job="ptscope"}))')" "$done_at" 2>/dev/null
}
wait_for 30 scraped_after_workloads ||
	not_ok "no scrape of both targets after the workloads within 30 s: $(prom 'timestamp(up{job="ptscope"})' instance)"

# per instance: each exporter counted its own workload and nothing else
check_eq "ptscope_mremap_calls_total{class=\"pmd\"} per instance" "$A=$A_CALLS $B=0" \
	"$(prom 'ptscope_mremap_calls_total{job="ptscope",class="pmd"}' instance)"
check_eq "ptscope_mremap_calls_total{class=\"pte\"} per instance" "$A=0 $B=$B_CALLS" \
	"$(prom 'ptscope_mremap_calls_total{job="ptscope",class="pte"}' instance)"
check_eq "ptscope_mremap_calls_total, all classes, per instance" "$A=$A_CALLS $B=$B_CALLS" \
	"$(prom 'sum by (instance) (ptscope_mremap_calls_total{job="ptscope"})' instance)"
check_eq "ptscope_mremap_bytes_total{class=\"pmd\"} per instance" "$A=$A_BYTES $B=0" \
	"$(prom 'ptscope_mremap_bytes_total{job="ptscope",class="pmd"}' instance)"
check_eq "ptscope_mremap_bytes_total{class=\"pte\"} per instance" "$A=0 $B=$B_BYTES" \
	"$(prom 'ptscope_mremap_bytes_total{job="ptscope",class="pte"}' instance)"
# the fleet
check_eq "sum(ptscope_mremap_calls_total)" $((A_CALLS + B_CALLS)) \
	"$(prom 'sum(ptscope_mremap_calls_total{job="ptscope"})')"
check_eq "sum(ptscope_mremap_bytes_total)" $((A_BYTES + B_BYTES)) \
	"$(prom 'sum(ptscope_mremap_bytes_total{job="ptscope"})')"

# page-table entries: where mremap.levels attaches, A's 16 MiB moves are
# whole PMD entries and B's PTEs move one by one; where it does not, the
# families are absent (never 0)
levels=$(prom 'ptscope_probe_attached{job="ptscope",metric="mremap.levels"}' instance)
case "$levels" in
"$A=1 $B=1")
	check_eq "ptscope_pagetable_entries_moved_total{level=\"pmd\"} per instance" "$A=$A_PMDS $B=0" \
		"$(prom 'ptscope_pagetable_entries_moved_total{job="ptscope",level="pmd"}' instance)"
	check_eq "sum(ptscope_pagetable_entries_moved_total{level=\"pmd\"})" "$A_PMDS" \
		"$(prom 'sum(ptscope_pagetable_entries_moved_total{job="ptscope",level="pmd"})')"
	if [ "$(prom 'ptscope_ptes_moved_total{job="ptscope"}')" = none ]; then
		echo "# ptscope_ptes_moved_total: not on this path ($(prom 'ptscope_probe_attached{job="ptscope",metric="mremap.levels"}' path))"
	else
		check_eq "ptscope_ptes_moved_total per instance" "$A=0 $B=$B_PTES" \
			"$(prom 'ptscope_ptes_moved_total{job="ptscope"}' instance)"
	fi
	;;
"$A=0 $B=0")
	check_eq "mremap.levels not attached here: ptscope_pagetable_entries_moved_total absent on both" \
		none "$(prom 'ptscope_pagetable_entries_moved_total{job="ptscope"}' instance)"
	;;
*)
	not_ok "ptscope_probe_attached{metric=\"mremap.levels\"}: want the same on both, got '$levels'"
	;;
esac

# --- the rules ---
rules_evaluated() {
	rules_health | head -1 | grep -qv 'unknown='
}
wait_for 30 rules_evaluated
rules_health >"$TMP/rules.txt"
check_eq "rules loaded from $RULES, health" "$NR_RULES rules: ok=$NR_RULES" "$(head -1 "$TMP/rules.txt")"
grep '^#' "$TMP/rules.txt"

# recorded series, per instance: 5 classes, and one per drop reason A's
# page has
reasons=$(curl -s --max-time 5 "http://$A/metrics" |
	grep -c '^ptscope_events_dropped_total{')
check_eq "instance_class:ptscope_mremap_calls:rate5m series per instance" "$A=5 $B=5" \
	"$(prom 'count by (instance) (instance_class:ptscope_mremap_calls:rate5m{job="ptscope"})' instance)"
check_eq "instance_reason:ptscope_events_dropped:rate5m series per instance ($reasons reasons on the page)" \
	"$A=$reasons $B=$reasons" \
	"$(prom 'count by (instance) (instance_reason:ptscope_events_dropped:rate5m{job="ptscope"})' instance)"
# the rates see each workload on its own node once a rule has two samples
# around it
pmd_rate='instance_class:ptscope_mremap_calls:rate5m{job="ptscope",class="pmd"} > bool 0'
pte_rate='instance_class:ptscope_mremap_calls:rate5m{job="ptscope",class="pte"} > bool 0'
rates_seen() {
	[ "$(prom "$pmd_rate" instance) $(prom "$pte_rate" instance)" = "$A=1 $B=0 $A=0 $B=1" ]
}
wait_for 30 rates_seen
check_eq "recorded pmd-class rate > 0 per instance" "$A=1 $B=0" "$(prom "$pmd_rate" instance)"
check_eq "recorded pte-class rate > 0 per instance" "$A=0 $B=1" "$(prom "$pte_rate" instance)"
check_eq "recorded fleet rate job_class:ptscope_mremap_calls:rate5m > 0 by class" \
	"failed=0 in_place=0 pmd=1 pte=1 pud=0" \
	"$(prom 'job_class:ptscope_mremap_calls:rate5m{job="ptscope"} > bool 0' class)"
check_eq "ptscope alerts pending or firing on the healthy fleet" none \
	"$(prom 'ALERTS{alertname=~"Ptscope.*"}' alertname)"

# every name the rules query is on A's page, or its probe says why not
if curl -sf --max-time 10 -o "$TMP/page_a.txt" "http://$A/metrics" &&
	tests/check_dashboard.py --ptscope "$PTSCOPE" "$RULES" "$TMP/page_a.txt" >"$TMP/names.out" 2>&1; then
	ok "the rules' families are on A's page or not attached there ($(tail -1 "$TMP/names.out"))"
	grep '^#' "$TMP/names.out"
else
	not_ok "the rules' families on A's page: $(tail -1 "$TMP/names.out" 2>/dev/null)"
fi

# --- exporter B stops: up 0 for B alone, PtscopeExporterDown pending for B ---
kill -INT "$EXP_B" && wait "$EXP_B"
check_eq "exporter B exit status after Ctrl-C" 0 "$?"
EXP_B=
b_down() {
	[ "$(prom 'up{job="ptscope"}' instance)" = "$A=1 $B=0" ]
}
wait_for 30 b_down
check_eq "up{job=\"ptscope\"} after B stopped" "$A=1 $B=0" "$(prom 'up{job="ptscope"}' instance)"
down_pending() {
	[ "$(prom 'ALERTS{alertname="PtscopeExporterDown"}' instance)" != none ]
}
wait_for 30 down_pending
check_eq "PtscopeExporterDown pending (for: 5m) per instance" "$B=1" \
	"$(prom 'ALERTS{alertname="PtscopeExporterDown",alertstate="pending"}' instance)"

echo "# run time ${SECONDS} s"
tap_finish
