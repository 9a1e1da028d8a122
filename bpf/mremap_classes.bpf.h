/* SPDX-License-Identifier: GPL-2.0 */
/*
 * mremap calls by class: the in-flight state of one syscall from entry to
 * exit, its class (PUD, PMD, PTE, in place, failed) from its geometry and
 * result, its counters and its snoop event.  The program stubs that call
 * mremap_enter() and mremap_exit() are in mremap.bpf.c.
 */
#ifndef PTSCOPE_MREMAP_CLASSES_BPF_H
#define PTSCOPE_MREMAP_CLASSES_BPF_H

#include "ptscope.bpf.h"

/* include/uapi/linux/mman.h (5.7): move, keep the source mapped */
#define MREMAP_DONTUNMAP 4
/* include/uapi/linux/mman.h: the destination is new_address */
#define MREMAP_FIXED 2

static __always_inline void mremap_enter(__u64 addr, __u64 old_len,
					 __u64 new_len, __u64 flags)
{
	struct mremap_inflight *s;

	if (!task_wanted())
		return;
	s = thread_state_create(mremap_inflight);
	if (!s)
		return;
	__builtin_memset(s, 0, sizeof(*s));
	s->addr = addr;
	s->old_len = old_len;
	s->new_len = new_len;
	s->flags = flags;
	s->ts = bpf_ktime_get_ns();
}

/* Could move_page_tables() move a whole entry of size @entry here? */
static __always_inline bool entry_move_possible(__u64 src, __u64 dst,
						__u64 len, __u64 entry)
{
	__u64 first;

	if (!entry || ((src ^ dst) & (entry - 1)))
		return false;
	first = (src + entry - 1) & ~(entry - 1);
	return first >= src && first + entry <= src + len;
}

static __always_inline __u32 mremap_class(const struct mremap_inflight *s,
					  long ret)
{
	__u64 moved_len = s->old_len < s->new_len ? s->old_len : s->new_len;

	if (ret < 0 && ret >= -4095)
		return PTS_MREMAP_FAILED;
	if ((__u64)ret == s->addr)
		return PTS_MREMAP_INPLACE;
	if (entry_move_possible(s->addr, ret, moved_len, cfg.pud_size))
		return PTS_MREMAP_PUD;
	if (entry_move_possible(s->addr, ret, moved_len, cfg.pmd_size))
		return PTS_MREMAP_PMD;
	return PTS_MREMAP_PTE;
}

static __always_inline __u32 levels_source(void)
{
	if (!(cfg.flags & PTS_CFG_LEVELS))
		return PTS_LEVELS_NONE;
	if (cfg.flags & PTS_CFG_LEVEL_TPS)
		return PTS_LEVELS_TPS;
	if (!(cfg.flags & PTS_CFG_PTE_MARKER))
		return PTS_LEVELS_MARKERS_NO_PTES;
	if (cfg.flags & PTS_CFG_BATCH_INFER)
		return PTS_LEVELS_MARKERS_BATCHES;
	return PTS_LEVELS_MARKERS;
}

static __always_inline void mremap_event(const struct mremap_inflight *s,
					 long ret, __u32 class, __u64 delta)
{
	struct pts_event *ev = event_reserve(PTS_EV_MREMAP);

	if (!ev)
		return;
	ev->latency_ns = delta;
	ev->mremap.addr = s->addr;
	ev->mremap.old_len = s->old_len;
	ev->mremap.new_len = s->new_len;
	ev->mremap.flags = s->flags;
	ev->mremap.result = ret;
	ev->mremap.class = class;
	ev->mremap.has_levels = levels_source();
	ev->mremap.levels = s->levels;
	bpf_ringbuf_submit(ev, 0);
}

/*
 * Bytes of the mapping a call moved to a new address: move_vma() moves
 * old_len (growing, the new part is mapped after it) or new_len (a
 * shrinking move unmaps the tail first).  In place or failed: nothing.
 */
static __always_inline __u64 mremap_moved_bytes(const struct mremap_inflight *s,
						__u32 class)
{
	if (class > PTS_MREMAP_PTE)
		return 0;
	return s->old_len < s->new_len ? s->old_len : s->new_len;
}

static __always_inline void mremap_exit(long ret)
{
	struct mremap_inflight *s;
	struct tally t;
	__u64 delta, moved;
	__u32 class;

	s = thread_state(mremap_inflight);
	if (!s || !s->ts)
		return;
	delta = bpf_ktime_get_ns() - s->ts;
	class = mremap_class(s, ret);
	if (class >= PTS_MREMAP_CLASSES)
		goto out;
	moved = mremap_moved_bytes(s, class);
	tally_open(&t, true, current_proc());
	tally_add(&t, PTS_C_MREMAP_CALLS, class, 1);
	tally_add(&t, PTS_C_MREMAP_OLD_BYTES, class, s->old_len);
	tally_add(&t, PTS_C_MREMAP_NEW_BYTES, class, s->new_len);
	tally_add(&t, PTS_C_MREMAP_MOVED_BYTES, class, moved);
	if (class != PTS_MREMAP_FAILED && (s->flags & MREMAP_DONTUNMAP))
		tally_add(&t, PTS_C_MREMAP_DONTUNMAP, 0, 1);
	if (s->flags & MREMAP_FIXED)
		tally_add(&t, PTS_C_MREMAP_FIXED, class, 1);
	tally_add(&t, PTS_C_MREMAP_NS, 0, delta);
	hist_add(PTS_H_MREMAP_NS + class, delta);
	mremap_event(s, ret, class, delta);
out:
	s->ts = 0;
}

/* the arguments from the user's registers, as the syscall function reads them */
static __always_inline void mremap_enter_regs(struct pt_regs *regs)
{
	mremap_enter(PT_REGS_PARM1_CORE_SYSCALL(regs),
		     PT_REGS_PARM2_CORE_SYSCALL(regs),
		     PT_REGS_PARM3_CORE_SYSCALL(regs),
		     PT_REGS_PARM4_CORE_SYSCALL(regs));
}

#endif /* PTSCOPE_MREMAP_CLASSES_BPF_H */
