// SPDX-License-Identifier: GPL-2.0
/* The kubelet's log directories as an index of names (see kube_logs.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/collector.h"
#include "data/grow.h"
#include "data/kube_logs.h"

_Static_assert(sizeof(((struct pts_kube_names *)0)->container) ==
	       sizeof(((struct pts_kube_ref *)0)->container_id),
	       "a container without a name is named by its id");

struct names_list {
	struct pts_kube_names *v;
	size_t nr, cap;
};

struct pts_kube_logs {
	char dir[PATH_MAX];
	struct names_list pods;		/* by UID */
	struct names_list containers;	/* by container id */
	double scanned_at;		/* CLOCK_MONOTONIC; 0: never */
	bool warned;
};

struct pts_kube_logs *kube_logs_new(const char *dir)
{
	struct pts_kube_logs *logs = calloc(1, sizeof(*logs));

	if (logs)
		snprintf(logs->dir, sizeof(logs->dir), "%s", dir);
	return logs;
}

void kube_logs_free(struct pts_kube_logs *logs)
{
	if (!logs)
		return;
	free(logs->pods.v);
	free(logs->containers.v);
	free(logs);
}

/* one warning per run, whichever directory it is about */
static void warn_once(struct pts_kube_logs *logs, const char *path, int err)
{
	if (logs->warned)
		return;
	logs->warned = true;
	fprintf(stderr, "ptscope: warning: --kube-logs: cannot read %s: %s; "
		"pods' cgroups show their pod UID and container id instead "
		"of names\n", path, strerror(err));
}

typedef int (*parse_fn)(const char *name, struct pts_kube_names *out);

/* the entries of @logs->dir/@sub that @parse accepts, into @list */
static void scan_dir(struct pts_kube_logs *logs, const char *sub,
		     parse_fn parse, struct names_list *list)
{
	char path[PATH_MAX + 16];
	struct pts_kube_names n;
	struct dirent *de;
	DIR *dir;

	list->nr = 0;
	snprintf(path, sizeof(path), "%s/%s", logs->dir, sub);
	dir = opendir(path);
	if (!dir) {
		warn_once(logs, path, errno);
		return;
	}
	while ((de = readdir(dir))) {
		if (parse(de->d_name, &n) ||
		    grow_for_one((void **)&list->v, &list->cap, list->nr,
				 sizeof(n)))
			continue;
		list->v[list->nr++] = n;
	}
	closedir(dir);
}

static void rescan(struct pts_kube_logs *logs)
{
	scan_dir(logs, "pods", kube_parse_pod_dir, &logs->pods);
	scan_dir(logs, "containers", kube_parse_container_log,
		 &logs->containers);
	logs->scanned_at = mono_seconds();
}

static const struct pts_kube_names *find(const struct names_list *list,
					 const char *key)
{
	size_t i;

	for (i = 0; i < list->nr; i++)
		if (!strcmp(list->v[i].key, key))
			return &list->v[i];
	return NULL;
}

/* the entry that names @ref: its container's, else its pod's */
static const struct pts_kube_names *lookup(const struct pts_kube_logs *logs,
					   const struct pts_kube_ref *ref)
{
	const struct pts_kube_names *n = NULL;

	if (ref->container_id[0])
		n = find(&logs->containers, ref->container_id);
	return n ? n : find(&logs->pods, ref->pod_uid);
}

void kube_logs_identify(struct pts_kube_logs *logs,
			const struct pts_kube_ref *refp, struct pts_kube_id *id)
{
	const struct pts_kube_ref r = *refp, *ref = &r;	/* may be in @id */
	const struct pts_kube_names *n = lookup(logs, ref);

	if ((!n || (ref->container_id[0] && !n->container[0])) &&
	    (!logs->scanned_at ||
	     mono_seconds() - logs->scanned_at >= PTS_KUBE_RESCAN_S)) {
		rescan(logs);
		n = lookup(logs, ref);
	}
	memset(id, 0, sizeof(*id));
	id->ref = *ref;
	if (n)
		id->names = *n;
	else
		snprintf(id->names.pod, sizeof(id->names.pod), "%s",
			 ref->pod_uid);
	/* a container the pod's entry does not name: its id, not a guess */
	if (ref->container_id[0] && !id->names.container[0])
		memcpy(id->names.container, ref->container_id,
		       sizeof(ref->container_id));
	id->named = n && (!ref->container_id[0] || n->container[0]);
}
