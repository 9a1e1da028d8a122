#!/bin/bash
# tests/run.sh judging fake test programs: a run that dies, stops short of
# its plan, has no plan, skips, or announces more cmocka cases than it
# passes must turn the summary red; complete runs must stay green.
set -u
here=$(cd "$(dirname "$0")" && pwd)
RUN=${RUN:-$here/../run.sh}
TMP=$(mktemp -d /tmp/ptscope-harness.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
# shellcheck source=../tap.sh
. "$here/../tap.sh"

# fake NAME BODY: an executable test (TAP when NAME ends in .sh)
fake() {
	printf '#!/bin/bash\n%s\n' "$2" >"$TMP/$1"
	chmod +x "$TMP/$1"
}

# expect NAME WANT_RC WANT_SUMMARY FAKE: run.sh over one fake test
expect() {
	local rc summary
	PTSCOPE_TEST_LOGS=$TMP/logs "$RUN" harness "$TMP/$4" >"$TMP/out" 2>&1
	rc=$?
	summary=$(tail -n1 "$TMP/out")
	if [ "$rc" = "$2" ] && [ "$summary" = "$3" ]; then
		ok "$1: exit $rc, '$summary'"
	else
		not_ok "$1: want exit $2 '$3', got exit $rc '$summary'"
		sed 's/^/#   /' "$TMP/out"
	fi
}

oks='for i in 1 2 3 4; do echo "ok $i - case $i"; done'

fake good.sh "$oks"$'\necho 1..4'
expect "TAP, 4 results, plan 1..4" 0 "4 passed, 0 failed" good.sh

fake plan_first.sh $'echo 1..4\n'"$oks"
expect "TAP, plan first" 0 "4 passed, 0 failed" plan_first.sh

fake crash.sh "$oks"$'\nkill -SEGV $$'
expect "TAP, crash after 4 oks" 1 "4 passed, 1 failed" crash.sh

fake short.sh $'echo 1..10\n'"$oks"
expect "TAP, plan 1..10 but 4 results, exit 0" 1 "4 passed, 1 failed" short.sh

fake short_end.sh "$oks"$'\necho 1..10'
expect "TAP, 4 results then plan 1..10" 1 "4 passed, 1 failed" short_end.sh

fake noplan.sh "$oks"
expect "TAP, no plan, exit 0" 1 "4 passed, 1 failed" noplan.sh

fake notok.sh "$oks"$'\necho "not ok 5 - broken"\necho 1..5\nexit 1'
expect "TAP, one not ok" 1 "4 passed, 1 failed" notok.sh

fake skip.sh "$oks"$'\necho "ok 5 # SKIP no witness"\necho 1..5'
expect "TAP, a SKIP is not a pass" 1 "4 passed, 1 failed" skip.sh

fake exit1.sh "$oks"$'\necho 1..4\nexit 3'
expect "TAP, all ok but exit 3" 1 "4 passed, 1 failed" exit1.sh

# a result glued to another writer's line without its newline: counted
# short, and the harness names the missing result and the line
fake glued.sh $'echo "ok 1 - a"\nprintf "# stray"\necho "ok 2 - b"\necho "ok 3 - c"\necho 1..3'
expect "TAP, result 2 glued to a stray line" 1 "2 passed, 1 failed" glued.sh
if grep -q '^#   results missing from the plan: 2 $' "$TMP/out" &&
	grep -q '^#   result inside a line: 2:# strayok 2 - b$' "$TMP/out"; then
	ok "glued: the harness names result 2 and its line"
else
	not_ok "glued: the harness does not name result 2 and its line"
	sed 's/^/#   /' "$TMP/out"
fi

# cmocka's output, printed by a shell script not named .sh
cm_head='echo "[==========] Running 3 test(s)."'
cm_ok='echo "[ RUN      ] t"; echo "[       OK ] t"'

fake cm_good "$cm_head"$'\n'"$cm_ok"$'\n'"$cm_ok"$'\n'"$cm_ok"
expect "cmocka, 3 of 3" 0 "3 passed, 0 failed" cm_good

fake cm_crash "$cm_head"$'\n'"$cm_ok"$'\n'"$cm_ok"$'\nkill -SEGV $$'
expect "cmocka, dies after 2 of 3" 1 "2 passed, 1 failed" cm_crash

fake cm_short "$cm_head"$'\n'"$cm_ok"$'\n'"$cm_ok"
expect "cmocka, 2 of 3, exit 0" 1 "2 passed, 1 failed" cm_short

fake cm_none 'exit 0'
expect "cmocka, nothing run, exit 0" 1 "0 passed, 1 failed" cm_none

fake cm_groups "$cm_head"$'\n'"$cm_ok"$'\n'"$cm_ok"$'\n'"$cm_ok"$'\necho "[==========] Running 2 test(s)."\n'"$cm_ok"
expect "cmocka, two groups 3 + 2, one OK missing" 1 "4 passed, 1 failed" cm_groups

fake cm_rc "$cm_head"$'\n'"$cm_ok"$'\n'"$cm_ok"$'\n'"$cm_ok"$'\nexit 1'
expect "cmocka, 3 of 3 but exit 1" 1 "3 passed, 1 failed" cm_rc

tap_finish
