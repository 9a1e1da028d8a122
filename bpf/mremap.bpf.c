// SPDX-License-Identifier: GPL-2.0
/*
 * mremap: every call with its geometry, result and latency (fentry/fexit
 * on the syscall function, or the stock syscall tracepoints), and move_page_tables() calls with bytes
 * requested vs moved (fentry/fexit or kprobe/kretprobe).  The frontend
 * autoloads one candidate set per metric; the rest stay unloaded.
 */
#include "ptscope.bpf.h"
#include "pgtable.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define NR_mremap 25
#elif defined(__TARGET_ARCH_arm64)
#define NR_mremap 216
#else
#error "ptscope: unsupported architecture"
#endif

/* include/uapi/linux/mman.h (5.7): move, keep the source mapped */
#define MREMAP_DONTUNMAP 4
/* include/uapi/linux/mman.h: the destination is new_address */
#define MREMAP_FIXED 2

char LICENSE[] SEC("license") = "GPL";

/*
 * A PTE table read by the PTE-level marker: PAGE_SIZE / 8 entries, 512
 * with 4 KiB pages, 2048 with 16 KiB pages (arm64-16k).  64 KiB pages
 * (8192) are not read: the engine keeps the marker off there
 * (PTS_REQ_PTE_TABLE).
 */
struct pte_table {
	__u64 entries[PTS_PTE_TABLE_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pte_table);
} pte_buf SEC(".maps");

/*
 * enum pts_lookup_rule: when move_ptes() looks up a folio, which the
 * frontend writes once its start-up check has seen what this kernel does
 * (src/engine/batch_check.c), and sets to each candidate rule in turn
 * while it checks.
 */
__u32 lookup_rule = PTS_LOOKUP_HINTED;

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

static __always_inline void mremap_enter(__u64 addr, __u64 old_len,
					 __u64 new_len, __u64 flags)
{
	struct mremap_start *s;

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

static __always_inline __u32 mremap_class(const struct mremap_start *s,
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

static __always_inline void mremap_event(const struct mremap_start *s,
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
static __always_inline __u64 mremap_moved_bytes(const struct mremap_start *s,
						__u32 class)
{
	if (class > PTS_MREMAP_PTE)
		return 0;
	return s->old_len < s->new_len ? s->old_len : s->new_len;
}

static __always_inline void mremap_exit(long ret)
{
	struct mremap_start *s;
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

/*
 * Candidate 0: fentry/fexit on the syscall function itself.  Enabling any
 * syscall tracepoint sets SYSCALL_TRACEPOINT work on every task
 * (syscall_regfunc(), kernel/tracepoint.c), which sends every syscall of
 * every task through the tracing slow path; a trampoline on the mremap
 * syscall costs nothing elsewhere.  Since 4.17 (x86-64) and 4.19 (arm64)
 * the syscall function takes the user's struct pt_regs * and reads the
 * arguments from it (arch/x86/include/asm/syscall_wrapper.h,
 * arch/arm64/include/asm/syscall_wrapper.h).  The section names the x86
 * function; the frontend retargets it to the running arch's name.
 */
SEC("fentry/__x64_sys_mremap")
int BPF_PROG(mremap_fentry_enter, struct pt_regs *regs)
{
	mremap_enter_regs(regs);
	return 0;
}

SEC("fexit/__x64_sys_mremap")
int BPF_PROG(mremap_fexit, struct pt_regs *regs, long ret)
{
	mremap_exit(ret);
	return 0;
}

/* Candidate 1: syscalls:sys_{enter,exit}_mremap (needs tracefs) */
SEC("tracepoint/syscalls/sys_enter_mremap")
int mremap_tp_enter(struct trace_event_raw_sys_enter *ctx)
{
	mremap_enter(ctx->args[0], ctx->args[1], ctx->args[2], ctx->args[3]);
	return 0;
}

SEC("tracepoint/syscalls/sys_exit_mremap")
int mremap_tp_exit(struct trace_event_raw_sys_exit *ctx)
{
	mremap_exit(ctx->ret);
	return 0;
}

/* Candidate 2: raw_syscalls via BTF, filtered by syscall number */
SEC("tp_btf/sys_enter")
int BPF_PROG(mremap_btf_enter, struct pt_regs *regs, long id)
{
	if (id != NR_mremap)
		return 0;
	mremap_enter_regs(regs);
	return 0;
}

/* no syscall number at exit: a pending entry for this thread is ours */
SEC("tp_btf/sys_exit")
int BPF_PROG(mremap_btf_exit, struct pt_regs *regs, long ret)
{
	mremap_exit(ret);
	return 0;
}

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
	struct mremap_start *s;

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

/* the batches of one extent so far (no pointers: a global function's argument) */
struct pte_batches {
	__u32 skip;		/* entries left of the current hinted block */
	__u32 batch;		/* entries in the open batch, 0: none open */
	__u32 batch_max;	/* entries it may grow to */
	__u64 batch_next;	/* pte_batch_key() the next block must have */
	__u32 batches;
	__u32 lookups;
	__u32 max_batch;
	__u32 singles;		/* batches of one PTE, added to the hist at the end */
	bool sizes;		/* add each batch to PTS_H_PTE_BATCH */
};

struct pte_scan {
	struct pte_table *buf;
	__u32 n;		/* entries of the extent */
	__u32 first_index;	/* of buf->entries[0] in its table */
	__u64 ptes;
	struct pte_batches b;
};

static __always_inline void batch_count(struct pte_batches *sc, __u32 nr)
{
	sc->batches++;
	if (nr > sc->max_batch)
		sc->max_batch = nr;
	/*
	 * Most batches are one PTE (every batch off arm64 contpte blocks):
	 * those are counted here and added once per extent, not with a
	 * histogram lookup per entry.
	 */
	if (nr == 1)
		sc->singles++;
	else if (sc->sizes)
		hist_add(PTS_H_PTE_BATCH, nr);
}

static __always_inline void batch_close(struct pte_batches *sc)
{
	if (!sc->batch)
		return;
	batch_count(sc, sc->batch);
	sc->batch = 0;
}

/*
 * 6.17-rc1's mremap_folio_pte_batch() (and the lab's regression kernel)
 * looks up the folio of every present PTE but an extent's last
 * (max_nr == 1), whatever pte_batch_hint() says: on x86 too.
 */
static __always_inline bool lookup_every(__u64 pte, __u32 left)
{
	return lookup_rule == PTS_LOOKUP_EVERY_PRESENT && left > 1 &&
	       pte_is_present(pte);
}

/*
 * A present PTE at entry i starts a batch: mremap_folio_pte_batch() looks
 * the folio up (vm_normal_folio()) only when more than one entry is left
 * and pte_batch_hint() is above 1 (0b5be138ce00, 6.17-rc2), or for every
 * present PTE under PTS_LOOKUP_EVERY_PRESENT (lookup_every()); then
 * folio_pte_batch_flags() takes the hinted block and goes on, block by
 * block, while the next block maps the next pages of the same folio with
 * the same bits, up to the folio's end.  Without the folio's order the
 * batch ends with the block: exact for folios no larger than one.
 */
static __always_inline void batch_open(struct pte_batches *sc, __u32 left,
				       __u64 pte, __u32 index)
{
	__u32 nr = 1, folio_left;

	if (left > 1)
		nr = batch_hint(pte, index);
	if (nr == 1 && !lookup_every(pte, left)) {
		batch_count(sc, 1);
		return;
	}
	sc->lookups++;
	if (nr > left)
		nr = left;
	folio_left = folio_pages_left(pte);
	if (!folio_left) {
		sc->batch_max = nr;	/* the block: an estimate */
	} else {
		sc->batch_max = folio_left < left ? folio_left : left;
		if (nr > sc->batch_max)
			nr = sc->batch_max;
	}
	sc->batch = nr;
	sc->batch_next = pte_batch_key(pte) + ((__u64)nr << cfg.page_shift);
	sc->skip = nr - 1;
}

/* the next hinted block, if the open batch takes it in */
static __always_inline bool batch_extend(struct pte_batches *sc, __u64 pte,
					 __u32 index)
{
	__u32 nr;

	if (sc->batch >= sc->batch_max || pte_batch_key(pte) != sc->batch_next)
		return false;
	nr = batch_hint(pte, index);
	if (nr > sc->batch_max - sc->batch)
		nr = sc->batch_max - sc->batch;
	sc->batch += nr;
	sc->batch_next += (__u64)nr << cfg.page_shift;
	sc->skip = nr - 1;
	return true;
}

/*
 * 1 when @pte is not none, 0 when it is, without a branch: BPF has no
 * set-on-condition instruction, so "pte != 0" becomes a jump, and in a
 * loop the verifier then follows each path with its own range of the
 * running count (a 64-entry loop of those ran past its million
 * instructions on 6.18).  The asm keeps clang from turning it back into
 * a compare.
 */
static __always_inline __u64 pte_present_bit(__u64 pte)
{
	pte |= -pte;	/* the top bit is set for every pte but 0 */
	opaque_index(pte);
	return pte >> 63;
}

/* 1 when @i < @n (both below 2^32), without a branch */
static __always_inline __u64 below_bit(__u64 i, __u64 n)
{
	return (i - n) >> 63;
}

/*
 * One entry of the loop in move_ptes() (6.17+), with @left entries from
 * it to the extent's end: a none entry is skipped; a present one starts
 * or extends a batch (batch_open()), or is inside the hinted block the
 * open batch took; anything else non-none moves alone.  A global
 * function: the verifier checks it once for any batch state, where
 * inlined in the scan loop it followed every state the entries before
 * could leave, per entry (the marker came near its million instructions).
 */
__noinline int pte_batch_entry(struct pte_batches *sc, __u64 pte, __u32 left,
			       __u32 index)
{
	/*
	 * x86 has no use for @index (batch_hint() is 1): without this clang
	 * drops the argument, the caller leaves R4 unset and the verifier
	 * refuses the call ("R4 is not a scalar")
	 */
	opaque_index(index);
	if (!sc)
		return 0;
	if (!pte) {
		if (!sc->skip)
			batch_close(sc);
		return 0;
	}
	if (sc->skip) {
		sc->skip--;
		return 0;
	}
	if (sc->batch && batch_extend(sc, pte, index))
		return 0;
	batch_close(sc);
	batch_open(sc, left, pte, index);
	return 0;
}

/*
 * bpf_loop() calls back once per PTE_SCAN_CHUNK entries: a callback per
 * entry cost more than the entry's own work (make bench-overhead-vm).
 */
#define PTE_SCAN_CHUNK	8

static long pte_scan_chunk(__u64 chunk, struct pte_scan *sc)
{
	__u64 first = chunk * PTE_SCAN_CHUNK, i, pte;
	__u32 j, idx;

	for (j = 0; j < PTE_SCAN_CHUNK; j++) {
		i = first + j;
		if (i >= sc->n)
			return 1;
		idx = i & (PTS_PTE_TABLE_MAX - 1);
		pte = sc->buf->entries[idx];
		sc->ptes += pte_present_bit(pte);
		pte_batch_entry(&sc->b, pte, sc->n - i, sc->first_index + idx);
	}
	return 0;
}

/*
 * Where no PTE moves in a batch of more than one, only the non-none
 * entries count: before 6.17, and on x86 (see single_batches()).
 * PTE_COUNT_CHUNK of them per bpf_loop() callback, branch-free, so the
 * verifier follows one path through it (a table of 512 entries takes 8
 * callbacks here, 64 through pte_scan_chunk()).
 */
#define PTE_COUNT_CHUNK	64

static long pte_count_chunk(__u64 chunk, struct pte_scan *sc)
{
	__u64 first = chunk * PTE_COUNT_CHUNK, n = sc->n, ptes = 0, i, pte;
	__u32 j;

	for (j = 0; j < PTE_COUNT_CHUNK; j++) {
		i = first + j;
		pte = sc->buf->entries[i & (PTS_PTE_TABLE_MAX - 1)];
		ptes += pte_present_bit(pte) & below_bit(i, n);
	}
	sc->ptes += ptes;
	return first + PTE_COUNT_CHUNK >= n;
}

/*
 * The extent's entries, chunk by chunk: through bpf_loop() (5.17+), or
 * in the fallback build in bounded loops, which the verifier walks
 * chunk by chunk (one path each: the chunks are branch-free or call a
 * global function).  That costs it about 18 times the instructions
 * (222,000 for the PTE-table marker on 7.3-amd64); no kernel without
 * bpf_loop() has the marker's __pte_offset_map_lock() (6.5+), so only
 * PTSCOPE_BPF_FALLBACK loads it.
 */
#ifndef PTS_BPF_FALLBACK
static __always_inline void pte_count(struct pte_scan *sc)
{
	bpf_loop(PTS_PTE_TABLE_MAX / PTE_COUNT_CHUNK, pte_count_chunk, sc, 0);
}

static __always_inline void pte_scan(struct pte_scan *sc)
{
	bpf_loop(PTS_PTE_TABLE_MAX / PTE_SCAN_CHUNK, pte_scan_chunk, sc, 0);
}
#else
static __always_inline void pte_count(struct pte_scan *sc)
{
	__u64 chunk;

	for (chunk = 0; chunk < PTS_PTE_TABLE_MAX / PTE_COUNT_CHUNK; chunk++)
		if (pte_count_chunk(chunk, sc))
			break;
}

static __always_inline void pte_scan(struct pte_scan *sc)
{
	__u64 chunk;

	for (chunk = 0; chunk < PTS_PTE_TABLE_MAX / PTE_SCAN_CHUNK; chunk++)
		if (pte_scan_chunk(chunk, sc))
			break;
}
#endif

/*
 * 6.17+ on x86 under PTS_LOOKUP_HINTED: pte_batch_hint() is 1 for every
 * entry, so mremap_folio_pte_batch() returns 1 before its folio lookup and each of
 * the @ptes non-none entries moves alone (mm/mremap.c, 7.3): as many
 * batches of one, and no lookup.
 */
static __always_inline void single_batches(struct mpt_walk *w, __u64 ptes,
					   bool sizes)
{
	if (!ptes)
		return;
	w->iter_batches += ptes;
	if (!w->iter_max_batch)
		w->iter_max_batch = 1;
	if (sizes)
		hist_add_n(PTS_H_PTE_BATCH, 1, ptes);
}

/*
 * Can a batch be longer than one PTE: on arm64 (contpte hints), and
 * anywhere the kernel looks every present PTE's folio up
 */
static __always_inline bool batches_possible(void)
{
	return has_batch_hints() || lookup_rule == PTS_LOOKUP_EVERY_PRESENT;
}

/*
 * __pte_offset_map_lock() (6.5-6.18) or pte_offset_map_lock() (7.3)
 * returned the mapped old PTE table entry for the extent move_ptes() is
 * about to move: count the non-none entries, which are exactly what the
 * extent moves, and (6.17+) the batches it moves them in.
 */
static __always_inline void marker_pte_table(__u64 *ptep)
{
	struct pte_scan sc = {};
	__u32 zero = 0, per_table;
	struct mpt_walk *w;
	__u64 size;

	if (!(cfg.parts & PTS_PART_PTE_MARKER))
		return;	/* export --parts without it: its fields are absent */
	w = current_walk();
	if (!w || !w->iter_open || !ptep)
		return;
	w->iter_pte_seen = 1;
	sc.buf = bpf_map_lookup_elem(&pte_buf, &zero);
	if (!sc.buf)
		return;
	per_table = 1U << (cfg.page_shift - 3);
	sc.n = extent_at(w, w->iter_addr, cfg.pmd_size) >> cfg.page_shift;
	if (sc.n > per_table || per_table > PTS_PTE_TABLE_MAX)
		return;
	sc.first_index = (w->iter_addr >> cfg.page_shift) & (per_table - 1);
	/* as iter_finish(): the exec stack and undo moves are not counted */
	sc.b.sizes = !w->for_stack && !w->reverse && !w->checking;
	size = sc.n * sizeof(__u64);
	opaque_index(size);	/* check and pass one register */
	if (size > sizeof(sc.buf->entries))
		return;
	if (bpf_probe_read_kernel(sc.buf->entries, size, ptep))
		return;
	if (!(cfg.flags & PTS_CFG_BATCH_INFER) || !batches_possible()) {
		pte_count(&sc);
		w->iter_ptes += sc.ptes;
		if (cfg.flags & PTS_CFG_BATCH_INFER)
			single_batches(w, sc.ptes, sc.b.sizes);
		return;
	}
	memmap_read_base();
	pte_scan(&sc);
	batch_close(&sc.b);
	if (sc.b.sizes && sc.b.singles)
		hist_add_n(PTS_H_PTE_BATCH, 1, sc.b.singles);
	w->iter_ptes += sc.ptes;
	w->iter_batches += sc.b.batches;
	w->iter_lookups += sc.b.lookups;
	if (sc.b.max_batch > w->iter_max_batch)
		w->iter_max_batch = sc.b.max_batch;
}

/*
 * Up to 6.14: move_page_tables(vma, old_addr, new_vma, new_addr, len,
 * need_rmap_locks[, for_stack]); for_stack was added in 6.7.  From
 * 6.15 the only argument is a struct pagetable_move_control *.  The
 * frontend reads the prototype from BTF and autoloads the matching pair.
 */
SEC("fentry/move_page_tables")
int BPF_PROG(mpt_fentry_pmc, void *pmc)
{
	mpt_enter_pmc(pmc);
	return 0;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mpt_fexit_pmc, void *pmc, unsigned long ret)
{
	mpt_exit(ret);
	return 0;
}

SEC("fentry/move_page_tables")
int BPF_PROG(mpt_fentry_scalar, void *vma, unsigned long old_addr,
	     void *new_vma, unsigned long new_addr, unsigned long len)
{
	mpt_enter(old_addr, new_addr, len, old_addr + len, in_execve());
	return 0;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mpt_fexit_scalar, void *vma, unsigned long old_addr,
	     void *new_vma, unsigned long new_addr, unsigned long len,
	     bool need_rmap_locks, unsigned long ret)
{
	mpt_exit(ret);
	return 0;
}

SEC("fentry/move_page_tables")
int BPF_PROG(mpt_fentry_scalar7, void *vma, unsigned long old_addr,
	     void *new_vma, unsigned long new_addr, unsigned long len,
	     bool need_rmap_locks, bool for_stack)
{
	mpt_enter(old_addr, new_addr, len, old_addr + len, for_stack);
	return 0;
}

SEC("fexit/move_page_tables")
int BPF_PROG(mpt_fexit_scalar7, void *vma, unsigned long old_addr,
	     void *new_vma, unsigned long new_addr, unsigned long len,
	     bool need_rmap_locks, bool for_stack, unsigned long ret)
{
	mpt_exit(ret);
	return 0;
}

SEC("kprobe/move_page_tables")
int BPF_KPROBE(mpt_kprobe_pmc, void *pmc)
{
	mpt_enter_pmc(pmc);
	return 0;
}

/* before 6.8 exec marks the task (in_execve): the exec stack move on 6.1 */
SEC("kprobe/move_page_tables")
int BPF_KPROBE(mpt_kprobe_scalar, void *vma, unsigned long old_addr,
	       void *new_vma, unsigned long new_addr, unsigned long len)
{
	mpt_enter(old_addr, new_addr, len, old_addr + len, in_execve());
	return 0;
}

/* the 7th argument: on the stack above the return address on x86-64 */
static __always_inline __u64 kprobe_arg7(struct pt_regs *ctx)
{
#if defined(__TARGET_ARCH_x86)
	__u64 val = 0;

	bpf_probe_read_kernel(&val, sizeof(val), (void *)(PT_REGS_SP(ctx) + 8));
	return val;
#else
	return BPF_CORE_READ((struct user_pt_regs *)ctx, regs[6]);
#endif
}

SEC("kprobe/move_page_tables")
int BPF_KPROBE(mpt_kprobe_scalar7, void *vma, unsigned long old_addr,
	       void *new_vma, unsigned long new_addr, unsigned long len)
{
	mpt_enter(old_addr, new_addr, len, old_addr + len,
		  kprobe_arg7(ctx) & 0xff);
	return 0;
}

SEC("kretprobe/move_page_tables")
int BPF_KRETPROBE(mpt_kretprobe, unsigned long ret)
{
	mpt_exit(ret);
	return 0;
}

/* level markers, fentry flavour */
SEC("fentry/get_old_pud")
int BPF_PROG(lv_fentry_old_pud, void *mm, unsigned long addr)
{
	marker_old_pud(addr);
	return 0;
}

/*
 * fexit types the returned pud_t * from BTF, and the verifier allows no
 * arithmetic on it (arm64's linear map test masks it): take its value as
 * a number.
 */
SEC("fexit/get_old_pud")
int BPF_PROG(lv_fexit_old_pud, void *mm, unsigned long addr, void *ret)
{
	__u64 pud = 0;

	bpf_probe_read_kernel(&pud, sizeof(pud), &ret);
	marker_old_pud_ret(pud);
	return 0;
}

SEC("fentry/move_huge_pmd")
int BPF_PROG(lv_fentry_huge_pmd)
{
	marker_huge_pmd(false, false);
	return 0;
}

SEC("fexit/move_huge_pmd")
int BPF_PROG(lv_fexit_huge_pmd, void *vma, unsigned long old_addr,
	     unsigned long new_addr, void *old_pmd, void *new_pmd, bool ret)
{
	marker_huge_pmd(true, ret);
	return 0;
}

SEC("fentry/__split_huge_pmd")
int BPF_PROG(lv_fentry_split)
{
	marker_split();
	return 0;
}

SEC("fexit/__pte_offset_map_lock")
int BPF_PROG(lv_fexit_pte_lock, void *mm, void *pmd, unsigned long addr,
	     void *ptlp, __u64 *ret)
{
	marker_pte_table(ret);
	return 0;
}

/* level markers, kprobe flavour */
SEC("kprobe/get_old_pud")
int BPF_KPROBE(lv_kprobe_old_pud, void *mm, unsigned long addr)
{
	marker_old_pud(addr);
	return 0;
}

SEC("kretprobe/get_old_pud")
int BPF_KRETPROBE(lv_kretprobe_old_pud, __u64 ret)
{
	marker_old_pud_ret(ret);
	return 0;
}

SEC("kprobe/move_huge_pmd")
int BPF_KPROBE(lv_kprobe_huge_pmd)
{
	marker_huge_pmd(false, false);
	return 0;
}

SEC("kretprobe/move_huge_pmd")
int BPF_KRETPROBE(lv_kretprobe_huge_pmd, bool ret)
{
	marker_huge_pmd(true, ret);
	return 0;
}

SEC("kprobe/__split_huge_pmd")
int BPF_KPROBE(lv_kprobe_split)
{
	marker_split();
	return 0;
}

SEC("kretprobe/__pte_offset_map_lock")
int BPF_KRETPROBE(lv_kretprobe_pte_lock, __u64 *ret)
{
	marker_pte_table(ret);
	return 0;
}

/*
 * Levels from the patched tracepoints (kernel/patches, mmap:mm_mremap_*).
 * They fire inside move_page_tables(), which 7.3 calls from mremap() and
 * from exec's stack shift (relocate_vma_down(), mm/vma_exec.c): only events
 * inside an mremap syscall count, and none after mm_mremap_move_back, whose
 * move_page_tables() call moves the entries back.
 */
static __always_inline struct mremap_start *mremap_in_progress(void)
{
	struct mremap_start *s = thread_state(mremap_inflight);

	return s && s->ts && !s->moving_back ? s : NULL;
}

SEC("tp_btf/mm_mremap_move_back")
int BPF_PROG(lv_tp_move_back, void *mm, unsigned long old_addr,
	     unsigned long new_addr, unsigned long len, int err)
{
	struct mremap_start *s = mremap_in_progress();

	if (s)
		s->moving_back = 1;
	return 0;
}

/*
 * One PUD, PMD or huge PMD attempt, as in iter_finish().  The events of the
 * mm_mremap_move_entry class share their arguments: (mm, old_addr,
 * new_addr, moved).  mm_mremap_move_huge_pud is not traced: only DAX maps
 * PUD-sized pages, and a failed one is skipped, not moved a level down.
 */
static __always_inline void pgt_entry_seen(__u32 moved_idx, __u32 fallback_idx,
					   bool moved)
{
	struct mremap_start *s = mremap_in_progress();
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

SEC("tp_btf/mm_mremap_move_pud")
int BPF_PROG(lv_tp_pud, void *mm, unsigned long old_addr,
	     unsigned long new_addr, bool moved)
{
	pgt_entry_seen(PTS_C_LV_PUD_MOVED, PTS_C_LV_PUD_FALLBACK, moved);
	return 0;
}

SEC("tp_btf/mm_mremap_move_pmd")
int BPF_PROG(lv_tp_pmd, void *mm, unsigned long old_addr,
	     unsigned long new_addr, bool moved)
{
	pgt_entry_seen(PTS_C_LV_PMD_MOVED, PTS_C_LV_PMD_FALLBACK, moved);
	return 0;
}

SEC("tp_btf/mm_mremap_move_huge_pmd")
int BPF_PROG(lv_tp_huge_pmd, void *mm, unsigned long old_addr,
	     unsigned long new_addr, bool moved)
{
	pgt_entry_seen(PTS_C_LV_HPMD_MOVED, PTS_C_LV_HPMD_FALLBACK, moved);
	return 0;
}

/* err: a page table went away (-EAGAIN) and the extent is retried */
SEC("tp_btf/mm_mremap_move_ptes")
int BPF_PROG(lv_tp_ptes, void *mm, unsigned long old_addr,
	     unsigned long new_addr, unsigned long len,
	     unsigned int nr_present, unsigned int nr_nonpresent,
	     unsigned int nr_batches, unsigned int max_batch,
	     unsigned int nr_folio_lookups, int err)
{
	struct mremap_start *s = mremap_in_progress();
	__u64 ptes = (__u64)nr_present + nr_nonpresent;
	struct tally t;

	if (!s || err)
		return 0;
	tally_open(&t, true, NULL);
	tally_add(&t, PTS_C_LV_PTE_EXTENTS, 0, 1);
	tally_add(&t, PTS_C_LV_PTE_BYTES, 0, len);
	tally_add(&t, PTS_C_LV_PTES, 0, ptes);
	tally_add(&t, PTS_C_LV_PTE_BATCHES, 0, nr_batches);
	tally_add(&t, PTS_C_LV_FOLIO_LOOKUPS, 0, nr_folio_lookups);
	if (nr_batches)
		hist_add(PTS_H_PTE_MAX_BATCH, max_batch);
	if (cfg.flags & PTS_CFG_EVENTS) {
		s->levels.pte_extents++;
		s->levels.pte_bytes += len;
		s->levels.ptes += ptes;
		s->levels.pte_batches += nr_batches;
		s->levels.folio_lookups += nr_folio_lookups;
	}
	return 0;
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

SEC("fentry/vm_normal_folio")
int BPF_PROG(vnf_fentry)
{
	vnf_enter();
	return 0;
}

SEC("fexit/vm_normal_folio")
int BPF_PROG(vnf_fexit)
{
	vnf_exit();
	return 0;
}

SEC("kprobe/vm_normal_folio")
int BPF_KPROBE(vnf_kprobe)
{
	vnf_enter();
	return 0;
}

SEC("kretprobe/vm_normal_folio")
int BPF_KRETPROBE(vnf_kretprobe)
{
	vnf_exit();
	return 0;
}
