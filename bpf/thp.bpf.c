// SPDX-License-Identifier: GPL-2.0
/*
 * Anonymous hugepage faults by folio order (64 KB mTHP is order 4 and
 * 2 MB PMD THP is order 9 with 4 KB pages; with 16 KB pages 64 KB is
 * order 2 and the 32 MB PMD THP order 11) and khugepaged collapses.
 */
#include "ptscope.bpf.h"

char LICENSE[] SEC("license") = "GPL";

static __always_inline bool in_user_task(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return !(BPF_CORE_READ(task, flags) & PF_KTHREAD);
}

enum fault_outcome {
	FAULT_ALLOC,
	FAULT_FALLBACK,		/* no memory for this order */
	FAULT_FALLBACK_CHARGE,	/* memcg refused the charge */
};

/*
 * Count one outcome for @order the way the hugepages-NkB stats do, in the
 * totals, the cgroup's row and @proc (the process's row, may be NULL).
 */
static __always_inline void fault_count(__u32 order, enum fault_outcome outcome,
					struct pts_proc *proc)
{
	struct tally t;

	if (order >= PTS_MAX_ORDER)
		return;
	mask_index(order, 15);	/* PTS_MAX_ORDER - 1 */
	tally_open(&t, true, proc);
	switch (outcome) {
	case FAULT_ALLOC:
		tally_add(&t, PTS_C_FAULT_ALLOC, order, 1);
		return;
	case FAULT_FALLBACK_CHARGE:
		/* the kernel counts these as fallbacks too */
		tally_add(&t, PTS_C_FAULT_FALLBACK_CHARGE, order, 1);
		/* fallthrough */
	case FAULT_FALLBACK:
		tally_add(&t, PTS_C_FAULT_FALLBACK, order, 1);
		return;
	}
}

static __always_inline void fault_alloc_seen(__u32 order,
					     enum fault_outcome outcome)
{
	fault_count(order, outcome, current_proc());
}

/* one snoop event per fault (function path) or allocation (tracepoints) */
static __always_inline void fault_event(__s32 order, __u32 result,
					__u64 latency_ns,
					const struct fault_ctx *ctx)
{
	struct pts_event *ev = event_reserve(PTS_EV_FAULT);

	if (!ev)
		return;
	ev->latency_ns = latency_ns;
	ev->fault.order = order;
	ev->fault.result = result;
	if (ctx) {
		ev->fault.fallbacks = ctx->fallbacks;
		ev->fault.charge_fallbacks = ctx->charge_fallbacks;
	}
	bpf_ringbuf_submit(ev, 0);
}

/*
 * Tracepoint path.  Anonymous THP and mTHP faults allocate with
 * vma_thp_gfp_mask() (mm/huge_memory.c, 5.10..6.18), which always carries
 * the GFP_TRANSHUGE_LIGHT bits, among them __GFP_NOMEMALLOC and
 * __GFP_COMP that page cache and slab allocations do not combine with
 * __GFP_MOVABLE|__GFP_HARDWALL.  khugepaged uses the same mask but runs in
 * a kernel thread, and MADV_COLLAPSE inside madvise(), which is left out.
 * Order-0 faults are not distinguishable here.  A NULL page is a failed
 * attempt: the fault falls back to a smaller order.
 *
 * An allocated folio is not yet a fault allocation: the fault charges it
 * to the memory cgroup next and, when the charge is refused, puts it
 * straight back and falls back (vma_alloc_anon_folio_pmd() in
 * mm/huge_memory.c and alloc_anon_folio() in mm/memory.c on 6.18,
 * __do_huge_pmd_anonymous_page() on 6.1; the kernel counts
 * THP_FAULT_FALLBACK_CHARGE, not THP_FAULT_ALLOC).  A fault that finds
 * the range mapped by another thread once it holds the page table lock
 * puts its charged folio back too, and the kernel counts neither an
 * allocation nor a fallback: __do_huge_pmd_anonymous_page() when the PMD
 * is no longer none, do_anonymous_page() when the PTEs are no longer
 * none (6.18).  So the folio waits in the thread's fault_inflight entry
 * (folio, order; ts stays 0: the function path's fields, unused on this
 * path) until its outcome shows: mapped (its free after an unmap, or
 * anything the thread does next that only follows a mapped folio:
 * pending_commit()), or put back unmapped (thp_page_free), which is told
 * apart there.
 */
static __always_inline void fault_pending_commit(struct fault_ctx *ctx,
						 struct pts_proc *proc)
{
	if (ctx->folio && ctx->order >= 0 && ctx->order < PTS_MAX_ORDER) {
		fault_count(ctx->order, FAULT_ALLOC, proc);
		fault_event(ctx->order, PTS_FAULT_RES_ALLOC, 0, NULL);
	}
	ctx->folio = 0;
	ctx->order = -1;
}

/* a folio put back unmapped that the kernel counted as nothing */
static __always_inline void fault_uncounted(__u32 base, __s32 order)
{
	if (order < 0 || order >= PTS_MAX_ORDER)
		return;
	count_add_at(base, order, 1);
}

/*
 * The mTHP folio this fault put back unmapped, if any: a refused charge
 * when the fault went on to allocate a smaller folio (alloc_anon_folio()
 * tries the next enabled order, then order 0, after every refused charge,
 * 6.8..6.18), else a lost race (do_anonymous_page() returns without
 * another allocation).
 */
static __always_inline void freed_resolve(struct fault_ctx *fc, bool refused)
{
	__s32 order = fc->freed_order;

	if (!order)
		return;
	fc->freed_order = 0;
	if (!refused) {
		fault_uncounted(PTS_C_FAULT_RACE_LOST, order);
		return;
	}
	fault_alloc_seen(order, FAULT_FALLBACK_CHARGE);
	fault_event(order, PTS_FAULT_RES_FALLBACK, 0, NULL);
}

/*
 * The thread's state when its fault is over: the folio waiting for its
 * charge, if any, was mapped; an mTHP folio put back with no smaller
 * allocation after it lost a race.
 */
static __always_inline void pending_commit(void)
{
	struct fault_ctx *ctx = thread_state(fault_inflight);

	if (!ctx)
		return;
	freed_resolve(ctx, false);
	if (ctx->folio)
		fault_pending_commit(ctx, current_proc());
}

/*
 * A small page allocated by the thread.  A user page table
 * (GFP_PGTABLE_USER, from pte_alloc_one()) between a PMD folio's
 * allocation and its free means the charge passed: the PMD fault
 * allocates the table it deposits only after charging the folio
 * (__do_huge_pmd_anonymous_page(), 6.1..6.18).  A movable one after an
 * mTHP folio was put back is the order-0 fallback of a refused charge.
 */
static __always_inline void small_page_alloc(gfp_t gfp)
{
	bool pgtable, user;
	struct fault_ctx *fc;

	user = gfp & cfg.movable_gfp_mask;
	pgtable = !user &&
		  (gfp & cfg.pgtable_gfp_mask) == cfg.pgtable_gfp_mask;
	if (!user && !pgtable)
		return;
	fc = thread_state(fault_inflight);
	if (!fc)
		return;
	if (pgtable && fc->folio)
		fc->charged = 1;
	if (user)
		freed_resolve(fc, true);
}

SEC("tp_btf/mm_page_alloc")
int BPF_PROG(thp_page_alloc, struct page *page, unsigned int order,
	     gfp_t gfp_flags, int migratetype)
{
	struct fault_ctx *fc;
	__u8 *madvising;

	if (!cfg.thp_gfp_mask)
		return 0;
	if (order < 2) {
		small_page_alloc(gfp_flags);
		return 0;
	}
	if ((gfp_flags & cfg.thp_gfp_mask) != cfg.thp_gfp_mask)
		return 0;
	if (!in_user_task() || !task_wanted())
		return 0;
	madvising = thread_state(in_madvise);
	if (madvising && *madvising)
		return 0;
	/* a failed create is counted as a drop: the folio is not counted */
	fc = thread_state_create(fault_inflight);
	if (!fc)
		return 0;
	/* a smaller order after a put-back folio: its fault fell back */
	freed_resolve(fc, (__s32)order < fc->freed_order);
	if (!page) {
		fault_alloc_seen(order, FAULT_FALLBACK);
		fault_event(order, PTS_FAULT_RES_FALLBACK, 0, NULL);
		return 0;
	}
	/* the fault before this one mapped its folio */
	if (fc->folio)
		fault_pending_commit(fc, current_proc());
	fc->folio = (__u64)page;
	fc->order = order;
	fc->charged = 0;
	return 0;
}

/*
 * PAGE_MAPPING_ANON (include/linux/page-flags.h; FOLIO_MAPPING_ANON in
 * 6.18), the low bit of folio->mapping of an anonymous folio once
 * folio_add_new_anon_rmap() mapped it.  Unmapping leaves it set;
 * free_pages_prepare() (mm/page_alloc.c, 6.1..6.18) clears it only after
 * trace_mm_page_free().
 */
#define PTS_MAPPING_ANON	0x1UL

/*
 * A folio put back unmapped on its faulting thread.  A PMD folio whose
 * page table was allocated lost the race; one without had its charge
 * refused.  An mTHP folio (charged before its page table is locked, with
 * no allocation between) waits for what the fault does next where the
 * fault boundaries are seen, and is ambiguous where they are not.
 */
static __always_inline void unmapped_free(struct fault_ctx *fc, __s32 order)
{
	if (fc->charged) {
		fault_uncounted(PTS_C_FAULT_RACE_LOST, order);
	} else if (order == (__s32)cfg.page_shift - 3) {
		/* HPAGE_PMD_ORDER: PMD_SHIFT - PAGE_SHIFT */
		fault_alloc_seen(order, FAULT_FALLBACK_CHARGE);
		fault_event(order, PTS_FAULT_RES_FALLBACK, 0, NULL);
	} else if (cfg.flags & PTS_CFG_FAULT_BOUNDS) {
		fc->freed_order = order;
	} else {
		fault_uncounted(PTS_C_FAULT_AMBIGUOUS, order);
	}
}

SEC("tp_btf/mm_page_free")
int BPF_PROG(thp_page_free, struct page *page, unsigned int order)
{
	struct fault_ctx *fc;
	unsigned long mapping;

	if (order < 2)
		return 0;
	fc = thread_state(fault_inflight);
	if (!fc || !fc->folio || fc->folio != (__u64)page ||
	    fc->order != (__s32)order)
		return 0;
	mapping = (unsigned long)BPF_CORE_READ(page, mapping);
	if (mapping & PTS_MAPPING_ANON) {
		/* mapped by its fault, unmapped since */
		fault_pending_commit(fc, current_proc());
		return 0;
	}
	fc->folio = 0;
	fc->order = -1;
	unmapped_free(fc, order);
	return 0;
}

/*
 * exceptions:page_fault_user and page_fault_kernel (x86,
 * arch/x86/mm/fault.c: handle_page_fault(), 3.13+): a new fault of the
 * thread begins, so its last one is over.
 */
SEC("tp_btf/page_fault_user")
int BPF_PROG(thp_fault_user)
{
	pending_commit();
	return 0;
}

SEC("tp_btf/page_fault_kernel")
int BPF_PROG(thp_fault_kernel)
{
	pending_commit();
	return 0;
}

/*
 * The current process's row without creating one: at a thread's exit the
 * row of its process may already have moved to procs_exited (task.bpf.c
 * runs on the same tracepoint, in no promised order).  A dead row of a
 * reused tgid has another start_ns.
 */
static __always_inline struct pts_proc *existing_proc(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct task_struct *task = (void *)bpf_get_current_task();
	struct pts_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	if (p)
		return p;
	p = bpf_map_lookup_elem(&procs_exited, &tgid);
	if (p && p->start_ns == BPF_CORE_READ(task, group_leader, start_time))
		return p;
	return NULL;
}

/* a thread's last fault mapped its folio (6.18 passes a second argument) */
SEC("tp_btf/sched_process_exit")
int BPF_PROG(thp_task_exit)
{
	struct fault_ctx *fc = thread_state(fault_inflight);

	if (!fc)
		return 0;
	freed_resolve(fc, false);
	if (fc->folio)
		fault_pending_commit(fc, existing_proc());
	/* in the fallback build's hash: task.bpf.c leaves it to us */
	thread_state_free(fault_inflight);
	return 0;
}

SEC("tracepoint/syscalls/sys_enter_madvise")
int thp_madvise_enter(void *ctx)
{
	__u8 *madvising = thread_state_create(in_madvise);

	/* the fault before this syscall mapped its folio */
	pending_commit();
	if (madvising)
		*madvising = 1;
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_madvise")
int thp_madvise_exit(void *ctx)
{
	__u8 *madvising = thread_state(in_madvise);

	if (madvising)
		*madvising = 0;
	return 0;
}

/*
 * huge_memory:mm_collapse_huge_page, once per collapse_huge_page()
 * (mm/khugepaged.c, 6.1..6.18), which both khugepaged (a kernel thread,
 * khugepaged_scan_mm_slot()) and MADV_COLLAPSE (madvise_collapse(), 6.1+,
 * in the calling task) reach through hpage_collapse_scan_pmd().  The
 * tracepoint has no caller field: the task tells them apart.
 */
SEC("tp_btf/mm_collapse_huge_page")
int BPF_PROG(thp_collapse, struct mm_struct *mm, int isolated, int status)
{
	__u32 idx = status;
	bool madvise = in_user_task();
	struct tally t;

	if (madvise && !task_wanted())
		return 0;
	if (idx >= PTS_COLLAPSE_STATUSES)
		idx = PTS_COLLAPSE_STATUSES - 1;
	tally_open(&t, false, NULL);
	if (madvise)
		tally_add(&t, PTS_C_MADV_COLLAPSE, idx, 1);
	else
		tally_add(&t, PTS_C_COLLAPSE, idx, 1);
	return 0;
}

/*
 * Patched path: kmem:mm_anon_fault_alloc (kernel/patches) sits beside the
 * THP_FAULT_* vm events and anon_fault_* mTHP stats, order 0 included.  Its
 * result is enum anon_fault_result of the patches' trace/events/kmem.h; a
 * failure to set up the memcg's deferred split list (7.x,
 * folio_memcg_alloc_deferred()) is a fallback, as THP_FAULT_FALLBACK counts
 * it at the PMD order (alloc_anon_folio() counts no mTHP stat for it).
 */
#define ANON_FAULT_ALLOC		0
#define ANON_FAULT_FALLBACK		1
#define ANON_FAULT_FALLBACK_CHARGE	2
#define ANON_FAULT_FALLBACK_SPLIT_LRU	3
#define ANON_FAULT_ZERO_PAGE		4

SEC("tp_btf/mm_anon_fault_alloc")
int BPF_PROG(thp_tp_anon_fault, void *mm, unsigned long address,
	     unsigned int order, int result)
{
	if (order > 31 || !in_user_task() || !task_wanted())
		return 0;
	switch (result) {
	case ANON_FAULT_ALLOC:
		fault_alloc_seen(order, FAULT_ALLOC);
		/* order 0 is every small fault: not worth an event */
		if (order)
			fault_event(order, PTS_FAULT_RES_ALLOC, 0, NULL);
		break;
	case ANON_FAULT_FALLBACK:
	case ANON_FAULT_FALLBACK_SPLIT_LRU:
		fault_alloc_seen(order, FAULT_FALLBACK);
		fault_event(order, PTS_FAULT_RES_FALLBACK, 0, NULL);
		break;
	case ANON_FAULT_FALLBACK_CHARGE:
		fault_alloc_seen(order, FAULT_FALLBACK_CHARGE);
		fault_event(order, PTS_FAULT_RES_FALLBACK, 0, NULL);
		break;
	case ANON_FAULT_ZERO_PAGE:
		count_add(PTS_C_FAULT_ZERO_PAGE, 1);
		fault_event(order, PTS_FAULT_RES_ZERO_PAGE, 0, NULL);
		break;
	}
	return 0;
}

/*
 * Function path.  Every anonymous fault allocation in handle_mm_fault()
 * goes through vma_alloc_folio() (renamed vma_alloc_folio_noprof() in
 * 6.10): do_huge_pmd_anonymous_page() for the PMD order (9 with 4 KiB
 * pages, 11 with 16 KiB), alloc_anon_folio() for the mTHP orders from
 * high to low (6.8+), order 0 last.  A NULL folio is a fallback; a folio
 * that __mem_cgroup_charge() refuses is a charge fallback (and a
 * fallback, as in count_mthp_stat()).  The folio left at the end of the
 * fault is the one it mapped.
 */
static __always_inline struct fault_ctx *current_fault(void)
{
	struct fault_ctx *ctx = thread_state(fault_inflight);

	return ctx && ctx->ts ? ctx : NULL;
}

static __always_inline void fault_enter(void)
{
	struct fault_ctx *ctx;

	if (!in_user_task() || !task_wanted())
		return;
	ctx = thread_state_create(fault_inflight);
	if (!ctx)
		return;
	__builtin_memset(ctx, 0, sizeof(*ctx));
	ctx->order = -1;
	ctx->kprobe_order = -1;
	ctx->ts = bpf_ktime_get_ns();
}

static __always_inline void fault_exit(void)
{
	struct fault_ctx *ctx = current_fault();
	__u32 order;
	__u64 latency;

	if (!ctx)
		return;
	latency = bpf_ktime_get_ns() - ctx->ts;
	if (ctx->zero_page) {
		count_add(PTS_C_FAULT_ZERO_PAGE, 1);
		/* the huge zero folio is HPAGE_PMD_ORDER: PMD_SHIFT - PAGE_SHIFT */
		fault_event(cfg.page_shift - 3, PTS_FAULT_RES_ZERO_PAGE, latency,
			    ctx);
	}
	if (ctx->folio && ctx->order >= 0 && ctx->order < PTS_MAX_ORDER) {
		order = ctx->order;
		fault_alloc_seen(order, FAULT_ALLOC);
		hist_add(PTS_H_FAULT_NS + order, latency);
		/* snoop shows hugepage faults: a small page only after a fallback */
		if (order || ctx->fallbacks)
			fault_event(order, PTS_FAULT_RES_ALLOC, latency, ctx);
	}
	ctx->ts = 0;
}

static __always_inline void fault_folio_alloc(__s64 order, __u64 folio)
{
	struct fault_ctx *ctx = current_fault();

	if (!ctx || order < 0 || order >= PTS_MAX_ORDER)
		return;
	if (!folio) {
		fault_alloc_seen(order, FAULT_FALLBACK);
		ctx->fallbacks++;
		return;
	}
	ctx->folio = folio;
	ctx->order = order;
}

static __always_inline void fault_folio_charged(__u64 folio, long ret)
{
	struct fault_ctx *ctx = current_fault();

	if (!ctx || !ctx->folio || ctx->folio != folio || !ret)
		return;
	if (ctx->order >= 0 && ctx->order < PTS_MAX_ORDER)
		fault_alloc_seen(ctx->order, FAULT_FALLBACK_CHARGE);
	ctx->charge_fallbacks++;
	ctx->folio = 0;
	ctx->order = -1;
}

static __always_inline void fault_zero_page(void)
{
	struct fault_ctx *ctx = current_fault();

	if (ctx)
		ctx->zero_page = 1;
}

SEC("fentry/handle_mm_fault")
int BPF_PROG(thp_fentry_fault)
{
	fault_enter();
	return 0;
}

SEC("fexit/handle_mm_fault")
int BPF_PROG(thp_fexit_fault)
{
	fault_exit();
	return 0;
}

/* retargeted to vma_alloc_folio or vma_alloc_folio_noprof */
SEC("fexit/vma_alloc_folio")
int thp_fexit_alloc(__u64 *ctx)
{
	__u64 order = 0, folio = 0;

	bpf_get_func_arg(ctx, 1, &order);
	bpf_get_func_ret(ctx, &folio);
	fault_folio_alloc((__s32)order, folio);
	return 0;
}

SEC("fexit/__mem_cgroup_charge")
int BPF_PROG(thp_fexit_charge, void *folio, void *mm, unsigned int gfp, int ret)
{
	fault_folio_charged((__u64)folio, ret);
	return 0;
}

/* retargeted to mm_get_huge_zero_folio or mm_get_huge_zero_page */
SEC("fentry/mm_get_huge_zero_page")
int BPF_PROG(thp_fentry_zero)
{
	fault_zero_page();
	return 0;
}

SEC("kprobe/handle_mm_fault")
int BPF_KPROBE(thp_kprobe_fault)
{
	fault_enter();
	return 0;
}

SEC("kretprobe/handle_mm_fault")
int BPF_KRETPROBE(thp_kretprobe_fault)
{
	fault_exit();
	return 0;
}

SEC("kprobe/vma_alloc_folio")
int BPF_KPROBE(thp_kprobe_alloc, unsigned int gfp, int order)
{
	struct fault_ctx *fc = current_fault();

	if (fc)
		fc->kprobe_order = order;
	return 0;
}

SEC("kretprobe/vma_alloc_folio")
int BPF_KRETPROBE(thp_kretprobe_alloc, void *folio)
{
	struct fault_ctx *fc = current_fault();

	if (fc && fc->kprobe_order >= 0)
		fault_folio_alloc(fc->kprobe_order, (__u64)folio);
	return 0;
}

SEC("kprobe/__mem_cgroup_charge")
int BPF_KPROBE(thp_kprobe_charge, void *folio)
{
	struct fault_ctx *fc = current_fault();

	if (fc)
		fc->kprobe_folio = (__u64)folio;
	return 0;
}

SEC("kretprobe/__mem_cgroup_charge")
int BPF_KRETPROBE(thp_kretprobe_charge, int ret)
{
	struct fault_ctx *fc = current_fault();

	if (fc)
		fault_folio_charged(fc->kprobe_folio, ret);
	return 0;
}

SEC("kprobe/mm_get_huge_zero_page")
int BPF_KPROBE(thp_kprobe_zero)
{
	fault_zero_page();
	return 0;
}
