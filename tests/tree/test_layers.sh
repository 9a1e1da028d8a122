#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# The source tree's layers (docs/layout.md): engine <- data <- maps <-
# tracer <- export <- render <- views <- main.c.  A file may include headers of its
# own layer and of the layers below it, never above; every source file
# sits in a layer.
set -u
cd "$(dirname "$0")/../.."
declare -A rank=([engine]=0 [data]=1 [maps]=2 [tracer]=3 [export]=4
	[render]=5 [views]=6)
. tests/tap.sh

for f in src/*.c src/*/*.[ch]; do
	layer=$(echo "$f" | cut -d/ -f2)
	case "$f" in
	src/main.c) mine=7 ;;
	src/*/*) mine=${rank[$layer]:-} ;;
	*) mine= ;;
	esac
	if [ -z "$mine" ]; then
		not_ok "$f: not in a layer directory (${!rank[*]})"
		continue
	fi
	bad=
	for inc in $(sed -n 's/^#include "\([a-z_]*\)\/.*/\1/p' "$f"); do
		if [ -z "${rank[$inc]:-}" ] || [ "${rank[$inc]}" -gt "$mine" ]; then
			bad="$bad $inc"
		fi
	done
	if [ -n "$bad" ]; then
		not_ok "$f includes a higher layer:$bad"
	else
		ok "$f includes only its layer and those below"
	fi
done
tap_finish
