// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/PID/smaps: a header line per VMA ("start-end perms offset dev
 * inode [name]", show_map_vma() in fs/proc/task_mmu.c) and "Key: N kB"
 * lines under it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "data/grow.h"
#include "maps/smaps.h"

/* "7f0c00000000-7f0c04000000 rw-p ...": 1 and the range, else 0 */
static int parse_header(const char *line, uint64_t *start, uint64_t *end)
{
	char perms[5];

	return sscanf(line, "%" SCNx64 "-%" SCNx64 " %4s", start, end,
		      perms) == 3;
}

/* the kB of "@key N kB" in @line, or -1 when @line is not that counter */
static int64_t counter_kb(const char *line, const char *key)
{
	size_t len = strlen(key);
	uint64_t kb;

	if (strncmp(line, key, len) || line[len] != ':')
		return -1;
	if (sscanf(line + len + 1, "%" SCNu64 " kB", &kb) != 1)
		return -1;
	return (int64_t)kb;
}

static int add_vma(struct smaps_list *l, uint64_t start, uint64_t end)
{
	if (end <= start || (l->nr && start < l->vma[l->nr - 1].end))
		return -EINVAL;
	if (grow_for_one((void **)&l->vma, &l->cap, l->nr, sizeof(*l->vma)))
		return -ENOMEM;
	l->vma[l->nr++] = (struct smaps_vma){ .start = start, .end = end };
	return 0;
}

/* a counter line of the current VMA; -EINVAL before any VMA */
static int add_counter(struct smaps_list *l, const char *line)
{
	struct smaps_vma *v;
	int64_t kb;

	if (!l->nr)
		return -EINVAL;
	v = &l->vma[l->nr - 1];
	kb = counter_kb(line, "Anonymous");
	if (kb >= 0)
		v->anon_kb = (uint64_t)kb;
	kb = counter_kb(line, "AnonHugePages");
	if (kb >= 0)
		v->anon_huge_kb = (uint64_t)kb;
	return 0;
}

int smaps_read(FILE *f, struct smaps_list *out)
{
	uint64_t start, end;
	char *line = NULL;
	size_t len = 0;
	int err = 0;

	memset(out, 0, sizeof(*out));
	errno = 0;
	while (!err && getline(&line, &len, f) >= 0) {
		if (parse_header(line, &start, &end))
			err = add_vma(out, start, end);
		else
			err = add_counter(out, line);
	}
	if (!err && ferror(f))
		err = errno == ENOMEM ? -ENOMEM : -EIO;
	free(line);
	if (err)
		smaps_free(out);
	return err;
}

void smaps_free(struct smaps_list *l)
{
	free(l->vma);
	memset(l, 0, sizeof(*l));
}

const struct smaps_vma *smaps_find(const struct smaps_list *l, uint64_t addr)
{
	size_t lo = 0, hi = l->nr, mid;

	while (lo < hi) {
		mid = lo + (hi - lo) / 2;
		if (addr < l->vma[mid].start)
			hi = mid;
		else if (addr >= l->vma[mid].end)
			lo = mid + 1;
		else
			return &l->vma[mid];
	}
	return NULL;
}
