// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "collector.h"
#include "hist.h"

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

static int read_procs(int fd, struct pts_snapshot *snap)
{
	size_t cap = 0;
	__u32 key, next, *prev = NULL;

	if (fd < 0)
		return 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct pts_proc_entry *e;

		if (snap->nr_procs == cap) {
			cap = cap ? cap * 2 : 64;
			e = realloc(snap->procs, cap * sizeof(*e));
			if (!e)
				return -ENOMEM;
			snap->procs = e;
		}
		e = &snap->procs[snap->nr_procs];
		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &e->stats))
			continue;	/* removed meanwhile */
		e->tgid = key;
		snap->nr_procs++;
	}
	return 0;
}

int collector_read(const struct pts_objects *objs, struct pts_snapshot *snap)
{
	int err;

	memset(snap, 0, sizeof(*snap));
	snap->mono_s = mono_seconds();
	err = read_percpu_words(objs->counters_fd, snap->counters.v,
				PTS_NR_COUNTERS);
	if (!err)
		err = read_percpu_words(objs->hists_fd, (__u64 *)&snap->hists,
					sizeof(snap->hists) / sizeof(__u64));
	if (!err)
		err = read_procs(objs->procs_fd, snap);
	return err;
}

void snapshot_free(struct pts_snapshot *snap)
{
	free(snap->procs);
	snap->procs = NULL;
	snap->nr_procs = 0;
}

static const struct pts_proc_entry *find_proc(const struct pts_snapshot *snap,
					      __u32 tgid)
{
	size_t i;

	for (i = 0; i < snap->nr_procs; i++)
		if (snap->procs[i].tgid == tgid)
			return &snap->procs[i];
	return NULL;
}

static void proc_sub(struct pts_proc *out, const struct pts_proc *a,
		     const struct pts_proc *b)
{
	const __u64 *wa = (const __u64 *)((const char *)a + PTS_COMM_LEN);
	const __u64 *wb = (const __u64 *)((const char *)b + PTS_COMM_LEN);
	__u64 *wo = (__u64 *)((char *)out + PTS_COMM_LEN);
	size_t i, words = (sizeof(*a) - PTS_COMM_LEN) / sizeof(__u64);

	memcpy(out->comm, a->comm, PTS_COMM_LEN);
	for (i = 0; i < words; i++)
		wo[i] = wa[i] - wb[i];
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
	if (!now->nr_procs)
		return 0;
	out->procs = calloc(now->nr_procs, sizeof(*out->procs));
	if (!out->procs)
		return -ENOMEM;
	for (i = 0; i < now->nr_procs; i++) {
		old = find_proc(prev, now->procs[i].tgid);
		out->procs[i].tgid = now->procs[i].tgid;
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
		n += p->mremap_calls[i];
	return n;
}

__u64 proc_total_faults(const struct pts_proc *p)
{
	__u64 n = 0;
	int i;

	for (i = 0; i < PTS_MAX_ORDER; i++)
		n += p->fault_alloc[i] + p->fault_fallback[i];
	return n;
}
