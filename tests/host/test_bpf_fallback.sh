#!/bin/bash
# The fallback build of the BPF objects (tid-keyed thread-state hashes,
# no BTF task helper, bounded loops: what kernels before 5.11 load) on
# this kernel, forced with PTSCOPE_BPF_FALLBACK: probe names the build and
# why, and the mremap counts are the workload's geometry, as with the
# primary build.  The rest of tests/host runs the primary build; run them
# with PTSCOPE_BPF_FALLBACK=all for the fallback's view of everything.
# Ground truth: the bench's geometry (N moves of SIZE, aligned).
. "$(dirname "$0")/lib.sh"
require_root

MiB=$((1024 * 1024))

# probe_bpf FILE EXPR: EXPR over the "bpf" object of probe --json in FILE
probe_bpf() {
	json "$1" "(lambda b: $2)(d['bpf'])"
}

if "$PTSCOPE" probe --json >"$TMP/primary.json" 2>"$TMP/primary.err"; then
	check_eq "this kernel offers every feature: the primary build" \
		"primary True" "$(probe_bpf "$TMP/primary.json" \
		"'%s %s' % (b['build'], all(f['offered'] and not f['forced'] for f in b['features'].values()))")"
else
	not_ok "probe failed: $(head -n 2 "$TMP/primary.err")"
fi

if PTSCOPE_BPF_FALLBACK=loop "$PTSCOPE" probe --json >"$TMP/loop.json" \
	2>"$TMP/loop.err"; then
	check_eq "PTSCOPE_BPF_FALLBACK=loop: build, forced, thread state" \
		"fallback ['loop'] tid-keyed hash, freed at thread exit (fallback: it comes with the one for loop)" \
		"$(probe_bpf "$TMP/loop.json" \
		"'%s %s %s' % (b['build'], [k for k, f in b['features'].items() if f['forced']], b['features']['thread-map']['implementation'])")"
else
	not_ok "probe with PTSCOPE_BPF_FALLBACK=loop failed: $(head -n 2 "$TMP/loop.err")"
fi

PTSCOPE_BPF_FALLBACK=loop,threads "$PTSCOPE" probe >/dev/null 2>"$TMP/bad.err"
rc=$?
check_eq "an unknown fallback name: exit 2 (bad usage), one line naming it" "2 1 1" \
	"$rc $(wc -l <"$TMP/bad.err") $(grep -c 'unknown fallback "threads"' "$TMP/bad.err")"

export PTSCOPE_BPF_FALLBACK=all
# 3 moves of 16 MiB, PMD aligned, and 500 grows and shrinks in place
if stat_json "$TMP/pmd.json" "$BENCH" mremap --size 16M --align pmd --count 3; then
	check_eq "fallback: 3 x 16M pmd moves: pmd calls, bytes moved" \
		"3 $((48 * MiB))" "$(mremap_field "$TMP/pmd.json" pmd calls) $(mremap_field "$TMP/pmd.json" pmd moved_bytes)"
	check_eq "fallback: no thread-state drop" 0 \
		"$(json "$TMP/pmd.json" "d['counters']['drops']['inflight_map_full']")"
else
	not_ok "fallback: stat of the pmd moves failed"
	not_ok "fallback: stat of the pmd moves failed"
fi
if stat_json "$TMP/inplace.json" "$BENCH" inplace-loop --count 500; then
	check_eq "fallback: in-place loop: in_place calls" 1000 \
		"$(mremap_field "$TMP/inplace.json" in_place calls)"
else
	not_ok "fallback: stat of the in-place loop failed"
fi
tap_finish
