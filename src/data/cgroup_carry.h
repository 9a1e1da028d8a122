/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the per-cgroup series showed at the last scrape, so that a
 * removed cgroup's counts are not shown twice.  When a cgroup is removed
 * its row moves into the removed row (cgroup_prune.h): shown as it is,
 * cgroup="removed" would jump by counts its own series (or "other") had
 * already shown, and "other" would fall by a folded cgroup's counts.  So
 * the counts a removed cgroup had at the last scrape that showed it stay
 * where they were shown: in "other" if it was folded there (other keeps
 * them), and out of "removed", which gets only what came after.  Every
 * series then grows, and the sum over the cgroup label is the total.
 * Only a change of the busiest set still moves counts between series.
 */
#ifndef PTSCOPE_CGROUP_CARRY_H
#define PTSCOPE_CGROUP_CARRY_H

#include <stdbool.h>
#include <stddef.h>
#include "data/cgroup_rank.h"
#include "data/collector.h"

struct pts_cgroup_shown {
	__u64 id;
	bool folded;			/* in "other" */
	struct pts_cgroup stats;	/* as shown */
};

struct pts_cgroup_carry {
	struct pts_cgroup_shown *v;	/* the last scrape's rows, by id */
	size_t nr, cap;
	struct pts_cgroup other;	/* kept in "other" */
	struct pts_cgroup shown;	/* kept out of "removed" */
};

/*
 * @fold of @snap (rows sorted by id, as collector_read() leaves them) as
 * this scrape shows it, and what it shows remembered; 0 or -ENOMEM
 */
int cgroup_carry_apply(struct pts_cgroup_carry *carry,
		       const struct pts_snapshot *snap,
		       struct pts_cgroup_fold *fold);
void cgroup_carry_free(struct pts_cgroup_carry *carry);

#endif
