/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The busiest cgroups of a snapshot, and the rest summed into one row:
 * how export keeps the number of cgroup label values bounded.
 */
#ifndef PTSCOPE_CGROUP_RANK_H
#define PTSCOPE_CGROUP_RANK_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include "data/collector.h"

struct pts_cgroup_fold {
	const struct pts_cgroup_entry **top;	/* busiest first */
	size_t nr_top;
	struct pts_cgroup other;	/* the sum of every other row */
	size_t folded;			/* how many rows that is */
	/* the removed cgroups' row (never ranked), if has_removed */
	struct pts_cgroup removed;
	bool has_removed;
};

/* what "busiest" means: mremap calls plus hugepage faults, as top's default */
__u64 cgroup_activity(const struct pts_cgroup *c);
/*
 * The @limit busiest of @snap's cgroups (ties: the lower id first, so a
 * label does not flip between equals) and the sum of the others; rows are
 * removed only with their cgroups, so the same limit keeps the same label
 * set until one cgroup overtakes another or goes.  The removed row stays
 * out of both.  0, or -ENOMEM.
 */
int cgroup_fold(const struct pts_snapshot *snap, size_t limit,
		struct pts_cgroup_fold *out);
void cgroup_fold_free(struct pts_cgroup_fold *fold);

#endif
