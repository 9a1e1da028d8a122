// SPDX-License-Identifier: GPL-2.0
/*
 * Folios from /proc/kpageflags.  stable_page_flags() (fs/proc/page.c,
 * 6.12) sets KPF_COMPOUND_HEAD on the first frame of a large folio,
 * KPF_COMPOUND_TAIL on the others, and KPF_THP on every frame of an
 * anonymous or page-cache large folio of any order (not only PMD-sized).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel-page-flags.h>
#include "maps/kpageflags.h"

#define HEAD	KPF_BIT(KPF_COMPOUND_HEAD)
#define TAIL	KPF_BIT(KPF_COMPOUND_TAIL)

int kpf_init(struct kpf_reader *r, int fd, unsigned int max_order)
{
	memset(r, 0, sizeof(*r));
	r->fd = fd;
	r->max_order = max_order;
	r->flags = calloc((size_t)1 << max_order, sizeof(*r->flags));
	return r->flags ? 0 : -ENOMEM;
}

void kpf_release(struct kpf_reader *r)
{
	free(r->flags);
	r->flags = NULL;
}

/* the block of 2^max_order frames around @pfn into r->flags */
static int read_block(struct kpf_reader *r, uint64_t pfn)
{
	size_t block = (size_t)1 << r->max_order, i;
	uint64_t base = pfn & ~((uint64_t)block - 1);
	ssize_t got;

	if (r->nr && r->base == base)
		return 0;
	r->have_last = false;
	got = pread(r->fd, r->flags, block * sizeof(*r->flags),
		    (off_t)(base * sizeof(*r->flags)));
	if (got < 0) {
		r->nr = 0;
		return -EIO;
	}
	r->base = base;
	r->nr = block;
	/* kpageflags_read() stops at the last frame of memory */
	for (i = (size_t)got / sizeof(*r->flags); i < block; i++)
		r->flags[i] = KPF_BIT(KPF_NOPAGE);
	return 0;
}

static bool in_last(const struct kpf_reader *r, uint64_t pfn)
{
	return r->have_last && pfn >= r->last.head &&
	       pfn - r->last.head < (1ULL << r->last.order);
}

/* head and order of the large folio holding block index @i */
static int find_folio(const struct kpf_reader *r, size_t i,
		      struct kpf_folio *f)
{
	size_t head = i, n = 1;

	while (head > 0 && (r->flags[head] & TAIL))
		head--;
	if (!(r->flags[head] & HEAD))
		return -ESTALE;
	while (head + n < r->nr && (r->flags[head + n] & TAIL))
		n++;
	/* a folio is 2^order frames from a head aligned to its size */
	if (n < 2 || n & (n - 1) || head & (n - 1) || i >= head + n)
		return -ESTALE;
	f->head = r->base + head;
	f->order = (unsigned int)__builtin_ctzll(n);
	return 0;
}

int kpf_folio(struct kpf_reader *r, uint64_t pfn, struct kpf_folio *f)
{
	size_t i;
	int err;

	err = read_block(r, pfn);
	if (err)
		return err;
	i = (size_t)(pfn - r->base);
	if (in_last(r, pfn)) {
		*f = r->last;
	} else if (!(r->flags[i] & (HEAD | TAIL))) {
		f->head = pfn;
		f->order = 0;
	} else {
		err = find_folio(r, i, f);
		if (err)
			return err;
		r->last = *f;
		r->have_last = true;
	}
	f->flags = r->flags[i];
	return 0;
}
