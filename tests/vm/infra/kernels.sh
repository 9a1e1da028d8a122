#!/bin/bash
# The kernel table, tests/vm/infra/kernels.tsv, for shell: source this file for
# kernel_field, or run it as "kernels.sh LABEL COLUMN" (the Makefile does).
# shellcheck shell=bash
kernels_tsv=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/kernels.tsv

# kernel_field LABEL COLUMN: COLUMN of kernel LABEL; LABEL '*': COLUMN of
# every kernel, one a line, in the table's order.  False, printing
# nothing, for an unknown kernel or column.
kernel_field() {
	awk -F '\t' -v k="$1" -v c="$2" '
		/^#/ || NF == 0 { next }
		!hdr { for (i = 1; i <= NF; i++) col[$i] = i; hdr = 1; next }
		!(c in col) { exit }
		k == "*" || $1 == k { print $col[c]; found = 1 }
		END { exit !found }' "$kernels_tsv"
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
	[ $# -eq 2 ] || { echo "usage: $0 LABEL|'*' COLUMN" >&2; exit 2; }
	kernel_field "$1" "$2"
fi
