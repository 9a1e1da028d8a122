#!/bin/bash
# The VM harness itself, without a VM: a checker that crashes, stops short
# of its plan or meets a broken recording, and a guest console with an
# oops, must each turn the run red (tests/tap.sh run_checker,
# tests/vm/lib.sh check_console, tests/vm/checkers/taplib.py).  A good checker must stay green, so
# the harness is not simply failing everything.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_work=$(mktemp -d /tmp/ptscope-harness.XXXXXX)
trap 'rm -rf "$top_work"' EXIT
# shellcheck source=tests/vm/lib.sh
. "$here/lib.sh"

# red CASE CMD...: in a fresh TAP state, CMD must leave the run failed
# with at least one "not ok" line; green CASE CMD...: the opposite
red_or_green() {
	local want=$1 name=$2 dir failed nots
	shift 2

	dir=$(mktemp -d "$top_work/case.XXXXXX")
	(
		work=$dir
		# shellcheck source=tests/vm/lib.sh
		. "$here/lib.sh"
		"$@"
		tap_finish >/dev/null || touch "$dir/failed"
	) >"$dir/out" 2>&1
	failed=0
	[ -f "$dir/failed" ] && failed=1
	nots=$(grep -c '^not ok ' "$dir/out")
	if [ "$want" = red ] && [ -n "${SAYS:-}" ] && ! grep -q -- "$SAYS" "$dir/out"; then
		not_ok "harness: $name: the output does not say '$SAYS'"
	elif [ "$want" = red ] && [ $failed = 1 ] && [ "$nots" -gt 0 ]; then
		ok "harness: $name turns the run red ($nots failed checks)"
	elif [ "$want" = red ]; then
		not_ok "harness: $name turns the run red ($nots failed checks)"
	elif [ $failed = 0 ] && [ "$nots" = 0 ]; then
		ok "harness: $name stays green"
	else
		not_ok "harness: $name stays green"
	fi
	[ "$tap_fails" -eq 0 ] || sed 's/^/#   /' "$dir/out" | tail -n 15
}

write_console() {	# write_console FILE STAT-BLOCK-TEXT
	local probe='{"metrics": {"mremap.levels": {"status": "exact", "path": "fentry"},
 "mremap.move_page_tables": {"status": "exact", "path": "fentry"},
 "thp.fault_alloc": {"status": "exact", "path": "fentry"}}}'
	{
		echo "@@KERNEL 6.12.0-test x86_64"
		for mode in fentry kprobe; do
			echo "@@BEGIN probe mode=$mode"
			echo "$probe" | sed "s/fentry/$mode/g"
			echo "@@END"
		done
		echo "@@BEGIN stat mode=fentry scenario=pud"
		printf '%s\n' "$2"
		echo "@@END"
	} >"$1"
}

matrix_checker() {	# matrix_checker CONSOLE
	run_checker "6.12-amd64" python3 "$here/checkers/check_matrix.py" 6.12-amd64 "$1" 100
}

fake_checker() {	# fake_checker PYTHON-SOURCE
	printf '%s\n' "$1" >"$work/fake.py"
	run_checker fake python3 "$work/fake.py"
}

write_console "$top_work/truncated.out" '{"counters": {"mremap_levels": {"pud_mo'
SAYS="6.12-amd64 fentry pud: checker raised JSONDecodeError" \
red_or_green red "check_matrix.py on a truncated recording" \
	matrix_checker "$top_work/truncated.out"
write_console "$top_work/keyerror.out" '{"metrics": {}}'
SAYS="6.12-amd64 fentry pud: checker raised KeyError" \
red_or_green red "check_matrix.py on a recording without counters (KeyError)" \
	matrix_checker "$top_work/keyerror.out"
SAYS="Traceback" red_or_green red "a checker that raises after 4 passed checks" fake_checker \
	'print("1..10")
for i in range(4): print("ok %d - fine" % (i + 1))
raise KeyError("x")'
red_or_green red "a checker that stops after 4 of its 10 planned checks" fake_checker \
	'print("1..10")
for i in range(4): print("ok %d - fine" % (i + 1))'
red_or_green red "a checker with no plan" fake_checker 'print("ok 1 - fine")'
red_or_green red "a checker that exits 1 after passing checks" fake_checker \
	'import sys
print("1..1")
print("ok 1 - fine")
sys.exit(1)'
red_or_green green "a checker that keeps its plan" fake_checker \
	'print("1..2")
print("ok 1 - fine")
print("ok 2 - fine")'
printf 'boot\nOops: int3: 0000 [#1] PREEMPT SMP NOPTI\nRIP: 0010:__pte_offset_map_lock+0x5/0x100\n' \
	>"$top_work/oops.console"
red_or_green red "a guest console with an oops" check_console vm "$top_work/oops.console"
printf 'boot\nPTSCOPE-VM-BEGIN\nPTSCOPE-VM-EXIT rc=0\n' >"$top_work/clean.console"
red_or_green green "a clean guest console" check_console vm "$top_work/clean.console"
tap_finish
