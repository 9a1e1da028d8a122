// SPDX-License-Identifier: GPL-2.0
/* Paths and Kubernetes names of cgroup ids, cached (see cgroup_names.h). */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include "data/grow.h"
#include "data/cgroup_names.h"

struct cgroup_name {
	__u64 id;
	char *path;		/* NULL: not found */
	struct pts_kube_id *kube;	/* a pod's cgroup: its names */
	bool kube_checked;	/* the path was parsed for a pod */
	bool gone;		/* to be retired */
};

/* names handed out and no longer cached: freed at the next retirement */
struct retired {
	struct cgroup_name *v;
	size_t nr, cap;
};

struct pts_cgroup_names {
	char mount[PATH_MAX];
	struct cgroup_name *v;	/* sorted by id */
	size_t nr, cap;
	struct retired retired;
};

struct pts_cgroup_names *cgroup_names_new(const struct pts_cgroup_fs *fs)
{
	struct pts_cgroup_names *names = calloc(1, sizeof(*names));

	if (names)
		snprintf(names->mount, sizeof(names->mount), "%s", fs->mount);
	return names;
}

static void name_free(struct cgroup_name *n)
{
	free(n->path);
	free(n->kube);
}

static void retired_free(struct retired *r)
{
	size_t i;

	for (i = 0; i < r->nr; i++)
		name_free(&r->v[i]);
	r->nr = 0;
}

void cgroup_names_free(struct pts_cgroup_names *names)
{
	size_t i;

	if (!names)
		return;
	for (i = 0; i < names->nr; i++)
		name_free(&names->v[i]);
	free(names->v);
	retired_free(&names->retired);
	free(names->retired.v);
	free(names);
}

static int cmp_name(const void *a, const void *b)
{
	const struct cgroup_name *na = a, *nb = b;

	return na->id < nb->id ? -1 : na->id > nb->id;
}

static struct cgroup_name *find_name(const struct pts_cgroup_names *names,
				     __u64 id)
{
	struct cgroup_name key = { .id = id };

	if (!names->nr)
		return NULL;
	return bsearch(&key, names->v, names->nr, sizeof(key), cmp_name);
}

const char *cgroup_names_get(const struct pts_cgroup_names *names, __u64 id)
{
	const struct cgroup_name *n = names ? find_name(names, id) : NULL;

	return n ? n->path : NULL;
}

const char *cgroup_label(char *buf, size_t len, const char *path, __u64 id)
{
	if (id == PTS_CGROUP_REMOVED_ID)
		return "removed";
	if (path)
		return path;
	snprintf(buf, len, "id:%llu", (unsigned long long)id);
	return buf;
}

/* the ids a walk looks for, sorted; each found one's path filled */
struct wanted {
	struct cgroup_name *v;
	size_t nr, left;
};

static int found(struct wanted *w, __u64 id, const char *rel)
{
	struct cgroup_name key = { .id = id }, *n;

	n = bsearch(&key, w->v, w->nr, sizeof(key), cmp_name);
	if (!n || n->path)
		return 0;
	n->path = strdup(rel[0] ? rel : "/");
	if (!n->path)
		return -ENOMEM;
	w->left--;
	return 0;
}

/*
 * Depth first below @path (@rel: its part below the mount).  On cgroupfs
 * d_ino of a subdirectory is its cgroup id; files are skipped by d_type.
 */
static int walk(struct wanted *w, char *path, size_t len, size_t rel_off)
{
	size_t end = strlen(path);
	struct dirent *de;
	int err = 0;
	DIR *dir;

	dir = opendir(path);
	if (!dir)
		return 0;	/* removed meanwhile, or not readable */
	while (w->left && !err && (de = readdir(dir))) {
		if (de->d_type != DT_DIR || !strcmp(de->d_name, ".") ||
		    !strcmp(de->d_name, ".."))
			continue;
		if ((size_t)snprintf(path + end, len - end, "/%s",
				     de->d_name) >= len - end)
			continue;	/* deeper than PATH_MAX: left unknown */
		err = found(w, de->d_ino, path + rel_off);
		if (!err)
			err = walk(w, path, len, rel_off);
		path[end] = '\0';
	}
	closedir(dir);
	return err;
}

/* fill @w from the tree under the mount; unknown ones stay NULL */
static int walk_tree(const struct pts_cgroup_names *names, struct wanted *w)
{
	char path[PATH_MAX];
	struct stat st;
	size_t rel_off;

	if (!names->mount[0])
		return 0;
	snprintf(path, sizeof(path), "%s", names->mount);
	rel_off = strlen(path);
	while (rel_off > 1 && path[rel_off - 1] == '/')
		path[--rel_off] = '\0';
	if (!stat(path, &st) && found(w, st.st_ino, ""))
		return -ENOMEM;
	return walk(w, path, sizeof(path), rel_off);
}

/* the ids of @ids that are not cached, sorted, each once */
static int unknown_ids(const struct pts_cgroup_names *names, const __u64 *ids,
		       size_t nr, struct wanted *w)
{
	size_t i, n = 0;

	memset(w, 0, sizeof(*w));
	if (!nr)
		return 0;
	w->v = calloc(nr, sizeof(*w->v));
	if (!w->v)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (!find_name(names, ids[i]))
			w->v[w->nr++].id = ids[i];
	qsort(w->v, w->nr, sizeof(*w->v), cmp_name);
	for (i = 0; i < w->nr; i++)
		if (!n || w->v[n - 1].id != w->v[i].id)
			w->v[n++] = w->v[i];
	w->nr = w->left = n;
	return 0;
}

/* move @w's names into the cache, found or not */
static int cache_names(struct pts_cgroup_names *names, struct wanted *w)
{
	struct cgroup_name *v;
	size_t cap;

	if (!w->nr)
		return 0;
	if (names->nr + w->nr > names->cap) {
		cap = (names->nr + w->nr) * 2;
		v = realloc(names->v, cap * sizeof(*v));
		if (!v)
			return -ENOMEM;
		names->v = v;
		names->cap = cap;
	}
	memcpy(names->v + names->nr, w->v, w->nr * sizeof(*w->v));
	names->nr += w->nr;
	w->nr = 0;
	qsort(names->v, names->nr, sizeof(*names->v), cmp_name);
	return 0;
}

int cgroup_names_resolve(struct pts_cgroup_names *names, const __u64 *ids,
			 size_t nr)
{
	struct wanted w;
	size_t i;
	int err;

	err = unknown_ids(names, ids, nr, &w);
	if (!err && w.nr)
		err = walk_tree(names, &w);
	if (!err && w.nr)
		err = cache_names(names, &w);
	for (i = 0; i < w.nr; i++)	/* only left on an error */
		free(w.v[i].path);
	free(w.v);
	return err;
}

/* the cached path of @n is still the directory of cgroup @n->id */
static bool still_there(const struct pts_cgroup_names *names,
			const struct cgroup_name *n)
{
	char path[2 * PATH_MAX];
	struct stat st;

	if (!n->path)
		return false;
	snprintf(path, sizeof(path), "%s%s", names->mount,
		 strcmp(n->path, "/") ? n->path : "");
	return !stat(path, &st) && st.st_ino == n->id;
}

/* @n's strings go to the retired list (a snapshot may still point there) */
static int retire(struct pts_cgroup_names *names, struct cgroup_name *n)
{
	struct retired *r = &names->retired;

	if (grow_for_one((void **)&r->v, &r->cap, r->nr, sizeof(*n)))
		return -ENOMEM;
	r->v[r->nr++] = *n;
	n->path = NULL;
	n->kube = NULL;
	n->kube_checked = false;
	return 0;
}

/* drop the entries marked gone, keeping the order */
static void compact(struct pts_cgroup_names *names)
{
	size_t i, n = 0;

	for (i = 0; i < names->nr; i++)
		if (!names->v[i].gone)
			names->v[n++] = names->v[i];
	names->nr = n;
}

/*
 * The walk's verdict on each id of @w: found ones get their (new) path,
 * the others are gone (@gone[i] for @ids[i]) and leave the cache.
 */
static int apply_walk(struct pts_cgroup_names *names, struct wanted *w,
		      const __u64 *ids, size_t nr, bool *gone)
{
	struct cgroup_name key, *wn, *n;
	struct wanted fresh = { .v = w->v };
	size_t i;
	int err = 0;

	for (i = 0; i < nr && !err; i++) {
		key.id = ids[i];
		wn = bsearch(&key, w->v, w->nr, sizeof(key), cmp_name);
		n = wn ? find_name(names, ids[i]) : NULL;
		if (!wn)
			continue;	/* still where the cache says */
		gone[i] = !wn->path;
		if (n)
			err = retire(names, n);
		if (n && !err) {
			n->path = wn->path;	/* moved, or found at last */
			n->gone = gone[i];
			wn->path = NULL;
		}
	}
	/* found and not cached yet: cached now, the rest of @w forgotten */
	for (i = 0; i < w->nr; i++)
		if (w->v[i].path && !find_name(names, w->v[i].id))
			fresh.v[fresh.nr++] = w->v[i];
		else
			free(w->v[i].path);
	w->nr = 0;
	compact(names);
	return err ? err : cache_names(names, &fresh);
}

int cgroup_names_gone(struct pts_cgroup_names *names, const __u64 *ids,
		      size_t nr, bool *gone)
{
	struct cgroup_name *n;
	struct wanted w = { 0 };
	size_t i;
	int err;

	memset(gone, 0, nr * sizeof(*gone));
	if (!names->mount[0] || !nr)
		return 0;	/* cgroup v2 not mounted: cannot tell */
	retired_free(&names->retired);
	w.v = calloc(nr, sizeof(*w.v));
	if (!w.v)
		return -ENOMEM;
	for (i = 0; i < nr; i++) {
		n = find_name(names, ids[i]);
		if (!n || !still_there(names, n))
			w.v[w.nr++].id = ids[i];
	}
	qsort(w.v, w.nr, sizeof(*w.v), cmp_name);
	w.left = w.nr;
	err = w.nr ? walk_tree(names, &w) : 0;
	if (!err)
		err = apply_walk(names, &w, ids, nr, gone);
	for (i = 0; i < w.nr; i++)	/* only left on an error */
		free(w.v[i].path);
	free(w.v);
	return err;
}

const struct pts_kube_id *cgroup_names_kube(struct pts_cgroup_names *names,
					    __u64 id,
					    struct pts_kube_logs *logs)
{
	struct cgroup_name *n = find_name(names, id);
	struct pts_kube_ref ref;

	if (!n || !n->path || !logs)
		return NULL;
	if (!n->kube_checked) {
		n->kube_checked = true;
		if (kube_parse_cgroup(n->path, &ref)) {
			n->kube = malloc(sizeof(*n->kube));
			if (n->kube)
				kube_logs_identify(logs, &ref, n->kube);
		}
	} else if (n->kube && !n->kube->named) {
		/* a new pod's log entries may have come since */
		kube_logs_identify(logs, &n->kube->ref, n->kube);
	}
	return n->kube;
}
