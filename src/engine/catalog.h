/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The metric catalog: each metric lists candidate probe sets in order of
 * preference; the engine picks the first the running kernel supports.
 */
#ifndef PTSCOPE_CATALOG_H
#define PTSCOPE_CATALOG_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/obj_ids.h"

enum pts_path_kind {
	PTS_PATH_PATCHED = 0,	/* tracepoints added by kernel/ patches */
	PTS_PATH_FENTRY,
	PTS_PATH_KPROBE,
	PTS_PATH_TRACEPOINT,	/* stock tracepoints, tp_btf or tracefs */
	PTS_PATH_KINDS,
};

/*
 * What a syscall tracepoint adds to every syscall on the box, in ns.
 * The first probe on raw_syscalls:sys_enter or sys_exit, which every
 * syscalls:* event registers (kernel/trace/trace_syscalls.c), sets
 * SYSCALL_TRACEPOINT work on every task (syscall_regfunc(),
 * kernel/tracepoint.c; TIF_SYSCALL_TRACEPOINT before 5.11), so every
 * syscall of every process takes the slow path through
 * syscall_trace_enter() until the last probe goes; fentry on a syscall
 * function costs only calls of that function.  The figure is
 * make bench-overhead's "syscall" row (a getppid() loop against no
 * tracer) on a 2-core paravirtualized Debian 12 machine running 6.18,
 * where a getppid() takes about 1000 ns: the ptscope tracers on the
 * syscall tracepoints added +16 to +93 ns to it in one 5-round run
 * (their median 55, the floor's empty programs +41), within the box's
 * noise of a few percent.
 */
#define PTS_SYSCALL_TAX_NS	50

/* --mode auto: every metric may use any kind (else one enum pts_path_kind) */
#define PTS_MODE_AUTO	(-1)

enum pts_req_kind {
	PTS_REQ_NONE = 0,
	PTS_REQ_SYMBOL,		/* kallsyms has this exact symbol (not inlined) */
	PTS_REQ_FENTRY,		/* a fentry program really loads and attaches */
	PTS_REQ_KPROBE,		/* kprobes are built in and the symbol exists */
	PTS_REQ_TRACEFS_EVENT,	/* tracefs has events/<name> ("cat/event") */
	PTS_REQ_BTF_TRACE,	/* BTF has typedef btf_trace_<name> (tp_btf) */
	PTS_REQ_ARG0_STRUCT,	/* FUNC's first argument points to struct <arg> */
	PTS_REQ_NARGS,		/* FUNC has exactly <nargs> arguments */
	PTS_REQ_METRIC_PATH,	/* metric <name> attached by the same kind */
	PTS_REQ_METRIC,		/* metric <name> attached by any path */
	PTS_REQ_DIRECT_MAP,	/* the direct map's base is known (kallsyms) */
	PTS_REQ_KERNEL_MIN,	/* the kernel release is at least <arg> ("6.17") */
	PTS_REQ_METRIC_CFG,	/* metric <name>'s candidate has cfg flag <cfg> */
	PTS_REQ_PTE_TABLE,	/* a PTE table fits the PTE marker's buffer */
	PTS_REQ_WHOLE,		/* kallsyms has no <name>.part.N beside it */
};

struct pts_req {
	enum pts_req_kind kind;
	const char *name;
	const char *arg;
	int nargs;
	unsigned int cfg;	/* PTS_REQ_METRIC_CFG: PTS_CFG_* wanted */
};

#define PTS_MAX_METRICS	16
#define PTS_MAX_PROGS	8
#define PTS_MAX_REQS	6
#define PTS_MAX_CANDS	10

#define PTS_MAX_RETARGETS	3
#define PTS_MAX_ALTS		3

/* a program whose target function has other names on other kernels */
struct pts_retarget {
	const char *prog;
	const char *funcs[PTS_MAX_ALTS];	/* the first one that works wins */
};

struct pts_candidate {
	enum pts_path_kind kind;
	const char *label;
	bool exact;
	const char *inferred_from;	/* for inexact candidates */
	enum pts_obj_id obj;
	const char *progs[PTS_MAX_PROGS];	/* empty: not implemented yet */
	const char *todo;			/* why no programs yet */
	/*
	 * no programs of its own: the chosen candidate of this metric
	 * counts it (a reqs entry must make sure it is attached)
	 */
	const char *counted_by;
	unsigned int cfg_flags;			/* PTS_CFG_* it needs */
	/*
	 * loaded with the candidate, attached only while the start-up
	 * check of its inference runs (engine/batch_check.c), then detached
	 */
	const char *check_progs[PTS_MAX_PROGS];
	/*
	 * attaches a syscall tracepoint (syscalls:* or raw_syscalls:*):
	 * while attached every syscall of every task takes the slow path
	 * (see PTS_SYSCALL_TAX_NS); tests/unit/test_catalog.c checks this
	 * against the programs' sections
	 */
	bool taxes_syscalls;
	struct pts_retarget retargets[PTS_MAX_RETARGETS];
	struct pts_req reqs[PTS_MAX_REQS];
};

struct pts_metric {
	const char *name;
	const char *desc;
	bool internal;		/* housekeeping, not a metric: not listed */
	bool stat_only;		/* only used by "stat -- CMD" */
	bool opt_in;		/* attached only when asked for (--metric) */
	const struct pts_candidate *cands;	/* best first */
	int nr_cands;				/* at most PTS_MAX_CANDS */
};

extern const struct pts_metric pts_catalog[];
extern const int pts_catalog_len;

const char *path_kind_name(enum pts_path_kind kind);
int path_kind_parse(const char *name, enum pts_path_kind *kind);
const struct pts_metric *catalog_find(const char *name);
/*
 * Does candidate @c give what needs one of @needs_any in its cfg_flags
 * (0: any candidate) and none of @excludes?
 */
bool catalog_provides(const struct pts_candidate *c, unsigned int needs_any,
		      unsigned int excludes);

#endif
