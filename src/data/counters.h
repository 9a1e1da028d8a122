/* SPDX-License-Identifier: GPL-2.0 */
/* The counter declarations (include/ptscope/counters.h) as a table. */
#ifndef PTSCOPE_DATA_COUNTERS_H
#define PTSCOPE_DATA_COUNTERS_H

#include <ptscope/ptscope.h>

struct pts_counter_decl {
	const char *name;	/* NAME of PTS_C_NAME */
	unsigned int index;	/* PTS_C_NAME */
	unsigned int width;
	unsigned int scopes;	/* PTS_IN_* */
	int cgroup;		/* PTS_CG_NAME, -1: not kept per cgroup */
	int proc;		/* PTS_P_NAME, -1: not kept per process */
};

/* the counter whose values include total index @idx; NULL if none */
const struct pts_counter_decl *counter_decl(unsigned int idx);
/* where total index @idx sits in a cgroup's row; -1: not there */
int counter_cgroup_index(unsigned int idx);
/* where total index @idx sits in a process's row; -1: not there */
int counter_proc_index(unsigned int idx);
/* struct pts_counters with a cgroup's row at its total indexes, others 0 */
void counters_from_cgroup(struct pts_counters *out, const struct pts_cgroup *c);
/* the same with a process's row */
void counters_from_proc(struct pts_counters *out, const struct pts_proc *p);

#endif /* PTSCOPE_DATA_COUNTERS_H */
