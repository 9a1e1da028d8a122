#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The docs, for users: no reference to an issue number a reader cannot
# resolve (in any tracked file), no timing pinned to a commit hash (in the
# docs), a README of at most 400 lines, relative links that lead to a file,
# a man page that man reads without warnings, and sample outputs that are
# what build/ptscope prints now (docs/samples.sh --check, one result per
# sample).  Upstream kernel commit ids (0b5be138ce00) are fine: a reader
# can look them up.  The plan comes last: it counts the samples.
set -u
cd "$(dirname "$0")/../.."
. tests/tap.sh

issue_re='issue[ -]?#?[0-9]+'
# a time, then within 120 characters "at HASH" or "@ HASH", or the other
# way round; HASH has 7 to 40 hex digits with a digit and a letter in it
pinned_perl='
	my $t = qr/\b(?:\d+m\d+s|\d+(?:\.\d+)?\s?(?:ns|us|ms|s|secs?|seconds?|mins?|minutes?|h|hours?))\b/;
	my $h = qr/(?:\bat|@)\s+(?=[0-9a-f]*[0-9])(?=[0-9a-f]*[a-f])[0-9a-f]{7,40}\b/;
	local $/; my $s = <STDIN>; $s =~ s/\s+/ /g;
	while ($s =~ /($t.{0,120}?$h|$h.{0,120}?$t)/g) { print "$1\n"; }
'
pinned() { perl -e "$pinned_perl"; }

# the patterns themselves: each must catch what it is for, and only that
i14="iss""ue 14"
if echo "the cost cuts of $i14 and Iss""ue #3" | grep -qiE "$issue_re" &&
	! echo "issues and tissue samples" | grep -qiE "$issue_re"; then
	ok "the issue pattern finds '$i14' and leaves 'issues' alone"
else
	not_ok "the issue pattern misses '$i14' or finds 'issues'"
fi
bad=$(printf '%s\n' "took 52.0 min here (2605 checks, 2026-12-03," \
	"at d7fc942) from a clean clone" | pinned)
good=$(echo "the fix 0b5be138ce00 (6.17-rc2) took 35 s; at 512 entries, 2 s" | pinned)
if [ -n "$bad" ] && [ -z "$good" ]; then
	ok "the pinned-timing pattern finds '52.0 min ... at d7fc942' across lines and keeps upstream ids"
else
	not_ok "the pinned-timing pattern: found '$bad' (want a match), '$good' (want none)"
fi

if ! files=$(git ls-files 2>/dev/null) || [ -z "$files" ]; then
	not_ok "git ls-files lists nothing: run this in a git checkout"
else
	hits=$(git ls-files -z | xargs -0 grep -nIiE "$issue_re" -- 2>/dev/null)
	if [ -z "$hits" ]; then
		ok "no tracked file refers to an issue number"
	else
		not_ok "tracked files refer to issue numbers; say what happened instead"
		tap_detail "$hits"
	fi

	hits=
	for f in $(git ls-files '*.md' 'man/*.8'); do
		found=$(pinned <"$f")
		[ -z "$found" ] || hits+="$f: $found"$'\n'
	done
	if [ -z "$hits" ]; then
		ok "no timing in the docs is pinned to a commit hash"
	else
		not_ok "timings pinned to a commit hash; say what was measured and how instead"
		tap_detail "$hits"
	fi
fi

lines=$(wc -l <README.md)
if [ "$lines" -le 400 ]; then
	ok "README.md has $lines lines (at most 400)"
else
	not_ok "README.md has $lines lines, more than 400: move detail to docs/"
fi

# relative links of the user docs lead to files
for f in README.md docs/*.md tests/README.md bench/README.md kernel/README.md; do
	[ -f "$f" ] || continue
	missing=
	for target in $(grep -oE '\]\([^)#]+(#[^)]*)?\)' "$f" |
		sed -E 's/^\]\(([^)#]*).*/\1/' | grep -vE '^[a-z]+:' | sort -u); do
		[ -e "$(dirname "$f")/$target" ] || missing+=" $target"
	done
	if [ -z "$missing" ]; then
		ok "$f: every relative link leads to a file"
	else
		not_ok "$f: links to nothing:$missing"
	fi
done

if ! command -v man >/dev/null; then
	not_ok "man is not installed (man-db): cannot check man/ptscope.8"
else
	warn=$(MANWIDTH=80 man --warnings -l man/ptscope.8 2>&1 >/dev/null)
	if [ -z "$warn" ]; then
		ok "man --warnings reads man/ptscope.8 without a warning"
	else
		not_ok "man --warnings on man/ptscope.8"
		tap_detail "$warn"
	fi
fi

# the .deb's description names every command --help lists
if [ -x build/ptscope ]; then
	missing=
	for cmd in $(build/ptscope --help | sed -n '/^Commands:/,/^$/s/^  \([a-z]\+\) .*/\1/p'); do
		sed -n '/^Description:/,/^$/p' debian/control | grep -qw "$cmd" ||
			missing="$missing $cmd"
	done
	if [ -z "$missing" ]; then
		ok "debian/control: the description names every command of --help"
	else
		not_ok "debian/control: the description leaves out:$missing"
	fi
else
	not_ok "no build/ptscope to list the commands of (make all)"
fi

# the samples, renumbered into this plan
before=$tap_n
while IFS= read -r line; do
	case "$line" in
	"ok "*) ok "samples: ${line#ok * - }" ;;
	"not ok "*) not_ok "samples: ${line#not ok * - }" ;;
	"#"*) echo "$line" ;;
	esac
done < <(docs/samples.sh --check 2>&1)
[ "$tap_n" -gt "$before" ] || not_ok "docs/samples.sh --check reported no result"
tap_finish
