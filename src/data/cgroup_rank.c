// SPDX-License-Identifier: GPL-2.0
/* The busiest cgroups, and the others summed (see cgroup_rank.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "data/cgroup_rank.h"

__u64 cgroup_activity(const struct pts_cgroup *c)
{
	return cgroup_total_mremap(c) + cgroup_total_faults(c);
}

/* busiest first, then the lower id */
static int cmp_busiest(const void *a, const void *b)
{
	const struct pts_cgroup_entry *ca = *(const struct pts_cgroup_entry **)a;
	const struct pts_cgroup_entry *cb = *(const struct pts_cgroup_entry **)b;
	__u64 na = cgroup_activity(&ca->stats), nb = cgroup_activity(&cb->stats);

	if (na != nb)
		return na < nb ? 1 : -1;
	return ca->id < cb->id ? -1 : ca->id > cb->id;
}

int cgroup_fold(const struct pts_snapshot *snap, size_t limit,
		struct pts_cgroup_fold *out)
{
	const struct pts_cgroup_entry **all;
	size_t i, nr = 0;

	memset(out, 0, sizeof(*out));
	if (!snap->nr_cgroups)
		return 0;
	all = calloc(snap->nr_cgroups, sizeof(*all));
	if (!all)
		return -ENOMEM;
	for (i = 0; i < snap->nr_cgroups; i++) {
		if (snap->cgroups[i].id == PTS_CGROUP_REMOVED_ID) {
			out->removed = snap->cgroups[i].stats;
			out->has_removed = true;
		} else {
			all[nr++] = &snap->cgroups[i];
		}
	}
	qsort(all, nr, sizeof(*all), cmp_busiest);
	out->top = all;
	out->nr_top = limit < nr ? limit : nr;
	for (i = out->nr_top; i < nr; i++)
		cgroup_add_row(&out->other, &all[i]->stats);
	out->folded = nr - out->nr_top;
	return 0;
}

void cgroup_fold_free(struct pts_cgroup_fold *fold)
{
	free(fold->top);
	fold->top = NULL;
	fold->nr_top = 0;
}
