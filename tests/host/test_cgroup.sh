#!/bin/bash
# cgroup v2 on this kernel: per-cgroup rows in stat and top equal the
# geometry of a workload in each of two cgroups, --cgroup filters stat and
# snoop to a cgroup and stat, top and export to the cgroups below one,
# export labels the busiest cgroup and sums the rest as "other" (the sum
# over cgroups is the unlabelled total), and a bad --cgroup exits 2.  The two cgroups live under a parent of this
# run's own, so other tracing on the box stays out, and are removed on exit.
. "$(dirname "$0")/lib.sh"
require_root

MiB=1048576
TOP=
SNOOP=
EXPORTER=

require_cgroup2
NAME=ptscope-test-$$
P=$CGROOT/$NAME		# the parent; a and b below it
A=$P/ptscope-test-a
B=$P/ptscope-test-b
REL_A=/$NAME/ptscope-test-a	# as /proc/PID/cgroup and ptscope write them
REL_B=/$NAME/ptscope-test-b

cleanup() {
	[ -n "$TOP" ] && kill -INT "$TOP" 2>/dev/null && wait "$TOP"
	[ -n "$SNOOP" ] && kill -INT "$SNOOP" 2>/dev/null && wait "$SNOOP"
	[ -n "$EXPORTER" ] && kill -INT "$EXPORTER" 2>/dev/null && wait "$EXPORTER"
	remove_cgroup "$A"
	remove_cgroup "$B"
	remove_cgroup "$P"
	rm -rf "$TMP"
}
trap cleanup EXIT

if ! mkdir "$P" "$A" "$B"; then
	not_ok "mkdir $A $B"
	tap_finish
	exit 1
fi

# the workloads: in a 3 PMD-aligned moves of 16 MiB (24 PMD entries), in b
# one (8 PMD entries); each shell moves itself into its cgroup, then execs
WORKLOADS="run_in $A 3 & run_in $B 1 & wait"

# a cgroup's value in a report: FILE PATH PYTHON-EXPR-OVER-c, or nothing
cg() {
	json "$1" "next((str($3) for c in d['counters']['cgroups'] if c['path'] == '$2'), '')"
}

# expect_geometry NAME FILE PATH CALLS: a cgroup's row is CALLS 16 MiB moves
expect_geometry() {
	local name=$1 file=$2 path=$3 calls=$4 levels
	check_eq "$name: $path pmd calls" "$calls" "$(cg "$file" "$path" "c['mremap']['classes']['pmd']['calls']")"
	check_eq "$name: $path calls of other classes" 0 \
		"$(cg "$file" "$path" "sum(v['calls'] for k, v in c['mremap']['classes'].items() if k != 'pmd')")"
	check_eq "$name: $path pmd old bytes" $((calls * 16 * MiB)) \
		"$(cg "$file" "$path" "c['mremap']['classes']['pmd']['old_bytes']")"
	check_eq "$name: $path pmd new bytes" $((calls * 16 * MiB)) \
		"$(cg "$file" "$path" "c['mremap']['classes']['pmd']['new_bytes']")"
	levels=$(attached "$file" mremap.levels)
	if [ "$levels" = yes ]; then
		check_eq "$name: $path PMD entries moved" $((calls * 8)) \
			"$(cg "$file" "$path" "c['mremap_levels']['pmd_moved']")"
	else
		# absent, never zero: no level counts where levels are not traced
		check_eq "$name: $path has no level counts ($levels)" False \
			"$(cg "$file" "$path" "'mremap_levels' in c")"
	fi
}

# --- stat: both cgroups, each row its own workload's geometry ---
if stat_json "$TMP/both.json" bash -c "$WORKLOADS"; then
	expect_geometry "stat" "$TMP/both.json" "$REL_A" 3
	expect_geometry "stat" "$TMP/both.json" "$REL_B" 1
	# the id is bpf_get_current_cgroup_id(); the directory's inode is it
	check_eq "stat: $REL_A id = inode of its directory" "$(stat -c %i "$A")" \
		"$(cg "$TMP/both.json" "$REL_A" "c['id']")"
	check_eq "stat: $REL_B id = inode of its directory" "$(stat -c %i "$B")" \
		"$(cg "$TMP/both.json" "$REL_B" "c['id']")"
	check_eq "stat: rows add up to the total calls" \
		"$(json "$TMP/both.json" "d['counters']['mremap']['calls']")" \
		"$(json "$TMP/both.json" "sum(c['mremap']['calls'] for c in d['counters']['cgroups'])")"
else
	not_ok "ptscope stat over two cgroups"
fi

# the text table: one line per cgroup, path last
"$PTSCOPE" stat -- bash -c "$WORKLOADS" >"$TMP/both.txt" 2>&1
check_eq "stat text: $REL_A row (MREMAP PUD PMD)" "3 0 3" \
	"$(awk -v p="$REL_A" '$NF == p { print $1, $2, $3 }' "$TMP/both.txt")"
check_eq "stat text: $REL_B row (MREMAP PUD PMD)" "1 0 1" \
	"$(awk -v p="$REL_B" '$NF == p { print $1, $2, $3 }' "$TMP/both.txt")"

# --- --cgroup: a (as a path under the mount) sees a only ---
if "$PTSCOPE" stat --json --cgroup "$NAME/ptscope-test-a" -o "$TMP/a.json" -- \
	bash -c "$WORKLOADS" >/dev/null 2>"$TMP/a.err"; then
	check_eq "--cgroup a: total pmd calls" 3 "$(mremap_field "$TMP/a.json" pmd calls)"
	check_eq "--cgroup a: cgroup rows" "$REL_A" \
		"$(json "$TMP/a.json" "' '.join(c['path'] for c in d['counters']['cgroups'])")"
	expect_geometry "--cgroup a" "$TMP/a.json" "$REL_A" 3
else
	not_ok "ptscope stat --cgroup a: $(head -c 300 "$TMP/a.err")"
fi

# --- --cgroup on the parent (its directory): a and b, its descendants ---
if "$PTSCOPE" stat --json --cgroup "$P" -o "$TMP/p.json" -- \
	bash -c "$WORKLOADS" >/dev/null 2>"$TMP/p.err"; then
	check_eq "--cgroup parent: total pmd calls" 4 "$(mremap_field "$TMP/p.json" pmd calls)"
	expect_geometry "--cgroup parent" "$TMP/p.json" "$REL_A" 3
	expect_geometry "--cgroup parent" "$TMP/p.json" "$REL_B" 1
else
	not_ok "ptscope stat --cgroup parent: $(head -c 300 "$TMP/p.err")"
fi

# --- top --json, the parent as /proc/PID/cgroup writes it: per-interval
# rows add up to each workload's geometry ---
if top_json_around "$TMP/top.json" "$WORKLOADS" --cgroup "/$NAME"; then
	for p in "$REL_A:3" "$REL_B:1"; do
		check_eq "top --json: ${p%:*} pmd calls over all intervals" "${p#*:}" \
			"$(python3 -c 'import json, sys
n = 0
for line in open(sys.argv[1]):
    for c in json.loads(line).get("cgroups", []):
        if c["path"] == sys.argv[2]:
            n += c["mremap"]["classes"]["pmd"]["calls"]
print(n)' "$TMP/top.json" "${p%:*}")"
	done
fi

# --- snoop --cgroup b: b's one mremap, none of a's three ---
rm -f "$TMP/snoop.err"	# see wait_tracing in tests/vm/scenarios/lib.sh
"$PTSCOPE" snoop --json --cgroup "$NAME/ptscope-test-b" >"$TMP/snoop.json" 2>"$TMP/snoop.err" &
SNOOP=$!
if wait_for 60 tracing "$TMP/snoop.err"; then
	bash -c "$WORKLOADS"
	sleep 0.5
	kill -INT "$SNOOP"
	wait "$SNOOP"
	SNOOP=
	check_eq "snoop --cgroup b: mremap events (pmd class)" "1 1" \
		"$(python3 -c 'import json, sys
ev = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
mr = [e for e in ev if e["type"] == "mremap"]
print(len(mr), sum(e["mremap"]["class"] == "pmd" for e in mr))' "$TMP/snoop.json")"
else
	not_ok "snoop --cgroup did not start: $(head -c 300 "$TMP/snoop.err")"
fi

# --- export --cgroup-labels 1: a labelled, b folded into other ---
# export_after LABELS OUT: an exporter of the parent with --cgroup-labels
# LABELS, the workloads, one scrape into OUT
export_after() {
	local port err=$TMP/export$1.err
	port=$(free_port)
	# a fresh file: an earlier run's "tracing" line must not start the
	# workloads before this exporter is attached
	rm -f "$err"
	"$PTSCOPE" export --listen "127.0.0.1:$port" --cgroup "$P" \
		--cgroup-labels "$1" >/dev/null 2>"$err" &
	EXPORTER=$!
	if ! wait_for 60 tracing "$err"; then
		not_ok "export --cgroup-labels $1 did not start: $(head -c 300 "$err")"
		return 1
	fi
	bash -c "$WORKLOADS"
	curl -sS --max-time 10 -o "$2" "http://127.0.0.1:$port/metrics"
	kill -INT "$EXPORTER"
	wait "$EXPORTER"
	EXPORTER=
}

# the labels of a cgroup that is not a pod's
NOPOD='namespace="",pod="",container=""'
if export_after 1 "$TMP/page.txt"; then
	series='ptscope_cgroup_mremap_calls_total'
	check_eq "export: $REL_A labelled" 3 \
		"$(value "$TMP/page.txt" "$series{cgroup=\"$REL_A\",$NOPOD,class=\"pmd\"}")"
	check_eq "export: $REL_B folded into other" 1 \
		"$(value "$TMP/page.txt" "$series{cgroup=\"other\",$NOPOD,class=\"pmd\"}")"
	check_eq "export: no series of $REL_B" 0 "$(grep -c "cgroup=\"$REL_B\"" "$TMP/page.txt")"
	check_eq "export: ptscope_cgroup_labels_limit" 1 "$(value "$TMP/page.txt" ptscope_cgroup_labels_limit)"
	check_eq "export: ptscope_cgroup_labels_folded" 1 "$(value "$TMP/page.txt" ptscope_cgroup_labels_folded)"
	check_eq "export: pmd bytes of $REL_A" $((48 * MiB)) \
		"$(value "$TMP/page.txt" "ptscope_cgroup_mremap_bytes_total{cgroup=\"$REL_A\",$NOPOD,class=\"pmd\"}")"
	# every per-cgroup series sums to its unlabelled one over the cgroup label
	bad=$(awk '
		/^ptscope_cgroup_[a-z_]*\{cgroup="/ {
			name = $1
			sub(/^ptscope_cgroup_/, "ptscope_", name)
			sub(/cgroup="[^"]*",namespace="[^"]*",pod="[^"]*",container="[^"]*",?/, "", name)
			sub(/\{\}$/, "", name)
			sum[name] += $2
			next
		}
		/^ptscope_/ { total[$1] = $2 }
		END {
			n = 0
			for (s in sum) {
				checked++
				if (!(s in total) || total[s] != sum[s]) {
					print s " sums to " sum[s] ", total " total[s]
					n++
				}
			}
			if (!checked)
				print "no ptscope_cgroup_ series"
		}' "$TMP/page.txt")
	check_eq "export: each series summed over cgroup = its total" "none" "${bad:-none}"
	if command -v promtool >/dev/null; then
		if promtool check metrics <"$TMP/page.txt" >"$TMP/promtool.out" 2>&1; then
			ok "promtool check metrics accepts the labelled page"
		else
			not_ok "promtool check metrics: $(head -c 300 "$TMP/promtool.out")"
		fi
	fi
fi

if export_after 0 "$TMP/page0.txt"; then
	check_eq "export --cgroup-labels 0: no cgroup label" 0 "$(grep -c 'cgroup=\|^ptscope_cgroup_' "$TMP/page0.txt")"
	check_eq "export --cgroup-labels 0: pmd calls still counted" 4 \
		"$(value "$TMP/page0.txt" 'ptscope_mremap_calls_total{class="pmd"}')"
fi

# --- bad paths: exit 2 with a message, before anything is attached ---
# expect_bad NAME PATH WORDS
expect_bad() {
	"$PTSCOPE" stat --cgroup "$2" -- true >/dev/null 2>"$TMP/bad.err"
	local rc=$?
	if [ $rc -eq 2 ] && grep -q -- "$3" "$TMP/bad.err"; then
		ok "--cgroup $1: exit 2: $(head -n1 "$TMP/bad.err")"
	else
		not_ok "--cgroup $1: want exit 2 and '$3', got $rc: $(head -c 200 "$TMP/bad.err")"
	fi
}
expect_bad "missing" "/$NAME/no-such-cgroup" "no such cgroup"
expect_bad "a file" "$A/cgroup.procs" "not a directory"
expect_bad "not cgroup2" "$TMP" "not in cgroup v2"
v1=$(sed -n 's/^[^ ]* [^ ]* [^ ]* \/ \([^ ]*\) .* - cgroup .*/\1/p' /proc/self/mountinfo | head -n1)
if [ -n "$v1" ]; then
	expect_bad "a cgroup v1 hierarchy" "$v1" "cgroup v1"
fi
"$PTSCOPE" top --cgroup "" >/dev/null 2>"$TMP/bad.err"
check_eq "--cgroup '': exit" 2 "$?"

tap_finish
