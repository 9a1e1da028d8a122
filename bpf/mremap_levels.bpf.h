/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The page-table walk of move_page_tables() and its level classification:
 * each extent of the walk, opened and marked by the level markers
 * (get_old_pud(), move_huge_pmd(), __split_huge_pmd()), classified when it
 * ends as a PUD, PMD or huge PMD move, a PTE-level extent, a fallback or
 * an empty extent; the same levels from the patched tracepoints; and the
 * vm_normal_folio() calls inside the walk.  The PTE-level marker's table
 * scan is in mremap_batch.bpf.h, the program stubs in mremap.bpf.c.
 */
#ifndef PTSCOPE_MREMAP_LEVELS_BPF_H
#define PTSCOPE_MREMAP_LEVELS_BPF_H

#include "ptscope.bpf.h"
#include "pgtable.bpf.h"

/* the start-up check's moves, counted apart (checking()) */
struct pts_check_counts check_counts;

/* 6.15+ passes all move state in one struct (mm/mremap.c) */
struct pagetable_move_control___pts {
	unsigned long old_addr;
	unsigned long old_end;
	unsigned long new_addr;
	unsigned long len_in;
	bool for_stack;
} __attribute__((preserve_access_index));

/* before 6.8 exec marked the task instead of passing for_stack */
struct task_struct___in_execve {
	unsigned int in_execve:1;
} __attribute__((preserve_access_index));

static __always_inline bool in_execve(void)
{
	struct task_struct___in_execve *task = (void *)bpf_get_current_task();

	if (!bpf_core_field_exists(task->in_execve))
		return false;
	return BPF_CORE_READ_BITFIELD_PROBED(task, in_execve);
}

static __always_inline void mpt_enter(__u64 old_addr, __u64 new_addr,
				      __u64 len, __u64 old_end, bool for_stack)
{
	bool check = checking();
	struct mpt_walk *w;
	__u8 *partial;
	__u8 reverse = 0;

	if (!check && !task_wanted())
		return;
	/* move_vma() moves the entries back after a partial move */
	partial = thread_state(mpt_partial);
	if (partial && *partial) {
		reverse = 1;
		*partial = 0;
	}
	w = thread_state_create(mpt_inflight);
	if (!w)
		return;
	__builtin_memset(w, 0, sizeof(*w));
	w->len = len;
	w->old_start = old_addr;
	w->new_start = new_addr;
	w->old_end = old_end;
	w->for_stack = for_stack;
	w->reverse = reverse;
	w->checking = check;
	w->ts = bpf_ktime_get_ns();
}

static __always_inline __u64 min3(__u64 a, __u64 b, __u64 c)
{
	__u64 m = a < b ? a : b;

	return m < c ? m : c;
}

/* get_extent() of mm/mremap.c for one level, from the walk's geometry */
static __always_inline __u64 extent_at(const struct mpt_walk *w, __u64 old,
				       __u64 entry)
{
	__u64 new = w->new_start + (old - w->old_start);
	__u64 old_next = (old + entry) & ~(entry - 1);
	__u64 new_next = (new + entry) & ~(entry - 1);

	return min3(old_next - old, w->old_end - old, new_next - new);
}

/* The level breakdown of the mremap call this walk belongs to, if any. */
static __always_inline struct pts_ev_levels *call_levels(void)
{
	struct mremap_inflight *s;

	if (!(cfg.flags & PTS_CFG_EVENTS))
		return NULL;
	s = thread_state(mremap_inflight);
	return s && s->ts ? &s->levels : NULL;
}

static __always_inline void count_empty(struct tally *t,
					struct pts_ev_levels *lv)
{
	tally_add(t, PTS_C_LV_EMPTY, 0, 1);
	if (lv)
		lv->empty++;
}

static __always_inline void count_pte_extent(struct tally *t,
					     struct pts_ev_levels *lv,
					     __u64 bytes, __u64 ptes)
{
	tally_add(t, PTS_C_LV_PTE_EXTENTS, 0, 1);
	tally_add(t, PTS_C_LV_PTE_BYTES, 0, bytes);
	if (lv) {
		lv->pte_extents++;
		lv->pte_bytes += bytes;
		lv->ptes += ptes;
	}
}

/* the batches inferred in one PTE-level extent, counted as the patched
 * mmap:mm_mremap_move_ptes tracepoint counts them */
static __always_inline void count_batches(struct tally *t,
					  struct pts_ev_levels *lv,
					  struct mpt_walk *w)
{
	if (!(cfg.flags & PTS_CFG_BATCH_INFER))
		return;
	tally_add(t, PTS_C_LV_PTE_BATCHES, 0, w->iter_batches);
	tally_add(t, PTS_C_LV_FOLIO_LOOKUPS, 0, w->iter_lookups);
	if (w->iter_batches)
		hist_add(PTS_H_PTE_MAX_BATCH, w->iter_max_batch);
	if (lv) {
		lv->pte_batches += w->iter_batches;
		lv->folio_lookups += w->iter_lookups;
	}
}

/* what the model made of one PTE-level extent of the start-up check */
static __always_inline void check_extent(const struct mpt_walk *w)
{
	if (!w->iter_pte_seen)
		return;
	check_counts.extents++;
	check_counts.ptes += w->iter_ptes;
	check_counts.batches += w->iter_batches;
	check_counts.lookups += w->iter_lookups;
}

/*
 * The iteration at w->iter_addr is over: classify it.  The loop in
 * move_page_tables() (5.11+) calls get_old_pud() once per extent, and a
 * second time from get_old_pmd() when it goes on to the PMD level; a
 * PMD-level extent ends in move_huge_pmd(), a NORMAL_PMD move, or
 * move_ptes().  move_pgt_entry()/move_normal_p?d()/move_ptes() themselves
 * are inlined on every kernel we checked.
 */
static __always_inline void iter_finish(struct mpt_walk *w)
{
	struct pts_ev_levels *lv;
	bool pud_possible, pmd_possible;
	struct tally t;
	__u64 pmd_extent;

	if (!w->iter_open || w->for_stack || w->reverse)
		goto reset;
	if (w->checking) {
		check_extent(w);
		goto reset;
	}
	lv = call_levels();
	tally_open(&t, true, NULL);
	pud_possible = extent_at(w, w->iter_addr, cfg.pud_size) == cfg.pud_size;
	pmd_extent = extent_at(w, w->iter_addr, cfg.pmd_size);
	pmd_possible = pmd_extent == cfg.pmd_size;
	if (w->iter_pud_calls < 2) {
		if (w->iter_pud_none) {
			count_empty(&t, lv);
		} else if (pud_possible) {
			tally_add(&t, PTS_C_LV_PUD_MOVED, 0, 1);
			if (lv)
				lv->pud++;
		}
		goto reset;
	}
	if (pud_possible) {
		tally_add(&t, PTS_C_LV_PUD_FALLBACK, 0, 1);
		if (lv)
			lv->fallbacks++;
	}
	if (w->iter_pmd_none) {
		count_empty(&t, lv);
		goto reset;
	}
	if (w->iter_hpmd_tried) {
		if (w->iter_hpmd_moved)
			tally_add(&t, PTS_C_LV_HPMD_MOVED, 0, 1);
		else
			tally_add(&t, PTS_C_LV_HPMD_FALLBACK, 0, 1);
		if (lv && w->iter_hpmd_moved)
			lv->huge_pmd++;
		else if (lv)
			lv->fallbacks++;
		if (w->iter_hpmd_moved)
			goto reset;
	}
	if (!(cfg.flags & PTS_CFG_PTE_MARKER)) {
		/* no PTE-level marker: infer from the geometry */
		if (pmd_possible && !w->iter_hpmd_tried) {
			tally_add(&t, PTS_C_LV_PMD_MOVED, 0, 1);
			if (lv)
				lv->pmd++;
		} else {
			count_pte_extent(&t, lv, pmd_extent, 0);
		}
		goto reset;
	}
	if (w->iter_pte_seen) {
		if (pmd_possible && !w->iter_hpmd_tried) {
			tally_add(&t, PTS_C_LV_PMD_FALLBACK, 0, 1);
			if (lv)
				lv->fallbacks++;
		}
		count_pte_extent(&t, lv, pmd_extent, w->iter_ptes);
		tally_add(&t, PTS_C_LV_PTES, 0, w->iter_ptes);
		count_batches(&t, lv, w);
	} else if (pmd_possible && !w->iter_hpmd_tried) {
		tally_add(&t, PTS_C_LV_PMD_MOVED, 0, 1);
		if (lv)
			lv->pmd++;
	} else {
		count_empty(&t, lv);
	}
reset:
	w->iter_open = 0;
	w->iter_pud_calls = 0;
	w->iter_pud_none = 0;
	w->iter_pmd_none = 0;
	w->iter_hpmd_tried = 0;
	w->iter_hpmd_moved = 0;
	w->iter_pte_seen = 0;
	w->iter_ptes = 0;
	w->iter_batches = 0;
	w->iter_lookups = 0;
	w->iter_max_batch = 0;
}

static __always_inline struct mpt_walk *current_walk(void)
{
	struct mpt_walk *w = thread_state(mpt_inflight);

	return w && w->ts ? w : NULL;
}

static __always_inline void mpt_exit(__u64 moved)
{
	struct mpt_walk *w = current_walk();
	struct tally t;
	__u8 *partial;

	if (!w)
		return;
	iter_finish(w);
	if (w->checking) {
		w->ts = 0;
		return;
	}
	tally_open(&t, false, NULL);	/* no per-cgroup count of these */
	tally_add(&t, PTS_C_MPT_CALLS, 0, 1);
	tally_add(&t, PTS_C_MPT_BYTES_REQUESTED, 0, w->len);
	tally_add(&t, PTS_C_MPT_BYTES_MOVED, 0, moved);
	if (moved < w->len) {
		tally_add(&t, PTS_C_MPT_PARTIAL, 0, 1);
		partial = w->reverse ? NULL : thread_state_create(mpt_partial);
		if (partial)
			*partial = 1;
	}
	if (w->for_stack)
		tally_add(&t, PTS_C_MPT_STACK, 0, 1);
	if (w->reverse)
		tally_add(&t, PTS_C_MPT_REVERSE, 0, 1);
	hist_add(PTS_H_MPT_NS, bpf_ktime_get_ns() - w->ts);
	w->ts = 0;
}

static __always_inline void mpt_enter_pmc(void *pmc)
{
	struct pagetable_move_control___pts *p = pmc;

	mpt_enter(BPF_CORE_READ(p, old_addr), BPF_CORE_READ(p, new_addr),
		  BPF_CORE_READ(p, len_in), BPF_CORE_READ(p, old_end),
		  BPF_CORE_READ(p, for_stack));
}

/* get_old_pud(mm, addr): opens an extent, or marks its PMD-level step */
static __always_inline void marker_old_pud(__u64 addr)
{
	struct mpt_walk *w = current_walk();

	if (!w)
		return;
	if (w->iter_open && w->iter_addr == addr) {
		w->iter_pud_calls = 2;
		return;
	}
	iter_finish(w);
	w->iter_open = 1;
	w->iter_addr = addr;
	w->iter_pud_calls = 1;
}

static __always_inline void marker_old_pud_ret(__u64 pud)
{
	struct mpt_walk *w = current_walk();

	if (!w || !w->iter_open)
		return;
	if (w->iter_pud_calls == 1 && !pud)
		w->iter_pud_none = 1;
	else if (w->iter_pud_calls == 2 && pud &&
		 (cfg.flags & PTS_CFG_PMD_READ))
		w->iter_pmd_none = pmd_entry_none(pud, w->iter_addr) == 1;
}

static __always_inline void marker_huge_pmd(bool done, bool moved)
{
	struct mpt_walk *w = current_walk();

	if (!w || !w->iter_open)
		return;
	w->iter_hpmd_tried = 1;
	if (done)
		w->iter_hpmd_moved = moved;
}

static __always_inline void marker_split(void)
{
	struct mpt_walk *w = current_walk();

	if (w && !w->for_stack && !w->checking)
		count_add(PTS_C_LV_SPLITS, 1);
}

/*
 * Levels from the patched tracepoints (kernel/patches, mmap:mm_mremap_*).
 * They fire inside move_page_tables(), which 7.3 calls from mremap() and
 * from exec's stack shift (relocate_vma_down(), mm/vma_exec.c): only events
 * inside an mremap syscall count, and none after mm_mremap_move_back, whose
 * move_page_tables() call moves the entries back.
 */
static __always_inline struct mremap_inflight *mremap_in_progress(void)
{
	struct mremap_inflight *s = thread_state(mremap_inflight);

	return s && s->ts && !s->moving_back ? s : NULL;
}

/* One PUD, PMD or huge PMD attempt, as in iter_finish(). */
static __always_inline void pgt_entry_seen(__u32 moved_idx, __u32 fallback_idx,
					   bool moved)
{
	struct mremap_inflight *s = mremap_in_progress();
	struct tally t;

	if (!s)
		return;
	tally_open(&t, true, NULL);
	if (moved)
		tally_add(&t, moved_idx, 0, 1);
	else
		tally_add(&t, fallback_idx, 0, 1);
	if (!(cfg.flags & PTS_CFG_EVENTS))
		return;
	if (!moved)
		s->levels.fallbacks++;
	else if (moved_idx == PTS_C_LV_PUD_MOVED)
		s->levels.pud++;
	else if (moved_idx == PTS_C_LV_PMD_MOVED)
		s->levels.pmd++;
	else
		s->levels.huge_pmd++;
}

/*
 * vm_normal_folio() inside move_page_tables() (not the exec stack move):
 * the vmemmap lookups that PTE batching makes (6.17+, or the lab patches).
 * The trampoline runs for every caller; others leave after one lookup.
 */
static __always_inline void vnf_enter(void)
{
	struct mpt_walk *w = current_walk();

	if (w && !w->for_stack && !w->reverse)
		w->vnf_ts = bpf_ktime_get_ns();
}

static __always_inline void vnf_exit(void)
{
	struct mpt_walk *w = current_walk();

	if (!w || !w->vnf_ts)
		return;
	if (w->checking) {
		check_counts.vnf_calls++;
		w->vnf_ts = 0;
		return;
	}
	count_add(PTS_C_VNF_CALLS, 1);
	hist_add(PTS_H_VNF_NS, bpf_ktime_get_ns() - w->vnf_ts);
	w->vnf_ts = 0;
}

#endif /* PTSCOPE_MREMAP_LEVELS_BPF_H */
