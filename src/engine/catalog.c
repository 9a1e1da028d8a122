// SPDX-License-Identifier: GPL-2.0
/*
 * What ptscope measures and every way it knows to measure it, best first.
 * Inlining notes come from ../shared/reference/kernel-notes.md and were
 * checked against /proc/kallsyms of the kernels we test on.
 */
#include <string.h>
#include <linux/types.h>
#include <ptscope/ptscope.h>
#include "engine/catalog.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* a metric's candidates, counted */
#define CANDIDATES(array)	.cands = (array), .nr_cands = ARRAY_SIZE(array)
/* the engine keeps a reason for each candidate, PTS_MAX_CANDS at most */
#define CANDIDATES_FIT(array) \
	_Static_assert(ARRAY_SIZE(array) <= PTS_MAX_CANDS, \
		       #array ": more candidates than PTS_MAX_CANDS")

static const char *const path_kind_names[PTS_PATH_KINDS] = {
	[PTS_PATH_PATCHED] = "patched",
	[PTS_PATH_FENTRY] = "fentry",
	[PTS_PATH_KPROBE] = "kprobe",
	[PTS_PATH_TRACEPOINT] = "tracepoint",
};

const char *path_kind_name(enum pts_path_kind kind)
{
	if (kind >= PTS_PATH_KINDS)
		return "?";
	return path_kind_names[kind];
}

int path_kind_parse(const char *name, enum pts_path_kind *kind)
{
	int i;

	for (i = 0; i < PTS_PATH_KINDS; i++) {
		if (!strcmp(name, path_kind_names[i])) {
			*kind = i;
			return 0;
		}
	}
	return -1;
}

bool catalog_provides(const struct pts_candidate *c, unsigned int needs_any,
		      unsigned int excludes)
{
	return (!needs_any || (c->cfg_flags & needs_any)) &&
	       !(c->cfg_flags & excludes);
}

/*
 * The PTE table marker: move_ptes() maps the old table with
 * pte_offset_map_lock(), an inline around __pte_offset_map_lock() from
 * 6.5 to 6.18, itself out of line (mm/pgtable-generic.c) on Debian 7.3.
 */
#define PTE_LOCK_RETARGET(prog) \
	{ { prog, { "__pte_offset_map_lock", "pte_offset_map_lock" } } }

/*
 * Why a marker candidate is inferred.  Before 6.5 nothing out of line sees
 * the PTE table in move_ptes().  Without the direct map's base the markers
 * cannot read the PMD entry that get_old_pmd() tests, so a step whose PMD
 * is empty under a present PUD (a sparse region) looks like a PMD move.
 */
#define INFER_NO_PTE_HELPER \
	"no PTE table marker (no out-of-line PTE helper in move_ptes before " \
	"6.5, or pages above 16 KiB): NORMAL_PMD and PTE extents from the " \
	"geometry, PTE count unavailable"
#define INFER_PMD_UNREAD \
	"upper bound: empty PMD steps under a present PUD are counted as " \
	"PMD moves (direct map base unknown, PMD entries unread)"
/*
 * Stock kernels count no batches: the marker replays move_ptes() over the
 * PTEs it reads (bpf/mremap_batch.bpf.h pte_batch_entry()), under the lookup
 * rule the start-up check found this kernel to follow.
 */
#define INFER_BATCHES \
	"the source PTE table as move_ptes() reads it, replayed under the " \
	"folio lookup rule that the start-up check saw this kernel follow " \
	"(probe shows the check): a present PTE starts a batch after one " \
	"folio lookup (vm_normal_folio()) where pte_batch_hint() is above 1 " \
	"(an arm64 contpte block; 7.3, 6.17 with 0b5be138ce00) or, on " \
	"6.17-rc1-like kernels, wherever more than one PTE is left; the " \
	"batch goes on while the PTEs map the next pages of the same folio " \
	"(folio_pte_batch_flags()), to the folio's end read from its order " \
	"in the memmap; any other PTE moves alone, without a lookup"
#define INFER_NO_PTE_HELPER_AND_PMD_UNREAD \
	INFER_NO_PTE_HELPER "; " INFER_PMD_UNREAD

/*
 * The marker candidates of mremap.levels differ in three ways: the path
 * kind, whether the PTE table marker hooks (exact PTE counts) and whether
 * PMD entries are read through the direct map (exact PMD moves).  Each
 * kind's programs on the marker functions, and its PTE table marker:
 */
#define FENTRY_MARKERS \
	"lv_fentry_old_pud", "lv_fexit_old_pud", \
	"lv_fentry_huge_pmd", "lv_fexit_huge_pmd", "lv_fentry_split"
#define FENTRY_PTE_MARKER	"lv_fexit_pte_lock"
#define KPROBE_MARKERS \
	"lv_kprobe_old_pud", "lv_kretprobe_old_pud", \
	"lv_kprobe_huge_pmd", "lv_kretprobe_huge_pmd", "lv_kprobe_split"
#define KPROBE_PTE_MARKER	"lv_kretprobe_pte_lock"

/* what reading PMD entries needs, checked right after move_page_tables */
#define DIRECT_MAP_REQ	{ PTS_REQ_DIRECT_MAP },
#define NO_REQ

/*
 * A marker candidate of kind @path: its programs @progs_ on the marker
 * functions, which @req (PTS_REQ_FENTRY or PTS_REQ_KPROBE) checks.
 * Where PMD entries are read, @pmd_cfg and @pmd_req are PTS_CFG_PMD_READ
 * and DIRECT_MAP_REQ, else 0 and NO_REQ.  Without the PTE table marker a
 * candidate is never exact.
 */
#define MARKER_CAND(path, req, progs_, pmd_cfg, pmd_req, label_, infer) \
	{ \
		.kind = path, \
		.label = label_, \
		.inferred_from = infer, \
		.obj = PTS_OBJ_MREMAP, \
		.cfg_flags = PTS_CFG_LEVELS | (pmd_cfg), \
		.progs = { progs_ }, \
		.reqs = { \
			{ PTS_REQ_METRIC_PATH, "mremap.move_page_tables" }, \
			pmd_req \
			{ req, "get_old_pud" }, \
			{ req, "move_huge_pmd" }, \
			{ req, "__split_huge_pmd" }, \
		}, \
	}

/* the same with the PTE table marker's program @pte_prog last */
#define PTE_MARKER_CAND(path, req, progs_, pte_prog, pmd_cfg, pmd_req, \
			label_, exact_, infer) \
	{ \
		.kind = path, \
		.label = label_, \
		.exact = exact_, \
		.inferred_from = infer, \
		.obj = PTS_OBJ_MREMAP, \
		.cfg_flags = PTS_CFG_PTE_MARKER | PTS_CFG_LEVELS | (pmd_cfg), \
		.progs = { progs_, pte_prog }, \
		.retargets = PTE_LOCK_RETARGET(pte_prog), \
		.reqs = { \
			{ PTS_REQ_METRIC_PATH, "mremap.move_page_tables" }, \
			pmd_req \
			{ req, "get_old_pud" }, \
			{ req, "move_huge_pmd" }, \
			{ req, "__split_huge_pmd" }, \
			{ PTS_REQ_PTE_TABLE }, \
		}, \
	}

static const struct pts_candidate mremap_calls_cands[] = {
	/*
	 * Any syscall tracepoint puts every syscall of every
	 * task on the tracing slow path; a trampoline on the
	 * syscall function costs only mremap.  The retarget
	 * asks for a working fentry on the arch's name.
	 */
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry/fexit __x64_sys_mremap / __arm64_sys_mremap (syscall function)",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mremap_fentry_enter", "mremap_fexit" },
		.retargets = {
			{ "mremap_fentry_enter", { "__x64_sys_mremap", "__arm64_sys_mremap" } },
			{ "mremap_fexit", { "__x64_sys_mremap", "__arm64_sys_mremap" } },
		},
	},
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tracepoint syscalls:sys_{enter,exit}_mremap",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mremap_tp_enter", "mremap_tp_exit" },
		.taxes_syscalls = true,
		.reqs = {
			{ PTS_REQ_TRACEFS_EVENT, "syscalls/sys_enter_mremap" },
			{ PTS_REQ_TRACEFS_EVENT, "syscalls/sys_exit_mremap" },
		},
	},
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tp_btf raw_syscalls:sys_{enter,exit} (filtered by nr)",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mremap_btf_enter", "mremap_btf_exit" },
		.taxes_syscalls = true,
		.reqs = {
			{ PTS_REQ_BTF_TRACE, "sys_enter" },
			{ PTS_REQ_BTF_TRACE, "sys_exit" },
		},
	},
};
CANDIDATES_FIT(mremap_calls_cands);

static const struct pts_candidate mremap_move_page_tables_cands[] = {
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry/fexit move_page_tables(pmc) [6.15+]",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mpt_fentry_pmc", "mpt_fexit_pmc" },
		.reqs = {
			{ PTS_REQ_ARG0_STRUCT, "move_page_tables", "pagetable_move_control" },
			{ PTS_REQ_WHOLE, "move_page_tables" },
			{ PTS_REQ_FENTRY, "move_page_tables" },
		},
	},
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry/fexit move_page_tables(7 args) [6.7-6.14]",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mpt_fentry_scalar7", "mpt_fexit_scalar7" },
		.reqs = {
			{ PTS_REQ_NARGS, "move_page_tables", NULL, 7 },
			{ PTS_REQ_WHOLE, "move_page_tables" },
			{ PTS_REQ_FENTRY, "move_page_tables" },
		},
	},
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry/fexit move_page_tables(6 args) [<6.7]",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mpt_fentry_scalar", "mpt_fexit_scalar" },
		.reqs = {
			{ PTS_REQ_NARGS, "move_page_tables", NULL, 6 },
			{ PTS_REQ_WHOLE, "move_page_tables" },
			{ PTS_REQ_FENTRY, "move_page_tables" },
		},
	},
	{
		.kind = PTS_PATH_KPROBE,
		.label = "kprobe/kretprobe move_page_tables(pmc)",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mpt_kprobe_pmc", "mpt_kretprobe" },
		.reqs = {
			{ PTS_REQ_ARG0_STRUCT, "move_page_tables", "pagetable_move_control" },
			{ PTS_REQ_WHOLE, "move_page_tables" },
			{ PTS_REQ_KPROBE, "move_page_tables" },
		},
	},
	{
		.kind = PTS_PATH_KPROBE,
		.label = "kprobe/kretprobe move_page_tables(7 args)",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mpt_kprobe_scalar7", "mpt_kretprobe" },
		.reqs = {
			{ PTS_REQ_NARGS, "move_page_tables", NULL, 7 },
			{ PTS_REQ_WHOLE, "move_page_tables" },
			{ PTS_REQ_KPROBE, "move_page_tables" },
		},
	},
	{
		.kind = PTS_PATH_KPROBE,
		.label = "kprobe/kretprobe move_page_tables(6 args)",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "mpt_kprobe_scalar", "mpt_kretprobe" },
		.reqs = {
			{ PTS_REQ_NARGS, "move_page_tables", NULL, 6 },
			{ PTS_REQ_WHOLE, "move_page_tables" },
			{ PTS_REQ_KPROBE, "move_page_tables" },
		},
	},
};
CANDIDATES_FIT(mremap_move_page_tables_cands);

static const struct pts_candidate mremap_levels_cands[] = {
	{
		.kind = PTS_PATH_PATCHED,
		.label = "tp_btf mmap:mm_mremap_move_{pud,pmd,huge_pmd,ptes,back}",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.cfg_flags = PTS_CFG_PTE_MARKER | PTS_CFG_LEVELS |
			     PTS_CFG_LEVEL_TPS,
		.progs = { "lv_tp_pud", "lv_tp_pmd",
			   "lv_tp_huge_pmd", "lv_tp_ptes",
			   "lv_tp_move_back" },
		.reqs = {
			/* counted inside mremap calls only */
			{ PTS_REQ_METRIC, "mremap.calls" },
			{ PTS_REQ_BTF_TRACE, "mm_mremap_move_pud" },
			{ PTS_REQ_BTF_TRACE, "mm_mremap_move_pmd" },
			{ PTS_REQ_BTF_TRACE, "mm_mremap_move_huge_pmd" },
			{ PTS_REQ_BTF_TRACE, "mm_mremap_move_ptes" },
			{ PTS_REQ_BTF_TRACE, "mm_mremap_move_back" },
		},
	},
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry move_pgt_entry",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.todo = "no kernel seen with move_pgt_entry out of line",
		.reqs = {
			{ PTS_REQ_SYMBOL, "move_pgt_entry" },
			{ PTS_REQ_FENTRY, "move_pgt_entry" },
		},
	},
	PTE_MARKER_CAND(PTS_PATH_FENTRY, PTS_REQ_FENTRY, FENTRY_MARKERS,
			FENTRY_PTE_MARKER, PTS_CFG_PMD_READ, DIRECT_MAP_REQ,
			"fentry markers get_old_pud, move_huge_pmd, (__)pte_offset_map_lock [6.5+]",
			true, NULL),
	MARKER_CAND(PTS_PATH_FENTRY, PTS_REQ_FENTRY, FENTRY_MARKERS,
		    PTS_CFG_PMD_READ, DIRECT_MAP_REQ,
		    "fentry markers get_old_pud, move_huge_pmd",
		    INFER_NO_PTE_HELPER),
	PTE_MARKER_CAND(PTS_PATH_KPROBE, PTS_REQ_KPROBE, KPROBE_MARKERS,
			KPROBE_PTE_MARKER, PTS_CFG_PMD_READ, DIRECT_MAP_REQ,
			"kprobe markers get_old_pud, move_huge_pmd, (__)pte_offset_map_lock [6.5+]",
			true, NULL),
	MARKER_CAND(PTS_PATH_KPROBE, PTS_REQ_KPROBE, KPROBE_MARKERS,
		    PTS_CFG_PMD_READ, DIRECT_MAP_REQ,
		    "kprobe markers get_old_pud, move_huge_pmd",
		    INFER_NO_PTE_HELPER),
	PTE_MARKER_CAND(PTS_PATH_FENTRY, PTS_REQ_FENTRY, FENTRY_MARKERS,
			FENTRY_PTE_MARKER, 0, NO_REQ,
			"fentry markers get_old_pud, move_huge_pmd, (__)pte_offset_map_lock [6.5+], PMD entries unread",
			false, INFER_PMD_UNREAD),
	MARKER_CAND(PTS_PATH_FENTRY, PTS_REQ_FENTRY, FENTRY_MARKERS,
		    0, NO_REQ,
		    "fentry markers get_old_pud, move_huge_pmd, PMD entries unread",
		    INFER_NO_PTE_HELPER_AND_PMD_UNREAD),
	PTE_MARKER_CAND(PTS_PATH_KPROBE, PTS_REQ_KPROBE, KPROBE_MARKERS,
			KPROBE_PTE_MARKER, 0, NO_REQ,
			"kprobe markers get_old_pud, move_huge_pmd, (__)pte_offset_map_lock [6.5+], PMD entries unread",
			false, INFER_PMD_UNREAD),
	MARKER_CAND(PTS_PATH_KPROBE, PTS_REQ_KPROBE, KPROBE_MARKERS,
		    0, NO_REQ,
		    "kprobe markers get_old_pud, move_huge_pmd, PMD entries unread",
		    INFER_NO_PTE_HELPER_AND_PMD_UNREAD),
};
CANDIDATES_FIT(mremap_levels_cands);

static const struct pts_candidate mremap_pte_batches_cands[] = {
	{
		.kind = PTS_PATH_PATCHED,
		.label = "tp_btf mmap:mm_mremap_move_ptes (counted by the kernel)",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.counted_by = "mremap.levels",
		.reqs = {
			{ PTS_REQ_METRIC_CFG, "mremap.levels",
			  .cfg = PTS_CFG_LEVEL_TPS },
		},
	},
	{
		.kind = PTS_PATH_FENTRY,
		.label = "the PTE table seen by the fentry PTE marker [6.17+]",
		.exact = false,
		.inferred_from = INFER_BATCHES,
		.obj = PTS_OBJ_MREMAP,
		.cfg_flags = PTS_CFG_BATCH_INFER,
		.counted_by = "mremap.levels",
		.check_progs = { "vnf_fentry", "vnf_fexit" },
		.reqs = {
			{ PTS_REQ_METRIC_PATH, "mremap.levels" },
			{ PTS_REQ_METRIC_CFG, "mremap.levels",
			  .cfg = PTS_CFG_PTE_MARKER },
			{ PTS_REQ_KERNEL_MIN, NULL, "6.17" },
			/* the start-up check's truth: the kernel's lookups */
			{ PTS_REQ_FENTRY, "vm_normal_folio" },
		},
	},
	{
		.kind = PTS_PATH_KPROBE,
		.label = "the PTE table seen by the kprobe PTE marker [6.17+]",
		.exact = false,
		.inferred_from = INFER_BATCHES,
		.obj = PTS_OBJ_MREMAP,
		.cfg_flags = PTS_CFG_BATCH_INFER,
		.counted_by = "mremap.levels",
		.check_progs = { "vnf_kprobe", "vnf_kretprobe" },
		.reqs = {
			{ PTS_REQ_METRIC_PATH, "mremap.levels" },
			{ PTS_REQ_METRIC_CFG, "mremap.levels",
			  .cfg = PTS_CFG_PTE_MARKER },
			{ PTS_REQ_KERNEL_MIN, NULL, "6.17" },
			/* the start-up check's truth: the kernel's lookups */
			{ PTS_REQ_KPROBE, "vm_normal_folio" },
		},
	},
};
CANDIDATES_FIT(mremap_pte_batches_cands);

static const struct pts_candidate mremap_folio_lookups_cands[] = {
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry/fexit vm_normal_folio inside move_page_tables",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "vnf_fentry", "vnf_fexit" },
		.reqs = {
			{ PTS_REQ_METRIC_PATH, "mremap.move_page_tables" },
			{ PTS_REQ_FENTRY, "vm_normal_folio" },
		},
	},
	{
		.kind = PTS_PATH_KPROBE,
		.label = "kprobe/kretprobe vm_normal_folio inside move_page_tables",
		.exact = true,
		.obj = PTS_OBJ_MREMAP,
		.progs = { "vnf_kprobe", "vnf_kretprobe" },
		.reqs = {
			{ PTS_REQ_METRIC_PATH, "mremap.move_page_tables" },
			{ PTS_REQ_KPROBE, "vm_normal_folio" },
		},
	},
};
CANDIDATES_FIT(mremap_folio_lookups_cands);

/*
 * The stock-tracepoint fault path's programs and what they need, in both
 * of its variants (with and without the x86 fault tracepoints)
 */
#define THP_TP_PROGS \
	"thp_page_alloc", "thp_page_free", "thp_task_exit", \
	"thp_madvise_enter", "thp_madvise_exit"
#define THP_TP_REQS \
	{ PTS_REQ_BTF_TRACE, "mm_page_alloc" }, \
	{ PTS_REQ_BTF_TRACE, "mm_page_free" }, \
	{ PTS_REQ_BTF_TRACE, "sched_process_exit" }, \
	{ PTS_REQ_TRACEFS_EVENT, "syscalls/sys_enter_madvise" }, \
	{ PTS_REQ_TRACEFS_EVENT, "syscalls/sys_exit_madvise" },

static const struct pts_candidate thp_fault_alloc_cands[] = {
	{
		.kind = PTS_PATH_PATCHED,
		.label = "tp_btf kmem:mm_anon_fault_alloc",
		.exact = true,
		.obj = PTS_OBJ_THP,
		.cfg_flags = PTS_CFG_FAULT_TP,
		.progs = { "thp_tp_anon_fault" },
		.reqs = {
			{ PTS_REQ_BTF_TRACE, "mm_anon_fault_alloc" },
		},
	},
	{
		.kind = PTS_PATH_FENTRY,
		.label = "fentry/fexit handle_mm_fault, vma_alloc_folio, __mem_cgroup_charge",
		.exact = true,
		.obj = PTS_OBJ_THP,
		.cfg_flags = PTS_CFG_FAULT_FUNCS,
		.progs = { "thp_fentry_fault", "thp_fexit_fault",
			   "thp_fexit_alloc", "thp_fexit_charge",
			   "thp_fentry_zero" },
		.retargets = {
			{ "thp_fexit_alloc", { "vma_alloc_folio_noprof", "vma_alloc_folio" } },
			{ "thp_fentry_zero", { "mm_get_huge_zero_folio", "mm_get_huge_zero_page" } },
		},
		.reqs = {
			{ PTS_REQ_FENTRY, "handle_mm_fault" },
			{ PTS_REQ_FENTRY, "__mem_cgroup_charge" },
		},
	},
	{
		.kind = PTS_PATH_KPROBE,
		.label = "kprobe/kretprobe handle_mm_fault, vma_alloc_folio, __mem_cgroup_charge",
		.exact = true,
		.obj = PTS_OBJ_THP,
		.cfg_flags = PTS_CFG_FAULT_FUNCS,
		.progs = { "thp_kprobe_fault", "thp_kretprobe_fault",
			   "thp_kprobe_alloc", "thp_kretprobe_alloc",
			   "thp_kprobe_charge", "thp_kretprobe_charge",
			   "thp_kprobe_zero" },
		.retargets = {
			{ "thp_kprobe_alloc", { "vma_alloc_folio_noprof", "vma_alloc_folio" } },
			{ "thp_kretprobe_alloc", { "vma_alloc_folio_noprof", "vma_alloc_folio" } },
			{ "thp_kprobe_zero", { "mm_get_huge_zero_folio", "mm_get_huge_zero_page" } },
		},
		.reqs = {
			{ PTS_REQ_KPROBE, "handle_mm_fault" },
			{ PTS_REQ_KPROBE, "__mem_cgroup_charge" },
		},
	},
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tp_btf kmem:mm_page_alloc (order, THP gfp mask, user task), mm_page_free, exceptions:page_fault_user",
		.exact = false,
		.inferred_from = "page allocations of order >= 2 with vma_thp_gfp_mask() bits by user tasks outside madvise(); a folio the same thread frees before mapping it is a memcg charge fallback, unless the fault charged it (a PMD folio: its page table was allocated) or went on without a smaller allocation (mTHP: the fault lost the race to map the range, counted as race_lost, neither alloc nor fallback; get_user_pages() faults have no fault event, so a race lost there may be taken for a refused charge); order 0 not visible",
		.obj = PTS_OBJ_THP,
		.cfg_flags = PTS_CFG_FAULT_CHARGE_FREE | PTS_CFG_FAULT_BOUNDS,
		.progs = { THP_TP_PROGS, "thp_fault_user", "thp_fault_kernel" },
		.taxes_syscalls = true,
		.reqs = {
			THP_TP_REQS
			/* its page_fault_kernel is in the same header */
			{ PTS_REQ_BTF_TRACE, "page_fault_user" },
		},
	},
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tp_btf kmem:mm_page_alloc (order, THP gfp mask, user task), mm_page_free",
		.exact = false,
		.inferred_from = "page allocations of order >= 2 with vma_thp_gfp_mask() bits by user tasks outside madvise(); a PMD folio the same thread frees before mapping it is a memcg charge fallback, or a lost race to map the range when its page table was allocated (race_lost, neither alloc nor fallback); an mTHP folio freed so is ambiguous (no fault boundaries: counted as ambiguous, in neither alloc nor fallback); order 0 not visible",
		.obj = PTS_OBJ_THP,
		.cfg_flags = PTS_CFG_FAULT_CHARGE_FREE,
		.progs = { THP_TP_PROGS },
		.taxes_syscalls = true,
		.reqs = { THP_TP_REQS },
	},
};
CANDIDATES_FIT(thp_fault_alloc_cands);

static const struct pts_candidate thp_collapse_cands[] = {
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tp_btf huge_memory:mm_collapse_huge_page",
		.exact = true,
		.obj = PTS_OBJ_THP,
		.progs = { "thp_collapse" },
		.reqs = {
			{ PTS_REQ_BTF_TRACE, "mm_collapse_huge_page" },
		},
	},
};
CANDIDATES_FIT(thp_collapse_cands);

static const struct pts_candidate task_exit_cands[] = {
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tp_btf sched:sched_process_exit",
		.exact = true,
		.obj = PTS_OBJ_TASK,
		.progs = { "task_exit_btf" },
		.reqs = {
			{ PTS_REQ_BTF_TRACE, "sched_process_exit" },
		},
	},
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tracepoint sched:sched_process_exit",
		.exact = true,
		.obj = PTS_OBJ_TASK,
		.progs = { "task_exit_tp" },
		.reqs = {
			{ PTS_REQ_TRACEFS_EVENT, "sched/sched_process_exit" },
		},
	},
};
CANDIDATES_FIT(task_exit_cands);

static const struct pts_candidate task_follow_fork_cands[] = {
	{
		.kind = PTS_PATH_TRACEPOINT,
		.label = "tp_btf sched:sched_process_fork",
		.exact = true,
		.obj = PTS_OBJ_TASK,
		.progs = { "task_fork" },
		.reqs = {
			{ PTS_REQ_BTF_TRACE, "sched_process_fork" },
		},
	},
};
CANDIDATES_FIT(task_follow_fork_cands);

const struct pts_metric pts_catalog[] = {
	{
		.name = "mremap.calls",
		.desc = "mremap calls: geometry, result, latency by alignment class",
		CANDIDATES(mremap_calls_cands),
	},
	{
		.name = "mremap.move_page_tables",
		.desc = "move_page_tables calls: bytes requested vs moved, latency",
		CANDIDATES(mremap_move_page_tables_cands),
	},
	{
		.name = "mremap.levels",
		.desc = "entries moved per level: PUD, PMD, huge PMD, PTE",
		CANDIDATES(mremap_levels_cands),
	},
	{
		.name = "mremap.pte_batches",
		.desc = "PTE batches move_ptes() moved the PTE-level extents in, and the folio lookups it made for them (6.17+)",
		CANDIDATES(mremap_pte_batches_cands),
	},
	{
		.name = "mremap.folio_lookups",
		.desc = "vm_normal_folio() (vmemmap) lookups inside move_page_tables: count, latency",
		/*
		 * A trampoline on every vm_normal_folio() call, system-wide:
		 * under qemu TCG a 1 GiB PTE-level move on the batching lab
		 * kernel took ~250 ms with it against ~35 ms without, which
		 * would hide the regression it is there to measure.  The
		 * count alone comes from the patched mm_mremap_move_ptes
		 * tracepoint at no such cost.
		 */
		.opt_in = true,
		CANDIDATES(mremap_folio_lookups_cands),
	},
	{
		.name = "thp.fault_alloc",
		.desc = "anonymous hugepage fault allocations and fallbacks by order",
		CANDIDATES(thp_fault_alloc_cands),
	},
	{
		.name = "thp.collapse",
		.desc = "collapse attempts by result: khugepaged (system-wide) and MADV_COLLAPSE",
		CANDIDATES(thp_collapse_cands),
	},
	{
		/*
		 * Without it the per-process map fills with dead processes
		 * (as it once did) and stays full: rows and "stat" tracing of new
		 * processes are lost, counted as drops; totals are not.
		 */
		.name = "task.exit",
		.desc = "forget exited threads and processes (keeps maps bounded)",
		.internal = true,
		CANDIDATES(task_exit_cands),
	},
	{
		.name = "task.follow_fork",
		.desc = "follow the children of a traced command",
		.internal = true,
		.stat_only = true,
		CANDIDATES(task_follow_fork_cands),
	},
};

/* the engine has a choice for each metric, PTS_MAX_METRICS at most */
_Static_assert(ARRAY_SIZE(pts_catalog) <= PTS_MAX_METRICS,
	       "pts_catalog: more metrics than PTS_MAX_METRICS");
const int pts_catalog_len = ARRAY_SIZE(pts_catalog);

const struct pts_metric *catalog_find(const char *name)
{
	int i;

	for (i = 0; i < pts_catalog_len; i++)
		if (!strcmp(pts_catalog[i].name, name))
			return &pts_catalog[i];
	return NULL;
}
