// SPDX-License-Identifier: GPL-2.0
/*
 * Reading pagemap returns an entry for every page of a range, mapped or
 * not: the 16 TiB shadow of an AddressSanitizer process is 32 GiB of
 * entries (ptscope maps took 20 s on one).  PAGEMAP_SCAN walks the page
 * tables instead and skips what is empty (do_pagemap_scan() and
 * pagemap_scan_pmd_entry() in fs/proc/task_mmu.c, 6.7+).
 */
#include <errno.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <linux/types.h>
#include "maps/pagemap_scan.h"

#ifndef PAGEMAP_SCAN
/*
 * The interface of include/uapi/linux/fs.h (6.7) for older headers; the
 * kernel checks size == sizeof(struct pm_scan_arg) (pagemap_scan_get_args()).
 */
struct page_region {
	__u64 start;
	__u64 end;
	__u64 categories;
};

struct pm_scan_arg {
	__u64 size;
	__u64 flags;
	__u64 start;
	__u64 end;
	__u64 walk_end;
	__u64 vec;
	__u64 vec_len;
	__u64 max_pages;
	__u64 category_inverted;
	__u64 category_mask;
	__u64 category_anyof_mask;
	__u64 return_mask;
};

#define PAGE_IS_PRESENT	(1 << 3)
#define PAGE_IS_SWAPPED	(1 << 4)
#define PAGEMAP_SCAN	_IOWR('f', 16, struct pm_scan_arg)
#endif

#define SCAN_REGIONS	128

int pagemap_populated(int fd, uint64_t start, uint64_t end,
		      pagemap_range_fn fn, void *ctx)
{
	struct page_region vec[SCAN_REGIONS];
	struct pm_scan_arg arg = {
		.size = sizeof(arg),
		.start = start,
		.end = end,
		.vec = (__u64)(uintptr_t)vec,
		.vec_len = SCAN_REGIONS,
		.category_anyof_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
		.return_mask = PAGE_IS_PRESENT | PAGE_IS_SWAPPED,
	};
	long n, i;
	int err;

	while (arg.start < end) {
		n = ioctl(fd, PAGEMAP_SCAN, &arg);
		if (n < 0 && errno == ESRCH)
			return -ESRCH;
		if (n < 0)	/* ENOTTY before 6.7 or on a plain file */
			return fn(ctx, arg.start, end);
		for (i = 0; i < n; i++) {
			err = fn(ctx, vec[i].start, vec[i].end);
			if (err)
				return err;
		}
		/* the walk stops where the vector filled up */
		if (arg.walk_end <= arg.start)
			break;
		arg.start = arg.walk_end;
	}
	return 0;
}
