/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The populated ranges of a process's address range: what is mapped or
 * swapped, through the PAGEMAP_SCAN ioctl of /proc/PID/pagemap (6.7+),
 * so a huge sparse mapping is not read entry by entry.
 */
#ifndef PTSCOPE_PAGEMAP_SCAN_H
#define PTSCOPE_PAGEMAP_SCAN_H

#include <stdint.h>

/* one range [start, end): 0 or -errno, which ends the scan */
typedef int (*pagemap_range_fn)(void *ctx, uint64_t start, uint64_t end);

/*
 * @fn for each range of [@start, @end) (page aligned) in which pagemap
 * file @fd has present or swapped pages; for the whole rest of it where
 * PAGEMAP_SCAN is not there (before 6.7, or @fd is no pagemap file).
 * 0, -ESRCH when the process is gone, or what @fn returned.
 */
int pagemap_populated(int fd, uint64_t start, uint64_t end,
		      pagemap_range_fn fn, void *ctx);

#endif
