// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "data/collector.h"
#include "data/counters.h"
#include "data/hist.h"

double mono_seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Sum a single-entry per-CPU array of __u64 words into @sum. */
static int read_percpu_words(int fd, __u64 *sum, size_t words)
{
	int ncpus = libbpf_num_possible_cpus();
	__u32 zero = 0;
	__u64 *all;
	size_t cpu, i;
	int err = 0;

	memset(sum, 0, words * sizeof(__u64));
	if (fd < 0)
		return 0;	/* no object loaded that counts here */
	if (ncpus <= 0)
		return -EINVAL;
	all = calloc((size_t)ncpus, words * sizeof(__u64));
	if (!all)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, &zero, all)) {
		err = -errno;
		goto cleanup;
	}
	for (cpu = 0; cpu < (size_t)ncpus; cpu++)
		for (i = 0; i < words; i++)
			sum[i] += all[cpu * words + i];
cleanup:
	free(all);
	return err;
}

/* room for element @nr of @size bytes in *@v, which has room for *@cap */
static int grow(void *v, size_t *cap, size_t nr, size_t size)
{
	size_t more = *cap ? *cap * 2 : 64;
	void *bigger;

	if (nr < *cap)
		return 0;
	bigger = realloc(*(void **)v, more * size);
	if (!bigger)
		return -ENOMEM;
	*(void **)v = bigger;
	*cap = more;
	return 0;
}

/* Append every row of a per-process map to @snap->procs. */
static int read_proc_map(int fd, bool exited, struct pts_snapshot *snap,
			 size_t *cap)
{
	__u32 key, next, *prev = NULL;
	struct pts_proc_entry *e;

	/*
	 * When the previous key was deleted meanwhile (its process exited),
	 * the hash map starts over from its first key: rows read twice are
	 * merged by merge_procs().
	 */
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (grow(&snap->procs, cap, snap->nr_procs, sizeof(*e)))
			return -ENOMEM;
		e = &snap->procs[snap->nr_procs];
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &e->stats))
			continue;	/* removed meanwhile */
		e->tgid = key;
		e->exited = exited;
		snap->nr_procs++;
	}
	return 0;
}

/* a process is its tgid and start time: tgids are reused */
static int cmp_proc_id(const void *a, const void *b)
{
	const struct pts_proc_entry *pa = a, *pb = b;

	if (pa->tgid != pb->tgid)
		return pa->tgid < pb->tgid ? -1 : 1;
	if (pa->stats.start_ns != pb->stats.start_ns)
		return pa->stats.start_ns < pb->stats.start_ns ? -1 : 1;
	return 0;
}

/*
 * Two reads of one process: a process that exited between the read of
 * "procs" and that of "procs_exited", or a row read twice.  Counters only
 * grow, so the larger value of each is the later read.
 */
static void merge_proc(struct pts_proc_entry *into,
		       const struct pts_proc_entry *from)
{
	__u64 *wi = into->stats.v;
	const __u64 *wf = from->stats.v;
	size_t i;

	for (i = 0; i < PTS_P_NR_COUNTERS; i++)
		if (wf[i] > wi[i])
			wi[i] = wf[i];
	into->exited |= from->exited;
}

/* sort the rows by process and merge the rows of the same process */
static void merge_procs(struct pts_snapshot *snap)
{
	size_t i, n = 0;

	if (!snap->nr_procs)
		return;
	qsort(snap->procs, snap->nr_procs, sizeof(*snap->procs), cmp_proc_id);
	for (i = 1; i < snap->nr_procs; i++) {
		if (!cmp_proc_id(&snap->procs[n], &snap->procs[i]))
			merge_proc(&snap->procs[n], &snap->procs[i]);
		else
			snap->procs[++n] = snap->procs[i];
	}
	snap->nr_procs = n + 1;
}

/*
 * procs_exited is an LRU map: rows of dead processes it evicted are lost,
 * and counted with the per-process rows dropped.  The counters were read
 * first, so a process that exited since is here but not yet counted:
 * this never counts more than were evicted.
 */
static void count_evicted(struct pts_snapshot *snap)
{
	__u64 moved = snap->counters.v[PTS_C_PROCS_EXITED], here = 0;
	size_t i;

	for (i = 0; i < snap->nr_procs; i++)
		here += snap->procs[i].exited;
	if (moved > here)
		snap->counters.v[PTS_C_DROP_PROC_MAP] += moved - here;
}

/*
 * Live processes ("procs") first, then those that exited: a process
 * exiting in between moves from the first map to the second, so it is
 * read once or twice, never missed.  procs_fd < 0 (the exporter): no
 * per-process rows at all.
 */
static int read_procs(const struct pts_objects *objs, struct pts_snapshot *snap)
{
	size_t cap = 0;
	int err;

	if (objs->procs_fd < 0)
		return 0;
	err = read_proc_map(objs->procs_fd, false, snap, &cap);
	if (!err && objs->procs_exited_fd >= 0)
		err = read_proc_map(objs->procs_exited_fd, true, snap, &cap);
	if (!err)
		merge_procs(snap);
	if (!err && objs->procs_exited_fd >= 0)
		count_evicted(snap);
	return err;
}

static int cmp_cgroup_id(const void *a, const void *b)
{
	const struct pts_cgroup_entry *ca = a, *cb = b;

	return ca->id < cb->id ? -1 : ca->id > cb->id;
}

/*
 * every row of the "cgroups" hash, sorted by id; rows leave it only in
 * cgroup_prune(), from this thread, so none goes missing during a read
 */
static int read_cgroups(int fd, struct pts_snapshot *snap)
{
	__u64 key, next, *prev = NULL;
	struct pts_cgroup_entry *e;
	size_t cap = 0;

	snap->has_cgroups = true;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		if (grow(&snap->cgroups, &cap, snap->nr_cgroups, sizeof(*e)))
			return -ENOMEM;
		e = &snap->cgroups[snap->nr_cgroups];
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &e->stats))
			continue;
		e->id = key;
		e->path = NULL;
		e->kube = NULL;
		snap->nr_cgroups++;
	}
	if (snap->nr_cgroups)
		qsort(snap->cgroups, snap->nr_cgroups, sizeof(*snap->cgroups),
		      cmp_cgroup_id);
	return 0;
}

int collector_read(const struct pts_objects *objs, struct pts_snapshot *snap)
{
	int err = 0;

	memset(snap, 0, sizeof(*snap));
	snap->mono_s = mono_seconds();
	/* first: the counters are then at least the sum of the rows */
	if (objs->cgroups_fd >= 0)
		err = read_cgroups(objs->cgroups_fd, snap);
	if (!err)
		err = read_percpu_words(objs->counters_fd, snap->counters.v,
					PTS_NR_COUNTERS);
	if (!err)
		err = read_percpu_words(objs->hists_fd, (__u64 *)&snap->hists,
					sizeof(snap->hists) / sizeof(__u64));
	if (!err)
		err = read_procs(objs, snap);
	return err;
}

void snapshot_free(struct pts_snapshot *snap)
{
	free(snap->procs);
	snap->procs = NULL;
	snap->nr_procs = 0;
	free(snap->cgroups);
	snap->cgroups = NULL;
	snap->nr_cgroups = 0;
}

/* the row of @key's process in @snap (sorted by collector_read) */
static const struct pts_proc_entry *find_proc(const struct pts_snapshot *snap,
					      const struct pts_proc_entry *key)
{
	if (!snap->nr_procs)
		return NULL;
	return bsearch(key, snap->procs, snap->nr_procs, sizeof(*snap->procs),
		       cmp_proc_id);
}

static void proc_sub(struct pts_proc *out, const struct pts_proc *a,
		     const struct pts_proc *b)
{
	size_t i;

	memcpy(out->comm, a->comm, PTS_COMM_LEN);
	out->start_ns = a->start_ns;
	for (i = 0; i < PTS_P_NR_COUNTERS; i++)
		out->v[i] = a->v[i] - b->v[i];
}

void cgroup_sub_row(struct pts_cgroup *a, const struct pts_cgroup *b)
{
	__u64 *wa = (__u64 *)a;
	const __u64 *wb = (const __u64 *)b;
	size_t w;

	for (w = 0; w < sizeof(*a) / sizeof(__u64); w++)
		wa[w] -= wb[w];
}

/*
 * The removed row of @out grew by the rows moved into it since @prev (in
 * @prev, gone from @now) as they were then: only what those cgroups did
 * in between is new.
 */
static void removed_delta(const struct pts_snapshot *now,
			  const struct pts_snapshot *prev,
			  struct pts_snapshot *out)
{
	struct pts_cgroup_entry *removed = out->cgroups;
	const struct pts_cgroup_entry *e;
	size_t i;

	if (!out->nr_cgroups || removed->id != PTS_CGROUP_REMOVED_ID)
		return;		/* sorted by id: it is first, if there */
	for (i = 0; i < prev->nr_cgroups; i++) {
		e = &prev->cgroups[i];
		if (e->id != PTS_CGROUP_REMOVED_ID &&
		    !bsearch(e, now->cgroups, now->nr_cgroups, sizeof(*e),
			     cmp_cgroup_id))
			cgroup_sub_row(&removed->stats, &e->stats);
	}
}

/*
 * out = now - prev per cgroup: a row new since @prev starts from zero,
 * the removed row counts only what was new in the rows moved into it
 */
static int cgroups_delta(const struct pts_snapshot *now,
			 const struct pts_snapshot *prev,
			 struct pts_snapshot *out)
{
	static const struct pts_cgroup zero_cgroup;
	const struct pts_cgroup_entry *e, *old;
	size_t i;

	out->has_cgroups = now->has_cgroups;
	if (!now->nr_cgroups)
		return 0;
	out->cgroups = calloc(now->nr_cgroups, sizeof(*out->cgroups));
	if (!out->cgroups)
		return -ENOMEM;
	for (i = 0; i < now->nr_cgroups; i++) {
		e = &now->cgroups[i];
		old = prev->nr_cgroups ? bsearch(e, prev->cgroups,
						 prev->nr_cgroups, sizeof(*e),
						 cmp_cgroup_id) : NULL;
		out->cgroups[i] = *e;
		cgroup_sub_row(&out->cgroups[i].stats,
			       old ? &old->stats : &zero_cgroup);
	}
	out->nr_cgroups = now->nr_cgroups;
	removed_delta(now, prev, out);
	return 0;
}

int snapshot_delta(const struct pts_snapshot *now,
		   const struct pts_snapshot *prev, struct pts_snapshot *out)
{
	static const struct pts_proc zero_proc;
	const struct pts_proc_entry *old;
	size_t i;
	int h;

	memset(out, 0, sizeof(*out));
	out->mono_s = now->mono_s - prev->mono_s;
	for (i = 0; i < PTS_NR_COUNTERS; i++)
		out->counters.v[i] = now->counters.v[i] - prev->counters.v[i];
	for (h = 0; h < PTS_NR_HISTS; h++)
		hist_sub(&out->hists.h[h], &now->hists.h[h], &prev->hists.h[h]);
	if (cgroups_delta(now, prev, out))
		return -ENOMEM;
	if (!now->nr_procs)
		return 0;
	out->procs = calloc(now->nr_procs, sizeof(*out->procs));
	if (!out->procs)
		return -ENOMEM;
	for (i = 0; i < now->nr_procs; i++) {
		old = find_proc(prev, &now->procs[i]);
		out->procs[i].tgid = now->procs[i].tgid;
		out->procs[i].exited = now->procs[i].exited;
		proc_sub(&out->procs[i].stats, &now->procs[i].stats,
			 old ? &old->stats : &zero_proc);
	}
	out->nr_procs = now->nr_procs;
	return 0;
}

__u64 proc_total_mremap(const struct pts_proc *p)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < PTS_MREMAP_CLASSES; i++)
		n += p->v[PTS_P_MREMAP_CALLS + i];
	return n;
}

void cgroup_snapshot(struct pts_snapshot *view, const struct pts_cgroup *c)
{
	memset(view, 0, sizeof(*view));
	counters_from_cgroup(&view->counters, c);
}

void cgroup_add_row(struct pts_cgroup *sum, const struct pts_cgroup *row)
{
	size_t i;

	for (i = 0; i < PTS_CG_NR_COUNTERS; i++)
		sum->v[i] += row->v[i];
}

__u64 cgroup_total_mremap(const struct pts_cgroup *c)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < PTS_MREMAP_CLASSES; i++)
		n += c->v[PTS_CG_MREMAP_CALLS + i];
	return n;
}

__u64 cgroup_total_faults(const struct pts_cgroup *c)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < PTS_MAX_ORDER; i++)
		n += c->v[PTS_CG_FAULT_ALLOC + i] +
		     c->v[PTS_CG_FAULT_FALLBACK + i];
	return n;
}

__u64 proc_total_faults(const struct pts_proc *p)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < PTS_MAX_ORDER; i++)
		n += p->v[PTS_P_FAULT_ALLOC + i] + p->v[PTS_P_FAULT_FALLBACK + i];
	return n;
}
