// SPDX-License-Identifier: GPL-2.0
/*
 * Mappings of known placement for ptscope-bench: reserved address space,
 * regions aligned with a hole on each side, their THP advice, and marker
 * words that prove a moved page is the page that was written.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sys/mman.h>

#include "bench_common.h"

#define MARKER_MAGIC	0x70747363ULL	/* "ptsc" */

int apply_thp(char *addr, uint64_t len, enum thp_mode thp)
{
	if (thp == THP_NEVER)
		return madvise(addr, len, MADV_NOHUGEPAGE);
	if (thp == THP_ALWAYS)
		return madvise(addr, len, MADV_HUGEPAGE);
	return 0;
}

/*
 * Reserve @len bytes of address space: PROT_NONE and MAP_NORESERVE, so
 * no memory is committed.  0 and *out set, or -1 with errno (the caller
 * says what the window was for).
 */
int reserve_va(uint64_t len, char **out)
{
	void *window = mmap(NULL, len, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);

	if (window == MAP_FAILED)
		return -1;
	*out = window;
	return 0;
}

/*
 * Map len bytes aligned to align: reserve len + align + a page of address
 * space (so even a PUD alignment of 64 GiB costs nothing), map the region
 * over it and unmap the slack on both sides, so the region has a hole on
 * each side and cannot merge with a neighbouring VMA.
 */
int map_aligned(uint64_t len, uint64_t align, char **out)
{
	uint64_t reserve_len = len + align + page_size;
	uintptr_t raw, start, end;
	char *mapped;

	if (reserve_va(reserve_len, &mapped))
		return fail_errno("mmap reserve %" PRIu64 " bytes", reserve_len);
	raw = (uintptr_t)mapped;
	start = ALIGN_UP(raw + page_size, align);
	end = start + len;
	if (mmap((void *)start, len, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) {
		munmap(mapped, reserve_len);
		return fail_errno("mmap %" PRIu64 " bytes at %p", len,
				  (void *)start);
	}
	if (munmap(mapped, start - raw) ||
	    (raw + reserve_len > end &&
	     munmap((void *)end, raw + reserve_len - end)))
		return fail_errno("munmap alignment slack");
	*out = (char *)start;
	return 0;
}

/* map_aligned(), then the --thp advice; nothing stays mapped on failure */
int map_advised(uint64_t len, uint64_t align, enum thp_mode thp, char **out)
{
	int ret;

	ret = map_aligned(len, align, out);
	if (ret)
		return ret;
	if (apply_thp(*out, len, thp)) {
		ret = fail_errno("madvise %p", (void *)*out);
		munmap(*out, len);
	}
	return ret;
}

/* Unmap a region at the end of a subcommand's step: @ret, or the failure. */
int unmap_region(char *region, uint64_t len, int ret)
{
	if (munmap(region, len) && !ret)
		ret = fail_errno("munmap %p", (void *)region);
	return ret;
}

static uint64_t marker_for(uint64_t iteration, uint64_t page)
{
	return (MARKER_MAGIC << 32) ^ (iteration << 24) ^ page;
}

/* Write one marker word at the start of pages [first, first + count). */
void write_markers(char *base, uint64_t first, uint64_t count,
		   uint64_t iteration)
{
	uint64_t page;

	for (page = first; page < first + count; page++)
		*(volatile uint64_t *)(base + page * page_size) =
			marker_for(iteration, page);
}

/* Check markers of pages [first, first + count); 0 if all match. */
int check_markers(const char *base, uint64_t first, uint64_t count,
		  uint64_t iteration)
{
	uint64_t page, found, expected;
	const char *where;

	for (page = first; page < first + count; page++) {
		where = base + page * page_size;
		found = *(const volatile uint64_t *)where;
		expected = marker_for(iteration, page);
		if (found != expected)
			return fail_msg("marker mismatch at %p (page %" PRIu64
					"): found 0x%016" PRIx64
					", expected 0x%016" PRIx64,
					(const void *)where, page, found,
					expected);
	}
	return 0;
}
