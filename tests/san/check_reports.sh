#!/bin/bash
# After the sanitizer pass: every ASan, UBSan or LeakSanitizer report that
# ptscope or a unit test wrote under $PTSCOPE_SAN_LOGS is a failure, even
# when the test that ran it expected a non-zero exit.
set -u
# shellcheck source=../tap.sh
. "$(dirname "$0")/../tap.sh"
dir=${PTSCOPE_SAN_LOGS:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	not_ok "no sanitizer report directory ('$dir'): was the pass run with SAN_ENV?"
	tap_finish
	exit
fi
reports=$(find "$dir" -type f -size +0 | sort)
if [ -z "$reports" ]; then
	ok "no sanitizer reports in $dir"
	tap_finish
	exit
fi
not_ok "$(echo "$reports" | wc -l) sanitizer reports in $dir:"
for r in $reports; do
	echo "# $r:"
	head -n 40 "$r" | sed 's/^/#   /'
done
tap_finish
