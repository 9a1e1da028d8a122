#!/bin/bash
# Command line behaviour: exit codes, probe's report, top's output, and a
# clean detach on Ctrl-C (no BPF link left behind).
. "$(dirname "$0")/lib.sh"
require_root

# expect_usage NAME ARGS...: exit code 2 and a message on stderr
expect_usage() {
	local name=$1 rc
	shift
	"$PTSCOPE" "$@" >/dev/null 2>"$TMP/err"
	rc=$?
	if [ $rc -eq 2 ] && grep -q 'ptscope:' "$TMP/err"; then
		ok "bad usage ($name) exits 2: $(head -n1 "$TMP/err")"
	else
		not_ok "bad usage ($name): exit $rc, stderr '$(head -n1 "$TMP/err")'"
	fi
}

expect_usage "unknown command" frobnicate
expect_usage "unknown option" top --nope
expect_usage "stat without command" stat
expect_usage "bad interval" top -i 0
expect_usage "bad pid" top -p abc
expect_usage "stat with both -p and a command" stat -p 1 -- true
expect_usage "stat -d with a command" stat -d 1 -- true
expect_usage "stat --repeat 0" stat --repeat 0 -- true
expect_usage "diff --alpha 1" diff --alpha 1 a.json b.json
expect_usage "--repeat on top" top --repeat 2
expect_usage "bad mode" probe --mode magic
expect_usage "extra argument" probe extra
expect_usage "schema with an argument" schema extra
expect_usage "schema --repeat" schema --repeat 2

# a pid that no process has: the highest free one below pid_max
free_pid() {
	local pid
	for ((pid = $(cat /proc/sys/kernel/pid_max) - 1; pid > 300; pid--)); do
		[ -e "/proc/$pid" ] || { echo $pid; return; }
	done
}

# -o where no file can be written: exit 2 before anything runs, for the
# command stat would run and for every tracing view; an existing file is
# left as it was
for args in "stat -o $TMP/no/x.json -- touch $TMP/ran" "stat -o $TMP -- touch $TMP/ran" \
	"top -d 1 -o $TMP/no/top.txt" "snoop -d 1 -o $TMP/no/s.txt"; do
	# shellcheck disable=SC2086 # $args: the command and its options
	timeout 30 "$PTSCOPE" $args >/dev/null 2>"$TMP/err"
	check_eq "${args%% -- *}: exit 2 at once, the path and why, nothing run" \
		"2 1 no" "$? $(grep -c "^ptscope: -o ${TMP}[^ ]*: .*; nothing was run" "$TMP/err") $([ -e "$TMP/ran" ] && echo yes || echo no)"
done
# the check truncates nothing: a run that fails before its report (no
# such process) leaves an existing -o file as it was
echo keep >"$TMP/kept"
"$PTSCOPE" stat -o "$TMP/kept" -p "$(free_pid)" -d 1 2>/dev/null
check_eq "stat -o FILE -p (no such process): exit 1, FILE as it was" "1 keep" \
	"$? $(cat "$TMP/kept")"

"$PTSCOPE" --help >"$TMP/help" 2>&1
check_eq "--help exits 0 and lists stat" "0 yes" "$? $(grep -q 'stat \[OPTS\] -- CMD' "$TMP/help" && echo yes)"

# has_opt FILE NAME: "yes" when FILE lists option --NAME as an entry
has_opt() {
	grep -qE "^ +(-., )?--$2( |\$)" "$1" && echo yes || echo no
}

# CMD --help: its usage and examples, its options and not the others'
help_of() {
	local cmd=$1 has=$2 lacks=$3 rc
	"$PTSCOPE" "$cmd" --help >"$TMP/help.$cmd" 2>&1
	rc=$?
	check_eq "$cmd --help: exit 0, its usage line, examples, no command list" \
		"0 yes yes no" "$rc $(grep -q "^Usage: ptscope \[\?$cmd" "$TMP/help.$cmd" && echo yes || echo no) $(grep -q '^Examples:' "$TMP/help.$cmd" && echo yes || echo no) $(grep -q '^Commands:' "$TMP/help.$cmd" && echo yes || echo no)"
	check_eq "$cmd --help lists --$has, not --$lacks" "yes no" \
		"$(has_opt "$TMP/help.$cmd" "$has") $(has_opt "$TMP/help.$cmd" "$lacks")"
}
help_of top sort repeat
help_of stat repeat listen
help_of snoop duration rows
help_of export listen json
help_of probe mode pid
help_of diff alpha pid
help_of maps interval mode
help_of schema output mode
check_eq "--help: the overview lists the commands and every command's options" \
	"yes yes yes" "$(grep -q '^Commands:' "$TMP/help" && echo yes) $(has_opt "$TMP/help" repeat) $(has_opt "$TMP/help" alpha)"

# schema: every family export can serve, as JSON, for anyone (no BPF); a
# sanitizer build keeps its reports on stderr there (no log directory of
# root's to write to, no leak check without root's ptrace)
if setpriv --reuid=65534 --regid=65534 --clear-groups \
	env ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:log_path=stderr" \
	UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}log_path=stderr" \
	"$PTSCOPE" schema >"$TMP/schema.json" 2>"$TMP/err"; then
	check_eq "schema as nobody: valid JSON, ptscope_mremap_calls_total a counter of mremap.calls by class" \
		"counter mremap.calls ['class']" \
		"$(json "$TMP/schema.json" "' '.join(str(f[k]) for f in d['families'] if f['name'] == 'ptscope_mremap_calls_total' for k in ('type', 'metric', 'labels'))")"
	check_eq "schema: PTE counts need the PTE table marker (not the PMD-only markers)" \
		"False True" \
		"$(json "$TMP/schema.json" "' '.join(str(any(n['candidate'] == c for n in f['needs'])) for f in d['families'] if f['name'] == 'ptscope_ptes_moved_total' for c in ('fentry markers get_old_pud, move_huge_pmd', 'tp_btf mmap:mm_mremap_move_{pud,pmd,huge_pmd,ptes,back}'))")"
	check_eq "schema: every family once, with a help, among the probe table's and the per-cgroup ones" \
		"True True True" \
		"$(json "$TMP/schema.json" "' '.join(str(x) for x in (len(set(f['name'] for f in d['families'])) == len(d['families']), all(f['help'] for f in d['families']), {'ptscope_probe_attached', 'ptscope_cgroup_mremap_calls_total'} <= set(f['name'] for f in d['families'])))")"
else
	not_ok "ptscope schema as nobody failed: $(head -n1 "$TMP/err")"
fi

# probe: every catalog metric with a status; unavailable ones say why
if "$PTSCOPE" probe --json >"$TMP/probe.json" 2>"$TMP/err"; then
	check_eq "probe --json: metrics listed" \
		"mremap.calls mremap.folio_lookups mremap.levels mremap.move_page_tables mremap.pte_batches task.exit thp.collapse thp.fault_alloc" \
		"$(json "$TMP/probe.json" "' '.join(sorted(d['metrics']))")"
	check_eq "probe --json: every status known" True \
		"$(json "$TMP/probe.json" "all(m['status'] in ('exact', 'inferred', 'unavailable') for m in d['metrics'].values())")"
	check_eq "probe --json: unavailable ones have a reason" True \
		"$(json "$TMP/probe.json" "all(m.get('reason') for m in d['metrics'].values() if m['status'] == 'unavailable')")"
	check_eq "probe --json: mremap.calls attached here" exact \
		"$(json "$TMP/probe.json" "d['metrics']['mremap.calls']['status']")"
else
	not_ok "ptscope probe --json failed: $(head -n1 "$TMP/err")"
fi

# --mode tracepoint puts mremap.calls on syscall tracepoints, which slow
# every syscall on the box: top and export say so in one line on stderr,
# probe in its report (text) or its syscall_tax (JSON), stat not at all
TAX_NOTE='^ptscope: note: mremap\.calls(, [a-z_.]*)* (is|are) on syscall tracepoints, which slow every syscall'
for args in "top" "export --listen 127.0.0.1:$(free_port)"; do
	# shellcheck disable=SC2086 # $args: the command and its options
	timeout 30 "$PTSCOPE" $args --mode tracepoint -d 1 >/dev/null 2>"$TMP/tax.err"
	check_eq "${args%% *} --mode tracepoint: exit 0, one note that syscall tracepoints slow every syscall" \
		"0 1 1" "$? $(grep -cE "$TAX_NOTE" "$TMP/tax.err") $(grep -c 'syscall tracepoints' "$TMP/tax.err")"
done
"$PTSCOPE" stat --mode tracepoint -- true >/dev/null 2>"$TMP/tax.err"
check_eq "stat --mode tracepoint: no syscall tracepoint note" "0 0" \
	"$? $(grep -c 'syscall tracepoints' "$TMP/tax.err")"
"$PTSCOPE" probe --mode tracepoint >"$TMP/tax.out" 2>"$TMP/tax.err"
check_eq "probe --mode tracepoint: the note in the report, not on stderr" "0 1 0" \
	"$? $(grep -c '^note: mremap\.calls.* on syscall tracepoints' "$TMP/tax.out") $(grep -c 'syscall tracepoints' "$TMP/tax.err")"
if "$PTSCOPE" probe --json --mode tracepoint >"$TMP/tax.json" 2>"$TMP/tax.err"; then
	check_eq "probe --json --mode tracepoint: valid JSON, syscall_tax names mremap.calls, ns_per_syscall > 0" \
		"True True" \
		"$(json "$TMP/tax.json" "' '.join(str(x) for x in ('mremap.calls' in d['syscall_tax']['metrics'], d['syscall_tax']['ns_per_syscall'] > 0))")"
else
	not_ok "ptscope probe --json --mode tracepoint failed: $(head -n1 "$TMP/tax.err")"
fi

# This box refuses fentry (EPERM) and has no kprobes: probe must say so,
# and --mode fentry warns for each metric it leaves without a path.
if [ -z "${PTSCOPE_KERNEL_HAS_FENTRY:-}" ]; then
	"$PTSCOPE" stat --mode fentry -- true >/dev/null 2>"$TMP/fentry.err"
	check_eq "stat --mode fentry (refused here): exit 0, warns mremap.calls is unavailable and why" \
		"0 1" "$? $(grep -c '^ptscope: warning: --mode fentry: mremap.calls unavailable (fentry: load refused, EPERM' "$TMP/fentry.err")"
	check_eq "stat --mode fentry (refused here): EPERM explained once" 1 \
		"$(grep -c 'with EPERM' "$TMP/fentry.err")"
	# auto mode falls back to the tracepoints: no EPERM lecture every run
	"$PTSCOPE" stat -- true >/dev/null 2>"$TMP/auto.err"
	check_eq "stat in auto mode (fentry refused here): exit 0, EPERM not explained" \
		"0 0" "$? $(grep -c 'with EPERM' "$TMP/auto.err")"
	# folio lookups need move_page_tables, which needs fentry or kprobes
	"$PTSCOPE" stat --metric mremap.folio_lookups -- true >/dev/null 2>"$TMP/metric.err"
	check_eq "stat --metric mremap.folio_lookups (no fentry here): exit 0, warns with the reason" \
		"0 1" "$? $(grep -c '^ptscope: warning: --metric mremap.folio_lookups unavailable (needs ' "$TMP/metric.err")"
	"$PTSCOPE" probe >"$TMP/probe.txt" 2>&1
	if grep -q 'fentry: load refused, EPERM' "$TMP/probe.txt" &&
	   grep -q 'move_pgt_entry: inlined, no symbol' "$TMP/probe.txt"; then
		ok "probe explains fentry refusal and inlining"
	else
		not_ok "probe text lacks the fentry/inlining reasons"
	fi
fi

# own_links PID: the ids of the BPF links PID holds, from its fdinfo, so
# the links of any other BPF user on the box do not count
own_links() {
	sed -n 's/^link_id:[[:space:]]*//p' /proc/"$1"/fdinfo/* 2>/dev/null | sort -n
}

# links_listed IDS...: those of the link ids that bpftool lists on the box;
# "bpftool failed" when it cannot list them, so an empty answer is a
# witness, not a default
links_listed() {
	local out
	out=$(bpftool -j link show 2>"$TMP/bpftool.err") || {
		echo "bpftool failed: $(head -n1 "$TMP/bpftool.err")"
		return
	}
	python3 -c 'import json, sys
live = {l["id"] for l in json.loads(sys.argv[1] or "[]")}
print(" ".join(i for i in sys.argv[2:] if int(i) in live))' "$out" "$@"
}

# wait_tracing PID ERRFILE: until ptscope reports it is tracing
wait_tracing() {
	local i
	for i in $(seq 1 100); do
		grep -qs 'tracing, Ctrl-C to stop' "$2" && return 0
		kill -0 "$1" 2>/dev/null || return 1
		sleep 0.1
	done
	return 1
}

# class_calls FILE CLASS: mremap calls of CLASS summed over top --json's
# interval objects in FILE
class_calls() {
	python3 -c 'import json, sys
print(sum(json.loads(l)["mremap"]["classes"][sys.argv[2]]["calls"] for l in open(sys.argv[1])))' "$1" "$2"
}

# the bench under a name of this run's own, so that another bench on the
# box (another test, another engineer) is not counted with it
OWN=clib$$
cp "$BENCH" "$TMP/$OWN"

# top_detaches WHERE: top, not on a tty, prints plain blocks; Ctrl-C
# detaches each BPF link it held, whatever else on the box uses BPF
top_detaches() {
	local where=$1 pid rc links during left
	rm -f "$TMP/top.err"	# the last top's "tracing" line must not count
	"$PTSCOPE" top -i 0.5 >"$TMP/top.out" 2>"$TMP/top.err" &
	pid=$!
	if ! wait_tracing $pid "$TMP/top.err"; then
		kill $pid 2>/dev/null
		not_ok "top did not start tracing$where: $(head -n2 "$TMP/top.err")"
		return
	fi
	links=$(own_links $pid | tr '\n' ' ')
	# shellcheck disable=SC2086 # $links: one id a word
	during=$(links_listed $links)
	"$TMP/$OWN" mremap --size 16M --align pmd --count 4 >/dev/null
	sleep 1.2
	kill -INT $pid
	wait $pid
	rc=$?
	check_eq "top$where: exit code after Ctrl-C" 0 "$rc"
	# the witness: bpftool listed top's own links while it traced
	if [ -n "$links" ] && [ "$during" = "${links% }" ]; then
		ok "top$where: its $(wc -w <<<"$links") links listed while tracing"
		# shellcheck disable=SC2086
		left=$(links_listed $links)
		check_eq "top$where: none of its links left after Ctrl-C" none \
			"${left:-none}"
	else
		not_ok "top$where: its links '$links' not all listed by bpftool, so no witness for the Ctrl-C detach"
	fi
	if [ -s "$TMP/top.out" ]; then
		check_eq "top$where: no screen control codes off a tty" 0 "$(grep -c $'\033' "$TMP/top.out")"
	else
		not_ok "top$where: no screen control codes off a tty: top printed nothing"
	fi
	check_eq "top$where: saw the bench's pmd moves" 4 \
		"$(top_column "$TMP/top.out" "$OWN" PMD)"
}
top_detaches ""
beside_other_ptscope top_detaches " beside a second ptscope"

# top --json -d: one JSON object per interval, ends by itself
rm -f "$TMP/top.err"
"$PTSCOPE" top --json -i 0.5 -d 1.5 -c "$OWN" >"$TMP/top.json" 2>"$TMP/top.err" &
pid=$!
if wait_tracing $pid "$TMP/top.err"; then
	"$TMP/$OWN" mremap --size 1036K --align page --count 7 >/dev/null
	wait $pid
	check_eq "top --json -d 1.5: exit code" 0 "$?"
	check_eq "top --json: 3 interval objects" 3 "$(wc -l <"$TMP/top.json")"
	check_eq "top --json: pte moves over the intervals" 7 \
		"$(class_calls "$TMP/top.json" pte)"
else
	kill $pid 2>/dev/null
	not_ok "top --json did not start tracing: $(head -n2 "$TMP/top.err")"
fi

# -p: only that process, while another runs the same workload; the
# target waits on a FIFO until top traces (a sleep lost its moves when
# attaching took longer on a loaded machine)
mkfifo "$TMP/go"
sh -c "read go <'$TMP/go'; exec $BENCH mremap --size 16M --align pmd --count 2" >/dev/null &
target=$!
"$PTSCOPE" top --json -i 0.5 -d 3.5 -p $target >"$TMP/pid.json" 2>"$TMP/pid.err" &
pid=$!
if wait_tracing $pid "$TMP/pid.err"; then
	"$BENCH" mremap --size 16M --align pmd --count 5 >/dev/null
	echo go >"$TMP/go"
	wait $target
	wait $pid
	check_eq "top -p: only the chosen process's pmd moves" 2 \
		"$(class_calls "$TMP/pid.json" pmd)"
else
	kill $pid $target 2>/dev/null
	not_ok "top -p did not start tracing: $(head -n2 "$TMP/pid.err")"
fi

# -p of a process that does not exist: exit 1, saying so
missing=$(free_pid)
for args in "top" "snoop" "export --listen 127.0.0.1:$(free_port)"; do
	# shellcheck disable=SC2086 # $args: the command and its options
	timeout 30 "$PTSCOPE" $args -p "$missing" -d 1 >"$TMP/nopid.out" 2>"$TMP/nopid.err"
	rc=$?
	check_eq "${args%% *} -p $missing (no such process): exit 1, naming the pid" \
		"1 yes" "$rc $(grep -q "no process with pid $missing" "$TMP/nopid.err" && echo yes)"
done

# stat -p PID -d 1: one window of this shell, the report on stderr
timeout 30 "$PTSCOPE" stat -p $$ -d 1 >/dev/null 2>"$TMP/statp.err"
rc=$?
if [ $rc -eq 0 ] && grep -q "^ptscope stat: pid $$ (bash) and its children, a window of 1\.[0-9]* s" "$TMP/statp.err"; then
	ok "stat -p $$ -d 1: exit 0, a window of about 1 s on stderr"
else
	not_ok "stat -p $$ -d 1: exit $rc, stderr '$(grep -m1 'ptscope stat' "$TMP/statp.err")'"
fi

# stat -p PID follows its children, as stat -- CMD does: one it had
# before the attach (waiting for the go file) and one it forks after,
# 2 + 3 pmd moves; another process's 1 is not counted
cat >"$TMP/tree.sh" <<'SH'
go=$1 bench=$2 count=$3
until [ -e "$go" ]; do sleep 0.05; done
exec "$bench" mremap --size 2M --align pmd --count "$count" >/dev/null
SH
rm -f "$TMP/go"
sh -c 'sh "$0" "$1" "$2" 2 & until [ -e "$1" ]; do sleep 0.05; done
	"$2" mremap --size 2M --align pmd --count 3 >/dev/null; wait' \
	"$TMP/tree.sh" "$TMP/go" "$BENCH" &
parent=$!
sh "$TMP/tree.sh" "$TMP/go" "$BENCH" 1 &
other=$!
"$PTSCOPE" stat -p $parent -d 4 --json -o "$TMP/tree.json" 2>"$TMP/tree.err" &
spid=$!
wait_for 30 grep -q '^ptscope: tracing pid' "$TMP/tree.err"
touch "$TMP/go"
wait $spid
check_eq "stat -p PARENT: exit 0, its children's 2 + 3 pmd moves, not the other process's 1" \
	"0 5" "$? $(json "$TMP/tree.json" "d['counters']['mremap']['classes']['pmd']['calls']")"
wait $parent $other

# -c longer than the kernel's 15-character comm: matched in its cut form,
# said once; the bench, run as a 22-character name, is seen
cp "$BENCH" "$TMP/ptscope-bench-longname"
"$PTSCOPE" top --json -i 0.5 -d 2.5 -c ptscope-bench-longname >"$TMP/long.json" 2>"$TMP/long.err" &
pid=$!
if wait_tracing $pid "$TMP/long.err"; then
	"$TMP/ptscope-bench-longname" mremap --size 16M --align pmd --count 3 >/dev/null
	wait $pid
	check_eq "-c ptscope-bench-longname: one note naming the cut comm" 1 \
		"$(grep -c "note: -c ptscope-bench-longname matches the kernel's 15-character comm 'ptscope-bench-l'" "$TMP/long.err")"
	check_eq "-c ptscope-bench-longname: the long-named bench's pmd moves seen" 3 \
		"$(class_calls "$TMP/long.json" pmd)"
else
	kill $pid 2>/dev/null
	not_ok "top -c ptscope-bench-longname did not start tracing: $(head -n2 "$TMP/long.err")"
fi

# probe: no line wider than 100 columns
"$PTSCOPE" probe >"$TMP/probe.wide" 2>/dev/null
check_eq "probe: widest line <= 100 columns" yes \
	"$(awk '{ if (length > m) m = length } END { print (NR && m <= 100) ? "yes" : "no: " m }' "$TMP/probe.wide")"

# stat: each unavailability reason once in the report, metrics refer to it
"$PTSCOPE" stat -- true >/dev/null 2>"$TMP/stat.txt"
sed -n '/^  why unavailable:/,/^$/{s/^ *\[[0-9]*\] //p}' "$TMP/stat.txt" >"$TMP/reasons"
if [ -s "$TMP/reasons" ]; then
	repeated=$(while read -r reason; do
		n=$(grep -cF -- "$reason" "$TMP/stat.txt")
		[ "$n" -eq 1 ] || echo "$n x '$reason'"
	done <"$TMP/reasons")
	check_eq "stat: $(wc -l <"$TMP/reasons") reasons, each printed once" none "${repeated:-none}"
else
	not_ok "stat: no 'why unavailable' list: no witness for repeated reasons (is every metric attached here?)"
fi

# -v: a short list of what the kernel refused; libbpf's log is its own flag
"$PTSCOPE" probe -v >/dev/null 2>"$TMP/v.err"
"$PTSCOPE" probe --libbpf-debug >/dev/null 2>"$TMP/debug.err"
check_eq "-v: under 100 lines of stderr, no libbpf log" "yes 0" \
	"$([ "$(wc -l <"$TMP/v.err")" -lt 100 ] && echo yes || echo "no: $(wc -l <"$TMP/v.err")") $(grep -c '^libbpf: ' "$TMP/v.err")"
check_eq "--libbpf-debug: libbpf's log, over 100 lines" yes \
	"$([ "$(grep -c '^libbpf: ' "$TMP/debug.err")" -gt 100 ] && echo yes || echo "no: $(grep -c '^libbpf: ' "$TMP/debug.err")")"

# EPERM from bpf() explained once per run: root without capabilities
# (the bounding set emptied) passes the root check and is refused by the
# kernel for every program
# kernel lockdown is named only where the kernel has its file
lockdown=0
[ -e /sys/kernel/security/lockdown ] && lockdown=1
setpriv --bounding-set=-all --inh-caps=-all "$PTSCOPE" probe >/dev/null 2>"$TMP/eperm.err"
check_eq "probe without capabilities: EPERM explained once, the missing capabilities and lockdown ($lockdown) named" \
	"1 1 $lockdown" \
	"$(grep -c 'with EPERM' "$TMP/eperm.err") $(grep -c 'this process lacks some' "$TMP/eperm.err") $(grep -c 'lockdown' "$TMP/eperm.err")"
# as root where other paths took the metrics: a note, not a list of
# checks; no capability line for a process that has them
"$PTSCOPE" probe >"$TMP/probe.out" 2>"$TMP/probe.err"
if grep -q 'with EPERM' "$TMP/probe.err"; then
	check_eq "probe as root, fentry refused: a note, no 'Check:', no capability line, lockdown ($lockdown)" \
		"1 0 0 $lockdown" \
		"$(grep -c '^ptscope: note: the kernel refused' "$TMP/probe.err") $(grep -c 'Check:' "$TMP/probe.err") $(grep -c 'lacks some' "$TMP/probe.err") $(grep -c 'lockdown' "$TMP/probe.err")"
else
	check_eq "probe as root, nothing refused with EPERM: no EPERM text" 0 \
		"$(grep -c 'EPERM' "$TMP/probe.err")"
fi
setpriv --bounding-set=-all --inh-caps=-all "$PTSCOPE" top -d 1 >/dev/null 2>"$TMP/eperm.err"
check_eq "top without capabilities: exit 1, EPERM explained once" "1 1" \
	"$? $(grep -c 'with EPERM' "$TMP/eperm.err")"
setpriv --reuid=65534 --regid=65534 --clear-groups --inh-caps=-all "$PTSCOPE" probe >/dev/null 2>"$TMP/nobody.err"
check_eq "probe as nobody: exit 1, told to run as root" "1 yes" \
	"$? $(grep -q 'needs root' "$TMP/nobody.err" && echo yes)"

# stat -c NAME where no task of that name did anything: a warning, not an
# empty report in silence; a name that did: no warning
"$PTSCOPE" stat -c no-such-comm -- "$BENCH" mremap --size 2M --align pmd \
	--count 1 >/dev/null 2>"$TMP/nomatch.err"
check_eq "stat -c no-such-comm: exit 0, warned that it matched no process" "0 1" \
	"$? $(grep -c '^ptscope: warning: -c no-such-comm matched no process' "$TMP/nomatch.err")"
"$PTSCOPE" stat -c ptscope-bench -- "$BENCH" mremap --size 2M --align pmd \
	--count 1 >/dev/null 2>"$TMP/match.err"
check_eq "stat -c ptscope-bench: the bench matched, no warning" "0 0" \
	"$? $(grep -c 'matched no process' "$TMP/match.err")"

tap_finish
