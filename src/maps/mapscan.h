/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a process has mapped now, per folio size: its anonymous pages from
 * /proc/PID/pagemap (the frame of each page, root only), the folio of each
 * frame from /proc/kpageflags, and which PMD-order folios a PMD entry maps
 * from the AnonHugePages of each VMA in /proc/PID/smaps.
 *
 * Every page size is the running kernel's: a PMD maps page_size / 8
 * pages (a page table of 8-byte entries), 2 MiB with 4 KiB pages, 32 MiB
 * with 16 KiB, 512 MiB with 64 KiB.
 */
#ifndef PTSCOPE_MAPSCAN_H
#define PTSCOPE_MAPSCAN_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <ptscope/ptscope.h>

/* how a PTE-mapped large folio sits in the process */
enum mapscan_fit {
	MAPSCAN_ALIGNED,	/* all pages, one run, virtually aligned to its size */
	MAPSCAN_UNALIGNED,	/* all pages, but not so */
	MAPSCAN_PARTIAL,	/* only some of its pages are mapped here */
	MAPSCAN_FITS,
};

struct mapscan_tally {
	uint64_t folios;
	uint64_t pages;		/* of them mapped in this process */
};

struct mapscan_counts {
	uint64_t page_size;
	unsigned int pmd_order;
	struct mapscan_tally pmd;	/* PMD-order folios a PMD entry maps */
	/* PTE-mapped large folios per order (1 to PTS_MAX_ORDER - 1) */
	struct mapscan_tally pte[PTS_MAX_ORDER][MAPSCAN_FITS];
	uint64_t order0_pages;		/* pages of no large folio */
	uint64_t anon_pages;		/* every present anonymous page */
	/* large-folio pages whose folio changed while being read */
	uint64_t unresolved_pages;
	uint64_t zero_pages;		/* the shared zero page: not anonymous */
	uint64_t swap_pages;		/* anonymous pages swapped out */
	uint64_t smaps_anon_kb;		/* the kernel's own totals */
	uint64_t smaps_anon_huge_kb;
	/*
	 * PMD mappings smaps counted without a PMD-order folio at a PMD-aligned
	 * address in that VMA: the process changed between the two reads
	 */
	uint64_t pmd_unmatched;
};

/* empty counts of a @page_size kernel */
void mapscan_init(struct mapscan_counts *c, uint64_t page_size);
/*
 * Scan one process into @c (made by mapscan_init(), its counts replaced):
 * @smaps its smaps, @pagemap_fd its pagemap, @kpageflags_fd
 * /proc/kpageflags (or files like them).  0 or -errno:
 * -EPERM when pagemap hides the frames (no CAP_SYS_ADMIN), -EINVAL for a
 * malformed smaps, -EIO on a failed read, -ENOMEM.
 */
int mapscan_scan(FILE *smaps, int pagemap_fd, int kpageflags_fd,
		 struct mapscan_counts *c);
/*
 * Scan process @pid through /proc; -ESRCH when it is gone, -EACCES when
 * its files cannot be opened, else as mapscan_scan().  A scan that saw
 * the process change (pmd_unmatched, unresolved_pages) is made once more.
 */
int mapscan_pid(pid_t pid, int kpageflags_fd, struct mapscan_counts *c);
/* @sum += @c */
void mapscan_add(struct mapscan_counts *sum, const struct mapscan_counts *c);
/* the bytes of @pages pages */
uint64_t mapscan_bytes(const struct mapscan_counts *c, uint64_t pages);

#endif
