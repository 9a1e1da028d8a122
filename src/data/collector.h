/* SPDX-License-Identifier: GPL-2.0 */
/* Reads the shared maps into one snapshot; views work on snapshots. */
#ifndef PTSCOPE_COLLECTOR_H
#define PTSCOPE_COLLECTOR_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <ptscope/ptscope.h>
#include "data/kube.h"
#include "engine/objects.h"

struct pts_proc_entry {
	__u32 tgid;
	bool exited;		/* its row came from procs_exited */
	struct pts_proc stats;
};

struct pts_cgroup_entry {
	__u64 id;		/* cgroup v2 id (bpf_get_current_cgroup_id()) */
	const char *path;	/* the tracer's name of it, NULL: unknown */
	const struct pts_kube_id *kube;	/* a pod's cgroup: its names */
	struct pts_cgroup stats;
};

struct pts_snapshot {
	double mono_s;			/* CLOCK_MONOTONIC when read */
	struct pts_counters counters;
	struct pts_hists hists;
	struct pts_proc_entry *procs;
	size_t nr_procs;
	/* per cgroup, sorted by id; only when has_cgroups (rows were on) */
	struct pts_cgroup_entry *cgroups;
	size_t nr_cgroups;
	bool has_cgroups;
};

/* CLOCK_MONOTONIC in seconds, the clock of snapshots and BPF timestamps */
double mono_seconds(void);
/*
 * Counters, histograms and one row per process, live or exited, sorted by
 * tgid then start time; one per cgroup when objs->cgroups_fd >= 0, read
 * before the counters, so that no row is ahead of the totals.
 */
int collector_read(const struct pts_objects *objs, struct pts_snapshot *snap);
void snapshot_free(struct pts_snapshot *snap);
/*
 * out = now - prev (processes matched by tgid and start time, so a reused
 * tgid starts from zero); out->procs is allocated
 */
int snapshot_delta(const struct pts_snapshot *now,
		   const struct pts_snapshot *prev, struct pts_snapshot *out);
__u64 proc_total_mremap(const struct pts_proc *p);
__u64 proc_total_faults(const struct pts_proc *p);
/*
 * @view holding @c's counters and nothing else, for the schema's
 * renderers (schema_field_per_cgroup() says which of its fields are real)
 */
void cgroup_snapshot(struct pts_snapshot *view, const struct pts_cgroup *c);
/* @sum += @row, every counter */
void cgroup_add_row(struct pts_cgroup *sum, const struct pts_cgroup *row);
/* @a -= @b, every counter */
void cgroup_sub_row(struct pts_cgroup *a, const struct pts_cgroup *b);
/* the same for a cgroup: mremap calls, hugepage faults (alloc + fallback) */
__u64 cgroup_total_mremap(const struct pts_cgroup *c);
__u64 cgroup_total_faults(const struct pts_cgroup *c);

#endif
