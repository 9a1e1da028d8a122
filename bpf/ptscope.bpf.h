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
 * Keep clang from folding the bounds check into the caller's arithmetic,
 * which leaves the verifier with an unbounded index.
 */
#define opaque_index(var) asm volatile("" : "+r"(var))

/*
 * var &= mask where clang cannot drop the mask as redundant after a range
 * check (it then indexes with a pre-check copy the verifier rejects).
 */
#define mask_index(var, mask) asm volatile("%0 &= " #mask : "+r"(var))

static __always_inline void count_add(__u32 idx, __u64 val)
{
	__u32 zero = 0;
	struct pts_counters *c = bpf_map_lookup_elem(&counters, &zero);

	opaque_index(idx);
	if (!c || idx >= PTS_NR_COUNTERS)
		return;
	c->v[idx] += val;
}

static __always_inline void hist_add(__u32 id, __u64 val)
{
	__u32 zero = 0, slot = pts_log2_slot(val);
	struct pts_hists *hs = bpf_map_lookup_elem(&hists, &zero);
	struct pts_hist *h;

	opaque_index(id);
	opaque_index(slot);
	if (!hs || id >= PTS_NR_HISTS || slot >= PTS_HIST_SLOTS)
		return;
	h = &hs->h[id];
	h->slots[slot]++;
	h->count++;
	h->sum += val;
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

/* Does the current task belong to what the user asked to trace? */
static __always_inline bool task_wanted(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (cfg.filter_tgid && tgid != cfg.filter_tgid)
		return false;
	if (cfg.filter_traced && !bpf_map_lookup_elem(&traced, &tgid))
		return false;
	return comm_matches();
}

/* The per-process entry of the current task, created on first use. */
static __always_inline struct pts_proc *current_proc(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32, zero = 0;
	struct pts_proc *p, *fresh;

	p = bpf_map_lookup_elem(&procs, &tgid);
	if (p)
		return p;
	fresh = bpf_map_lookup_elem(&proc_scratch, &zero);
	if (!fresh)
		return NULL;
	__builtin_memset(fresh, 0, sizeof(*fresh));
	bpf_get_current_comm(fresh->comm, sizeof(fresh->comm));
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
