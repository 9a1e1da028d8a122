// SPDX-License-Identifier: GPL-2.0
/*
 * /proc lists one directory per thread group (proc_pid_readdir() in
 * fs/proc/base.c), so threads never appear twice; /proc/PID/comm is the
 * kernel's comm of the group leader with a newline.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/grow.h"
#include "data/procfind.h"

int proc_comm(const char *root, pid_t pid, char *buf, size_t len)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/comm", root, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;
	if (!fgets(buf, (int)len, f))
		buf[0] = '\0';
	fclose(f);
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

/* a /proc entry that is a process: all digits */
static pid_t entry_pid(const char *name)
{
	const char *p;

	for (p = name; *p; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return (pid_t)atoi(name);
}

static int append_pid(pid_t **pids, size_t *nr, size_t *cap, pid_t pid)
{
	if (grow_for_one((void **)pids, cap, *nr, sizeof(**pids)))
		return -ENOMEM;
	(*pids)[(*nr)++] = pid;
	return 0;
}

static int cmp_pids(const void *a, const void *b)
{
	pid_t pa = *(const pid_t *)a, pb = *(const pid_t *)b;

	return (pa > pb) - (pa < pb);
}

/* the pids found, with the state of the walk that finds them */
struct pid_list {
	pid_t *pids;
	size_t nr, cap;
	const char *comm;	/* proc_find_comm(): the name asked for */
};

/* @visit for each process under @root, until it returns an error */
static int proc_each(const char *root,
		     int (*visit)(const char *root, pid_t pid, void *ctx),
		     void *ctx)
{
	struct dirent *de;
	pid_t pid;
	int err = 0;
	DIR *dir = opendir(root);

	if (!dir)
		return -errno;
	while (!err && (de = readdir(dir))) {
		pid = entry_pid(de->d_name);
		if (pid > 0)
			err = visit(root, pid, ctx);
	}
	closedir(dir);
	return err;
}

/* @l's pids, ascending, as *@pids and *@nr; none after an error @err */
static int pid_list_done(struct pid_list *l, int err, pid_t **pids,
			 size_t *nr)
{
	if (err) {
		free(l->pids);
		l->pids = NULL;
		l->nr = 0;
	} else if (l->nr) {
		qsort(l->pids, l->nr, sizeof(*l->pids), cmp_pids);
	}
	*pids = l->pids;
	*nr = l->nr;
	return err;
}

static int add_if_named(const char *root, pid_t pid, void *ctx)
{
	struct pid_list *l = ctx;
	char name[64];

	/* a process that exits meanwhile is no match */
	if (proc_comm(root, pid, name, sizeof(name)) || strcmp(name, l->comm))
		return 0;
	return append_pid(&l->pids, &l->nr, &l->cap, pid);
}

int proc_find_comm(const char *root, const char *comm, pid_t **pids,
		   size_t *nr)
{
	struct pid_list l = { .comm = comm };

	return pid_list_done(&l, proc_each(root, add_if_named, &l), pids, nr);
}

/*
 * The parent of @pid, from /proc/PID/stat after its comm (which may hold
 * ')'); 0 when it is gone
 */
static pid_t proc_ppid(const char *root, pid_t pid)
{
	char path[256], buf[512], *p;
	int ppid = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%d/stat", root, (int)pid);
	f = fopen(path, "r");
	if (!f)
		return 0;
	if (fgets(buf, sizeof(buf), f)) {
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %*c %d", &ppid) != 1)
			ppid = 0;
	}
	fclose(f);
	return (pid_t)ppid;
}

/* @pid, then its parent: the pairs proc_find_descendants() walks */
static int add_with_parent(const char *root, pid_t pid, void *ctx)
{
	struct pid_list *l = ctx;
	int err = append_pid(&l->pids, &l->nr, &l->cap, pid);

	if (!err)
		err = append_pid(&l->pids, &l->nr, &l->cap,
				 proc_ppid(root, pid));
	return err;
}

static bool has_pid(const pid_t *pids, size_t nr, pid_t pid)
{
	size_t i;

	for (i = 0; i < nr; i++)
		if (pids[i] == pid)
			return true;
	return false;
}

int proc_find_descendants(const char *root, pid_t pid, pid_t **pids,
			  size_t *nr)
{
	struct pid_list all = {}, found = {};
	pid_t *pair;
	bool more = true;
	size_t i;
	int err;

	err = proc_each(root, add_with_parent, &all);
	/* each round takes the children of the last: as deep as the tree */
	while (!err && more) {
		more = false;
		for (i = 0; !err && i < all.nr; i += 2) {
			pair = &all.pids[i];
			if (!pair[1] || (pair[1] != pid &&
					 !has_pid(found.pids, found.nr, pair[1])))
				continue;
			err = append_pid(&found.pids, &found.nr, &found.cap,
					 pair[0]);
			pair[1] = 0;	/* taken */
			more = true;
		}
	}
	free(all.pids);
	return pid_list_done(&found, err, pids, nr);
}
