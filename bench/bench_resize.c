// SPDX-License-Identifier: GPL-2.0
/*
 * Resizes with mremap(MREMAP_MAYMOVE), as realloc() does them: grow (a
 * region grown N times, in place where the address space after it is
 * free, moved elsewhere when not), realloc (the same through glibc's
 * realloc()) and fail (N calls the kernel rejects).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <sys/mman.h>

#include "bench_common.h"

/* Grow once; prints the call and updates *region / *region_len. */
static int grow_once(char **region, uint64_t *region_len, uint64_t step,
		     bool *moved)
{
	uint64_t old_pages = *region_len / page_size;
	uint64_t step_pages = step / page_size;
	char *old = *region, *grown;
	int ret;

	grown = mremap(old, *region_len, *region_len + step, MREMAP_MAYMOVE);
	if (grown == MAP_FAILED)
		return fail_errno("mremap grow %p from %" PRIu64 " to %" PRIu64
				  " bytes", (void *)old, *region_len,
				  *region_len + step);
	*region = grown;
	*moved = grown != old;
	ret = check_markers(grown, 0, 1, 0) ?:
	      check_markers(grown, old_pages - 1, 1, 0);
	if (ret)
		return ret;
	write_markers(grown, old_pages, step_pages, 0);
	printf("grow old=0x%" PRIxPTR " new=0x%" PRIxPTR " old_size=%" PRIu64
	       " new_size=%" PRIu64 " moved=%d\n", (uintptr_t)old,
	       (uintptr_t)grown, *region_len, *region_len + step, *moved);
	*region_len += step;
	return 0;
}

static int run_grow(uint64_t start, uint64_t step, uint64_t count)
{
	uint64_t region_len = start, call, moved_calls = 0;
	bool moved = false;
	char *region = NULL;
	int ret = 0;

	region = mmap(NULL, start, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return fail_errno("mmap %" PRIu64 " bytes", start);
	write_markers(region, 0, start / page_size, 0);
	for (call = 0; call < count; call++) {
		ret = grow_once(&region, &region_len, step, &moved);
		if (ret)
			goto cleanup;
		moved_calls += moved;
	}
	printf("mremap_calls=%" PRIu64 " moved=%" PRIu64 " in_place=%" PRIu64
	       "\n", count, moved_calls, count - moved_calls);
cleanup:
	munmap(region, region_len);
	return ret;
}

/* --start, --step and --count, as grow and realloc take them */
static int parse_growth(int argc, char **argv, const char *cmd,
			struct bench_args *args)
{
	const unsigned int options = OPT_BIT(OPT_START) | OPT_BIT(OPT_STEP) |
				    OPT_BIT(OPT_COUNT);
	int ret;

	ret = parse_args(argc, argv, options, args) ?:
	      require(args, cmd, OPT_START) ?:
	      require(args, cmd, OPT_STEP) ?:
	      require(args, cmd, OPT_COUNT) ?:
	      check_bytes(cmd, OPT_START, args->start, page_size) ?:
	      check_bytes(cmd, OPT_STEP, args->step, page_size);
	if (ret)
		return ret;
	if (args->count && args->step > (MAX_REGION - args->start) / args->count)
		return usage_error("%s: final size above %llu bytes", cmd,
				   MAX_REGION);
	return 0;
}

int cmd_grow(int argc, char **argv)
{
	struct bench_args args = { 0 };

	return parse_growth(argc, argv, "grow", &args) ?:
	       run_grow(args.start, args.step, args.count);
}

/* one byte in each page of @p[from, to) */
static void touch_pages(char *p, uint64_t from, uint64_t to)
{
	uint64_t off;

	for (off = from; off < to; off += page_size)
		p[off] = 1;
}

/*
 * glibc realloc() growth, as stress-ng's bigheap makes it: one block
 * grown N times by STEP, a byte written in every new page.  Above the
 * mmap threshold (128 KiB at first) glibc gives the block a mapping of
 * its own and grows it with mremap(MREMAP_MAYMOVE) (mremap_chunk(),
 * malloc/malloc.c), so the kernel moves it where it cannot grow in place.
 * Prints the rate of realloc() calls by CLOCK_MONOTONIC, which counts
 * instructions in a guest under qemu -icount.
 */
static int run_realloc(uint64_t start, uint64_t step, uint64_t count)
{
	uint64_t size = start, call, moved = 0, begin, ns;
	char *block = malloc(start), *grown;

	if (!block)
		return fail_errno("malloc %" PRIu64 " bytes", start);
	touch_pages(block, 0, start);
	begin = now_ns();
	for (call = 0; call < count; call++) {
		grown = realloc(block, size + step);
		if (!grown) {
			free(block);
			return fail_errno("realloc to %" PRIu64 " bytes",
					  size + step);
		}
		moved += grown != block;
		block = grown;
		touch_pages(block, size, size + step);
		size += step;
	}
	ns = now_ns() - begin;
	free(block);
	printf("realloc_calls=%" PRIu64 " moved=%" PRIu64 " in_place=%" PRIu64
	       " ns=%" PRIu64 " calls_per_sec=%.0f\n", count, moved,
	       count - moved, ns, ns ? count * 1e9 / ns : 0.0);
	return 0;
}

int cmd_realloc(int argc, char **argv)
{
	struct bench_args args = { 0 };

	return parse_growth(argc, argv, "realloc", &args) ?:
	       run_realloc(args.start, args.step, args.count);
}

/* mremap() rejects an old address that is not page aligned (EINVAL). */
static int run_fail(uint64_t count)
{
	uint64_t i, failed = 0;
	void *ret;

	for (i = 0; i < count; i++) {
		ret = mremap((void *)(uintptr_t)(page_size + 1), page_size,
			     2 * page_size, MREMAP_MAYMOVE);
		if (ret == MAP_FAILED && errno == EINVAL)
			failed++;
	}
	printf("mremap_calls=%" PRIu64 " failed=%" PRIu64 "\n", count, failed);
	return failed == count ? 0 : fail_errno("mremap did not fail as expected");
}

int cmd_fail(int argc, char **argv)
{
	return run_count_only(argc, argv, run_fail);
}
