/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Types shared by the BPF programs (bpf/) and the frontend (src/).
 *
 * Counters are cumulative and never reset in the kernel: user space
 * subtracts two snapshots to get a rate, so several views can read the
 * same maps at once.
 */
#ifndef PTSCOPE_PTSCOPE_H
#define PTSCOPE_PTSCOPE_H

#ifndef __VMLINUX_H__
#include <linux/types.h>
#endif

#define PTS_COMM_LEN		16
/* log2 histogram: slot i holds values in [2^i, 2^(i+1)); slot 0 also holds 0 */
#define PTS_HIST_SLOTS		64
/* folio orders 0..PTS_MAX_ORDER-1 (2 MB is order 9 with 4 KB pages) */
#define PTS_MAX_ORDER		16
/*
 * Most entries of a PTE table the PTE-level level marker reads: PTRS_PER_PTE
 * is PAGE_SIZE / 8, 512 with 4 KiB pages and 2048 with 16 KiB ones.  A
 * 64 KiB-page kernel (8192 entries) would need a 64 KiB per-CPU buffer,
 * above the 32 KiB a per-CPU array value may hold (PCPU_MIN_UNIT_SIZE):
 * there the engine refuses the PTE marker (PTS_REQ_PTE_TABLE) and the
 * level breakdown falls back to a candidate without PTE counts.
 */
#define PTS_PTE_TABLE_MAX	2048
/* khugepaged result codes (enum scan_result) kept; larger ones clamp */
#define PTS_COLLAPSE_STATUSES	64

/*
 * How an mremap call's source and destination line up.  A PUD (or PMD)
 * move is only possible when both addresses have the same offset within
 * a PUD (PMD) and the moved range covers at least one whole PUD (PMD)
 * entry: move_page_tables() walks source and destination together and
 * only moves a whole entry when both sit on its boundary (get_extent()).
 */
enum pts_mremap_class {
	PTS_MREMAP_PUD = 0,	/* moved, a PUD-level move was possible */
	PTS_MREMAP_PMD,		/* moved, PMD-level but no PUD-level move possible */
	PTS_MREMAP_PTE,		/* moved, only PTE-level moves possible */
	PTS_MREMAP_INPLACE,	/* resized in place: no page tables moved */
	PTS_MREMAP_FAILED,	/* returned an error */
	PTS_MREMAP_CLASSES,
};

#include "counters.h"

/* indexes into struct pts_hists.h */
enum pts_hist_id {
	PTS_H_MREMAP_NS = 0,	/* + enum pts_mremap_class */
	PTS_H_MPT_NS = PTS_H_MREMAP_NS + PTS_MREMAP_CLASSES,
	PTS_H_FAULT_NS,		/* + order of the folio the fault mapped */
	PTS_H_PTE_MAX_BATCH = PTS_H_FAULT_NS + PTS_MAX_ORDER,	/* per PTE extent */
	PTS_H_VNF_NS,		/* vm_normal_folio() inside move_page_tables */
	PTS_H_PTE_BATCH,	/* PTEs per batch, inferred from the PTE table */
	PTS_NR_HISTS,
};

struct pts_hist {
	__u64 slots[PTS_HIST_SLOTS];
	__u64 count;
	__u64 sum;
};

/* value of the single-entry per-CPU array "counters" */
struct pts_counters {
	__u64 v[PTS_NR_COUNTERS];
};

/* value of the single-entry per-CPU array "hists" */
struct pts_hists {
	struct pts_hist h[PTS_NR_HISTS];
};

/* value of the "procs" hash, keyed by tgid */
struct pts_proc {
	char comm[PTS_COMM_LEN];
	/*
	 * start_time of the thread group leader (CLOCK_MONOTONIC ns): a
	 * process is (tgid, start_ns), as tgids are reused
	 */
	__u64 start_ns;
	__u64 v[PTS_P_NR_COUNTERS];	/* enum pts_proc_counter */
};

/*
 * Value of the "cgroups" hash, keyed by cgroup v2 id: what
 * bpf_get_current_cgroup_id() returns, the kernfs node id of the cgroup's
 * directory (cgroup_id(), include/linux/cgroup.h), which is also its
 * inode number on 64-bit kernels (kernfs_ino(), include/linux/kernfs.h).
 */
struct pts_cgroup {
	__u64 v[PTS_CG_NR_COUNTERS];	/* enum pts_cgroup_counter */
};

/* read-only configuration, set by the frontend before load */
struct pts_config {
	__u32 filter_tgid;		/* 0: any process */
	__u32 filter_traced;		/* 1: only tgids in the "traced" map */
	char filter_comm[PTS_COMM_LEN];	/* empty: any command */
	__u64 pmd_size;
	__u64 pud_size;
	/* gfp bits that mark an anonymous THP/mTHP fault allocation */
	__u64 thp_gfp_mask;
	/*
	 * gfp bits of a user page table (GFP_PGTABLE_USER: __GFP_ZERO,
	 * __GFP_ACCOUNT, __GFP_DIRECT_RECLAIM) and the __GFP_MOVABLE bit,
	 * which a page table lacks and a small user page has
	 */
	__u64 pgtable_gfp_mask;
	__u64 movable_gfp_mask;
	__u32 flags;			/* PTS_CFG_* */
	__u32 page_shift;
	/*
	 * Kernel address of the variable that places the direct (linear)
	 * map: page_offset_base on x86-64, memstart_addr on arm64 (from
	 * kallsyms); 0 when unknown.  With it the level markers read the
	 * PMD entry the kernel is about to test (PTS_CFG_PMD_READ).
	 */
	__u64 dmap_var;
	/* 1: only tasks in the cgroup of "cgroup_filter" or below it */
	__u32 filter_cgroup;
	/* PTS_PART_*: what the hot path keeps, beyond each call's state */
	__u32 parts;
};

/*
 * The parts of the hot path a view may need.  Each command keeps only
 * what it shows (views/start.c); "export --parts" keeps a given set, so
 * that make bench-overhead measures what each part adds.  The state of a
 * call in flight (task storage) is always kept.  The programs test these
 * in read-only data, so the verifier drops a part that is off.
 */
#define PTS_PART_COUNTS		(1U << 0)	/* the per-CPU totals */
#define PTS_PART_HISTS		(1U << 1)	/* the log2 histograms */
#define PTS_PART_PROC_ROWS	(1U << 2)	/* a row per process ("procs") */
#define PTS_PART_CGROUP_ROWS	(1U << 3)	/* a row per cgroup ("cgroups") */
#define PTS_PART_PTE_MARKER	(1U << 4)	/* the PTE-table marker's scan */
#define PTS_PARTS_ALL		0x1fU

/* the level markers include one that sees each PTE table (6.5+) */
#define PTS_CFG_PTE_MARKER	(1U << 0)
/* the fault path is traced from its functions: charge fallbacks, latency */
#define PTS_CFG_FAULT_FUNCS	(1U << 1)

/* emit one ring buffer event per mremap and per fault (ptscope snoop) */
#define PTS_CFG_EVENTS		(1U << 2)
/* the level markers are attached (so snoop events carry levels) */
#define PTS_CFG_LEVELS		(1U << 3)
/*
 * levels come from the patched mremap tracepoints: batches and folio
 * lookups are known, empty extents and THP splits are not
 */
#define PTS_CFG_LEVEL_TPS	(1U << 4)
/* the fault path is traced by the patched kmem:mm_anon_fault_alloc: no latency */
#define PTS_CFG_FAULT_TP	(1U << 5)
/*
 * the level markers read each PMD entry through the direct map, so an
 * empty PMD under a present PUD is an empty step, not a PMD move
 */
#define PTS_CFG_PMD_READ	(1U << 6)
/*
 * 6.17+ moves PTEs in batches: the PTE-table marker infers each batch
 * from the entries it reads, as pte_batch_hint() would (mm/mremap.c)
 */
#define PTS_CFG_BATCH_INFER	(1U << 7)
/*
 * the tracepoint fault path tells a folio the memcg refused (freed by its
 * thread before being mapped) from an allocated one: charge fallbacks
 */
#define PTS_CFG_FAULT_CHARGE_FREE	(1U << 8)
/*
 * the tracepoint fault path also sees where each user fault begins
 * (exceptions:page_fault_user/_kernel, x86): an mTHP folio put back
 * unmapped is a lost race unless the same fault goes on to allocate a
 * smaller folio; without them it is counted as ambiguous
 */
#define PTS_CFG_FAULT_BOUNDS	(1U << 9)

/*
 * When move_ptes() (6.17+) looks a folio up to batch the PTEs from a
 * present one, as the frontend's start-up check found this kernel to do
 * (src/engine/batch_check.c); the BPF side's lookup_rule.
 */
enum pts_lookup_rule {
	/*
	 * 7.3, and 6.17 from the fix 0b5be138ce00: only where
	 * pte_batch_hint() is above 1 (an arm64 contpte block; never on x86)
	 */
	PTS_LOOKUP_HINTED,
	/*
	 * 6.17-rc1 ("mm: optimize mremap() by PTE batching"), and the lab's
	 * regression kernel: for every present PTE but the extent's last
	 */
	PTS_LOOKUP_EVERY_PRESENT,
	PTS_LOOKUP_RULES,
};

/*
 * What the PTE-table marker counted of the start-up check's own moves,
 * and vm_normal_folio() calls inside them (the truth): the check's work
 * is counted here and in no other counter.
 */
struct pts_check_counts {
	__u64 extents;		/* PTE-level extents the marker saw */
	__u64 ptes;
	__u64 batches;		/* the model's */
	__u64 lookups;		/* the model's */
	__u64 vnf_calls;	/* the kernel's vm_normal_folio() calls */
};

enum pts_event_type {
	PTS_EV_MREMAP = 1,
	PTS_EV_FAULT,
};

/* page-table moves made during one mremap call (when levels are traced) */
struct pts_ev_levels {
	__u32 pud;
	__u32 pmd;
	__u32 huge_pmd;
	__u32 fallbacks;	/* PUD, PMD or huge PMD attempts that fell back */
	__u32 pte_extents;
	__u32 empty;		/* steps with nothing to move (markers only) */
	__u32 pte_batches;	/* PTS_LEVELS_TPS and _MARKERS_BATCHES only */
	__u32 folio_lookups;	/* move_ptes()' vm_normal_folio() calls, as batches */
	__u64 ptes;
	__u64 pte_bytes;	/* bytes covered by the PTE extents */
};

/* where an event's level breakdown comes from */
enum pts_levels_source {
	PTS_LEVELS_NONE = 0,
	PTS_LEVELS_MARKERS,	/* fentry/kprobe markers: empty steps known */
	PTS_LEVELS_TPS,		/* patched tracepoints */
	PTS_LEVELS_MARKERS_NO_PTES,	/* markers before 6.5: PTEs not counted */
	PTS_LEVELS_MARKERS_BATCHES,	/* markers from 6.17: batches inferred too */
};

enum pts_fault_result {
	PTS_FAULT_RES_ALLOC = 0,	/* a folio of order was mapped */
	PTS_FAULT_RES_FALLBACK,		/* tracepoint path: allocation failed */
	PTS_FAULT_RES_ZERO_PAGE,	/* the huge zero page was mapped */
};

struct pts_event {
	__u32 type;		/* enum pts_event_type */
	__u32 tgid;
	__u32 tid;
	__u32 pad;
	char comm[PTS_COMM_LEN];
	__u64 ts_ns;		/* bpf_ktime_get_ns() at the end */
	__u64 latency_ns;	/* 0: not measured on this path */
	union {
		struct {
			__u64 addr;
			__u64 old_len;
			__u64 new_len;
			__u64 flags;
			__s64 result;
			__u32 class;	/* enum pts_mremap_class */
			__u32 has_levels;	/* PTS_LEVELS_* */
			struct pts_ev_levels levels;
		} mremap;
		struct {
			__s32 order;
			__u32 result;	/* enum pts_fault_result */
			__u32 fallbacks;	/* orders that failed first */
			__u32 charge_fallbacks;
		} fault;
	};
};

#define PTS_RINGBUF_BYTES	(256 * 1024)

/* live processes with a row; rows of exited ones move to procs_exited */
#define PTS_MAX_PROCS		10240
/*
 * An LRU map evicts before it is full (its free lists are per CPU): room
 * for more rows of dead processes than live ones.  Evicted rows are
 * counted as dropped (collector.c, count_evicted()).
 */
#define PTS_MAX_EXITED		16384
#define PTS_MAX_TRACED		10240
/*
 * Cgroups with a row.  User space (top, export) removes the rows of
 * removed cgroups and adds their counts to the row PTS_CGROUP_REMOVED_ID,
 * so that counters never go back and the map does not fill with the dead
 * (data/cgroup_prune.c); what new cgroups do while it is full anyway is
 * counted as PTS_C_DROP_CGROUP_MAP.  The rows are allocated up front:
 * sizeof(struct pts_cgroup) plus the hash map's own 56 bytes each.
 */
#define PTS_MAX_CGROUPS		4096
/*
 * Threads with in-flight state where the kernel has no task-local
 * storage (before 5.11): the tid-keyed hashes of bpf/ptscope.bpf.h, one
 * entry per thread that mremaps or faults until it exits, preallocated;
 * a thread that finds its map full is counted as PTS_C_DROP_INFLIGHT_MAP.
 */
#define PTS_MAX_THREADS		16384
/* the key of the removed cgroups' sum: no cgroup has id 0 (kernfs ids start at 1) */
#define PTS_CGROUP_REMOVED_ID	0ULL

#endif /* PTSCOPE_PTSCOPE_H */
