// SPDX-License-Identifier: GPL-2.0
/*
 * Follows the process tree of "ptscope stat -- CMD": every process forked
 * by a traced process is traced too.
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
