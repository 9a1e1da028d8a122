// SPDX-License-Identifier: GPL-2.0
/*
 * Follows the process tree of "ptscope stat -- CMD": every process forked
 * by a traced process is traced too.  Keeps the per-process maps bounded:
 * what a process leaves in them goes when it exits.  Per-thread state is
 * task-local storage (ptscope.bpf.h), which the kernel frees with the
 * task, or in the fallback build a tid-keyed hash, freed here.
 */
#include "ptscope.bpf.h"

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sched_process_fork")
int BPF_PROG(task_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 parent_tgid = BPF_CORE_READ(parent, tgid);
	__u32 child_tgid = BPF_CORE_READ(child, tgid);
	__u8 one = 1;

	if (parent_tgid == child_tgid)
		return 0;	/* a new thread */
	if (!bpf_map_lookup_elem(&traced, &parent_tgid))
		return 0;
	if (bpf_map_update_elem(&traced, &child_tgid, &one, BPF_ANY))
		count_add(PTS_C_DROP_TRACED_MAP, 1);
	return 0;
}

/*
 * The last thread of the process exits: move its row to procs_exited
 * (views still report it, see ptscope.bpf.h) and stop tracing its tgid.
 * Nothing counts for it afterwards: do_exit() has already released its
 * mm (exit_mm()) and each of its threads is past its last syscall.
 */
static __always_inline void process_exited(__u32 tgid)
{
	struct pts_proc *p = bpf_map_lookup_elem(&procs, &tgid);

	/*
	 * LRU: when full, the oldest dead row goes; the collector counts
	 * those as dropped (moved here minus still here).
	 */
	if (p && !bpf_map_update_elem(&procs_exited, &tgid, p, BPF_ANY))
		count_add(PTS_C_PROCS_EXITED, 1);
	bpf_map_delete_elem(&procs, &tgid);
	bpf_map_delete_elem(&traced, &tgid);
}

/*
 * The exiting thread's entries of the thread-state hashes (fallback
 * build; task-local storage goes with the task).  Its fault state is
 * what thp.bpf.c's exit program commits on the stock-tracepoint path
 * (PTS_CFG_FAULT_CHARGE_FREE), in no promised order with this one: that
 * program deletes it there.
 */
static __always_inline void thread_states_free(void)
{
	thread_state_free(mremap_inflight);
	thread_state_free(mpt_inflight);
	thread_state_free(mpt_partial);
	thread_state_free(in_madvise);
	if (!(cfg.flags & PTS_CFG_FAULT_CHARGE_FREE))
		thread_state_free(fault_inflight);
}

/*
 * Runs in do_exit() of the exiting thread (current), for every thread.
 * do_exit() (kernel/exit.c, checked in 6.12) decrements signal->live
 * before trace_sched_process_exit(), so live == 0 here means this is the
 * last thread of its process.  Two threads exiting at once may both see
 * 0; the second then finds no row and does nothing more than the first.
 * 6.18 passes group_dead as a second argument; 6.12 does not, so it is
 * not used.
 */
static __always_inline void task_exited(void)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	thread_states_free();
	if (BPF_CORE_READ(task, signal, live.counter) == 0)
		process_exited(pid_tgid >> 32);
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(task_exit_btf, struct task_struct *task)
{
	task_exited();
	return 0;
}

/* the same through tracefs, for kernels without BTF for tracepoints */
SEC("tracepoint/sched/sched_process_exit")
int task_exit_tp(void *ctx)
{
	task_exited();
	return 0;
}
