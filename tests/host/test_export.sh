#!/bin/bash
# ptscope export on this kernel: the /metrics page passes promtool, counts
# a known workload exactly, is scraped by a real Prometheus, answers bad
# HTTP with 4xx, matches the Grafana dashboard, and detaches on Ctrl-C.
# Needs the Debian packages in tests/deps-export.txt (prometheus, curl).
. "$(dirname "$0")/lib.sh"
require_root

PROMETHEUS=${PROMETHEUS:-/usr/bin/prometheus}
PROMTOOL=${PROMTOOL:-/usr/bin/promtool}
DASHBOARD=${DASHBOARD:-dashboards/ptscope.json}
MiB=1048576
EXPORTER=
PROM=

cleanup() {
	[ -n "$EXPORTER" ] && kill -INT "$EXPORTER" 2>/dev/null && wait "$EXPORTER"
	[ -n "$PROM" ] && kill "$PROM" 2>/dev/null && wait "$PROM"
	rm -rf "$TMP"
}
trap cleanup EXIT

# scrape OUT [CURL ARGS...]: prints "HTTP_CODE CONTENT_TYPE"
scrape() {
	local out=$1
	shift
	curl -sS --max-time 10 -o "$out" -w '%{http_code} %{content_type}' \
		"$@" "http://127.0.0.1:$PORT/metrics"
}

# check_delta NAME WANT SERIES: SERIES in after.txt minus before.txt; a
# series missing from either page fails, it does not count as 0
check_delta() {
	local b a
	b=$(value "$TMP/before.txt" "$3")
	a=$(value "$TMP/after.txt" "$3")
	if [ -n "$b" ] && [ -n "$a" ]; then
		check_eq "$1" "$2" "$(minus "$a" "$b")"
	else
		not_ok "$1: $3 missing (before '$b', after '$a')"
	fi
}

# raw_status BYTES [shut]: send raw bytes (printf format), then with
# "shut" half-close; print the status code
raw_status() {
	python3 - "$PORT" "$1" "${2:-}" <<'EOF'
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=10)
s.sendall(sys.argv[2].encode().decode("unicode_escape").encode("latin-1"))
if sys.argv[3] == "shut":
    s.shutdown(socket.SHUT_WR)
reply = b""
try:
    while True:
        d = s.recv(4096)
        if not d:
            break
        reply += d
except socket.timeout:
    pass
parts = reply.split(b" ", 2)
print(parts[1].decode() if len(parts) > 1 and reply.startswith(b"HTTP/") else "none")
EOF
}

exporter_alive() {
	kill -0 "$EXPORTER" 2>/dev/null
}

ready_line() {
	grep -qxF "ptscope: serving http://127.0.0.1:$PORT/metrics" "$TMP/export.err" &&
		grep -qxF "ptscope: tracing, Ctrl-C to stop" "$TMP/export.err"
}

# --- usage errors: exit 2 before anything is attached ---
for bad in 127.0.0.1:99999 127.0.0.1:0 nonsense 300.1.2.3:80 '[::1:80' 127.0.0.1:http; do
	"$PTSCOPE" export --listen "$bad" >/dev/null 2>"$TMP/bad.err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q -- '--listen' "$TMP/bad.err"; then
		ok "export --listen $bad: exit 2 with a message"
	else
		not_ok "export --listen $bad: want exit 2 and a --listen message, got $rc: $(head -c 200 "$TMP/bad.err")"
	fi
done

# --- start the exporter; only our workload's comm is counted ---
WORKLOAD="$TMP/ptsx-exp-$$"
cp "$BENCH" "$WORKLOAD"
COMM=$(basename "$WORKLOAD" | cut -c1-15)
PORT=$(free_port)
# --bpf-stats: the run-time statistics are opt-in (they time every BPF
# program on the box); top --listen below checks they stay off without it
"$PTSCOPE" export --listen "127.0.0.1:$PORT" -c "$COMM" --bpf-stats \
	>"$TMP/export.out" 2>"$TMP/export.err" &
EXPORTER=$!
if wait_for 60 ready_line; then
	ok "export prints the ready line"
else
	not_ok "export did not print the ready line within 60 s:"
	sed 's/^/#   /' "$TMP/export.err"
	exporter_alive || { EXPORTER=; echo "# exporter died"; tap_finish; exit 1; }
fi

# privileges PID: "CapEff CapPrm NoNewPrivs Seccomp" of a running process
privileges() {
	awk '$1 ~ /^(CapEff|CapPrm|NoNewPrivs|Seccomp):$/ { v[$1] = $2 }
	END { print v["CapEff:"], v["CapPrm:"], v["NoNewPrivs:"], v["Seccomp:"] }' \
		/proc/"$1"/status
}

# serving keeps no capability (CAP_BPF, bit 39, where the kernel's bpf()
# asks for it on map reads: before 6.5 with unprivileged BPF disabled),
# no new privileges, a seccomp filter (mode 2); the sanitizer build
# (PTSCOPE_SAN_LOGS set) installs none, LeakSanitizer needs ptrace at exit
check_privileges() {
	local got want=0000000000000000 filter=2
	[ -n "${PTSCOPE_SAN_LOGS:-}" ] && filter=0
	got=$(privileges "$2")
	case "$got" in
	"0000008000000000 0000008000000000 1 $filter")
		want=0000008000000000
		echo "# $1: CAP_BPF kept: this kernel's bpf() needs it for map reads" ;;
	esac
	check_eq "$1: CapEff CapPrm NoNewPrivs Seccomp" "$want $want 1 $filter" "$got"
}
check_privileges "export" "$EXPORTER"

# --- a second exporter on the same port: exit 1, says why ---
"$PTSCOPE" export --listen "127.0.0.1:$PORT" >/dev/null 2>"$TMP/busy.err"
rc=$?
if [ $rc -eq 1 ] && grep -q "already in use" "$TMP/busy.err"; then
	ok "port in use: exit 1 with a message"
else
	not_ok "port in use: want exit 1 and 'already in use', got $rc: $(head -c 200 "$TMP/busy.err")"
fi

# --- the page ---
got=$(scrape "$TMP/before.txt")
check_eq "GET /metrics status and content type" \
	"200 text/plain; version=0.0.4; charset=utf-8" "$got"
if "$PROMTOOL" check metrics <"$TMP/before.txt" >"$TMP/promtool.out" 2>&1; then
	ok "promtool check metrics accepts the page"
else
	not_ok "promtool check metrics rejects the page:"
	sed 's/^/#   /' "$TMP/promtool.out" | head -20
fi
if ! grep -q '^ptscope_' "$TMP/before.txt"; then
	not_ok "no pid labels: the page has no ptscope_ samples to check"
elif grep -q 'pid=' "$TMP/before.txt"; then
	not_ok "no pid labels"
else
	ok "no pid labels"
fi

# a metric that is not attached is absent, one that is attached is there
declare -A family=(
	[mremap.calls]=ptscope_mremap_calls_total
	[mremap.move_page_tables]=ptscope_move_page_tables_calls_total
	[mremap.levels]=ptscope_pagetable_entries_moved_total
	[thp.fault_alloc]=ptscope_hugepage_fault_allocs_total
	[thp.collapse]=ptscope_khugepaged_collapse_total
)
for m in "${!family[@]}"; do
	state=$(sed -n "s/^ptscope_probe_attached{metric=\"$m\",.*} \([01]\)\$/\1/p" "$TMP/before.txt")
	present=0
	grep -q "^# TYPE ${family[$m]} " "$TMP/before.txt" && present=1
	case "$state$present" in
	11) ok "$m attached, ${family[$m]} present" ;;
	00) ok "$m not attached here, ${family[$m]} absent" ;;
	*) not_ok "$m: ptscope_probe_attached '$state' but ${family[$m]} present=$present" ;;
	esac
done

# the fault counts' self-check against the kernel's counters: served
# wherever thp.fault_alloc is attached, and absent with a reason where not
if grep -q '^ptscope_probe_attached{metric="thp.fault_alloc",.*} 1$' "$TMP/before.txt"; then
	check_eq "self-check served for 2M, and agrees" 1 \
		"$(value "$TMP/before.txt" 'ptscope_hugepage_fault_selfcheck{size="2M",order="9"}')"
else
	check_eq "no thp.fault_alloc: the self-check is left out, saying why" 1 \
		"$(grep -c '^# ptscope_hugepage_fault_selfcheck left out: thp.fault_alloc is not attached$' "$TMP/before.txt")"
fi

# --- a known workload: 5 PMD-aligned moves of 16 MiB ---
pmd_calls='ptscope_mremap_calls_total{class="pmd"}'
pmd_bytes='ptscope_mremap_bytes_total{class="pmd"}'
pmd_count='ptscope_mremap_duration_seconds_count{class="pmd"}'
pmd_inf='ptscope_mremap_duration_seconds_bucket{class="pmd",le="+Inf"}'
if "$WORKLOAD" mremap --size 16M --align pmd --count 5 >"$TMP/workload.out" 2>&1; then
	check_eq "GET /metrics after the workload" 200 \
		"$(scrape "$TMP/after.txt" | cut -d' ' -f1)"
	check_delta "pmd mremap calls delta" 5 "$pmd_calls"
	check_delta "pmd mremap bytes delta" $((5 * 16 * MiB)) "$pmd_bytes"
	check_delta "pmd latency histogram count delta" 5 "$pmd_count"
	check_eq "pmd +Inf bucket = _count" "$(value "$TMP/after.txt" "$pmd_count")" \
		"$(value "$TMP/after.txt" "$pmd_inf")"
	check_delta "pte mremap calls delta" 0 'ptscope_mremap_calls_total{class="pte"}'
else
	not_ok "the workload failed:"
	sed 's/^/#   /' "$TMP/workload.out"
fi

# BPF run-time statistics: the mremap programs ran for the workload.  Root
# can enable them on every kernel we test on; a box that cannot says so
# with PTSCOPE_KERNEL_NO_BPF_STATS=1, and then the series must be absent.
if grep -q "run-time statistics unavailable" "$TMP/export.err"; then
	if [ -n "${PTSCOPE_KERNEL_NO_BPF_STATS:-}" ]; then
		check_eq "BPF run-time statistics unavailable: ptscope_bpf_program_* absent" 0 \
			"$(grep -c '^ptscope_bpf_program_' "$TMP/after.txt")"
	else
		not_ok "BPF run-time statistics unavailable: $(grep -m1 'run-time statistics' "$TMP/export.err")"
	fi
else
	runs=$(awk '/^ptscope_bpf_program_runs_total\{program="mremap_/ { n += $2 } END { print n + 0 }' "$TMP/after.txt")
	if [ "$runs" -ge 10 ]; then
		ok "BPF program runs counted ($runs mremap program runs)"
	else
		not_ok "BPF program runs: want >= 10 for the mremap programs, got $runs"
	fi
fi

# --- HTTP errors ---
got=$(curl -s -o /dev/null -w '%{http_code}' -X POST -d x=1 "http://127.0.0.1:$PORT/metrics")
check_eq "POST /metrics" 405 "$got"
got=$(curl -s -o /dev/null -w '%{http_code}' -X DELETE "http://127.0.0.1:$PORT/metrics")
check_eq "DELETE /metrics" 405 "$got"
got=$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/nope")
check_eq "GET /nope" 404 "$got"
for req in 'GARBAGE\r\n\r\n' 'GET\r\n\r\n' '\x00\x01\x02\xff\r\n\r\n' \
	'GET /metrics HTTP/1.1\r\nHost: x\r\nno colon here\r\n\r\n'; do
	got=$(raw_status "$req")
	case "$got" in
	4??) ok "malformed request '$req': $got" ;;
	*) not_ok "malformed request '$req': want 4xx, got $got" ;;
	esac
done
got=$(raw_status 'GET /metr' shut)
check_eq "half a request line, then a half-close" 400 "$got"
got=$(raw_status 'GET /metrics HTTP/1.0\r\n\r\n' shut)
check_eq "a whole request, then a half-close" 200 "$got"
got=$(scrape "$TMP/still.txt")
if exporter_alive && [ "${got%% *}" = 200 ]; then
	ok "still serving after bad requests"
else
	not_ok "exporter after bad requests: alive=$(exporter_alive && echo yes || echo no) status=$got"
fi

# --- a real Prometheus scrapes it ---
expected=$(value "$TMP/after.txt" "$pmd_calls")
PPORT=$(free_port)
cat >"$TMP/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  evaluation_interval: 1s
scrape_configs:
  - job_name: ptscope
    static_configs:
      - targets: ['127.0.0.1:$PORT']
EOF

prom_up() {
	curl -sf --max-time 2 "http://127.0.0.1:$PPORT/-/ready" >/dev/null
}

# prom_query EXPR: the API's JSON answer
prom_query() {
	curl -sG --max-time 5 --data-urlencode "query=$1" \
		"http://127.0.0.1:$PPORT/api/v1/query"
}

prom_value() {
	prom_query "$1" | python3 -c 'import json, sys
r = json.load(sys.stdin)["data"]["result"]
print(r[0]["value"][1] if r else "none")' 2>/dev/null
}

prom_has_count() {
	[ "$(prom_value "$pmd_calls")" = "$expected" ]
}

if [ ! -x "$PROMETHEUS" ]; then
	not_ok "no $PROMETHEUS: apt-get install prometheus (tests/deps-export.txt)"
else
	"$PROMETHEUS" --config.file="$TMP/prometheus.yml" \
		--storage.tsdb.path="$TMP/tsdb" \
		--web.listen-address="127.0.0.1:$PPORT" >"$TMP/prometheus.log" 2>&1 &
	PROM=$!
	if ! wait_for 30 prom_up; then
		not_ok "prometheus not ready within 30 s:"
		tail -5 "$TMP/prometheus.log" | sed 's/^/#   /'
	elif wait_for 30 prom_has_count; then
		ok "prometheus scraped $pmd_calls = $expected"
	else
		not_ok "prometheus: want $pmd_calls = $expected within 30 s, got $(prom_value "$pmd_calls")"
		curl -s "http://127.0.0.1:$PPORT/api/v1/targets" | head -c 600 | sed 's/^/#   /'
	fi
fi

# --- the dashboard: valid JSON, every metric it queries is exported ---
# (a metric this kernel cannot attach must at least be a family of
# "ptscope schema", with its probe reported unavailable)
if tests/check_dashboard.py --ptscope "$PTSCOPE" "$DASHBOARD" "$TMP/after.txt" >"$TMP/dash.out" 2>&1
then
	ok "dashboard: valid JSON, its metrics are exported ($(tail -1 "$TMP/dash.out"))"
	grep '^#' "$TMP/dash.out"
else
	not_ok "dashboard: $(tail -1 "$TMP/dash.out")"
fi

# and each query is PromQL that Prometheus accepts
if [ -n "$PROM" ] && prom_up; then
	bad=0
	queries=0
	while IFS= read -r expr; do
		queries=$((queries + 1))
		q=${expr//\$__rate_interval/1m}
		q=${q//\$instance/.*}
		status=$(prom_query "$q" | python3 -c 'import json, sys; print(json.load(sys.stdin)["status"])' 2>/dev/null)
		if [ "$status" != success ]; then
			echo "# rejected: $q"
			bad=$((bad + 1))
		fi
	done < <(python3 -c 'import json, sys
def walk(n):
    if isinstance(n, dict):
        for k, v in n.items():
            if k == "expr": print(v)
            else: walk(v)
    elif isinstance(n, list):
        for v in n: walk(v)
walk(json.load(open(sys.argv[1])))' "$DASHBOARD")
	if [ "$queries" -gt 0 ]; then
		check_eq "dashboard queries Prometheus rejects (of $queries)" 0 "$bad"
	else
		not_ok "dashboard: no queries found in $DASHBOARD"
	fi
fi

# --- top --listen: the live view and /metrics in one process, one set of
# maps; both must see the same 3 PMD-aligned moves ---
TPORT=$(free_port)
"$PTSCOPE" top --json -i 1 -d 8 -c "$COMM" --listen "127.0.0.1:$TPORT" \
	>"$TMP/top.json" 2>"$TMP/top.err" &
TOP=$!
top_ready() {
	grep -qxF "ptscope: serving http://127.0.0.1:$TPORT/metrics" "$TMP/top.err" &&
		grep -q 'tracing, Ctrl-C' "$TMP/top.err"
}
if wait_for 60 top_ready; then
	check_privileges "top --listen" "$TOP"
	PORT=$TPORT scrape "$TMP/top0.txt" >/dev/null
	"$WORKLOAD" mremap --size 16M --align pmd --count 3 >/dev/null 2>&1
	PORT=$TPORT scrape "$TMP/top1.txt" >/dev/null
	wait "$TOP"
	rc=$?
	a=$(value "$TMP/top1.txt" "$pmd_calls")
	b=$(value "$TMP/top0.txt" "$pmd_calls")
	shown=$(python3 -c 'import json, sys
print(sum(json.loads(l)["mremap"]["classes"]["pmd"]["calls"] for l in open(sys.argv[1]) if l.strip()))' "$TMP/top.json")
	check_eq "top --listen: exit status, /metrics delta, top's own count" \
		"0 3 3" "$rc $(minus "$a" "$b") $shown"
	# without --bpf-stats: no run-time series, and a comment says why
	check_eq "top --listen without --bpf-stats: ptscope_bpf_program_* rows, reason comment" \
		"0 1" "$(grep -c '^ptscope_bpf_program_' "$TMP/top1.txt") $(grep -c '^# ptscope_bpf_program_run_seconds_total and ptscope_bpf_program_runs_total left out: off; --bpf-stats' "$TMP/top1.txt")"
else
	not_ok "top --listen did not serve within 60 s: $(head -c 300 "$TMP/top.err")"
	kill -INT "$TOP" 2>/dev/null
	wait "$TOP"
fi
"$PTSCOPE" stat --listen "127.0.0.1:$TPORT" -- true >/dev/null 2>"$TMP/bad.err"
rc=$?
if [ $rc -eq 2 ] && grep -q -- '--listen applies to export and top' "$TMP/bad.err"; then
	ok "stat --listen: exit 2 with a message"
else
	not_ok "stat --listen: want exit 2, got $rc: $(head -c 200 "$TMP/bad.err")"
fi

# --- Ctrl-C: exit 0, every link gone ---
links=$(cat /proc/"$EXPORTER"/fdinfo/* 2>/dev/null | sed -n 's/^link_id:[[:space:]]*//p' | sort -n)
if [ -n "$links" ]; then
	ok "exporter holds $(echo "$links" | wc -l) BPF links"
else
	not_ok "no BPF links found in the exporter's fdinfo"
fi
kill -INT "$EXPORTER"
if wait_for 15 bash -c "! kill -0 $EXPORTER 2>/dev/null"; then
	wait "$EXPORTER"
	check_eq "exit code after Ctrl-C" 0 "$?"
	EXPORTER=
else
	not_ok "exporter still running 15 s after Ctrl-C"
fi
# the witnesses: the exporter's own link ids, and a bpftool that listed the
# box's links; without both, "none left" would check nothing
if [ -z "$links" ]; then
	not_ok "ptscope links left after Ctrl-C: no link ids to look for"
elif ! bpftool -j link show >"$TMP/links.json" 2>"$TMP/bpftool.err"; then
	not_ok "ptscope links left after Ctrl-C: bpftool failed: $(head -c 200 "$TMP/bpftool.err")"
elif left=$(python3 -c 'import json, sys
ids = set(sys.argv[1].split())
print(" ".join(str(l["id"]) for l in json.load(open(sys.argv[2])) if str(l["id"]) in ids))' "$links" "$TMP/links.json"); then
	if [ -z "$left" ]; then
		ok "no ptscope link left after Ctrl-C (of $(echo "$links" | wc -l))"
	else
		not_ok "ptscope links left after Ctrl-C: $left"
	fi
else
	not_ok "ptscope links left after Ctrl-C: bpftool's JSON did not parse"
fi

# --- export --parts: the programs keep only the parts named; what the
# others count is absent from the page, never 0 ---
# parts_page LIST: export --parts LIST around 3 PMD-aligned moves of the
# workload's comm; the page in $TMP/parts.txt, stderr in $TMP/parts.err
parts_page() {
	PORT=$(free_port)
	rm -f "$TMP/parts.txt"
	"$PTSCOPE" export --listen "127.0.0.1:$PORT" -c "$COMM" --parts "$1" \
		>/dev/null 2>"$TMP/parts.err" &
	EXPORTER=$!
	if ! wait_for 60 grep -qxF "ptscope: tracing, Ctrl-C to stop" "$TMP/parts.err"; then
		not_ok "--parts $1: not ready within 60 s: $(tail -n1 "$TMP/parts.err")"
	elif "$WORKLOAD" mremap --size 16M --align pmd --count 3 >/dev/null 2>&1; then
		scrape "$TMP/parts.txt" >/dev/null
	else
		not_ok "--parts $1: the workload failed"
	fi
	kill -INT "$EXPORTER" 2>/dev/null
	wait "$EXPORTER"
	EXPORTER=
}

parts_page counts
check_eq "--parts counts: 3 PMD moves counted" 3 "$(value "$TMP/parts.txt" "$pmd_calls")"
check_eq "--parts counts: no histogram served" 0 "$(grep -c '^# TYPE .* histogram$' "$TMP/parts.txt")"
check_eq "--parts counts: no per-cgroup family without its rows" 0 \
	"$(grep -c '^ptscope_cgroup_' "$TMP/parts.txt")"
if grep -q -- "--parts counts: the BPF programs keep only that" "$TMP/parts.err"; then
	ok "--parts counts: a warning says what is left out"
else
	not_ok "--parts counts: no warning: $(head -c 300 "$TMP/parts.err")"
fi
parts_page counts,hists
check_eq "--parts counts,hists: 3 PMD moves in the latency histogram" 3 \
	"$(value "$TMP/parts.txt" "$pmd_count")"
parts_page none
check_eq "--parts none: no mremap counter served" 0 \
	"$(grep -c '^ptscope_mremap_' "$TMP/parts.txt")"
check_eq "--parts none: the probe table is still served" 1 \
	"$(grep -c '^ptscope_probe_attached{metric="mremap.calls",' "$TMP/parts.txt")"

tap_finish
