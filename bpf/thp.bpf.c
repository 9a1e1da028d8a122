// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous hugepage faults by folio order (64 KB mTHP is order 4 and
 * 2 MB PMD THP is order 9 with 4 KB pages) and khugepaged collapses.
 */
#include "ptscope.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline bool in_user_task(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return !(BPF_CORE_READ(task, flags) & PF_KTHREAD);
}

static __always_inline void fault_alloc_seen(__u32 order, bool failed)
{
	struct pts_proc *proc;

	if (order >= PTS_MAX_ORDER)
		return;
	count_add((failed ? PTS_C_FAULT_FALLBACK : PTS_C_FAULT_ALLOC) + order, 1);
	proc = current_proc();
	if (!proc)
		return;
	if (failed)
		__sync_fetch_and_add(&proc->fault_fallback[order], 1);
	else
		__sync_fetch_and_add(&proc->fault_alloc[order], 1);
}

/*
 * Tracepoint path.  Anonymous THP and mTHP faults allocate with
 * vma_thp_gfp_mask() (mm/huge_memory.c, 5.10..6.18), which always carries
 * the GFP_TRANSHUGE_LIGHT bits, among them __GFP_NOMEMALLOC and
 * __GFP_COMP that page cache and slab allocations do not combine with
 * __GFP_MOVABLE|__GFP_HARDWALL.  khugepaged uses the same mask but runs in
 * a kernel thread.  Order-0 faults are not distinguishable here.  A NULL
 * page is a failed attempt: the fault falls back to a smaller order.
 */
SEC("tp_btf/mm_page_alloc")
int BPF_PROG(thp_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp_flags, int migratetype)
{
	if (order < 2 || !cfg.thp_gfp_mask)
		return 0;
	if ((gfp_flags & cfg.thp_gfp_mask) != cfg.thp_gfp_mask)
		return 0;
	if (!in_user_task() || !task_wanted())
		return 0;
	fault_alloc_seen(order, !page);
	return 0;
}

/* huge_memory:mm_collapse_huge_page, once per collapse_huge_page() */
SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(thp_collapse, struct mm_struct *mm, int isolated, int status)
{
	__u32 idx = status;

	if (idx >= PTS_COLLAPSE_STATUSES)
		idx = PTS_COLLAPSE_STATUSES - 1;
	count_add(PTS_C_COLLAPSE + idx, 1);
	return 0;
}
