// SPDX-License-Identifier: GPL-2.0
/*
 * mremap: every call with its geometry, result and latency (stock
 * syscall tracepoints), and move_page_tables() calls with bytes
 * requested vs moved (fentry/fexit or kprobe/kretprobe).  The frontend
 * autoloads one candidate set per metric; the rest stay unloaded.
 */
#include "ptscope.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define NR_mremap 25
#elif defined(__TARGET_ARCH_arm64)
#define NR_mremap 216
#else
#error "ptscope: unsupported architecture"
#endif

char LICENSE[] SEC("license") = "GPL";

struct mremap_start {
	__u64 ts;
	__u64 addr;
	__u64 old_len;
	__u64 new_len;
};

struct mpt_start {
	__u64 ts;
	__u64 len;
	__u64 for_stack;
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTS_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct mremap_start);
} mremap_inflight SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, PTS_MAX_INFLIGHT);
	__type(key, __u32);
	__type(value, struct mpt_start);
} mpt_inflight SEC(".maps");

/* 6.15+ passes all move state in one struct (mm/mremap.c) */
struct pagetable_move_control___pts {
	unsigned long len_in;
	bool for_stack;
} __attribute__((preserve_access_index));

static __always_inline void mremap_enter(__u64 addr, __u64 old_len,
					 __u64 new_len)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mremap_start start = {
		.ts = bpf_ktime_get_ns(),
		.addr = addr,
		.old_len = old_len,
		.new_len = new_len,
	};

	if (!task_wanted())
		return;
	if (bpf_map_update_elem(&mremap_inflight, &tid, &start, BPF_ANY))
		count_add(PTS_C_DROP_START_MAP, 1);
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

static __always_inline void mremap_exit(long ret)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mremap_start *s;
	struct pts_proc *proc;
	__u64 delta;
	__u32 class;

	s = bpf_map_lookup_elem(&mremap_inflight, &tid);
	if (!s)
		return;
	delta = bpf_ktime_get_ns() - s->ts;
	class = mremap_class(s, ret);
	if (class >= PTS_MREMAP_CLASSES)
		goto out;
	count_add(PTS_C_MREMAP_CALLS + class, 1);
	count_add(PTS_C_MREMAP_OLD_BYTES + class, s->old_len);
	count_add(PTS_C_MREMAP_NEW_BYTES + class, s->new_len);
	hist_add(PTS_H_MREMAP_NS + class, delta);
	proc = current_proc();
	if (proc) {
		__sync_fetch_and_add(&proc->mremap_calls[class], 1);
		__sync_fetch_and_add(&proc->mremap_old_bytes[class], s->old_len);
		__sync_fetch_and_add(&proc->mremap_ns, delta);
	}
out:
	bpf_map_delete_elem(&mremap_inflight, &tid);
}

/* Candidate 1: syscalls:sys_{enter,exit}_mremap (needs tracefs) */
SEC("tracepoint/syscalls/sys_enter_mremap")
int mremap_tp_enter(struct trace_event_raw_sys_enter *ctx)
{
	mremap_enter(ctx->args[0], ctx->args[1], ctx->args[2]);
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
	mremap_enter(PT_REGS_PARM1_CORE_SYSCALL(regs),
		     PT_REGS_PARM2_CORE_SYSCALL(regs),
		     PT_REGS_PARM3_CORE_SYSCALL(regs));
	return 0;
}

/* no syscall number at exit: a pending entry for this thread is ours */
SEC("tp_btf/sys_exit")
int BPF_PROG(mremap_btf_exit, struct pt_regs *regs, long ret)
{
	mremap_exit(ret);
	return 0;
}

static __always_inline void mpt_enter(__u64 len, __u64 for_stack)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mpt_start start = {
		.ts = bpf_ktime_get_ns(),
		.len = len,
		.for_stack = for_stack,
	};

	if (!task_wanted())
		return;
	if (bpf_map_update_elem(&mpt_inflight, &tid, &start, BPF_ANY))
		count_add(PTS_C_DROP_START_MAP, 1);
}

static __always_inline void mpt_exit(__u64 moved)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct mpt_start *s = bpf_map_lookup_elem(&mpt_inflight, &tid);

	if (!s)
		return;
	count_add(PTS_C_MPT_CALLS, 1);
	count_add(PTS_C_MPT_BYTES_REQUESTED, s->len);
	count_add(PTS_C_MPT_BYTES_MOVED, moved);
	if (moved < s->len)
		count_add(PTS_C_MPT_PARTIAL, 1);
	if (s->for_stack)
		count_add(PTS_C_MPT_STACK, 1);
	hist_add(PTS_H_MPT_NS, bpf_ktime_get_ns() - s->ts);
	bpf_map_delete_elem(&mpt_inflight, &tid);
}

static __always_inline void mpt_enter_pmc(void *pmc)
{
	struct pagetable_move_control___pts *p = pmc;

	mpt_enter(BPF_CORE_READ(p, len_in), BPF_CORE_READ(p, for_stack));
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
	mpt_enter(len, 0);
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
	mpt_enter(len, for_stack);
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

SEC("kprobe/move_page_tables")
int BPF_KPROBE(mpt_kprobe_scalar, void *vma, unsigned long old_addr,
	       void *new_vma, unsigned long new_addr, unsigned long len)
{
	/* for_stack is the 7th argument, on the stack on x86: not read */
	mpt_enter(len, 0);
	return 0;
}

SEC("kretprobe/move_page_tables")
int BPF_KRETPROBE(mpt_kretprobe, unsigned long ret)
{
	mpt_exit(ret);
	return 0;
}
