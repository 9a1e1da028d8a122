// SPDX-License-Identifier: GPL-2.0
/* Removed cgroups' counts shown once (see cgroup_carry.h). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "data/cgroup_carry.h"
#include "data/grow.h"

static int cmp_entry_id(const void *a, const void *b)
{
	const struct pts_cgroup_entry *ca = a, *cb = b;

	return ca->id < cb->id ? -1 : ca->id > cb->id;
}

static int cmp_shown_id(const void *a, const void *b)
{
	const struct pts_cgroup_shown *sa = a, *sb = b;

	return sa->id < sb->id ? -1 : sa->id > sb->id;
}

/* the rows shown last time that are gone now: their counts kept */
static void carry_gone(struct pts_cgroup_carry *carry,
		       const struct pts_snapshot *snap)
{
	struct pts_cgroup_entry key;
	const struct pts_cgroup_shown *s;
	size_t i;

	for (i = 0; i < carry->nr; i++) {
		s = &carry->v[i];
		key.id = s->id;
		if (snap->nr_cgroups &&
		    bsearch(&key, snap->cgroups, snap->nr_cgroups, sizeof(key),
			    cmp_entry_id))
			continue;
		cgroup_add_row(&carry->shown, &s->stats);
		if (s->folded)
			cgroup_add_row(&carry->other, &s->stats);
	}
}

/* remember @snap's rows as @fold shows them */
static int remember(struct pts_cgroup_carry *carry,
		    const struct pts_snapshot *snap,
		    const struct pts_cgroup_fold *fold)
{
	struct pts_cgroup_shown *s, key;
	size_t i;

	carry->nr = 0;
	for (i = 0; i < snap->nr_cgroups; i++) {
		if (snap->cgroups[i].id == PTS_CGROUP_REMOVED_ID)
			continue;
		if (grow_for_one((void **)&carry->v, &carry->cap, carry->nr,
				 sizeof(*s)))
			return -ENOMEM;
		s = &carry->v[carry->nr++];
		s->id = snap->cgroups[i].id;
		s->stats = snap->cgroups[i].stats;
		s->folded = true;
	}
	/* the labelled ones, found by id among the remembered */
	for (i = 0; i < fold->nr_top; i++) {
		key.id = fold->top[i]->id;
		s = bsearch(&key, carry->v, carry->nr, sizeof(key),
			    cmp_shown_id);
		if (s)
			s->folded = false;
	}
	return 0;
}

int cgroup_carry_apply(struct pts_cgroup_carry *carry,
		       const struct pts_snapshot *snap,
		       struct pts_cgroup_fold *fold)
{
	carry_gone(carry, snap);
	cgroup_add_row(&fold->other, &carry->other);
	if (fold->has_removed)
		cgroup_sub_row(&fold->removed, &carry->shown);
	return remember(carry, snap, fold);
}

void cgroup_carry_free(struct pts_cgroup_carry *carry)
{
	free(carry->v);
	memset(carry, 0, sizeof(*carry));
}
