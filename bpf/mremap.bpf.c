// SPDX-License-Identifier: GPL-2.0
/*
 * mremap: every call with its geometry, result and latency (fentry/fexit
 * on the syscall function, or the stock syscall tracepoints), and move_page_tables() calls with bytes
 * requested vs moved (fentry/fexit or kprobe/kretprobe).  The frontend
 * autoloads one candidate set per metric; the rest stay unloaded.  This
 * file holds the program stubs; what they call is in mremap_classes.bpf.h
 * (the calls by class), mremap_levels.bpf.h (the walk and its levels)
 * and mremap_batch.bpf.h (the PTE-level marker's table scan), one object.
 */
#include "ptscope.bpf.h"
#include "pgtable.bpf.h"
#include "mremap_classes.bpf.h"
#include "mremap_levels.bpf.h"
#include "mremap_batch.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define NR_mremap 25
#elif defined(__TARGET_ARCH_arm64)
#define NR_mremap 216
#else
#error "ptscope: unsupported architecture"
#endif

char LICENSE[] SEC("license") = "GPL";

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
 * Levels from the patched tracepoints (kernel/patches, mmap:mm_mremap_*),
 * inside an mremap syscall only: mremap_in_progress()
 */
SEC("tp_btf/mm_mremap_move_back")
int BPF_PROG(lv_tp_move_back, void *mm, unsigned long old_addr,
	     unsigned long new_addr, unsigned long len, int err)
{
	struct mremap_inflight *s = mremap_in_progress();

	if (s)
		s->moving_back = 1;
	return 0;
}

/*
 * The events of the mm_mremap_move_entry class share their arguments: (mm,
 * old_addr, new_addr, moved).  mm_mremap_move_huge_pud is not traced: only
 * DAX maps PUD-sized pages, and a failed one is skipped, not moved a level
 * down.
 */
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
	struct mremap_inflight *s = mremap_in_progress();
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

/* vm_normal_folio() inside move_page_tables(): vnf_enter(), vnf_exit() */
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
