// SPDX-License-Identifier: GPL-2.0
/*
 * The output schema (see schema.h).  Adding a field to every output is
 * one row here, plus the BPF counter that feeds it.
 */
#include <stdio.h>
#include <string.h>
#include "data/counters.h"
#include "data/format.h"
#include "data/schema.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

enum {
	SEC_MREMAP = 0,
	SEC_MPT,
	SEC_LEVELS,
	SEC_FOLIO,
	SEC_FAULTS,
	SEC_COLLAPSE,
	SEC_MADV_COLLAPSE,
	SEC_DROPS,
};

const struct pts_section pts_sections[] = {
	[SEC_MREMAP] = { "mremap", "mremap.calls",
			 "mremap calls by alignment class", "mremap" },
	[SEC_MPT] = { "move_page_tables", "mremap.move_page_tables",
		      "move_page_tables", "move_page_tables" },
	[SEC_LEVELS] = { "mremap_levels", "mremap.levels",
			 "page-table entries moved (exec stack moves not included)",
			 "levels" },
	[SEC_FOLIO] = { "folio_lookups", "mremap.folio_lookups",
			"vm_normal_folio() inside move_page_tables",
			"folio_lookups" },
	[SEC_FAULTS] = { "hugepage_faults", "thp.fault_alloc",
			 "anonymous page faults by folio size", "faults" },
	[SEC_COLLAPSE] = { "khugepaged_collapse", "thp.collapse",
			   "khugepaged collapses (system-wide)", "khugepaged" },
	[SEC_MADV_COLLAPSE] = { "madv_collapse", "thp.collapse",
				"MADV_COLLAPSE collapses (traced processes)",
				"madv_collapse" },
	[SEC_DROPS] = { "drops", NULL,
			"events not counted (a BPF map or the ring buffer was full)",
			"drops" },
};
const size_t pts_nr_sections = ARRAY_SIZE(pts_sections);

#define S(sec) (&pts_sections[sec])

/* the fault path traced from its functions or the patched tracepoint */
#define FAULT_OUTCOMES	(PTS_CFG_FAULT_FUNCS | PTS_CFG_FAULT_TP)

const struct pts_field pts_fields[] = {
	/* mremap(2) calls by how source and destination line up */
	{ S(SEC_MREMAP), "calls", PTS_FIELD_COUNTER, PTS_LABEL_CLASS,
	  PTS_UNIT_COUNT, PTS_C_MREMAP_CALLS,
	  .prom = "ptscope_mremap_calls_total",
	  .prom_help = "mremap calls by alignment class: pud or pmd (moves at "
		"that level were possible), pte (PTE level only), in_place "
		"(resized without moving), failed (returned an error).",
	  .title = "calls", .diff = "calls", .json_total = true,
	  .proc_key = "mremap_calls" },
	{ S(SEC_MREMAP), "old_bytes", PTS_FIELD_COUNTER, PTS_LABEL_CLASS,
	  PTS_UNIT_BYTES, PTS_C_MREMAP_OLD_BYTES,
	  .prom = "ptscope_mremap_bytes_total",
	  .prom_help = "Bytes of the old mapping (old_len) mremap calls asked "
		"to resize, summed by class, in place and failed calls too: "
		"not bytes moved (ptscope_mremap_moved_bytes_total) nor new "
		"lengths (ptscope_mremap_new_bytes_total); the name stays for "
		"the dashboards that use it.",
	  /* a length asked for, summed: in place it moves nothing */
	  .title = "old bytes", .diff = "old_bytes", .not_in_text = true },
	{ S(SEC_MREMAP), "new_bytes", PTS_FIELD_COUNTER, PTS_LABEL_CLASS,
	  PTS_UNIT_BYTES, PTS_C_MREMAP_NEW_BYTES,
	  .prom = "ptscope_mremap_new_bytes_total",
	  .prom_help = "Bytes of the new mapping (new_len) of mremap calls by "
		"class.",
	  .title = "new bytes", .diff = "new_bytes", .not_in_text = true },
	{ S(SEC_MREMAP), "moved_bytes", PTS_FIELD_COUNTER, PTS_LABEL_CLASS,
	  PTS_UNIT_BYTES, PTS_C_MREMAP_MOVED_BYTES,
	  .prom = "ptscope_mremap_moved_bytes_total",
	  .prom_help = "Bytes of mappings mremap moved to a new address by "
		"class: the smaller of old_len and new_len of each call that "
		"moved, 0 for in_place and failed.",
	  .title = "moved" },
	{ S(SEC_MREMAP), "latency_ns", PTS_FIELD_HIST, PTS_LABEL_CLASS,
	  PTS_UNIT_NS, PTS_H_MREMAP_NS,
	  .prom = "ptscope_mremap_duration_seconds",
	  .prom_help = "mremap syscall duration by class (log2 buckets).",
	  .title = "mean lat", .diff = "latency_mean", .json_total = true },
	/* MREMAP_DONTUNMAP (5.7): tables moved, the source VMA kept (empty) */
	{ S(SEC_MREMAP), "dontunmap_calls", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_MREMAP_DONTUNMAP,
	  .prom = "ptscope_mremap_dontunmap_calls_total",
	  .prom_help = "mremap calls with MREMAP_DONTUNMAP that moved the "
		"mapping and left the source mapped (empty).",
	  .title = "MREMAP_DONTUNMAP moves", .diff = "dontunmap_calls" },
	/* MREMAP_FIXED: where the destination's alignment is the caller's */
	{ S(SEC_MREMAP), "fixed_calls", PTS_FIELD_COUNTER, PTS_LABEL_CLASS,
	  PTS_UNIT_COUNT, PTS_C_MREMAP_FIXED,
	  .prom = "ptscope_mremap_fixed_calls_total",
	  .prom_help = "mremap calls with MREMAP_FIXED (the caller chose the "
		"destination, so its alignment, and the class) by class.",
	  .title = "fixed" },

	/* move_page_tables(): mremap moves and exec stack relocation */
	{ S(SEC_MPT), "calls", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_MPT_CALLS,
	  .prom = "ptscope_move_page_tables_calls_total",
	  .prom_help = "move_page_tables() calls (mremap moves and exec stack "
		"relocation).",
	  .title = "calls", .diff = "calls", .per_mremap = true },
	{ S(SEC_MPT), "bytes_requested", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_BYTES, PTS_C_MPT_BYTES_REQUESTED,
	  .prom = "ptscope_move_page_tables_requested_bytes_total",
	  .prom_help = "Bytes move_page_tables() was asked to move.",
	  .title = "requested", .diff = "bytes_requested" },
	{ S(SEC_MPT), "bytes_moved", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_BYTES, PTS_C_MPT_BYTES_MOVED,
	  .prom = "ptscope_move_page_tables_moved_bytes_total",
	  .prom_help = "Bytes move_page_tables() moved.",
	  .title = "moved", .diff = "bytes_moved" },
	{ S(SEC_MPT), "partial", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_MPT_PARTIAL,
	  .prom = "ptscope_move_page_tables_partial_total",
	  .prom_help = "move_page_tables() calls that moved less than "
		"requested.",
	  .title = "partial", .diff = "partial" },
	{ S(SEC_MPT), "stack_moves", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_MPT_STACK,
	  .prom = "ptscope_move_page_tables_stack_moves_total",
	  .prom_help = "move_page_tables() calls relocating an exec stack.",
	  .title = "exec-stack", .diff = "stack_moves" },
	{ S(SEC_MPT), "reverse_moves", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_MPT_REVERSE,
	  .prom = "ptscope_move_page_tables_reverse_moves_total",
	  .prom_help = "move_page_tables() calls moving back after a partial "
		"move.",
	  .title = "reverse", .diff = "reverse_moves" },
	{ S(SEC_MPT), "latency_ns", PTS_FIELD_HIST, PTS_LABEL_NONE,
	  PTS_UNIT_NS, PTS_H_MPT_NS,
	  .prom = "ptscope_move_page_tables_duration_seconds",
	  .prom_help = "move_page_tables() duration (log2 buckets).",
	  .title = "latency", .diff = "latency_mean", .diff_sum = "time_total" },

	/* page-table levels inside move_page_tables() */
	{ S(SEC_LEVELS), "pud_moved", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PUD_MOVED,
	  .prom = "ptscope_pagetable_entries_moved_total",
	  .prom_help = "Page-table entries moved whole inside "
		"move_page_tables(): pud and pmd move a lower table, huge_pmd "
		"a huge page mapping.",
	  .fixed_label = "level", .fixed_value = "pud",
	  .title = "moved", .diff = "pud_moved", .per_mremap = true },
	{ S(SEC_LEVELS), "pmd_moved", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PMD_MOVED,
	  .prom = "ptscope_pagetable_entries_moved_total",
	  .fixed_label = "level", .fixed_value = "pmd",
	  .title = "moved", .diff = "pmd_moved", .per_mremap = true },
	{ S(SEC_LEVELS), "huge_pmd_moved", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_HPMD_MOVED,
	  .prom = "ptscope_pagetable_entries_moved_total",
	  .fixed_label = "level", .fixed_value = "huge_pmd",
	  .title = "moved", .diff = "huge_pmd_moved", .per_mremap = true },
	{ S(SEC_LEVELS), "pud_fallback", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PUD_FALLBACK,
	  .prom = "ptscope_pagetable_fallbacks_total",
	  .prom_help = "Moves possible at a level that went one level down "
		"instead.",
	  .fixed_label = "level", .fixed_value = "pud",
	  .title = "fell back", .diff = "pud_fallback", .per_mremap = true },
	{ S(SEC_LEVELS), "pmd_fallback", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PMD_FALLBACK,
	  .prom = "ptscope_pagetable_fallbacks_total",
	  .fixed_label = "level", .fixed_value = "pmd",
	  .title = "fell back", .diff = "pmd_fallback", .per_mremap = true },
	{ S(SEC_LEVELS), "huge_pmd_fallback", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_HPMD_FALLBACK,
	  .prom = "ptscope_pagetable_fallbacks_total",
	  .fixed_label = "level", .fixed_value = "huge_pmd",
	  .title = "fell back", .diff = "huge_pmd_fallback", .per_mremap = true },
	{ S(SEC_LEVELS), "pte_extents", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PTE_EXTENTS,
	  .prom = "ptscope_pte_extents_total",
	  .prom_help = "PTE-level extents moved (move_ptes() calls).",
	  .title = "PTE extents", .diff = "pte_extents", .per_mremap = true },
	{ S(SEC_LEVELS), "pte_extent_bytes", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_BYTES, PTS_C_LV_PTE_BYTES,
	  .prom = "ptscope_pte_extent_bytes_total",
	  .prom_help = "Bytes covered by the PTE-level extents.",
	  .title = "PTE extent bytes", .diff = "pte_extent_bytes",
	  .per_mremap = true },
	/* no tracepoint sees empty extents or THP splits: markers only */
	{ S(SEC_LEVELS), "empty_extents", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_EMPTY, .excludes = PTS_CFG_LEVEL_TPS,
	  .prom = "ptscope_pagetable_empty_extents_total",
	  .prom_help = "Extents with no page table to move.",
	  .title = "empty extents", .diff = "empty_extents", .per_mremap = true },
	{ S(SEC_LEVELS), "thp_splits", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_SPLITS, .excludes = PTS_CFG_LEVEL_TPS,
	  .prom = "ptscope_pagetable_thp_splits_total",
	  .prom_help = "Huge PMDs split inside move_page_tables().",
	  .title = "THP splits", .diff = "thp_splits", .per_mremap = true },
	/* the markers see each PTE table only from 6.5 (PTS_CFG_PTE_MARKER) */
	{ S(SEC_LEVELS), "ptes", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PTES, .needs_any = PTS_CFG_PTE_MARKER,
	  .prom = "ptscope_ptes_moved_total",
	  .prom_help = "Present (non-none) PTEs in the PTE-level extents.",
	  .title = "PTEs", .diff = "ptes", .per_mremap = true },
	/*
	 * batches (6.17+): counted by the patched mmap:mm_mremap_move_ptes
	 * tracepoint, or inferred from the PTE table by the PTE marker
	 */
	{ S(SEC_LEVELS), "pte_batches", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_PTE_BATCHES, .metric = "mremap.pte_batches",
	  .prom = "ptscope_pte_batches_total",
	  .prom_help = "Batches the PTE-level extents were moved in.",
	  .title = "PTE batches", .diff = "pte_batches", .per_mremap = true },
	{ S(SEC_LEVELS), "folio_lookups", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_LV_FOLIO_LOOKUPS, .metric = "mremap.pte_batches",
	  .prom = "ptscope_pte_batch_folio_lookups_total",
	  .prom_help = "Folio lookups move_ptes() made to find PTE batches.",
	  .title = "folio lookups", .diff = "folio_lookups", .per_mremap = true },
	{ S(SEC_LEVELS), "pte_max_batch", PTS_FIELD_HIST, PTS_LABEL_NONE,
	  PTS_UNIT_PTES, PTS_H_PTE_MAX_BATCH, .metric = "mremap.pte_batches",
	  .prom = "ptscope_pte_max_batch_ptes",
	  .prom_help = "Largest PTE batch of each PTE-level extent, in PTEs "
		"(log2 buckets).",
	  .title = "largest batch per extent" },
	/* the tracepoint gives no size per batch: the inference does */
	{ S(SEC_LEVELS), "pte_batch_size", PTS_FIELD_HIST, PTS_LABEL_NONE,
	  PTS_UNIT_PTES, PTS_H_PTE_BATCH, .metric = "mremap.pte_batches",
	  .needs_any = PTS_CFG_BATCH_INFER,
	  .prom = "ptscope_pte_batch_size_ptes",
	  .prom_help = "PTEs per batch (log2 buckets).",
	  .title = "PTEs per batch", .diff = "pte_batch_size_mean" },

	/* vm_normal_folio() inside move_page_tables(), timed by fentry/fexit */
	{ S(SEC_FOLIO), "calls", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_VNF_CALLS,
	  .prom = "ptscope_vm_normal_folio_calls_total",
	  .prom_help = "vm_normal_folio() (vmemmap) lookups inside "
		"move_page_tables().",
	  .title = "calls", .diff = "calls", .per_mremap = true },
	{ S(SEC_FOLIO), "latency_ns", PTS_FIELD_HIST, PTS_LABEL_NONE,
	  PTS_UNIT_NS, PTS_H_VNF_NS,
	  .prom = "ptscope_vm_normal_folio_duration_seconds",
	  .prom_help = "vm_normal_folio() duration inside move_page_tables() "
		"(log2 buckets).",
	  .title = "latency", .diff = "latency_mean", .diff_sum = "time_total" },

	/*
	 * Anonymous faults by folio order.  Order 0, the huge zero page and
	 * latency exist only where the fault path is traced from its
	 * functions (or the patched tracepoint, no latency); charge
	 * fallbacks there and on the stock tracepoints (alloc paired with
	 * free).
	 */
	{ S(SEC_FAULTS), "alloc", PTS_FIELD_COUNTER, PTS_LABEL_ORDER,
	  PTS_UNIT_COUNT, PTS_C_FAULT_ALLOC,
	  .prom = "ptscope_hugepage_fault_allocs_total",
	  .prom_help = "Anonymous hugepage (THP/mTHP) folios allocated at fault "
		"time by size.",
	  .title = "alloc", .diff = "alloc", .proc_key = "fault_alloc" },
	{ S(SEC_FAULTS), "fallback", PTS_FIELD_COUNTER, PTS_LABEL_ORDER,
	  PTS_UNIT_COUNT, PTS_C_FAULT_FALLBACK,
	  .prom = "ptscope_hugepage_fault_fallbacks_total",
	  .prom_help = "Hugepage fault allocations that failed and fell back to "
		"a smaller size.",
	  .title = "fallback", .diff = "fallback",
	  .proc_key = "fault_fallback" },
	{ S(SEC_FAULTS), "fallback_charge", PTS_FIELD_COUNTER, PTS_LABEL_ORDER,
	  PTS_UNIT_COUNT, PTS_C_FAULT_FALLBACK_CHARGE,
	  .needs_any = FAULT_OUTCOMES | PTS_CFG_FAULT_CHARGE_FREE,
	  .prom = "ptscope_hugepage_fault_fallback_charges_total",
	  .prom_help = "Hugepage folios allocated but refused by the memory "
		"cgroup charge, then fallen back.",
	  .title = "charge-fb", .diff = "fallback_charge",
	  .proc_key = "fault_fallback_charge" },
	/*
	 * stock tracepoints: folios put back unmapped that were no fallback
	 * (another thread mapped the range first), and those the path
	 * cannot place (no fault boundaries); the kernel counts neither
	 */
	{ S(SEC_FAULTS), "race_lost", PTS_FIELD_COUNTER, PTS_LABEL_ORDER,
	  PTS_UNIT_COUNT, PTS_C_FAULT_RACE_LOST,
	  .needs_any = PTS_CFG_FAULT_CHARGE_FREE,
	  .prom = "ptscope_hugepage_fault_races_lost_total",
	  .prom_help = "Hugepage folios a fault charged, then put back because "
		"another thread mapped the range first (neither an allocation "
		"nor a fallback for the kernel).",
	  .title = "race-lost", .diff = "race_lost" },
	{ S(SEC_FAULTS), "ambiguous", PTS_FIELD_COUNTER, PTS_LABEL_ORDER,
	  PTS_UNIT_COUNT, PTS_C_FAULT_AMBIGUOUS,
	  .needs_any = PTS_CFG_FAULT_CHARGE_FREE,
	  .excludes = PTS_CFG_FAULT_BOUNDS,
	  .prom = "ptscope_hugepage_fault_unmapped_frees_ambiguous_total",
	  .prom_help = "mTHP folios put back unmapped where ptscope cannot tell "
		"a refused memcg charge from a lost race (no fault "
		"boundaries); counted in neither fallback_charges nor races.",
	  .title = "ambiguous", .diff = "ambiguous" },
	{ S(SEC_FAULTS), "huge_zero_page", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_FAULT_ZERO_PAGE, .needs_any = FAULT_OUTCOMES,
	  .prom = "ptscope_huge_zero_page_faults_total",
	  .prom_help = "Read faults that mapped the huge zero page.",
	  .title = "huge zero page (read faults)", .diff = "huge_zero_page" },
	{ S(SEC_FAULTS), "latency_ns", PTS_FIELD_HIST, PTS_LABEL_ORDER,
	  PTS_UNIT_NS, PTS_H_FAULT_NS, .needs_any = PTS_CFG_FAULT_FUNCS,
	  .prom = "ptscope_hugepage_fault_duration_seconds",
	  .prom_help = "Anonymous page fault duration by the order of the folio "
		"it mapped (log2 buckets).",
	  .title = "mean lat", .diff = "latency_mean" },

	/* khugepaged, system-wide: no process to charge it to */
	{ S(SEC_COLLAPSE), "", PTS_FIELD_COUNTER, PTS_LABEL_RESULT,
	  PTS_UNIT_COUNT, PTS_C_COLLAPSE,
	  .prom = "ptscope_khugepaged_collapse_total",
	  .prom_help = "khugepaged collapse attempts by result (enum "
		"scan_result), system-wide.",
	  .title = "result", .diff = "" },
	/* madvise(MADV_COLLAPSE) by a traced process, in its context */
	{ S(SEC_MADV_COLLAPSE), "", PTS_FIELD_COUNTER, PTS_LABEL_RESULT,
	  PTS_UNIT_COUNT, PTS_C_MADV_COLLAPSE,
	  .prom = "ptscope_madv_collapse_total",
	  .prom_help = "MADV_COLLAPSE collapse attempts by result (enum "
		"scan_result) of the traced processes.",
	  .title = "result", .diff = "" },

	/* what ptscope could not count: every view shows these */
	{ S(SEC_DROPS), "inflight_map_full", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_DROP_INFLIGHT_MAP,
	  .prom = "ptscope_events_dropped_total",
	  .prom_help = "Events ptscope could not count because a BPF map or the "
		"ring buffer was full.",
	  .fixed_label = "reason", .fixed_value = "inflight_map_full",
	  .title = "inflight map full", .diff = "inflight_map_full" },
	{ S(SEC_DROPS), "process_map_full", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_DROP_PROC_MAP,
	  .prom = "ptscope_events_dropped_total",
	  .fixed_label = "reason", .fixed_value = "process_map_full",
	  .title = "process map full", .diff = "process_map_full" },
	{ S(SEC_DROPS), "traced_map_full", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_DROP_TRACED_MAP,
	  .prom = "ptscope_events_dropped_total",
	  .fixed_label = "reason", .fixed_value = "traced_map_full",
	  .title = "traced map full", .diff = "traced_map_full" },
	{ S(SEC_DROPS), "ringbuf_full", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_DROP_RINGBUF,
	  .prom = "ptscope_events_dropped_total",
	  .fixed_label = "reason", .fixed_value = "ringbuf_full",
	  .title = "ring buffer full", .diff = "ringbuf_full" },
	{ S(SEC_DROPS), "cgroup_map_full", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_COUNT, PTS_C_DROP_CGROUP_MAP,
	  .prom = "ptscope_events_dropped_total",
	  .fixed_label = "reason", .fixed_value = "cgroup_map_full",
	  .title = "cgroup map full", .diff = "cgroup_map_full" },
};
const size_t pts_nr_fields = ARRAY_SIZE(pts_fields);

const struct pts_field pts_row_fields[] = {
	/* mremap time per cgroup or process: the mean latency's numerator */
	{ S(SEC_MREMAP), "mremap_ns", PTS_FIELD_COUNTER, PTS_LABEL_NONE,
	  PTS_UNIT_NS, PTS_C_MREMAP_NS, .proc_key = "mremap_ns" },
};
const size_t pts_nr_row_fields = ARRAY_SIZE(pts_row_fields);

/*
 * Ratios diff derives; "%s" stands for a label part (".pmd", ".order9").
 * time_per_pte charges all of move_page_tables' time to the PTEs it moved
 * (the exec stack move is in the time but not in the count: a small bias
 * on short runs).
 */
const struct pts_derived pts_derived[] = {
	{ .name = "mremap.calls_per_sec", .num = "mremap.calls",
	  .den = "run.seconds", .scale = 1 },
	{ .name = "mremap%s.bytes_per_call", .num = "mremap%s.old_bytes",
	  .den = "mremap%s.calls", .scale = 1, .label = PTS_LABEL_CLASS },
	{ .name = "levels.ptes_per_extent", .num = "levels.ptes",
	  .den = "levels.pte_extents", .scale = 1 },
	{ .name = "levels.time_per_pte", .num = "move_page_tables.time_total",
	  .den = "levels.ptes", .scale = 1 },
	{ .name = "levels.ptes_per_batch", .num = "levels.ptes",
	  .den = "levels.pte_batches", .scale = 1 },
	/* the 6.17 regression: 1 per present PTE; its fix: 0 on x86, 1 per batch */
	{ .name = "levels.folio_lookups_per_pte", .num = "levels.folio_lookups",
	  .den = "levels.ptes", .scale = 1 },
	{ .name = "levels.folio_lookups_per_batch", .num = "levels.folio_lookups",
	  .den = "levels.pte_batches", .scale = 1 },
	{ .name = "faults%s.fallback_pct", .num = "faults%s.fallback",
	  .den = "faults%s.alloc", .den_plus = "faults%s.fallback", .scale = 100,
	  .label = PTS_LABEL_ORDER },
};
const size_t pts_nr_derived = ARRAY_SIZE(pts_derived);

bool schema_section_attached(const struct pts_schema_ctx *sc,
			     const struct pts_section *sec)
{
	return !sec->metric || engine_available(sc->eng, sec->metric);
}

const char *schema_field_metric(const struct pts_field *f)
{
	return f->metric ? f->metric : f->section->metric;
}

bool schema_field_present(const struct pts_schema_ctx *sc,
			  const struct pts_field *f)
{
	const char *metric = schema_field_metric(f);
	unsigned int kept = f->kind == PTS_FIELD_HIST ? PTS_PART_HISTS :
			    PTS_PART_COUNTS;

	if (sc->parts_off & kept)
		return false;
	if (!metric)
		return true;
	/* without its scan the PTE-table marker's levels are wrong, not 0 */
	if ((sc->parts_off & PTS_PART_PTE_MARKER) &&
	    engine_provides(sc->eng, metric, PTS_CFG_PTE_MARKER, 0))
		return false;
	return engine_provides(sc->eng, metric, f->needs_any, f->excludes);
}

unsigned int schema_label_count(const struct pts_field *f)
{
	switch (f->label) {
	case PTS_LABEL_CLASS:
		return PTS_MREMAP_CLASSES;
	case PTS_LABEL_ORDER:
		return PTS_MAX_ORDER;
	case PTS_LABEL_RESULT:
		return PTS_COLLAPSE_STATUSES;
	default:
		return 1;
	}
}

unsigned int schema_order_64k(uint64_t page_size)
{
	unsigned int order = 0;

	while ((page_size << order) < 64 * 1024)
		order++;
	return order;
}

/* a page table holds page_size / 8 entries: PMD size = page << log2 of that */
unsigned int schema_order_pmd(uint64_t page_size)
{
	return (unsigned int)__builtin_ctzll(page_size / 8);
}

static bool fault_outcomes_traced(const struct pts_schema_ctx *sc)
{
	return engine_provides(sc->eng, pts_sections[SEC_FAULTS].metric,
			       FAULT_OUTCOMES, 0);
}

static bool order_seen(const struct pts_snapshot *snap, unsigned int order)
{
	return snap->counters.v[PTS_C_FAULT_ALLOC + order] ||
	       snap->counters.v[PTS_C_FAULT_FALLBACK + order] ||
	       snap->counters.v[PTS_C_FAULT_RACE_LOST + order] ||
	       snap->counters.v[PTS_C_FAULT_AMBIGUOUS + order];
}

static bool result_shown(const struct pts_schema_ctx *sc,
			 const struct pts_field *f,
			 const struct pts_snapshot *snap, unsigned int status)
{
	const char *name;

	if (snap->counters.v[f->index + status])
		return true;
	name = sc->result_name ? sc->result_name(sc->result_ctx, status) : NULL;
	return name && !strcmp(name, "SCAN_SUCCEED");
}

bool schema_label_shown(const struct pts_schema_ctx *sc,
			const struct pts_field *f,
			const struct pts_snapshot *snap, unsigned int i)
{
	switch (f->label) {
	case PTS_LABEL_ORDER:
		return order_seen(snap, i) ||
		       i == schema_order_64k(sc->page_size) ||
		       i == schema_order_pmd(sc->page_size) ||
		       (i == 0 && fault_outcomes_traced(sc));
	case PTS_LABEL_RESULT:
		return result_shown(sc, f, snap, i);
	default:
		return i < schema_label_count(f);
	}
}

const char *schema_label_name(const struct pts_field *f)
{
	switch (f->label) {
	case PTS_LABEL_CLASS:
		return "class";
	case PTS_LABEL_ORDER:
		return "size";
	case PTS_LABEL_RESULT:
		return "result";
	default:
		return f->fixed_label;
	}
}

const char *schema_label_value(const struct pts_schema_ctx *sc,
			       const struct pts_field *f, unsigned int i,
			       char *buf, size_t len)
{
	const char *name;

	switch (f->label) {
	case PTS_LABEL_CLASS:
		return mremap_class_name(i);
	case PTS_LABEL_ORDER:
		return fmt_order_size(buf, len, i, sc->page_size);
	case PTS_LABEL_RESULT:
		name = sc->result_name ? sc->result_name(sc->result_ctx, (int)i) :
					 NULL;
		if (name)
			return name;
		snprintf(buf, len, "status_%u", i);
		return buf;
	default:
		return f->fixed_value;
	}
}

uint64_t schema_counter(const struct pts_field *f,
			const struct pts_snapshot *snap, unsigned int i)
{
	return snap->counters.v[f->index + (int)i];
}

bool schema_field_per_proc(const struct pts_field *f)
{
	return f->proc_key && f->kind == PTS_FIELD_COUNTER &&
	       counter_proc_index(f->index) >= 0;
}

uint64_t schema_proc_counter(const struct pts_field *f,
			     const struct pts_proc *p, unsigned int i)
{
	int at = counter_proc_index(f->index + i);

	return at < 0 ? 0 : p->v[at];
}

bool schema_section_per_cgroup(const struct pts_section *sec)
{
	size_t i;

	for (i = 0; i < pts_nr_fields; i++)
		if (pts_fields[i].section == sec &&
		    schema_field_per_cgroup(&pts_fields[i]))
			return true;
	return false;
}

const struct pts_hist *schema_hist(const struct pts_field *f,
				   const struct pts_snapshot *snap,
				   unsigned int i)
{
	return &snap->hists.h[f->index + (int)i];
}

bool schema_field_per_cgroup(const struct pts_field *f)
{
	return f->kind == PTS_FIELD_COUNTER &&
	       counter_cgroup_index(f->index) >= 0;
}

uint64_t schema_cgroup_counter(const struct pts_field *f,
			       const struct pts_cgroup *c, unsigned int i)
{
	int at = counter_cgroup_index(f->index + i);

	return at < 0 ? 0 : c->v[at];
}

uint64_t schema_counter_total(const struct pts_field *f,
			      const struct pts_snapshot *snap)
{
	unsigned int i, n = schema_label_count(f);
	uint64_t total = 0;

	for (i = 0; i < n; i++)
		total += schema_counter(f, snap, i);
	return total;
}

const struct pts_field *schema_find(const char *section, const char *key)
{
	size_t i;

	for (i = 0; i < pts_nr_fields; i++)
		if (!strcmp(pts_fields[i].section->key, section) &&
		    !strcmp(pts_fields[i].key, key))
			return &pts_fields[i];
	for (i = 0; i < pts_nr_row_fields; i++)
		if (!strcmp(pts_row_fields[i].section->key, section) &&
		    !strcmp(pts_row_fields[i].key, key))
			return &pts_row_fields[i];
	return NULL;
}
