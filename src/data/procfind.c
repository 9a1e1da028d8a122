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

int proc_find_comm(const char *root, const char *comm, pid_t **pids,
		   size_t *nr)
{
	char name[64];
	struct dirent *de;
	size_t cap = 0;
	pid_t pid;
	int err = 0;
	DIR *dir;

	*pids = NULL;
	*nr = 0;
	dir = opendir(root);
	if (!dir)
		return -errno;
	while (!err && (de = readdir(dir))) {
		pid = entry_pid(de->d_name);
		/* a process that exits meanwhile is no match */
		if (pid <= 0 || proc_comm(root, pid, name, sizeof(name)))
			continue;
		if (!strcmp(name, comm))
			err = append_pid(pids, nr, &cap, pid);
	}
	closedir(dir);
	if (err) {
		free(*pids);
		*pids = NULL;
		*nr = 0;
		return err;
	}
	if (*nr)
		qsort(*pids, *nr, sizeof(**pids), cmp_pids);
	return 0;
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

/* every process under @root, each followed by its parent: pid, ppid, ... */
static int proc_parents(const char *root, pid_t **pairs, size_t *nr)
{
	struct dirent *de;
	size_t cap = 0;
	pid_t pid;
	int err = 0;
	DIR *dir;

	*pairs = NULL;
	*nr = 0;
	dir = opendir(root);
	if (!dir)
		return -errno;
	while (!err && (de = readdir(dir))) {
		pid = entry_pid(de->d_name);
		if (pid <= 0)
			continue;
		err = append_pid(pairs, nr, &cap, pid);
		if (!err)
			err = append_pid(pairs, nr, &cap, proc_ppid(root, pid));
	}
	closedir(dir);
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
	size_t nr_pairs, cap = 0, i;
	bool more = true;
	pid_t *pairs;
	int err;

	*pids = NULL;
	*nr = 0;
	err = proc_parents(root, &pairs, &nr_pairs);
	/* each round takes the children of the last: as deep as the tree */
	while (!err && more) {
		more = false;
		for (i = 0; !err && i < nr_pairs; i += 2) {
			if (!pairs[i + 1] || (pairs[i + 1] != pid &&
					      !has_pid(*pids, *nr, pairs[i + 1])))
				continue;
			err = append_pid(pids, nr, &cap, pairs[i]);
			pairs[i + 1] = 0;	/* taken */
			more = true;
		}
	}
	free(pairs);
	if (err) {
		free(*pids);
		*pids = NULL;
		*nr = 0;
		return err;
	}
	if (*nr)
		qsort(*pids, *nr, sizeof(**pids), cmp_pids);
	return 0;
}
