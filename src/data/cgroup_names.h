/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The names of cgroup ids: their paths (see cgroup.h for why an id is a
 * directory's inode number), whether they still exist, and the
 * Kubernetes names of pods' cgroups (kube.h).
 */
#ifndef PTSCOPE_CGROUP_NAMES_H
#define PTSCOPE_CGROUP_NAMES_H

#include <stdbool.h>
#include <stddef.h>
#include <linux/types.h>
#include <ptscope/ptscope.h>
#include "data/cgroup.h"
#include "data/kube_logs.h"

/*
 * Paths of cgroup ids, cached: an id not known yet is looked for by one
 * walk of the tree for all unknown ids of a read.  An id the walk does not
 * find (the cgroup was removed before anyone looked, or cgroup v2 is not
 * mounted) is remembered as unknown and not looked for again.
 */
struct pts_cgroup_names;

struct pts_cgroup_names *cgroup_names_new(const struct pts_cgroup_fs *fs);
void cgroup_names_free(struct pts_cgroup_names *names);
/* find the paths of those of @ids not cached yet; 0 or -ENOMEM */
int cgroup_names_resolve(struct pts_cgroup_names *names, const __u64 *ids,
			 size_t nr);
/* the cached path of @id ("/" is the root), NULL if unknown */
const char *cgroup_names_get(const struct pts_cgroup_names *names, __u64 id);
/*
 * Which of @ids (rows of the map) name cgroups that are gone: @gone[i]
 * for @ids[i].  A cached path is checked with stat() (its inode must
 * still be the id); the others are looked for by one walk of the tree,
 * which also finds cgroups that moved.  Gone ones leave the cache; the
 * strings they leave behind stay valid until the next call, so the
 * snapshot before it can still be rendered.  Without a cgroup v2 mount
 * nothing is gone.  0 or -ENOMEM.
 */
int cgroup_names_gone(struct pts_cgroup_names *names, const __u64 *ids,
		      size_t nr, bool *gone);
/*
 * The Kubernetes names of @id when its cached path is a pod's cgroup
 * (kube_parse_cgroup()), looked up in @logs and again while not found;
 * NULL for any other cgroup, an unknown path, or no @logs.
 */
const struct pts_kube_id *cgroup_names_kube(struct pts_cgroup_names *names,
					    __u64 id,
					    struct pts_kube_logs *logs);
/* @path, or "id:N" for an unknown one, into @buf; "removed" for that row */
const char *cgroup_label(char *buf, size_t len, const char *path, __u64 id);

#endif
