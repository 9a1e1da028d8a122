#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# docs/kernels.md lists the kernels of tests/vm/infra/kernels.tsv, the table the
# VM tests boot from: each kernel with the table's version, arch and page
# size, and no kernel the table does not have.
set -u
cd "$(dirname "$0")/../.."
. tests/tap.sh
. tests/vm/infra/kernels.sh
doc=docs/kernels.md

# the doc's kernel list: "LABEL VERSION ARCH PAGE" a line, from the rows
# of its table headed "| kernel | version | arch | page size |"
doc_kernels() {
	awk -F '|' '
		/^\| kernel \| version \| arch \| page size \|$/ { on = 1; next }
		on && !/^\|/ { exit }
		on && $2 !~ /^-/ {
			for (i = 2; i <= 5; i++) gsub(/^ +| +$|`/, "", $i)
			print $2, $3, $4, $5
		}' "$doc"
}

listed=$(doc_kernels)
if ! labels=$(kernel_field '*' label); then
	not_ok "tests/vm/infra/kernels.tsv lists no kernel"
fi
for k in $labels; do
	want="$k $(kernel_field "$k" version) $(kernel_field "$k" arch) $(kernel_field "$k" page_kb) KiB"
	got=$(awk -v k="$k" '$1 == k' <<<"$listed")
	if [ "$got" = "$want" ]; then
		ok "$doc: $want, as in kernels.tsv"
	else
		not_ok "$doc: want '$want' (kernels.tsv), got '${got:-no row}'"
	fi
done
extra=
while read -r k _; do
	[ -z "$k" ] || kernel_field "$k" label >/dev/null || extra+=" $k"
done <<<"$listed"
if [ -z "$extra" ]; then
	ok "$doc lists no kernel that kernels.tsv does not have"
else
	not_ok "$doc lists kernels that kernels.tsv does not have:$extra"
fi
tap_finish
