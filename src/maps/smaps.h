/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The VMAs of /proc/PID/smaps with the two counters ptscope maps needs:
 * Anonymous (anonymous pages mapped) and AnonHugePages (anonymous THPs
 * mapped by a PMD entry, smaps_pmd_entry() in fs/proc/task_mmu.c).
 */
#ifndef PTSCOPE_SMAPS_H
#define PTSCOPE_SMAPS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct smaps_vma {
	uint64_t start;		/* [start, end): virtual addresses */
	uint64_t end;
	uint64_t anon_kb;	/* Anonymous: */
	uint64_t anon_huge_kb;	/* AnonHugePages: */
};

struct smaps_list {
	struct smaps_vma *vma;	/* in address order, as smaps lists them */
	size_t nr;
	size_t cap;
};

/*
 * Every VMA of @f (an smaps file); 0, -ENOMEM, -EIO on a read error or
 * -EINVAL for a file that is not smaps (a counter before any VMA, a VMA
 * that ends before it starts or overlaps the one before).  @out is empty
 * on error and freed with smaps_free() either way.
 */
int smaps_read(FILE *f, struct smaps_list *out);
void smaps_free(struct smaps_list *l);
/* the VMA of @l holding @addr, or NULL */
const struct smaps_vma *smaps_find(const struct smaps_list *l, uint64_t addr);

#endif
