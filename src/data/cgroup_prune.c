// SPDX-License-Identifier: GPL-2.0
/* Rows of removed cgroups folded into the removed row (see cgroup_prune.h). */
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include "data/cgroup_prune.h"
#include "data/collector.h"
#include "data/grow.h"

int cgroup_prune_init(int fd)
{
	static const struct pts_cgroup zero;
	__u64 key = PTS_CGROUP_REMOVED_ID;

	if (bpf_map_update_elem(fd, &key, &zero, BPF_NOEXIST) &&
	    errno != EEXIST)
		return -errno;
	return 0;
}

/* the ids of the map's rows but the removed row; -ENOMEM */
static int row_ids(int fd, __u64 **ids, size_t *nr)
{
	__u64 key, next, *prev = NULL;
	size_t cap = 0;

	*ids = NULL;
	*nr = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (key == PTS_CGROUP_REMOVED_ID)
			continue;
		if (grow_for_one((void **)ids, &cap, *nr, sizeof(**ids)))
			return -ENOMEM;
		(*ids)[(*nr)++] = key;
	}
	return 0;
}

/* the rows of @ids marked @gone, deleted, summed into @sum; how many */
static int take_rows(int fd, const __u64 *ids, const bool *gone, size_t nr,
		     struct pts_cgroup *sum)
{
	struct pts_cgroup row;
	size_t i;
	int n = 0;

	for (i = 0; i < nr; i++) {
		if (!gone[i] || bpf_map_lookup_elem(fd, &ids[i], &row))
			continue;
		if (bpf_map_delete_elem(fd, &ids[i]))
			continue;
		cgroup_add_row(sum, &row);
		n++;
	}
	return n;
}

/* the removed row += @sum (it exists: cgroup_prune_init()) */
static int add_removed(int fd, const struct pts_cgroup *sum)
{
	__u64 key = PTS_CGROUP_REMOVED_ID;
	struct pts_cgroup row;

	if (bpf_map_lookup_elem(fd, &key, &row))
		memset(&row, 0, sizeof(row));
	cgroup_add_row(&row, sum);
	return bpf_map_update_elem(fd, &key, &row, BPF_ANY) ? -errno : 0;
}

int cgroup_prune(int fd, struct pts_cgroup_names *names)
{
	struct pts_cgroup sum;
	bool *gone = NULL;
	__u64 *ids;
	size_t nr;
	int n = 0, err;

	err = row_ids(fd, &ids, &nr);
	if (err || !nr)
		goto cleanup;
	gone = calloc(nr, sizeof(*gone));
	err = gone ? cgroup_names_gone(names, ids, nr, gone) : -ENOMEM;
	if (err)
		goto cleanup;
	memset(&sum, 0, sizeof(sum));
	n = take_rows(fd, ids, gone, nr, &sum);
	if (n)
		err = add_removed(fd, &sum);
cleanup:
	free(gone);
	free(ids);
	return err ? err : n;
}
