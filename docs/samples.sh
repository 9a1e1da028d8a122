#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The sample outputs in the docs are what build/ptscope prints now.
#
# A sample in a markdown file is a command in an HTML comment, a fenced
# block with "$ COMMAND" and its output, and a closing comment:
#
#   <!-- sample: ptscope diff docs/samples/aligned.json docs/samples/page-off.json -->
#   ```
#   $ ptscope diff docs/samples/aligned.json docs/samples/page-off.json
#   ...
#   ```
#   <!-- /sample -->
#
# Only deterministic commands belong there: --help, diff on the recordings
# committed in docs/samples/.  The command runs from the top of the tree
# with build/ to the front of PATH, LC_ALL=C and TZ=UTC, stdout and stderr
# together; it must start with "ptscope" and exit 0.  Output that depends
# on the machine (probe, top, stat) is shown as example output, outside
# these markers, with the kernel it came from.
#
#   docs/samples.sh --check    TAP, one result per sample: does the doc
#                              show what build/ptscope prints now?
#   docs/samples.sh --update   rewrite every sample block from build/ptscope
#   docs/samples.sh --record   record docs/samples/*.json again, 5 runs
#                              each (root, BPF: a new recording format)
#
# Nothing is built: without build/ptscope it says so and fails (make all).
set -u
cd "$(dirname "$0")/.."
root=$PWD
files=(README.md docs/*.md tests/README.md bench/README.md kernel/README.md)

usage() {
	echo "usage: docs/samples.sh --check|--update|--record" >&2
	exit 2
}

# run_sample CMD: its output, as a sample shows it; non-zero on failure
run_sample() {
	case "$1" in
	ptscope | "ptscope "*) ;;
	*) echo "sample command does not start with ptscope: $1"; return 2 ;;
	esac
	(cd "$root" && env PATH="$root/build:$PATH" LC_ALL=C TZ=UTC \
		bash -c "$1" 2>&1 </dev/null)
}

# blocks FILE: "LINE<TAB>COMMAND" for each sample marker of FILE
blocks() {
	grep -n '^<!-- sample: .* -->$' "$1" |
		sed 's/^\([0-9]*\):<!-- sample: \(.*\) -->$/\1\t\2/'
}

# shown FILE LINE: the fenced block after the marker at LINE, without
# its fences; fails when the block is not fenced and closed
shown() {
	awk -v start="$2" '
		NR <= start { next }
		NR == start + 1 { if ($0 != "```") exit 3; next }
		$0 == "```" { fenced = 1; next }
		fenced { exit ($0 == "<!-- /sample -->") ? 0 : 4 }
		{ print }
		END { if (!fenced) exit 5 }' "$1"
}

check() {
	local f line cmd n=0 fails=0 want got rc
	local -a results=()

	if [ ! -x build/ptscope ]; then
		echo "1..1"
		echo "not ok 1 - build/ptscope is missing: build it first (make all); samples are checked against it"
		exit 1
	fi
	for f in "${files[@]}"; do
		[ -f "$f" ] || continue
		while IFS=$'\t' read -r line cmd; do
			n=$((n + 1))
			if ! want=$(shown "$f" "$line"); then
				results+=("not ok $n - $f:$line: the sample is not a fenced block closed by <!-- /sample -->")
				fails=$((fails + 1))
				continue
			fi
			got=$(printf '$ %s\n' "$cmd"; run_sample "$cmd")
			rc=$?
			if [ "$rc" -ne 0 ]; then
				results+=("not ok $n - $f:$line: '$cmd' exited $rc")
				fails=$((fails + 1))
			elif [ "$want" != "$got" ]; then
				results+=("not ok $n - $f:$line: '$cmd' prints something else now (docs/samples.sh --update)"
					"$(diff <(echo "$want") <(echo "$got") | head -n 20 | sed 's/^/#   /')")
				fails=$((fails + 1))
			else
				results+=("ok $n - $f:$line: '$cmd'")
			fi
		done < <(blocks "$f")
	done
	if [ "$n" -eq 0 ]; then
		echo "1..1"
		echo "not ok 1 - no sample markers found in ${files[*]}"
		exit 1
	fi
	echo "1..$n"
	printf '%s\n' "${results[@]}"
	[ "$fails" -eq 0 ]
}

# rewrite FILE: every sample block of FILE from build/ptscope
rewrite() {
	local f=$1 tmp out line cmd skipping=0 bad=0

	tmp=$(mktemp)
	while IFS= read -r line || [ -n "$line" ]; do
		if [ "$skipping" = 1 ]; then
			[ "$line" = "<!-- /sample -->" ] && skipping=0 &&
				echo "$line" >>"$tmp"
			continue
		fi
		echo "$line" >>"$tmp"
		case "$line" in
		"<!-- sample: "*" -->")
			cmd=${line#<!-- sample: }
			cmd=${cmd% -->}
			if ! out=$(run_sample "$cmd"); then
				echo "docs/samples.sh: $f: '$cmd' failed:" >&2
				echo "$out" >&2
				bad=1
			fi
			{ echo '```'; echo "\$ $cmd"; echo "$out"; echo '```'; } >>"$tmp"
			skipping=1
			;;
		esac
	done <"$f"
	if [ "$skipping" = 1 ]; then
		echo "docs/samples.sh: $f: a sample has no <!-- /sample -->" >&2
		rm -f "$tmp"
		return 1
	fi
	if cmp -s "$tmp" "$f"; then
		rm -f "$tmp"
	else
		cat "$tmp" >"$f" && rm -f "$tmp"
		echo "updated $f"
	fi
	return "$bad"
}

update() {
	local f rc=0

	if [ ! -x build/ptscope ]; then
		echo "docs/samples.sh: build/ptscope is missing: build it first (make all)" >&2
		exit 1
	fi
	for f in "${files[@]}"; do
		[ -f "$f" ] && grep -q '^<!-- sample: ' "$f" || continue
		rewrite "$f" || rc=1
	done
	exit "$rc"
}

# The recordings diff's samples compare: one 16 MiB move four times,
# PMD-aligned, and the same with the destination a page off PMD alignment.
record() {
	local bench=build/ptscope-bench

	if [ ! -x build/ptscope ] || [ ! -x "$bench" ]; then
		echo "docs/samples.sh: build/ptscope or $bench is missing (make all)" >&2
		exit 1
	fi
	mkdir -p docs/samples
	# 5 runs each: the same command twice, and its move a page off
	rec aligned "$bench" mremap --size 16M --align pmd --thp never --count 4
	rec aligned-again "$bench" mremap --size 16M --align pmd --thp never --count 4
	rec page-off "$bench" mremap --size 16M --align page --thp never --count 4
	# one run a side: what diff says without --repeat
	rec_once aligned-once "$bench" mremap --size 16M --align pmd --thp never --count 4
	rec_once page-off-once "$bench" mremap --size 16M --align page --thp never --count 4
	echo "recorded docs/samples/*.json; now docs/samples.sh --update"
}

# rec NAME CMD...: docs/samples/NAME.json, 5 runs of CMD
rec() {
	local name=$1
	shift
	build/ptscope stat --repeat 5 -o "docs/samples/$name.json" -- "$@" \
		>/dev/null 2>&1 || exit 1
}

# rec_once NAME CMD...: docs/samples/NAME.json, one run of CMD
rec_once() {
	local name=$1
	shift
	build/ptscope stat -o "docs/samples/$name.json" -- "$@" \
		>/dev/null 2>&1 || exit 1
}

[ $# -eq 1 ] || usage
case "$1" in
--check) check ;;
--update) update ;;
--record) record ;;
*) usage ;;
esac
