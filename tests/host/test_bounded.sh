#!/bin/bash
# Bounded state: more processes than the per-process map has
# entries, one after the other.  "ptscope stat" must count every mremap
# call of every child, and a child that has exited must leave no entry in
# the per-process map ("procs") nor in the traced-process set ("traced").
#
# Ground truth from outside ptscope: the loop below runs CHILDREN children
# that each make exactly 2 mremap calls (ptscope-bench, checked with
# strace in test_mremap.sh).  The maps are dumped with bpftool from inside
# the traced command, after the children exited and while ptscope still
# holds the maps: the command's parent is ptscope itself.
. "$(dirname "$0")/lib.sh"
require_root

# more than PTS_MAX_PROCS (10240) and than PTS_MAX_EXITED (16384): the
# rows of dead processes the LRU map evicts must be counted as dropped
CHILDREN=${CHILDREN:-17000}
CALLS=2

if ! command -v bpftool >/dev/null; then
	not_ok "bpftool not found (needed to read the maps)"
	tap_finish
	exit
fi

# dump_map OWNER NAME OUT: dump the map NAME held by pid OWNER as JSON
cat >"$TMP/dump_map.sh" <<'EOF'
owner=$1 name=$2 out=$3
for fd in /proc/"$owner"/fd/*; do
	[ "$(readlink "$fd")" = "anon_inode:bpf-map" ] || continue
	id=$(sed -n 's/^map_id:[[:space:]]*//p' /proc/"$owner"/fdinfo/"${fd##*/}")
	[ -n "$id" ] || continue
	got=$(bpftool map show id "$id" -j | python3 -c \
		'import json, sys; print(json.load(sys.stdin)["name"])') || exit 1
	if [ "$got" = "$name" ]; then
		bpftool map dump id "$id" -j >"$out" || exit 1
		ls /proc >"$out.alive"	# the processes alive at the dump
		exit 0
	fi
done
echo "no map named $name held by pid $owner" >&2
exit 1
EOF

# the command: the children one after the other, then the maps dumped
cat >"$TMP/cmd.sh" <<EOF
i=0
while [ \$i -lt $CHILDREN ]; do
	"$BENCH" mremap --size 64K --align page --count $CALLS >/dev/null &
	echo \$! >>"$TMP/children"
	wait \$! || exit 1
	i=\$((i + 1))
done
bash "$TMP/dump_map.sh" \$PPID procs "$TMP/procs.json" || exit 3
bash "$TMP/dump_map.sh" \$PPID traced "$TMP/traced.json" || exit 3
EOF

start=$(date +%s)
if stat_json "$TMP/stat.json" sh "$TMP/cmd.sh"; then
	echo "# $CHILDREN children in $(($(date +%s) - start)) s"
	check_eq "command exit status (3: bpftool failed)" 0 \
		"$(json "$TMP/stat.json" "d['run']['exit_status']")"
	check_eq "mremap calls" $((CHILDREN * CALLS)) \
		"$(json "$TMP/stat.json" "d['counters']['mremap']['calls']")"
	check_eq "mremap calls, pte class" $((CHILDREN * CALLS)) \
		"$(mremap_field "$TMP/stat.json" pte calls)"
	for drop in traced_map_full inflight_map_full; do
		check_eq "drops: $drop" 0 \
			"$(json "$TMP/stat.json" "d['counters']['drops']['$drop']")"
	done
	# every child has its row, or its loss is counted as a drop
	check_eq "bench rows in the report, plus rows dropped" $CHILDREN \
		"$(json "$TMP/stat.json" "sum(p['comm'] == 'ptscope-bench' for p in d['counters']['processes']) + d['counters']['drops']['process_map_full']")"
else
	not_ok "ptscope stat on $CHILDREN children"
fi

# map_entries FILE PYEXPR: entries of a bpftool JSON dump for which PYEXPR
# is true, with tgid (the u32 key), comm (the first 16 value bytes),
# alive (the process existed right after the map was dumped) and child (it
# is one of the bench children)
map_entries() {
	python3 -c 'import json, sys
n = 0
live = set(open(sys.argv[1] + ".alive").read().split())
children = set(open(sys.argv[3]).read().split())
for e in json.load(open(sys.argv[1])):
	tgid = int.from_bytes(bytes(int(b, 16) for b in e["key"][:4]), "little")
	comm = bytes(int(b, 16) for b in e["value"][:16]).split(b"\0")[0].decode()
	alive = str(tgid) in live
	child = str(tgid) in children
	n += bool(eval(sys.argv[2]))
print(n)' "$1" "$2" "$TMP/children"
}

if [ -s "$TMP/procs.json" ]; then
	echo "# procs entries at the end: $(map_entries "$TMP/procs.json" True)"
	check_eq "procs entries of exited processes" 0 \
		"$(map_entries "$TMP/procs.json" "not alive")"
	check_eq "procs entries of the bench children" 0 \
		"$(map_entries "$TMP/procs.json" "child or comm == 'ptscope-bench'")"
else
	not_ok "bpftool dump of the procs map"
fi
if [ -s "$TMP/traced.json" ]; then
	echo "# traced entries at the end: $(map_entries "$TMP/traced.json" True)"
	# not "not alive": the bpftool that dumped the map is in it
	check_eq "traced entries of the bench children" 0 \
		"$(map_entries "$TMP/traced.json" "child")"
else
	not_ok "bpftool dump of the traced map"
fi
tap_finish
