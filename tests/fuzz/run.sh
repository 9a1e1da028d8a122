#!/bin/bash
# Run each libFuzzer target in $FUZZ_TARGETS ($FUZZ_BIN/NAME) for
# $FUZZ_SECONDS over a copy of tests/fuzz/corpus/NAME/ (the repository's
# corpus is never written).  TAP: "ok N - NAME 20 s, X runs", or "not ok"
# with the report; a crashing input is kept in $FUZZ_BIN/artifacts/ to be
# added to the corpus (as a regression seed) with the fix.
set -u
here=$(cd "$(dirname "$0")" && pwd)
bin=${FUZZ_BIN:?FUZZ_BIN: the directory of the fuzz binaries}
seconds=${FUZZ_SECONDS:-20}
targets=${FUZZ_TARGETS:?FUZZ_TARGETS: the targets to run}
TMP=$(mktemp -d /tmp/ptscope-fuzz.XXXXXX)
trap 'rm -rf "$TMP"' EXIT
mkdir -p "$bin/artifacts"
# shellcheck source=../tap.sh
. "$here/../tap.sh"

for t in $targets; do
	corpus=$TMP/$t
	mkdir -p "$corpus"
	if [ ! -x "$bin/$t" ] || [ -z "$(ls -A "$here/corpus/$t" 2>/dev/null)" ]; then
		not_ok "$t: no binary $bin/$t or no seeds in $here/corpus/$t"
		continue
	fi
	cp "$here/corpus/$t"/* "$corpus/"
	# -close_fd_mask=3: the targets' own stdout/stderr chatter is
	# dropped; libFuzzer and the sanitizers keep a copy of stderr
	"$bin/$t" -max_total_time="$seconds" -print_final_stats=1 \
		-close_fd_mask=3 -artifact_prefix="$bin/artifacts/$t-" \
		-rss_limit_mb=2048 -timeout=10 "$corpus" >"$TMP/$t.log" 2>&1
	rc=$?
	runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$TMP/$t.log")
	if [ $rc -eq 0 ] && [ -n "$runs" ] && [ "$runs" -gt 0 ]; then
		ok "$t $seconds s, $runs runs, corpus $(ls "$corpus" | wc -l) inputs"
	else
		not_ok "$t: exit $rc after ${runs:-?} runs"
		grep -E 'ERROR|SUMMARY|#[0-9]+ |artifact|Test unit written' \
			"$TMP/$t.log" | head -n 40 | sed 's/^/#   /'
	fi
done
tap_finish
