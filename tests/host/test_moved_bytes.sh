#!/bin/bash
# The size columns of the per-class mremap table: "moved" sums the bytes
# of mappings moved to a new address (the smaller of old_len and new_len
# of each call that moved), so an in-place loop moves 0 bytes however
# many calls it makes, and N moves of SIZE move N * SIZE.  old_bytes and
# new_bytes (JSON, Prometheus) stay the sums of the lengths asked for.
# Ground truth: the bench's geometry, with the running kernel's page size.
. "$(dirname "$0")/lib.sh"
require_root

geometry=$("$BENCH" geometry)
PAGE=$(sed -n 's/.*page=\([0-9]*\).*/\1/p' <<<"$geometry")
MiB=$((1024 * 1024))

# class_row FILE CLASS: the text table's row of CLASS
class_row() {
	awk -v c="$1" '$1 == c' "$2"
}

# inplace-loop --count 500: 500 grows by a page and 500 shrinks back
if stat_json "$TMP/inplace.json" "$BENCH" inplace-loop --count 500; then
	check_eq "in-place loop: in_place calls" 1000 \
		"$(mremap_field "$TMP/inplace.json" in_place calls)"
	check_eq "in-place loop: in_place bytes moved" 0 \
		"$(mremap_field "$TMP/inplace.json" in_place moved_bytes)"
	check_eq "in-place loop: old_bytes still sums old_len (1 and 2 pages)" \
		$((500 * PAGE + 500 * 2 * PAGE)) \
		"$(mremap_field "$TMP/inplace.json" in_place old_bytes)"
else
	not_ok "stat of the in-place loop failed"
fi
"$PTSCOPE" stat -- "$BENCH" inplace-loop --count 500 >"$TMP/inplace.txt" 2>&1
check_eq "in-place loop, text: the table has a moved column, no old bytes" "1 0" \
	"$(grep -c '^  class .* calls  *moved  *mean lat  *fixed$' "$TMP/inplace.txt") $(grep -c 'old bytes' "$TMP/inplace.txt")"
check_eq "in-place loop, text: in_place row moved 0 B" "1000 0 B" \
	"$(class_row in_place "$TMP/inplace.txt" | awk '{ print $(NF - 5), $(NF - 4), $(NF - 3) }')"

# 3 moves of 16 MiB, PMD aligned: 48 MiB moved, all in the pmd class
if stat_json "$TMP/pmd.json" "$BENCH" mremap --size 16M --align pmd --count 3; then
	check_eq "3 x 16M pmd moves: pmd bytes moved" $((48 * MiB)) \
		"$(mremap_field "$TMP/pmd.json" pmd moved_bytes)"
	check_eq "3 x 16M pmd moves: in_place bytes moved" 0 \
		"$(mremap_field "$TMP/pmd.json" in_place moved_bytes)"
else
	not_ok "stat of the pmd moves failed"
fi
"$PTSCOPE" stat -- "$BENCH" mremap --size 16M --align pmd --count 3 >"$TMP/pmd.txt" 2>&1
check_eq "3 x 16M pmd moves, text: pmd row moved" "3 48.0 MiB" \
	"$(class_row pmd "$TMP/pmd.txt" | awk '{ print $(NF - 5), $(NF - 4), $(NF - 3) }')"

# failed calls move nothing either
if stat_json "$TMP/fail.json" "$BENCH" fail --count 4; then
	check_eq "4 failed calls: failed bytes moved" "4 0" \
		"$(mremap_field "$TMP/fail.json" failed calls) $(mremap_field "$TMP/fail.json" failed moved_bytes)"
else
	not_ok "stat of the failing calls failed"
fi

# top --json frames carry the same field: 2 x 16 MiB over the frames
held_bench mremap --size 16M --align pmd --count 2
"$PTSCOPE" top --json -i 0.5 -d 2 -p $target >"$TMP/top.json" 2>"$TMP/top.err" &
pid=$!
if wait_for 10 grep -q 'tracing' "$TMP/top.err"; then
	touch "$TMP/go"
	wait $target
	wait $pid
	check_eq "top --json: pmd bytes moved over the frames" $((32 * MiB)) \
		"$(frames_sum "$TMP/top.json" pmd moved_bytes)"
else
	kill $pid $target 2>/dev/null
	not_ok "top --json did not start: $(head -n2 "$TMP/top.err")"
fi

tap_finish
