/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attached tracer, what every command shares: probe the kernel,
 * configure, attach (the engine), read and name what it collects (data's
 * collector and cgroup names), detach.  It is the one data port: views
 * and the exporter read the maps through it, never through the engine's
 * objects.
 */
#ifndef PTSCOPE_TRACER_H
#define PTSCOPE_TRACER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>
#include <bpf/libbpf.h>
#include "engine/kfeatures.h"
#include "engine/engine.h"
#include "data/cgroup.h"
#include "data/cgroup_names.h"
#include "data/collector.h"
#include "data/kcounters.h"
#include "data/report_input.h"

/* what to trace and how, built by the views from their options */
struct pts_tracer_params {
	pid_t pid;			/* 0: any process */
	const char *comm;		/* NULL or "": any command name */
	int mode;			/* PTS_MODE_AUTO or enum pts_path_kind */
	const char *const *opt_in;	/* opt-in metric names */
	int nr_opt_in;
	bool follow_fork;		/* trace tracer_trace_pid()'s children */
	bool events;			/* fill the event ring buffer (snoop) */
	bool probe_only;		/* nothing attachable is no failure */
	/* --cgroup: only tasks in it and below (resolved); NULL: any */
	const struct pts_cgroup_target *cgroup;
	unsigned int parts;		/* PTS_PART_*: what the programs keep */
	/* move the rows of removed cgroups into the removed row */
	bool prune_cgroups;
	const char *kube_logs;		/* --kube-logs DIR; NULL: /var/log */
};

/* a loaded BPF program, for its run-time statistics */
struct pts_prog_ref {
	const char *name;
	int fd;
};

/* one attached program: what the overhead bench's floor attaches to */
#define PTS_HOOK_TARGET_LEN	128
struct pts_hook {
	const char *metric;
	const char *type;	/* tracepoint raw_tp tp_btf fentry fexit kprobe kretprobe */
	const char *prog;
	char target[PTS_HOOK_TARGET_LEN];	/* "syscalls/sys_enter_mremap" */
	/* what the kernel's verifier went through to load it (5.16+), 0: unknown */
	__u32 verified_insns;
};

struct pts_tracer {
	struct pts_kfeatures kf;
	struct pts_engine eng;
	struct pts_config cfg;
	struct pts_report_input rep;
	struct pts_prog_ref *progs;	/* tracer_programs(), on demand */
	size_t nr_progs;
	struct pts_cgroup_names *cgroup_names;	/* with PTS_PART_CGROUP_ROWS */
	int attach_err;		/* engine_attach()'s -errno, if it failed */
	struct pts_kube_logs *kube_logs;	/* the same */
	bool prune_cgroups;
	double pruned_at;		/* CLOCK_MONOTONIC of the last look */
	/* the kernel's hugepage counters just before attaching (self-check) */
	struct kcounters kc_base;
};

/*
 * Needs root.  Returns 0 or -errno: a failed attach in attach_err, left
 * to the caller to explain; any other failure said on stderr.
 */
int tracer_start(struct pts_tracer *t, const struct pts_tracer_params *p);
void tracer_stop(struct pts_tracer *t);
void tracer_build_config(const struct pts_kfeatures *kf,
			 const struct pts_tracer_params *p,
			 struct pts_config *cfg);
/*
 * counters, histograms, per-process rows, and per-cgroup rows with their
 * paths when the tracer counts per cgroup; 0 or -errno
 */
int tracer_read(struct pts_tracer *t, struct pts_snapshot *snap);
/* the same without the per-process rows (cheaper: the exporter) */
int tracer_read_totals(struct pts_tracer *t, struct pts_snapshot *snap);
/*
 * With prune_cgroups, at most every PTS_PRUNE_INTERVAL_S: the rows of
 * removed cgroups into the removed row (the reads do it too); a failure
 * is a warning on stderr, and the next call tries again
 */
void tracer_tidy(struct pts_tracer *t);
/* trace @pid and, with follow_fork, the children it forks; 0 or -errno */
int tracer_trace_pid(struct pts_tracer *t, pid_t pid);
/* the event ring buffer (params.events), calling @fn per event; NULL
 * with errno set */
struct ring_buffer *tracer_events(struct pts_tracer *t, ring_buffer_sample_fn fn,
				  void *ctx);
/* 0 when the maps can be read with the current credentials, else -errno
 * (-EPERM: bpf() wants a capability here) */
int tracer_check_read(const struct pts_tracer *t);
/* the loaded programs, owned by the tracer; NULL with *@n 0 on ENOMEM */
const struct pts_prog_ref *tracer_programs(struct pts_tracer *t, size_t *n);
/* the hooks of the attached metrics into @out (up to @max); how many */
size_t tracer_hooks(struct pts_tracer *t, struct pts_hook *out, size_t max);

#endif
