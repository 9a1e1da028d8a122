# Shared by the live tests in tests/host/: TAP output (tests/tap.sh), JSON
# access, running the bench workloads under "ptscope stat", and waiting for
# and reading an exporter.
# shellcheck shell=bash
set -u
# shellcheck source=../tap.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tap.sh"
PTSCOPE=${PTSCOPE:-build/ptscope}
BENCH=${BENCH:-build/ptscope-bench}
TMP=$(mktemp -d /tmp/ptscope-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

# check_eq NAME WANT GOT: an empty WANT or GOT is a missing witness (a
# failed json call, an absent series), never a match
check_eq() {
	if [ -z "$2" ] || [ -z "$3" ]; then
		not_ok "$1: want '$2', got '$3': a witness is missing"
	elif [ "$2" = "$3" ]; then
		ok "$1 = $3"
	else
		not_ok "$1: want $2, got $3"
	fi
}

# minus A B: A - B when both are integers, else nothing (bash arithmetic
# would read a missing value or a word as 0)
minus() {
	[[ $1 =~ ^-?[0-9]+$ && $2 =~ ^-?[0-9]+$ ]] && echo $(($1 - $2))
}

# attached FILE METRIC: "yes" when the recording has METRIC attached; a
# zero count of an unattached metric proves nothing
attached() {
	json "$1" "'yes' if d['metrics']['$2']['status'] != 'unavailable' else 'no: ' + d['metrics']['$2'].get('reason', '')"
}

# json FILE EXPR: evaluate a Python expression over the document "d"
json() {
	python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print(eval(sys.argv[2]))' "$1" "$2"
}

# mremap_field FILE CLASS FIELD
mremap_field() {
	json "$1" "d['counters']['mremap']['classes']['$2']['$3']"
}

# frames_sum FILE CLASS FIELD: FIELD of mremap class CLASS summed over the
# JSON frames (one a line) of top --json
frames_sum() {
	python3 -c 'import json, sys
print(sum(json.loads(l)["mremap"]["classes"][sys.argv[2]][sys.argv[3]]
          for l in open(sys.argv[1])))' "$1" "$2" "$3"
}

# stat_json OUT CMD...: run CMD under ptscope stat, JSON report in OUT
stat_json() {
	local out=$1
	shift
	"$PTSCOPE" stat --json -o "$out" -- "$@" >"$TMP/workload.out" 2>"$TMP/stat.err"
	local rc=$?
	if [ $rc -ne 0 ] || [ ! -s "$out" ]; then
		echo "# ptscope stat failed (rc $rc):"
		sed 's/^/#   /' "$TMP/stat.err"
		return 1
	fi
}

# held_bench ARGS...: a bench that starts its workload once "$TMP/go"
# exists, so ptscope can follow its pid (-p) from before the first call: other
# ptscope-bench runs on the box never mix in; its pid in $target
held_bench() {
	rm -f "$TMP/go"
	sh -c 'while [ ! -e "$1" ]; do sleep 0.05; done; shift; exec "$@"' \
		sh "$TMP/go" "$BENCH" "$@" >/dev/null &
	target=$!
}

# free_port [ADDR]: a TCP port nothing listens on at ADDR (127.0.0.1)
free_port() {
	python3 -c 'import socket, sys
s = socket.socket()
s.bind((sys.argv[1], 0))
print(s.getsockname()[1])' "${1:-127.0.0.1}"
}

# wait_for SECONDS CMD...: run CMD every 0.2 s until it succeeds
wait_for() {
	local deadline=$((SECONDS + $1))
	shift
	until "$@"; do
		[ $SECONDS -ge "$deadline" ] && return 1
		sleep 0.2
	done
}

# value FILE SERIES: the sample value of an exact series on a /metrics
# page, nothing when the series is absent (so check_eq fails and minus
# gives nothing)
value() {
	awk -v s="$2" '$1 == s { print $2 }' "$1"
}

THP=/sys/kernel/mm/transparent_hugepage

# thp_knobs_save KNOB...: the THP settings under $THP to put back at exit
thp_knobs_save() {
	local k
	declare -gA thp_saved
	thp_knobs="$*"
	for k in $thp_knobs; do
		thp_saved[$k]=$(sed -n 's/.*\[\(.*\)\].*/\1/p' "$THP/$k")
	done
	trap thp_knobs_restore EXIT
}

thp_knobs_restore() {
	local k
	for k in $thp_knobs; do
		echo "${thp_saved[$k]}" >"$THP/$k"
	done
	rm -rf "$TMP"
}

# mthp_stat SIZE_KB NAME: a hugepages-SIZE_KBkB/stats counter
mthp_stat() {
	cat "$THP/hugepages-$1kB/stats/$2"
}

# vmstat_of KEY: nothing when /proc/vmstat lacks the key
vmstat_of() {
	awk -v k="$1" '$1 == k { print $2 }' /proc/vmstat
}

# order_count FILE ORDER FIELD: a hugepage_faults count of a stat JSON
order_count() {
	json "$1" "sum(o['$3'] for o in d['counters']['hugepage_faults']['orders'] if o['order'] == $2)"
}

# check_same_files NAME LIST [ROOT]: each line of LIST is "PATH SRC":
# ROOT/PATH (a .gz uncompressed) must equal the tree's SRC; SRC '-' is not
# compared
check_same_files() {
	local n=0 same=0 bad= dest src
	while read -r dest src; do
		[ "$src" = - ] && continue
		n=$((n + 1))
		case "$dest" in
		*.gz) zcat "${3:-}$dest" | cmp -s - "$src" ;;
		*) cmp -s "${3:-}$dest" "$src" ;;
		esac && same=$((same + 1)) || bad+=" $dest"
	done <"$2"
	check_eq "$1 (differ:${bad:- none})" "$n" "$same"
}

# bail NAME: a failed step that every later one needs
bail() {
	not_ok "$1"
	tap_finish
	exit 1
}

# make_or_bail TARGET: make TARGET, timed; its failure ends the test
make_or_bail() {
	local start=$SECONDS
	if make "$1" >"$TMP/make-$1.log" 2>&1; then
		ok "make $1 ($((SECONDS - start)) s)"
	else
		tail -n 20 "$TMP/make-$1.log" | sed 's/^/#   /'
		bail "make $1 failed"
	fi
}

# require_cgroup2: the cgroup2 mount in CGROOT (/sys/fs/cgroup, or
# /sys/fs/cgroup/unified on a hybrid box); without one the test ends
require_cgroup2() {
	CGROOT=$(sed -n 's/^[^ ]* [^ ]* [^ ]* \/ \([^ ]*\) .* - cgroup2 .*/\1/p' /proc/self/mountinfo | head -n1)
	if [ -z "$CGROOT" ]; then
		not_ok "no cgroup2 mount in /proc/self/mountinfo: cannot make cgroups"
		tap_finish
		exit 1
	fi
}

# remove_cgroup DIR: kill what is left in a cgroup of ours, then remove it
# (its children first)
remove_cgroup() {
	[ -d "$1" ] || return 0
	if [ -e "$1/cgroup.kill" ]; then
		echo 1 >"$1/cgroup.kill" 2>/dev/null
	else
		xargs -r kill -9 <"$1/cgroup.procs" 2>/dev/null
	fi
	for _ in 1 2 3 4 5 6 7 8 9 10; do
		rmdir "$1" 2>/dev/null && return 0
		sleep 0.2
	done
	echo "# could not remove $1"
}

# run_in CGROUP COUNT: COUNT PMD-aligned moves of 16 MiB (8 PMD entries
# each) in CGROUP: a shell moves itself into it, then execs the bench;
# exported, so that "bash -c 'run_in A 1 & run_in B 2 & wait'" under
# ptscope stat runs them as its children
run_in() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec "$2" mremap --size 16M --align pmd --thp never --count "$3"' \
		sh "$1" "$BENCH" "$2" >/dev/null
}
export -f run_in
export BENCH

# tracing FILE: a view's stderr in FILE says it has attached
tracing() {
	grep -qsxF "ptscope: tracing, Ctrl-C to stop" "$1"
}

# top_json_around OUT CMD [ARGS...]: "top --json -i 0.5 ARGS" into OUT
# while the shell command CMD runs, until its last interval has ended
# (TOP holds top's pid meanwhile, for a cleanup); 1 after a not ok when
# top did not start
top_json_around() {
	local out=$1 cmd=$2 err=$TMP/top.err
	shift 2
	rm -f "$err"	# an earlier top's "tracing" line must not count
	"$PTSCOPE" top --json -i 0.5 "$@" >"$out" 2>"$err" &
	TOP=$!
	if ! wait_for 60 tracing "$err"; then
		not_ok "top $* did not start: $(head -c 300 "$err")"
		return 1
	fi
	bash -c "$cmd"
	sleep 1.2	# the last interval ends
	kill -INT "$TOP"
	wait "$TOP"
	TOP=
}

# top_column FILE COMM HEAD: the column HEAD of top's plain process
# tables in FILE summed over the rows of COMM; columns are found by their
# heads, since a narrow terminal drops some
top_column() {
	awk -v comm="$2" -v head="$3" '
		$1 == "PID" && $2 == "COMM" { col = 0; for (i = 1; i <= NF; i++) if ($i == head) col = i; next }
		col && $2 == comm { s += $col }
		END { print s + 0 }' "$1"
}

# beside_other_ptscope FN [ARGS...]: FN ARGS once more while a second
# ptscope (an exporter, as on a monitored box) holds BPF links, maps and
# programs of its own; a not ok when it does not start
beside_other_ptscope() {
	local other err=$TMP/other.err
	"$PTSCOPE" export -d 600 --listen "127.0.0.1:$(free_port)" \
		>/dev/null 2>"$err" &
	other=$!
	if wait_for 60 tracing "$err"; then
		"$@"
	else
		not_ok "a second ptscope beside $1 did not start: $(head -c 300 "$err")"
	fi
	kill -INT $other 2>/dev/null
	wait $other 2>/dev/null
}

# the mount point of cgroup v2 when it has the memory controller
v2_memory() {
	local dir
	dir=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/mounts)
	[ -n "$dir" ] && grep -qw memory "$dir/cgroup.controllers" &&
		echo "$dir"
}

v1_memory() {
	awk '$3 == "cgroup" && $4 ~ /(^|,)memory(,|$)/ { print $2; exit }' /proc/mounts
}

# limited_cgroup VERSION ROOT: a new cgroup CG_NAME under ROOT limited to
# LIMIT bytes, swap included, its path printed
limited_cgroup() {
	local cg=$2/$CG_NAME
	mkdir "$cg" || return 1
	if [ "$1" = v2 ]; then
		echo +memory >"$2/cgroup.subtree_control" 2>/dev/null
		echo "$LIMIT" >"$cg/memory.max" || return 1
		[ -e "$cg/memory.swap.max" ] && echo 0 >"$cg/memory.swap.max"
	else
		echo "$LIMIT" >"$cg/memory.limit_in_bytes" || return 1
		[ -e "$cg/memory.memsw.limit_in_bytes" ] &&
			echo "$LIMIT" >"$cg/memory.memsw.limit_in_bytes"
	fi
	echo "$cg"
}

require_root() {
	if [ "$(id -u)" -ne 0 ]; then
		not_ok "live tests need root"
		exit 1
	fi
}
