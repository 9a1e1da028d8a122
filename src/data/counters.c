// SPDX-License-Identifier: GPL-2.0
#include <stddef.h>
#include <string.h>

#include "counters.h"

#define DECL_ROW(name, width, scopes)					\
	{ #name, PTS_C_##name, (width), (scopes),			\
	  ((scopes) & PTS_IN_CGROUP) ? PTS_CG_##name : -1,		\
	  ((scopes) & PTS_IN_PROC) ? PTS_P_##name : -1 },

static const struct pts_counter_decl decls[] = {
	PTS_COUNTERS(DECL_ROW)
};

const struct pts_counter_decl *counter_decl(unsigned int idx)
{
	size_t i;

	for (i = 0; i < sizeof(decls) / sizeof(decls[0]); i++)
		if (idx >= decls[i].index &&
		    idx < decls[i].index + decls[i].width)
			return &decls[i];
	return NULL;
}

int counter_cgroup_index(unsigned int idx)
{
	const struct pts_counter_decl *d = counter_decl(idx);

	if (!d || d->cgroup < 0)
		return -1;
	return d->cgroup + (int)(idx - d->index);
}

int counter_proc_index(unsigned int idx)
{
	const struct pts_counter_decl *d = counter_decl(idx);

	if (!d || d->proc < 0)
		return -1;
	return d->proc + (int)(idx - d->index);
}

/* @row's values at @row_index's places in the totals */
static void spread_row(struct pts_counters *out, const __u64 *row,
		       int (*row_index)(unsigned int))
{
	unsigned int idx;
	int at;

	memset(out, 0, sizeof(*out));
	for (idx = 0; idx < PTS_NR_COUNTERS; idx++) {
		at = row_index(idx);
		if (at >= 0)
			out->v[idx] = row[at];
	}
}

void counters_from_cgroup(struct pts_counters *out, const struct pts_cgroup *c)
{
	spread_row(out, c->v, counter_cgroup_index);
}

void counters_from_proc(struct pts_counters *out, const struct pts_proc *p)
{
	spread_row(out, p->v, counter_proc_index);
}
