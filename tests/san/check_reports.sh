#!/bin/bash
# After the sanitizer pass: every ASan, UBSan or LeakSanitizer report that
# ptscope or a unit test wrote under $PTSCOPE_SAN_LOGS is a failure, even
# when the test that ran it expected a non-zero exit.
set -u
dir=${PTSCOPE_SAN_LOGS:-}
if [ -z "$dir" ] || [ ! -d "$dir" ]; then
	echo "not ok 1 - no sanitizer report directory ('$dir'): was the pass run with SAN_ENV?"
	echo "1..1"
	exit 1
fi
reports=$(find "$dir" -type f -size +0 | sort)
if [ -z "$reports" ]; then
	echo "ok 1 - no sanitizer reports in $dir"
	echo "1..1"
	exit 0
fi
echo "not ok 1 - $(echo "$reports" | wc -l) sanitizer reports in $dir:"
for r in $reports; do
	echo "# $r:"
	head -n 40 "$r" | sed 's/^/#   /'
done
echo "1..1"
exit 1
