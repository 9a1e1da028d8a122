/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Rows of the "cgroups" map that outlive their cgroups.  A node makes and
 * removes cgroups all day (a pod each); the BPF programs only add rows,
 * so user space removes the rows of removed cgroups and adds their counts
 * to the row PTS_CGROUP_REMOVED_ID: a removed cgroup's counts move there
 * and every sum over the rows keeps growing.  Only user space writes
 * that row, from one thread; a removed cgroup has no task left to count
 * into its row while it is being moved.
 */
#ifndef PTSCOPE_CGROUP_PRUNE_H
#define PTSCOPE_CGROUP_PRUNE_H

#include "data/cgroup_names.h"

/* how often top and export look for removed cgroups, at most */
#define PTS_PRUNE_INTERVAL_S	1.0

/* the removed row, zero, so that it never needs a free slot; 0 or -errno */
int cgroup_prune_init(int cgroups_fd);
/*
 * Move the rows of the cgroups @names says are gone into the removed
 * row: how many were moved, or -errno.
 */
int cgroup_prune(int cgroups_fd, struct pts_cgroup_names *names);

#endif
