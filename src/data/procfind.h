/* SPDX-License-Identifier: GPL-2.0 */
/* Processes by command name, from /proc (or a directory laid out like it). */
#ifndef PTSCOPE_PROCFIND_H
#define PTSCOPE_PROCFIND_H

#include <stddef.h>
#include <sys/types.h>

#define PROC_ROOT	"/proc"

/* the command name (comm) of process @pid: 0, or -ESRCH when it is gone */
int proc_comm(const char *root, pid_t pid, char *buf, size_t len);
/*
 * The processes (thread group ids, ascending) whose comm is @comm: 0 and
 * *@pids (malloc'ed, NULL when none) and *@nr, or -errno.
 */
int proc_find_comm(const char *root, const char *comm, pid_t **pids,
		   size_t *nr);
/*
 * The processes descended from @pid (its children, theirs, ...; ascending,
 * @pid not among them): 0 and *@pids (malloc'ed, NULL when none) and
 * *@nr, or -errno.
 */
int proc_find_descendants(const char *root, pid_t pid, pid_t **pids,
			  size_t *nr);

#endif
