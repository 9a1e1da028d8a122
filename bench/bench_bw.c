// SPDX-License-Identifier: GPL-2.0
/*
 * bw: read bandwidth per buffer size, like lmbench's bw_mem rd, with the
 * buffer's THP backing beside it: what hugepages do to reads.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>

#include "bench_common.h"

/* each timed sample reads at least this much */
#define BW_MIN_BYTES	(64 * MIB)
#define BW_DEFAULT_RUNS	7

/* 32 loads of one int every 16 bytes: 512 bytes, as in lmbench's rd. */
#define RD_STEP_INTS	128
#define RD4(i)		(p[i] + p[i + 4] + p[i + 8] + p[i + 12])
#define RD16(i)		(RD4(i) + RD4(i + 16) + RD4(i + 32) + RD4(i + 48))

static volatile unsigned int bw_sink;

/* One read pass over [p, end); len is a multiple of 512 bytes. */
static __attribute__((noinline)) unsigned int rd_pass(const unsigned int *p,
						    const unsigned int *end)
{
	unsigned int sum = 0;

	for (; p < end; p += RD_STEP_INTS)
		sum += RD16(0) + RD16(64);
	return sum;
}

/* Time passes over the buffer; returns the nanoseconds taken. */
static uint64_t rd_sample(const char *buf, uint64_t len, uint64_t passes)
{
	const unsigned int *start = (const unsigned int *)buf;
	const unsigned int *end = (const unsigned int *)(buf + len);
	uint64_t pass, before;

	before = now_ns();
	for (pass = 0; pass < passes; pass++) {
		/* the buffer may have changed: no pass is folded away */
		asm volatile("" : : "r"(start) : "memory");
		bw_sink += rd_pass(start, end);
	}
	return now_ns() - before;
}

/* One table row: map, madvise and fill the buffer, then time it. */
static int bw_size(uint64_t len, enum thp_mode thp, uint64_t runs)
{
	static uint64_t samples[MAX_RUNS];
	uint64_t passes, run, kb, median_ns;
	char *buf;
	int ret;

	ret = map_advised(len, pmd_span(), thp, &buf);
	if (ret)
		return ret;
	memset(buf, 1, len);
	ret = anon_huge_kb(buf, len, &kb);
	if (ret)
		goto cleanup;
	passes = (BW_MIN_BYTES + len - 1) / len;
	rd_sample(buf, len, passes);		/* warm-up */
	for (run = 0; run < runs; run++)
		samples[run] = rd_sample(buf, len, passes) ?: 1;
	median_ns = sort_median(samples, runs);
	printf("%7" PRIu64 "  %8.1f  %12" PRIu64 "\n", (uint64_t)(len / KIB),
	       (double)len * passes * 1e3 / (double)median_ns, kb);
cleanup:
	return unmap_region(buf, len, ret);
}

int cmd_bw(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZES) | OPT_BIT(OPT_THP) |
				    OPT_BIT(OPT_RUNS);
	struct bench_args args = {
		.thp = THP_DEFAULT,
		.runs = BW_DEFAULT_RUNS,
	};
	size_t i;
	int ret;

	ret = parse_args(argc, argv, options, &args);
	if (ret)
		return ret;
	if (!args.nsizes &&
	    parse_size_list(BW_DEFAULT_SIZES, args.sizes, MAX_SIZES,
			    &args.nsizes))
		return fail_msg("bad built-in size list");
	ret = check_sizes("bw", &args) ?: check_runs("bw", args.runs);
	if (ret)
		return ret;
	printf("# bw thp=%s runs=%" PRIu64 "\n", thp_names[args.thp],
	       args.runs);
	printf("size_kb  mb_per_s  anon_huge_kb\n");
	for (i = 0; i < args.nsizes; i++) {
		ret = bw_size(args.sizes[i], args.thp, args.runs);
		if (ret)
			return ret;
	}
	return 0;
}
