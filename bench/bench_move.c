// SPDX-License-Identifier: GPL-2.0
/*
 * Moves between fixed addresses: mremap (a region moved N times at PUD,
 * PMD or page alignment, the ground truth of ptscope's level counts),
 * table (the same moves timed from user space, for the demo) and multi
 * (one move of several VMAs, 6.17+).  Nothing else in ptscope-bench
 * moves a region with MREMAP_FIXED, so the mremap subcommand issues
 * exactly --count mremap() calls.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <sys/mman.h>

#include "bench_common.h"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4	/* uapi linux/mman.h, Linux 5.7 */
#endif

/* One source/destination pair inside a reserved VA window. */
struct move_plan {
	uint64_t size;
	enum align_mode align;
	uint64_t src_extra;
	uint64_t dst_extra;
	enum thp_mode thp;
	enum populate_mode populate;
	bool dontunmap;		/* MREMAP_DONTUNMAP: the source stays mapped */
	char *window;
	uint64_t window_len;
	char *src;
	char *dst;
};

struct move_result {
	uint64_t ns;
	uint64_t pages_populated;
	uint64_t anon_huge_kb;
};

static uint64_t align_src_delta(enum align_mode align)
{
	if (align == ALIGN_PMD)
		return pmd_span();
	if (align == ALIGN_PAGE)
		return page_size;
	return 0;
}

static uint64_t align_dst_delta(enum align_mode align)
{
	return 2 * align_src_delta(align);
}

/*
 * Reserve the VA window and place src/dst in it (PUD = pud_span(), 1 GiB
 * with 4 KiB pages, 64 GiB with 16 KiB pages):
 *
 *   base    = first PUD boundary at least one page into the window
 *   src     = base + src_delta + src_extra
 *   dstbase = base + roundup(size, PUD) + PUD + roundup(src_extra, PUD)
 *   dst     = dstbase + dst_delta + dst_extra
 *
 * The window has a PUD of slack below base (so base exists whatever
 * mmap() returned) and a PUD guard after dst, i.e. 2 * roundup(size, PUD)
 * + 3 PUDs without offsets: 320 GiB of reserved (PROT_NONE, NORESERVE)
 * address space for a 64 GiB move.  The destination range is unmapped
 * again so that it is a hole before the first move.
 */
static int plan_setup(struct move_plan *plan)
{
	uint64_t dstbase_rel, dst_rel, base, pud = pud_span();

	dstbase_rel = ALIGN_UP(plan->size, pud) + pud +
		      ALIGN_UP(plan->src_extra, pud);
	dst_rel = dstbase_rel + align_dst_delta(plan->align) + plan->dst_extra;
	plan->window_len = pud + ALIGN_UP(dst_rel + plan->size, pud) + pud;
	if (reserve_va(plan->window_len, &plan->window))
		return fail_errno("mmap reserve window of %" PRIu64 " bytes",
				  plan->window_len);
	base = ALIGN_UP((uintptr_t)plan->window + page_size, pud);
	plan->src = (char *)(uintptr_t)(base + align_src_delta(plan->align) +
					plan->src_extra);
	plan->dst = (char *)(uintptr_t)(base + dst_rel);
	if (munmap(plan->dst, plan->size))
		return fail_errno("munmap destination hole %p",
				  (void *)plan->dst);
	return 0;
}

static void plan_teardown(struct move_plan *plan)
{
	if (plan->window)
		munmap(plan->window, plan->window_len);
	plan->window = NULL;
}

/*
 * Pages apart that the populate mode writes: every page, or the first of
 * every PMD-sized stretch (page_size / 8 pages, one PTE table's worth); 0
 * for none.
 */
static uint64_t populate_step(enum populate_mode populate)
{
	if (populate == POPULATE_FULL)
		return 1;
	if (populate == POPULATE_SPARSE)
		return page_size / 8;
	return 0;
}

/* Map the source, madvise it, populate it and measure its THP usage. */
static int prepare_source(const struct move_plan *plan, uint64_t iteration,
			  struct move_result *result)
{
	uint64_t pages = plan->size / page_size;
	uint64_t step = populate_step(plan->populate), page;
	int flags = MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS;
	void *mapped;

	/* sparse: the memory behind the region need not exist (overcommit) */
	if (plan->populate == POPULATE_SPARSE)
		flags |= MAP_NORESERVE;
	mapped = mmap(plan->src, plan->size, PROT_READ | PROT_WRITE, flags,
		      -1, 0);
	if (mapped == MAP_FAILED)
		return fail_errno("mmap source at %p", (void *)plan->src);
	if (apply_thp(plan->src, plan->size, plan->thp))
		return fail_errno("madvise source at %p", (void *)plan->src);
	result->pages_populated = 0;
	for (page = 0; step && page < pages; page += step) {
		write_markers(plan->src, page, 1, iteration);
		result->pages_populated++;
	}
	result->anon_huge_kb = 0;
	if (plan->thp == THP_ALWAYS)
		return anon_huge_kb(plan->src, plan->size,
				    &result->anon_huge_kb);
	return 0;
}

/* One full cycle: map + populate src, move it to dst, verify, unmap dst. */
static int move_once(const struct move_plan *plan, uint64_t iteration,
		     struct move_result *result)
{
	uint64_t before, after, step, page;
	void *moved;
	int ret;

	ret = prepare_source(plan, iteration, result);
	if (ret)
		return ret;

	before = now_ns();
	moved = mremap(plan->src, plan->size, plan->size,
		       MREMAP_MAYMOVE | MREMAP_FIXED |
		       (plan->dontunmap ? MREMAP_DONTUNMAP : 0), plan->dst);
	after = now_ns();
	if (moved == MAP_FAILED)
		return fail_errno("mremap %p -> %p (%" PRIu64 " bytes)",
				  (void *)plan->src, (void *)plan->dst,
				  plan->size);
	result->ns = after - before;
	if (moved != plan->dst) {
		munmap(moved, plan->size);
		return fail_msg("mremap returned %p, expected %p", moved,
				(void *)plan->dst);
	}
	step = populate_step(plan->populate);
	for (page = 0; step && !ret && page < plan->size / page_size;
	     page += step)
		ret = check_markers(plan->dst, page, 1, iteration);
	if (munmap(plan->dst, plan->size) && !ret)
		ret = fail_errno("munmap destination %p", (void *)plan->dst);
	return ret;
}

/* ---------------------------------------------------------------- mremap */

static int run_mremap_loop(struct move_plan *plan, uint64_t count)
{
	struct move_result result;
	uint64_t iteration, pages_total = 0;
	int ret;

	ret = plan_setup(plan);
	if (ret)
		goto cleanup;
	for (iteration = 0; iteration < count; iteration++) {
		ret = move_once(plan, iteration, &result);
		if (ret)
			goto cleanup;
		pages_total += result.pages_populated;
		if (plan->thp == THP_ALWAYS)
			printf("anon_huge_kb=%" PRIu64 "\n",
			       result.anon_huge_kb);
		printf("mremap size=%" PRIu64 " src=0x%" PRIxPTR " dst=0x%"
		       PRIxPTR " ns=%" PRIu64 "\n", plan->size,
		       (uintptr_t)plan->src, (uintptr_t)plan->dst, result.ns);
	}
	printf("mremap_calls=%" PRIu64 " bytes=%" PRIu64
	       " pages_populated=%" PRIu64 " populate=%s\n", count,
	       count * plan->size, pages_total,
	       populate_names[plan->populate]);
cleanup:
	plan_teardown(plan);
	return ret;
}

/* the options of mremap, checked; *plan from them */
static int mremap_plan(const struct bench_args *args, struct move_plan *plan)
{
	int ret;

	ret = require(args, "mremap", OPT_SIZE) ?:
	      require(args, "mremap", OPT_ALIGN) ?:
	      require(args, "mremap", OPT_COUNT) ?:
	      check_bytes("mremap", OPT_SIZE, args->size, page_size) ?:
	      check_bytes("mremap", OPT_SRC_OFFSET, args->src_extra, 0) ?:
	      check_bytes("mremap", OPT_DST_OFFSET, args->dst_extra, 0);
	if (ret)
		return ret;
	if (parse_align_mode(args->align_text, &plan->align))
		return usage_error("mremap: --align must be pud, pmd or page");
	plan->size = args->size;
	plan->src_extra = args->src_extra;
	plan->dst_extra = args->dst_extra;
	plan->thp = args->thp;
	plan->populate = args->populate;
	plan->dontunmap = args->dontunmap;
	return 0;
}

int cmd_mremap(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZE) | OPT_BIT(OPT_ALIGN) |
				    OPT_BIT(OPT_COUNT) |
				    OPT_BIT(OPT_SRC_OFFSET) |
				    OPT_BIT(OPT_DST_OFFSET) | OPT_BIT(OPT_THP) |
				    OPT_BIT(OPT_NO_POPULATE) |
				    OPT_BIT(OPT_POPULATE) |
				    OPT_BIT(OPT_DONTUNMAP);
	struct bench_args args = {
		.thp = THP_DEFAULT,
		.populate = POPULATE_FULL,
	};
	struct move_plan plan = { 0 };

	return parse_args(argc, argv, options, &args) ?:
	       mremap_plan(&args, &plan) ?:
	       run_mremap_loop(&plan, args.count);
}

/* ----------------------------------------------------------------- table */

struct table_row {
	const char *name;
	enum align_mode align;
	uint64_t median_ns;
	uint64_t min_ns;
};

/* One warm-up move, then runs timed moves; fills median and minimum. */
static int time_alignment(struct table_row *row, uint64_t size, uint64_t runs)
{
	static uint64_t samples[MAX_RUNS];
	struct move_plan plan = {
		.size = size,
		.align = row->align,
		.thp = THP_NEVER,
		.populate = POPULATE_FULL,
	};
	struct move_result result;
	uint64_t run;
	int ret;

	ret = plan_setup(&plan);
	if (ret)
		goto cleanup;
	for (run = 0; run <= runs; run++) {
		ret = move_once(&plan, run, &result);
		if (ret)
			goto cleanup;
		if (run)
			samples[run - 1] = result.ns;
	}
	row->median_ns = sort_median(samples, runs);
	row->min_ns = samples[0];
cleanup:
	plan_teardown(&plan);
	return ret;
}

static void print_table(const struct table_row *rows, size_t nrows)
{
	uint64_t pud_ns = rows[0].median_ns, ratio_x100;
	size_t i;

	printf("%-5s  %12s  %12s  %12s\n", "align", "median_us", "min_us",
	       "ratio_vs_pud");
	for (i = 0; i < nrows; i++) {
		printf("%-5s  %10" PRIu64 ".%01" PRIu64 "  %10" PRIu64 ".%01"
		       PRIu64, rows[i].name, rows[i].median_ns / 1000,
		       rows[i].median_ns % 1000 / 100, rows[i].min_ns / 1000,
		       rows[i].min_ns % 1000 / 100);
		if (!pud_ns) {
			printf("  %12s\n", "n/a");
			continue;
		}
		ratio_x100 = (rows[i].median_ns * 100 + pud_ns / 2) / pud_ns;
		printf("  %9" PRIu64 ".%02" PRIu64 "\n", ratio_x100 / 100,
		       ratio_x100 % 100);
	}
}

int cmd_table(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZE) | OPT_BIT(OPT_RUNS);
	struct table_row rows[] = {
		{ .name = "pud",  .align = ALIGN_PUD },
		{ .name = "pmd",  .align = ALIGN_PMD },
		{ .name = "page", .align = ALIGN_PAGE },
	};
	struct bench_args args = { .size = GIB, .runs = 5 };
	size_t i;
	int ret;

	ret = parse_args(argc, argv, options, &args) ?:
	      check_bytes("table", OPT_SIZE, args.size, page_size) ?:
	      check_runs("table", args.runs);
	if (ret)
		return ret;
	printf("# size=%" PRIu64 " runs=%" PRIu64
	       " warmup=1 thp=never populated=yes (user-side timing)\n",
	       args.size, args.runs);
	for (i = 0; i < ARRAY_SIZE(rows); i++) {
		ret = time_alignment(&rows[i], args.size, args.runs);
		if (ret)
			return ret;
	}
	print_table(rows, ARRAY_SIZE(rows));
	return 0;
}

/* ----------------------------------------------------------------- multi */

/*
 * The multi-VMA move: "mm/mremap: permit mremap() move of multiple VMAs"
 * (6.17) lets one MREMAP_FIXED move with old_len == new_len cover several
 * VMAs; remap_move() (mm/mremap.c) calls move_vma() for each, so
 * move_page_tables() runs once per VMA, and keeps the gaps between them.
 */
static void multi_layout(const uint64_t *sizes, size_t n, uint64_t *starts)
{
	uint64_t pmd = pmd_span(), at = 0;
	size_t i;

	for (i = 0; i < n; i++) {
		starts[i] = at;
		at += ALIGN_UP(sizes[i], pmd) + pmd;
	}
}

/* The source: one VMA a size, gaps unmapped, written without THP. */
static int multi_source(const uint64_t *sizes, const uint64_t *starts,
			size_t n, uint64_t len, char *src)
{
	size_t i;

	for (i = 0; i + 1 < n; i++) {
		char *gap = src + starts[i] + sizes[i];

		if (munmap(gap, starts[i + 1] - starts[i] - sizes[i]))
			return fail_errno("munmap gap %p", (void *)gap);
	}
	if (apply_thp(src, len, THP_NEVER) && errno != ENOMEM)
		return fail_errno("madvise %p", (void *)src);
	for (i = 0; i < n; i++)
		write_markers(src, starts[i] / page_size, sizes[i] / page_size,
			      1);
	return 0;
}

static void multi_report(const uint64_t *sizes, const uint64_t *starts,
			 size_t n, uint64_t len, const char *src,
			 const char *dst, uint64_t ns)
{
	uint64_t pages = 0;
	size_t i;

	for (i = 0; i < n; i++)
		pages += sizes[i] / page_size;
	printf("multi vmas=%zu page_size=%" PRIu64 " len=%" PRIu64
	       " src=%p dst=%p ns=%" PRIu64 " pages_populated=%" PRIu64 "\n",
	       n, page_size, len, (void *)src, (void *)dst, ns, pages);
	for (i = 0; i < n; i++)
		printf("vma %zu offset=%" PRIu64 " size=%" PRIu64 "\n", i,
		       starts[i], sizes[i]);
}

static int run_multi(const uint64_t *sizes, size_t n)
{
	uint64_t starts[MAX_SIZES], len, before, after;
	char *src, *dst;
	void *moved;
	size_t i;
	int ret;

	multi_layout(sizes, n, starts);
	len = starts[n - 1] + sizes[n - 1];
	if (map_aligned(len, pmd_span(), &src) ||
	    map_aligned(len, pmd_span(), &dst))
		return 1;
	ret = multi_source(sizes, starts, n, len, src);
	if (ret)
		return ret;
	before = now_ns();
	moved = mremap(src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	after = now_ns();
	if (moved == MAP_FAILED)
		return fail_errno("mremap of %zu VMAs %p -> %p (%" PRIu64
				  " bytes; before 6.17 one call moves one VMA)",
				  n, (void *)src, (void *)dst, len);
	for (i = 0; i < n; i++)
		if (check_markers(dst, starts[i] / page_size,
				  sizes[i] / page_size, 1))
			return 1;
	multi_report(sizes, starts, n, len, src, dst, after - before);
	munmap(dst, len);
	return 0;
}

int cmd_multi(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZES);
	struct bench_args args = { 0 };
	int ret;

	ret = parse_args(argc, argv, options, &args);
	if (ret)
		return ret;
	if (!args.nsizes) {
		args.sizes[0] = 2 * pmd_span();
		args.sizes[1] = pmd_span() / 2 + 3 * page_size;
		args.sizes[2] = pmd_span();
		args.nsizes = 3;
	}
	return check_sizes("multi", &args) ?:
	       run_multi(args.sizes, args.nsizes);
}
