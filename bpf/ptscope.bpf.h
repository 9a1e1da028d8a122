/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Maps and helpers shared by every ptscope BPF object.  The frontend
 * creates these maps once and hands the same file descriptors to each
 * object (bpf_map__reuse_fd), so all objects count into one place.
 */
#ifndef PTSCOPE_BPF_H
#define PTSCOPE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>
#include <bpf/bpf_tracing.h>
#include <ptscope/ptscope.h>
#include <ptscope/log2.h>

#define PF_KTHREAD	0x00200000	/* include/linux/sched.h, stable since 2.6 */

const volatile struct pts_config cfg = {};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pts_counters);
} counters SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pts_hists);
} hists SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTS_MAX_PROCS);
	__type(key, __u32);
	__type(value, struct pts_proc);
} procs SEC(".maps");

/* per-event detail for "ptscope snoop", only with PTS_CFG_EVENTS */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, PTS_RINGBUF_BYTES);
} events SEC(".maps");

/* builds a new "procs" value off the 512-byte BPF stack */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct pts_proc);
} proc_scratch SEC(".maps");

/* tgids traced by "ptscope stat -- CMD": CMD and every child it forks */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTS_MAX_TRACED);
	__type(key, __u32);
	__type(value, __u8);
} traced SEC(".maps");

/*
 * Counts per cgroup v2, keyed by bpf_get_current_cgroup_id(), only with
 * PTS_PART_CGROUP_ROWS.  The programs only add rows; user space moves the rows
 * of removed cgroups into the row PTS_CGROUP_REMOVED_ID (no cgroup has
 * id 0), so no count goes back.  When the map is full, what a new cgroup
 * does is counted as PTS_C_DROP_CGROUP_MAP (its totals are still counted).
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTS_MAX_CGROUPS);
	__type(key, __u64);
	__type(value, struct pts_cgroup);
} cgroups SEC(".maps");

/*
 * --cgroup: slot 0 holds the cgroup (a directory fd written by the
 * frontend after attaching; until then bpf_current_task_under_cgroup()
 * says -EAGAIN and nothing counts).  An fd array: no BTF for key and
 * value (cgroup_array_map_ops has no map_check_btf, kernel/bpf/arraymap.c).
 */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__uint(key_size, sizeof(__u32));
	__uint(value_size, sizeof(__u32));
} cgroup_filter SEC(".maps");

/*
 * The final counts of processes that exited: task.bpf.c moves a row here
 * from "procs" when the last thread of its process exits, so that "procs"
 * holds live processes only and cannot fill up with dead ones.  "stat"
 * reports these rows, "top" needs them for the last interval of a process.
 * LRU: when full, the dead row used least recently goes, which loses a
 * row of a process that is gone but never a total (the counters map does
 * not depend on per-process maps).  Keyed by tgid; start_ns tells a dead
 * row from a live process that reuses its tgid.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, PTS_MAX_EXITED);
	__type(key, __u32);
	__type(value, struct pts_proc);
} procs_exited SEC(".maps");

/*
 * Per-thread state of a syscall, page-table walk or fault in progress
 * (mremap.bpf.c, thp.bpf.c).  A thread's state is "none" when its ts is
 * 0, which the exit programs write back instead of deleting.  A failed
 * create is counted as PTS_C_DROP_INFLIGHT_MAP.  Two builds of every object
 * (the engine picks one, src/engine/bpf_features.c):
 *
 * The primary: task-local storage, one lookup through task->bpf_storage
 * (kernel/bpf/bpf_task_storage.c, 5.11+) instead of a tid-keyed hash
 * update and delete per call.  bpf_task_storage_get() is in
 * bpf_tracing_func_proto() (kernel/trace/bpf_trace.c, 5.11+), which the
 * kprobe, tracepoint, raw_tp and tracing (fentry, tp_btf) program types
 * all fall back to.  The entry lives as long as the thread: the kernel
 * frees it with the task (bpf_task_storage_free()).
 *
 * PTS_BPF_FALLBACK (kernels before 5.11): a hash keyed by thread id,
 * preallocated (before 6.1 tracing programs may use no other hash,
 * check_map_prog_compatibility()), whose entries the thread's exit
 * deletes (task.bpf.c, thread_states_free()).  The verifier resolves
 * every map a program names before it looks for dead code
 * (resolve_pseudo_ldimm64(), 5.10), so the choice is made at build time.
 */
#ifndef PTS_BPF_FALLBACK
#define THREAD_STORAGE(name, vtype)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_TASK_STORAGE);		\
		__uint(map_flags, BPF_F_NO_PREALLOC);			\
		__type(key, int);					\
		__type(value, vtype);					\
	} name SEC(".maps")

/* the current thread's entry of a THREAD_STORAGE map, or NULL */
#define thread_state(map)						\
	bpf_task_storage_get(&(map), bpf_get_current_task_btf(), 0, 0)

/* the same, created (zeroed) if missing; NULL counted as a drop */
#define thread_state_create(map)					\
	({								\
		void *__st = bpf_task_storage_get(&(map),		\
				bpf_get_current_task_btf(), 0,		\
				BPF_LOCAL_STORAGE_GET_F_CREATE);	\
		if (!__st)						\
			count_add(PTS_C_DROP_INFLIGHT_MAP, 1);		\
		__st;							\
	})

/* at the thread's exit: the kernel frees task storage with the task */
#define thread_state_free(map)	do { } while (0)
#else
#define THREAD_STORAGE(name, vtype)					\
	struct {							\
		__uint(type, BPF_MAP_TYPE_HASH);			\
		__uint(max_entries, PTS_MAX_THREADS);			\
		__type(key, __u32);					\
		__type(value, vtype);					\
	} name SEC(".maps")

#define thread_state(map)	thread_hash_get(&(map), false)
#define thread_state_create(map)	thread_hash_get(&(map), true)
#define thread_state_free(map)	thread_hash_free(&(map))
#endif

/* one mremap syscall in flight on a thread, from its entry to its exit */
struct mremap_inflight {
	__u64 ts;
	__u64 addr;
	__u64 old_len;
	__u64 new_len;
	__u64 flags;
	__u8 moving_back;		/* patched mmap:mm_mremap_move_back seen */
	struct pts_ev_levels levels;	/* filled by the level markers */
};

/*
 * One move_page_tables() call in progress on a thread, and the loop
 * iteration (one extent) the level markers are inside.
 */
struct mpt_walk {
	__u64 ts;
	__u64 len;
	__u64 old_start;
	__u64 new_start;
	__u64 old_end;
	__u8 for_stack;
	__u8 reverse;
	/* the current iteration, opened by get_old_pud(addr) */
	__u8 iter_open;
	__u8 iter_pud_calls;	/* 2: it went on to the PMD level */
	__u8 iter_pud_none;	/* nothing mapped: extent skipped */
	__u8 iter_pmd_none;	/* PUD present, PMD entry empty: skipped */
	__u8 iter_hpmd_tried;
	__u8 iter_hpmd_moved;
	__u8 iter_pte_seen;
	__u8 checking;		/* the start-up check's move: counted apart */
	__u64 iter_addr;
	__u64 iter_ptes;
	__u32 iter_batches;	/* inferred (PTS_CFG_BATCH_INFER) */
	__u32 iter_lookups;
	__u32 iter_max_batch;
	__u64 vnf_ts;		/* vm_normal_folio() entered at */
};

THREAD_STORAGE(mremap_inflight, struct mremap_inflight);

THREAD_STORAGE(mpt_inflight, struct mpt_walk);

/* threads whose last move_page_tables() moved less than asked */
THREAD_STORAGE(mpt_partial, __u8);

/*
 * One page fault in progress on a thread (handle_mm_fault() entry to
 * exit) and the folio it allocated, until the memcg charge says whether
 * the fault keeps it.  The stock-tracepoint path keeps only folio and
 * order here (ts stays 0), from the allocation until its outcome shows
 * (thp.bpf.c, thp_page_free).
 */
struct fault_ctx {
	__u64 ts;
	__u64 folio;		/* allocated, not (yet) refused by memcg */
	__s32 order;		/* its order, -1: none */
	__s32 kprobe_order;	/* kprobe path: order of the alloc in flight */
	__u64 kprobe_folio;	/* kprobe path: folio of the charge in flight */
	__u32 fallbacks;	/* orders that failed during this fault */
	__u32 charge_fallbacks;
	__u8 zero_page;
	/* tracepoint path: a page table was allocated since the folio */
	__u8 charged;
	/*
	 * tracepoint path: the order of an mTHP folio this fault put back
	 * unmapped, until the fault shows why (0: none)
	 */
	__s32 freed_order;
};

THREAD_STORAGE(fault_inflight, struct fault_ctx);

/* tracepoint path: threads inside madvise(), whose MADV_COLLAPSE allocates */
THREAD_STORAGE(in_madvise, __u8);

/*
 * Keep clang from folding the bounds check into the caller's arithmetic,
 * which leaves the verifier with an unbounded index.
 */
#define opaque_index(var) asm volatile("" : "+r"(var))

/*
 * var &= mask where clang cannot drop the mask as redundant after a range
 * check (it then indexes with a pre-check copy the verifier rejects).
 */
#define mask_index(var, mask) asm volatile("%0 &= " #mask : "+r"(var))

/*
 * The per-CPU total only, of a counter kept nowhere else (the drops of
 * the lookups below); count_add() counts at every scope.
 */
static __always_inline void total_add(__u32 idx, __u64 val)
{
	__u32 zero = 0;
	struct pts_counters *c;

	if (!(cfg.parts & PTS_PART_COUNTS))
		return;
	c = bpf_map_lookup_elem(&counters, &zero);
	opaque_index(idx);
	if (!c || idx >= PTS_NR_COUNTERS)
		return;
	c->v[idx] += val;
}

/* a zeroed row to create one from (struct pts_cgroup is over 512 bytes) */
static const struct pts_cgroup cgroup_zero;

/*
 * The row of the current task's cgroup v2, created on first use; NULL
 * when rows are off, or when the map is full (counted as a drop).
 * bpf_get_current_cgroup_id() reads task_dfl_cgroup(current)
 * (kernel/bpf/helpers.c), the cgroup v2 the task is in even where
 * controllers are on v1 hierarchies.
 */
static __always_inline struct pts_cgroup *current_cgroup(void)
{
	__u64 id;
	struct pts_cgroup *row;

	if (!(cfg.parts & PTS_PART_CGROUP_ROWS))
		return NULL;
	id = bpf_get_current_cgroup_id();
	row = bpf_map_lookup_elem(&cgroups, &id);
	if (row)
		return row;
	/* EEXIST: another CPU made it meanwhile */
	if (bpf_map_update_elem(&cgroups, &id, &cgroup_zero, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&cgroups, &id)) {
		total_add(PTS_C_DROP_CGROUP_MAP, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&cgroups, &id);
}

/*
 * Where the counts of one event go, looked up once for all of them: the
 * per-CPU totals, the row of the task's cgroup (a lookup of the cgroup's
 * id in a hash map, the costliest step; once per event, not once per
 * count) and the row of its process, each NULL when off.
 */
struct tally {
	struct pts_counters *totals;
	struct pts_cgroup *cgroup;
	struct pts_proc *proc;
};

/*
 * @per_cgroup: the event counts something kept per cgroup; @proc: the
 * process's row, when the event counts something kept per process
 */
static __always_inline void tally_open(struct tally *t, bool per_cgroup,
				       struct pts_proc *proc)
{
	__u32 zero = 0;

	t->totals = NULL;
	if (cfg.parts & PTS_PART_COUNTS)
		t->totals = bpf_map_lookup_elem(&counters, &zero);
	t->cgroup = per_cgroup ? current_cgroup() : NULL;
	t->proc = proc;
}

/*
 * @val at @off past @at in @row, a shared row of @nr counters (@at < 0:
 * the counter is not kept in such rows)
 */
static __always_inline void row_add(__u64 *row, int at, __u32 off, __u32 nr,
				    __u64 val)
{
	__u32 idx = at + off;

	if (at < 0 || !row)
		return;
	opaque_index(idx);
	if (idx < nr)
		__sync_fetch_and_add(&row[idx], val);
}

/*
 * @val at value @off of the counter @id (a PTS_C_ constant, so that the
 * scope tests fold), in every row its declaration (counters.h) names.
 */
static __always_inline void tally_add(struct tally *t, __u32 id, __u32 off,
				      __u64 val)
{
	__u32 idx = id + off;

	opaque_index(idx);
	if ((pts_counter_scopes(id) & PTS_IN_TOTAL) && t->totals &&
	    idx < PTS_NR_COUNTERS)
		t->totals->v[idx] += val;
	row_add(t->cgroup ? t->cgroup->v : NULL, pts_cgroup_index(id), off,
		PTS_CG_NR_COUNTERS, val);
	row_add(t->proc ? t->proc->v : NULL, pts_proc_index(id), off,
		PTS_P_NR_COUNTERS, val);
}

/*
 * One count of an event that counts only once, at value @off of @id,
 * in the totals and the cgroup's row where @id is kept per cgroup.  An
 * event that counts several things opens a tally instead.
 */
static __always_inline void count_add_at(__u32 id, __u32 off, __u64 val)
{
	struct tally t;

	tally_open(&t, pts_cgroup_index(id) >= 0, NULL);
	tally_add(&t, id, off, val);
}

/* the same, for a counter of one value */
static __always_inline void count_add(__u32 id, __u64 val)
{
	count_add_at(id, 0, val);
}

#ifdef PTS_BPF_FALLBACK
/*
 * A new entry of a thread-state hash starts as none: zeroes, copied from
 * the zeroed cgroup row, larger than any thread's state (an array of its
 * own would shift the globals that user space reads through the primary
 * build's skeleton, src/engine/objects.c).
 */
_Static_assert(sizeof(struct mremap_inflight) <= sizeof(cgroup_zero) &&
	       sizeof(struct mpt_walk) <= sizeof(cgroup_zero) &&
	       sizeof(struct fault_ctx) <= sizeof(cgroup_zero),
	       "a thread's state is larger than the zeroes it starts from");

/*
 * The current thread's entry of a thread-state hash, created (zeroed)
 * when @create and missing: NULL when the map is full, counted as a drop.
 */
static __always_inline void *thread_hash_get(void *map, bool create)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	void *st = bpf_map_lookup_elem(map, &tid);

	if (st || !create)
		return st;
	/* EEXIST: not from another thread, but keep the lookup's answer */
	bpf_map_update_elem(map, &tid, &cgroup_zero, BPF_NOEXIST);
	st = bpf_map_lookup_elem(map, &tid);
	if (!st)
		count_add(PTS_C_DROP_INFLIGHT_MAP, 1);
	return st;
}

/* at the thread's exit (task.bpf.c, thp.bpf.c) */
static __always_inline void thread_hash_free(void *map)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	bpf_map_delete_elem(map, &tid);
}
#endif

/* @n samples of @val in histogram @id: one map lookup for all of them */
static __always_inline void hist_add_n(__u32 id, __u64 val, __u64 n)
{
	__u32 zero = 0, slot = pts_log2_slot(val);
	struct pts_hists *hs;
	struct pts_hist *h;

	if (!(cfg.parts & PTS_PART_HISTS))
		return;
	hs = bpf_map_lookup_elem(&hists, &zero);
	opaque_index(id);
	opaque_index(slot);
	if (!hs || id >= PTS_NR_HISTS || slot >= PTS_HIST_SLOTS)
		return;
	h = &hs->h[id];
	h->slots[slot] += n;
	h->count += n;
	h->sum += val * n;
}

static __always_inline void hist_add(__u32 id, __u64 val)
{
	hist_add_n(id, val, 1);
}

static __always_inline bool comm_matches(void)
{
	char comm[PTS_COMM_LEN];
	int i;

	if (!cfg.filter_comm[0])
		return true;
	bpf_get_current_comm(comm, sizeof(comm));
	for (i = 0; i < PTS_COMM_LEN; i++) {
		if (comm[i] != cfg.filter_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/*
 * --cgroup: is the current task in that cgroup v2 or below it?
 * bpf_current_task_under_cgroup() is in bpf_tracing_func_proto()
 * (kernel/trace/bpf_trace.c) since 4.9, which kprobe, tracepoint, raw_tp
 * and tracing (fentry, tp_btf) programs all fall back to;
 * bpf_get_current_ancestor_cgroup_id() came to tracing programs only in
 * 5.14.  The test is O(1): cgroup_is_descendant() compares one entry of
 * the task's cgroup->ancestors[] (include/linux/cgroup.h), and the map
 * holds the cgroup itself, so no level has to be computed in user space
 * (which a cgroup namespace would get wrong).
 */
static __always_inline bool cgroup_matches(void)
{
	if (!cfg.filter_cgroup)
		return true;
	return bpf_current_task_under_cgroup(&cgroup_filter, 0) == 1;
}

/*
 * The frontend's thread while it runs the start-up check of the batch
 * model (src/engine/batch_check.c), 0 otherwise: that thread's moves are
 * counted apart (mremap_levels.bpf.h, check_counts) and its other work
 * nowhere.
 */
__u32 check_tid;

static __always_inline bool checking(void)
{
	return check_tid && (__u32)bpf_get_current_pid_tgid() == check_tid;
}

/* Does the current task belong to what the user asked to trace? */
static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (checking())
		return false;
	if (cfg.filter_tgid && tgid != cfg.filter_tgid)
		return false;
	if (cfg.filter_traced && !bpf_map_lookup_elem(&traced, &tgid))
		return false;
	return cgroup_matches() && comm_matches();
}

/*
 * The per-process entry of the current task, created on first use; NULL
 * when no view shows processes.
 */
static __always_inline struct pts_proc *current_proc(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	struct pts_proc *p, *fresh;
	struct task_struct *task;

	if (!(cfg.parts & PTS_PART_PROC_ROWS))
		return NULL;
	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p)
		return p;
	fresh = bpf_map_lookup_elem(&proc_scratch, &zero);
	if (!fresh)
		return NULL;
	__builtin_memset(fresh, 0, sizeof(*fresh));
	bpf_get_current_comm(fresh->comm, sizeof(fresh->comm));
	task = (struct task_struct *)bpf_get_current_task();
	fresh->start_ns = BPF_CORE_READ(task, group_leader, start_time);
	if (bpf_map_update_elem(&procs, &tgid, fresh, BPF_NOEXIST) &&
	    !bpf_map_lookup_elem(&procs, &tgid)) {
		count_add(PTS_C_DROP_PROC_MAP, 1);
		return NULL;
	}
	return bpf_map_lookup_elem(&procs, &tgid);
}

/* A zeroed event with the task fields filled, or NULL (counted as a drop). */
static __always_inline struct pts_event *event_reserve(__u32 type)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();
	struct pts_event *ev;

	if (!(cfg.flags & PTS_CFG_EVENTS))
		return NULL;
	ev = bpf_ringbuf_reserve(&events, sizeof(*ev), 0);
	if (!ev) {
		count_add(PTS_C_DROP_RINGBUF, 1);
		return NULL;
	}
	__builtin_memset(ev, 0, sizeof(*ev));
	ev->type = type;
	ev->tgid = pid_tgid >> 32;
	ev->tid = (__u32)pid_tgid;
	bpf_get_current_comm(ev->comm, sizeof(ev->comm));
	ev->ts_ns = bpf_ktime_get_ns();
	return ev;
}

#endif /* PTSCOPE_BPF_H */
