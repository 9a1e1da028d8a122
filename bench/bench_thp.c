// SPDX-License-Identifier: GPL-2.0
/*
 * Hugepages made by faults and by collapse: fault (aligned regions
 * faulted in under a --thp advice, their AnonHugePages reported) and
 * collapse (regions faulted in as small pages, then MADV_COLLAPSE).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>

#include "bench_common.h"

/* Synchronous collapse into PMD THPs (Linux 6.1); glibc < 2.37 lacks it. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

/* ---------------------------------------------------------------- fault */

/* Write (or read) one byte every @stride of [region, region + len). */
static void touch_region(char *region, uint64_t len, uint64_t stride,
			 bool read)
{
	volatile char sink;
	uint64_t offset;

	for (offset = 0; offset < len; offset += stride) {
		if (read)
			sink = *(volatile char *)(region + offset);
		else
			*(volatile char *)(region + offset) = 1;
	}
	(void)sink;
}

/* --threads: the threads of one region, started together */
#define MAX_THREADS	64

struct toucher {
	pthread_barrier_t *start;
	char *region;
	const struct bench_args *args;
};

/* each stride's byte after all threads reached it, so they fault it at once */
static void *toucher_run(void *arg)
{
	struct toucher *t = arg;
	uint64_t offset;

	for (offset = 0; offset < t->args->size; offset += t->args->stride) {
		pthread_barrier_wait(t->start);
		touch_region(t->region + offset, 1, 1, t->args->read);
	}
	return NULL;
}

/*
 * T threads touch the same bytes of @region in the same order, released
 * together for each, so that they fault each range at the same time: the
 * kernel maps one thread's folio and the others put theirs back.
 */
static int touch_threads(char *region, const struct bench_args *args)
{
	pthread_t tids[MAX_THREADS];
	pthread_barrier_t start;
	struct toucher t = { &start, region, args };
	uint64_t i, started = 0;
	int err;

	err = pthread_barrier_init(&start, NULL, args->threads);
	if (err)
		return fail_msg("pthread_barrier_init: %s", strerror(err));
	for (i = 0; i < args->threads; i++) {
		err = pthread_create(&tids[i], NULL, toucher_run, &t);
		if (err)
			break;
		started++;
	}
	/*
	 * The barrier never opens for fewer threads: those started wait
	 * until the process exits with the error.
	 */
	if (err)
		return fail_msg("pthread_create: %s", strerror(err));
	for (i = 0; i < started; i++)
		pthread_join(tids[i], NULL);
	pthread_barrier_destroy(&start);
	return 0;
}

static int fault_once(const struct bench_args *args)
{
	uint64_t len = args->size, kb;
	char *region;
	int ret;

	ret = map_advised(len, args->fault_align, args->thp, &region);
	if (ret)
		return ret;
	if (args->threads > 1)
		ret = touch_threads(region, args);
	else
		touch_region(region, len, args->stride, args->read);
	ret = ret ?: anon_huge_kb(region, len, &kb);
	if (!ret)
		printf("fault size=%" PRIu64 " anon_huge_kb=%" PRIu64 "\n",
		       len, kb);
	return unmap_region(region, len, ret);
}

static int fault_check(struct bench_args *args)
{
	int ret;

	ret = require(args, "fault", OPT_SIZE) ?:
	      require(args, "fault", OPT_COUNT) ?:
	      check_bytes("fault", OPT_SIZE, args->size, page_size) ?:
	      parse_align_size("fault", args);
	if (ret)
		return ret;
	if (!args->stride || args->stride % page_size)
		return usage_error("fault: --stride must be a multiple of %"
				   PRIu64, page_size);
	if (!args->threads || args->threads > MAX_THREADS)
		return usage_error("fault: --threads must be 1 to %d",
				   MAX_THREADS);
	return 0;
}

int cmd_fault(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZE) | OPT_BIT(OPT_COUNT) |
				    OPT_BIT(OPT_THP) | OPT_BIT(OPT_ALIGN) |
				    OPT_BIT(OPT_STRIDE) | OPT_BIT(OPT_READ) |
				    OPT_BIT(OPT_THREADS);
	struct bench_args args = {
		.thp = THP_DEFAULT,
		.fault_align = pmd_span(),
		.stride = page_size,
		.threads = 1,
	};
	uint64_t region;
	int ret;

	ret = parse_args(argc, argv, options, &args) ?: fault_check(&args);
	if (ret)
		return ret;
	for (region = 0; region < args.count; region++) {
		ret = fault_once(&args);
		if (ret)
			return ret;
	}
	printf("fault_regions=%" PRIu64 " bytes_touched=%" PRIu64
	       " threads=%" PRIu64 "\n", args.count, args.count * args.size,
	       args.threads);
	return 0;
}

/* ------------------------------------------------------------- collapse */

/*
 * One region: fault it in as small pages (MADV_NOHUGEPAGE, so neither the
 * THP nor any mTHP setting can back it), then clear VM_NOHUGEPAGE with
 * MADV_HUGEPAGE (MADV_COLLAPSE refuses VM_NOHUGEPAGE VMAs) and collapse
 * it synchronously.  A failed collapse is printed and returned in
 * *collapse_ret (0 or -errno); cmd_collapse fails after the summary.
 */
static int collapse_region(char *region, uint64_t len, uint64_t iteration,
			   int *collapse_ret)
{
	uint64_t pages = len / page_size, kb_before, kb_after;
	int ret;

	write_markers(region, 0, pages, iteration);
	ret = anon_huge_kb(region, len, &kb_before);
	if (ret)
		return ret;
	if (madvise(region, len, MADV_HUGEPAGE))
		return fail_errno("madvise(MADV_HUGEPAGE) %p", (void *)region);
	*collapse_ret = madvise(region, len, MADV_COLLAPSE) ? -errno : 0;
	ret = anon_huge_kb(region, len, &kb_after) ?:
	      check_markers(region, 0, pages, iteration);
	if (ret)
		return ret;
	printf("collapse size=%" PRIu64 " anon_huge_kb_before=%" PRIu64
	       " anon_huge_kb_after=%" PRIu64 " ret=%d\n", len, kb_before,
	       kb_after, *collapse_ret);
	return 0;
}

static int collapse_once(uint64_t len, uint64_t iteration, int *collapse_ret)
{
	char *region;
	int ret;

	ret = map_aligned(len, pmd_span(), &region);
	if (ret)
		return ret;
	if (madvise(region, len, MADV_NOHUGEPAGE))
		ret = fail_errno("madvise(MADV_NOHUGEPAGE) %p", (void *)region);
	else
		ret = collapse_region(region, len, iteration, collapse_ret);
	return unmap_region(region, len, ret);
}

static int collapse_check(const struct bench_args *args)
{
	int ret;

	ret = require(args, "collapse", OPT_SIZE) ?:
	      require(args, "collapse", OPT_COUNT);
	if (ret)
		return ret;
	if (args->size < pmd_span() || args->size > MAX_REGION ||
	    args->size % pmd_span())
		return usage_error("collapse: --size must be a multiple of %"
				   PRIu64 " between %" PRIu64 " and %llu bytes",
				   pmd_span(), pmd_span(), MAX_REGION);
	return 0;
}

int cmd_collapse(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZE) | OPT_BIT(OPT_COUNT);
	struct bench_args args = { 0 };
	uint64_t region, failed = 0;
	int ret, collapse_ret = 0, first_error = 0;

	ret = parse_args(argc, argv, options, &args) ?: collapse_check(&args);
	if (ret)
		return ret;
	for (region = 0; region < args.count; region++) {
		ret = collapse_once(args.size, region, &collapse_ret);
		if (ret)
			return ret;
		if (collapse_ret) {
			failed++;
			if (!first_error)
				first_error = -collapse_ret;
		}
	}
	printf("collapse_regions=%" PRIu64 "\n", args.count);
	if (failed) {
		errno = first_error;
		return fail_errno("madvise(MADV_COLLAPSE) failed for %" PRIu64
				  " of %" PRIu64 " regions", failed,
				  args.count);
	}
	return 0;
}
