/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every counter, declared once.  PTS_COUNTERS() lists them as
 * C(NAME, WIDTH, SCOPES):
 *
 *   NAME    PTS_C_NAME, its first index in struct pts_counters (the
 *           totals); PTS_CG_NAME and PTS_P_NAME in a cgroup's row and a
 *           process's row, where it has one
 *   WIDTH   how many values: 1, or one per mremap class, folio order or
 *           khugepaged result (the schema row's label says which)
 *   SCOPES  where tally_add() (bpf/ptscope.bpf.h) counts it: PTS_IN_TOTAL
 *           the per-CPU totals, PTS_IN_CGROUP the row of the task's cgroup
 *           (struct pts_cgroup), PTS_IN_PROC the row of its process
 *           (struct pts_proc)
 *
 * A cgroup's row and a process's row hold only the counters kept in them,
 * in this order.  Every counter has a slot in the totals, also one kept
 * only per cgroup or process (that slot stays 0).  Indexes are not
 * stored anywhere (recordings name fields), but new counters go last all
 * the same, so that a row keeps its layout.
 */
#ifndef PTSCOPE_COUNTERS_H
#define PTSCOPE_COUNTERS_H

#define PTS_IN_TOTAL	(1U << 0)
#define PTS_IN_CGROUP	(1U << 1)
#define PTS_IN_PROC	(1U << 2)

#define PTS_TOTAL_CGROUP	(PTS_IN_TOTAL | PTS_IN_CGROUP)
#define PTS_EVERYWHERE		(PTS_IN_TOTAL | PTS_IN_CGROUP | PTS_IN_PROC)

#define PTS_COUNTERS(C)							\
	/* mremap calls by class; the byte counts as the syscall saw them */ \
	C(MREMAP_CALLS, PTS_MREMAP_CLASSES, PTS_EVERYWHERE)		\
	C(MREMAP_OLD_BYTES, PTS_MREMAP_CLASSES, PTS_TOTAL_CGROUP)	\
	C(MREMAP_NEW_BYTES, PTS_MREMAP_CLASSES, PTS_TOTAL_CGROUP)	\
	/* the smaller of old_len and new_len of calls that moved; else 0 */ \
	C(MREMAP_MOVED_BYTES, PTS_MREMAP_CLASSES, PTS_TOTAL_CGROUP)	\
	C(MPT_CALLS, 1, PTS_IN_TOTAL)					\
	C(MPT_BYTES_REQUESTED, 1, PTS_IN_TOTAL)				\
	C(MPT_BYTES_MOVED, 1, PTS_IN_TOTAL)				\
	C(MPT_PARTIAL, 1, PTS_IN_TOTAL)	/* moved less than requested */	\
	C(MPT_STACK, 1, PTS_IN_TOTAL)	/* exec stack relocation */	\
	C(MPT_REVERSE, 1, PTS_IN_TOTAL)	/* moving back after a partial move */ \
	/* page-table levels inside move_page_tables (not stack moves) */ \
	C(LV_PUD_MOVED, 1, PTS_TOTAL_CGROUP)	/* one PUD entry moved */ \
	/* a PUD move was possible but went to PMDs */			\
	C(LV_PUD_FALLBACK, 1, PTS_TOTAL_CGROUP)				\
	/* one PMD entry (PTE table) moved */				\
	C(LV_PMD_MOVED, 1, PTS_TOTAL_CGROUP)				\
	/* a PMD move was possible but went to PTEs */			\
	C(LV_PMD_FALLBACK, 1, PTS_TOTAL_CGROUP)				\
	/* a huge PMD moved (move_huge_pmd) */				\
	C(LV_HPMD_MOVED, 1, PTS_TOTAL_CGROUP)				\
	/* move_huge_pmd failed: split, PTEs moved */			\
	C(LV_HPMD_FALLBACK, 1, PTS_TOTAL_CGROUP)			\
	C(LV_PTE_EXTENTS, 1, PTS_TOTAL_CGROUP)	/* move_ptes() calls */	\
	/* bytes covered by those extents */				\
	C(LV_PTE_BYTES, 1, PTS_TOTAL_CGROUP)				\
	C(LV_PTES, 1, PTS_TOTAL_CGROUP)	/* non-none PTEs in them */	\
	/* extents with no page table to move */			\
	C(LV_EMPTY, 1, PTS_TOTAL_CGROUP)				\
	/* __split_huge_pmd() inside move_page_tables */		\
	C(LV_SPLITS, 1, PTS_TOTAL_CGROUP)				\
	/* patched move_ptes: batches the PTEs moved in */		\
	C(LV_PTE_BATCHES, 1, PTS_TOTAL_CGROUP)				\
	/* patched move_ptes: folios looked up to batch */		\
	C(LV_FOLIO_LOOKUPS, 1, PTS_TOTAL_CGROUP)			\
	/* vm_normal_folio() calls inside move_page_tables */		\
	C(VNF_CALLS, 1, PTS_IN_TOTAL)					\
	/* anonymous fault outcomes by folio order, as the kernel counts */ \
	C(FAULT_ALLOC, PTS_MAX_ORDER, PTS_EVERYWHERE)			\
	C(FAULT_FALLBACK, PTS_MAX_ORDER, PTS_EVERYWHERE)		\
	C(FAULT_FALLBACK_CHARGE, PTS_MAX_ORDER, PTS_EVERYWHERE)		\
	/* read faults that mapped the huge zero page */		\
	C(FAULT_ZERO_PAGE, 1, PTS_TOTAL_CGROUP)				\
	/* khugepaged's collapses by result (a kernel thread's) */	\
	C(COLLAPSE, PTS_COLLAPSE_STATUSES, PTS_IN_TOTAL)		\
	C(DROP_INFLIGHT_MAP, 1, PTS_IN_TOTAL)				\
	/* + rows of dead processes evicted (collector) */		\
	C(DROP_PROC_MAP, 1, PTS_IN_TOTAL)				\
	C(DROP_TRACED_MAP, 1, PTS_IN_TOTAL)				\
	/* snoop events the ring buffer had no room for */		\
	C(DROP_RINGBUF, 1, PTS_IN_TOTAL)				\
	C(PROCS_EXITED, 1, PTS_IN_TOTAL) /* rows moved to procs_exited */ \
	/* successful moves with MREMAP_DONTUNMAP */			\
	C(MREMAP_DONTUNMAP, 1, PTS_IN_TOTAL)				\
	/* events no per-cgroup row had room for */			\
	C(DROP_CGROUP_MAP, 1, PTS_IN_TOTAL)				\
	/*								\
	 * collapse_huge_page() results of MADV_COLLAPSE (a traced	\
	 * task in madvise()); COLLAPSE keeps khugepaged's		\
	 */								\
	C(MADV_COLLAPSE, PTS_COLLAPSE_STATUSES, PTS_IN_TOTAL)		\
	/*								\
	 * stock-tracepoint fault path, by order: folios a fault	\
	 * charged and then put back because another thread had mapped	\
	 * the range (the kernel counts neither an allocation nor a	\
	 * fallback), and folios put back unmapped where the path	\
	 * cannot tell a lost race from a refused charge		\
	 */								\
	C(FAULT_RACE_LOST, PTS_MAX_ORDER, PTS_IN_TOTAL)			\
	C(FAULT_AMBIGUOUS, PTS_MAX_ORDER, PTS_IN_TOTAL)			\
	/* mremap latency, all classes (the totals have the histogram) */ \
	C(MREMAP_NS, 1, PTS_IN_CGROUP | PTS_IN_PROC)			\
	/* calls with MREMAP_FIXED: the caller chose the destination */ \
	C(MREMAP_FIXED, PTS_MREMAP_CLASSES, PTS_TOTAL_CGROUP)

/* how many values @scope's row keeps of a counter */
#define PTS_WIDTH_IN(scope, width, scopes)	(((scopes) & (scope)) ? (width) : 0)

#define PTS_TOTAL_ENUM(name, width, scopes)				\
	PTS_C_##name, PTS_C_##name##_END = PTS_C_##name + (width) - 1,
#define PTS_CGROUP_ENUM(name, width, scopes)				\
	PTS_CG_##name, PTS_CG_##name##_END = PTS_CG_##name +		\
		PTS_WIDTH_IN(PTS_IN_CGROUP, width, scopes) - 1,
#define PTS_PROC_ENUM(name, width, scopes)				\
	PTS_P_##name, PTS_P_##name##_END = PTS_P_##name +		\
		PTS_WIDTH_IN(PTS_IN_PROC, width, scopes) - 1,

/* indexes into struct pts_counters.v */
enum pts_counter {
	PTS_COUNTERS(PTS_TOTAL_ENUM)
	PTS_NR_COUNTERS
};

/* indexes into struct pts_cgroup.v; a counter not kept there has none */
enum pts_cgroup_counter {
	PTS_COUNTERS(PTS_CGROUP_ENUM)
	PTS_CG_NR_COUNTERS
};

/* indexes into struct pts_proc.v */
enum pts_proc_counter {
	PTS_COUNTERS(PTS_PROC_ENUM)
	PTS_P_NR_COUNTERS
};

/*
 * The scopes of the counter that starts at @id (a PTS_C_ value), and its
 * first index in a cgroup's or a process's row (-1: not kept there).  The
 * BPF side calls these with constants, which the compiler folds.
 */
#define PTS_SCOPES_CASE(name, width, scopes)				\
	case PTS_C_##name: return (scopes);
#define PTS_CGROUP_CASE(name, width, scopes)				\
	case PTS_C_##name:						\
		return ((scopes) & PTS_IN_CGROUP) ? PTS_CG_##name : -1;
#define PTS_PROC_CASE(name, width, scopes)				\
	case PTS_C_##name:						\
		return ((scopes) & PTS_IN_PROC) ? PTS_P_##name : -1;

static inline __attribute__((always_inline)) unsigned int
pts_counter_scopes(unsigned int id)
{
	switch (id) {
	PTS_COUNTERS(PTS_SCOPES_CASE)
	}
	return 0;
}

static inline __attribute__((always_inline)) int
pts_cgroup_index(unsigned int id)
{
	switch (id) {
	PTS_COUNTERS(PTS_CGROUP_CASE)
	}
	return -1;
}

static inline __attribute__((always_inline)) int
pts_proc_index(unsigned int id)
{
	switch (id) {
	PTS_COUNTERS(PTS_PROC_CASE)
	}
	return -1;
}

#endif /* PTSCOPE_COUNTERS_H */
