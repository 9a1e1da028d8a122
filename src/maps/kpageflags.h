/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The folio a page frame belongs to, from /proc/kpageflags (root only):
 * a folio of order n is 2^n frames, a head (KPF_COMPOUND_HEAD) and tails
 * (KPF_COMPOUND_TAIL), naturally aligned because the buddy allocator hands
 * out blocks aligned to their size.  Frames are read a block of
 * 2^max_order at a time, the block that holds every folio of at most that
 * order around a frame.
 */
#ifndef PTSCOPE_KPAGEFLAGS_H
#define PTSCOPE_KPAGEFLAGS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define KPF_BIT(kpf)	(1ULL << (kpf))

struct kpf_folio {
	uint64_t head;		/* frame of the head page */
	unsigned int order;	/* 0: not a large folio */
	uint64_t flags;		/* the frame's own KPF_* bits */
};

struct kpf_reader {
	int fd;			/* /proc/kpageflags or a file like it */
	unsigned int max_order;	/* the largest folio looked for */
	uint64_t base;		/* first frame in @flags */
	size_t nr;		/* frames read into @flags; 0: none yet */
	uint64_t *flags;	/* 2^max_order entries */
	struct kpf_folio last;	/* the last large folio found */
	bool have_last;
};

/* 0 or -ENOMEM; @fd stays the caller's */
int kpf_init(struct kpf_reader *r, int fd, unsigned int max_order);
void kpf_release(struct kpf_reader *r);
/*
 * The folio of frame @pfn: 0 and @f filled, -ESTALE when the flags
 * around it describe no folio of at most max_order (it was split, freed
 * or made while being read, or is larger), -EIO on a failed read.
 * Frames past the end of the file read as KPF_NOPAGE.
 */
int kpf_folio(struct kpf_reader *r, uint64_t pfn, struct kpf_folio *f);

#endif
