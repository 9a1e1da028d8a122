// SPDX-License-Identifier: GPL-2.0
/*
 * The workloads of bench/overhead.sh: tight loops whose cost per
 * operation a tracer adds to.  Each prints one line,
 *   loop=NAME page_size=P ops=N ns=TOTAL ns_per_op=X
 * (NAME: inplace, move_pmd, move_pte, fault_<folio KiB>k, syscall), where
 * ops counts mremap calls, faults or syscalls and only they are timed.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "bench_common.h"

static void print_loop(const char *name, uint64_t ops, uint64_t ns)
{
	printf("loop=%s page_size=%" PRIu64 " ops=%" PRIu64 " ns=%" PRIu64
	       " ns_per_op=%.1f\n", name, page_size, ops, ns,
	       ops ? (double)ns / (double)ops : 0.0);
}

/*
 * inplace-loop: grow a one-page mapping by a page in place and shrink it
 * back, N times (2N mremap calls).  The page after it is left unmapped
 * so the grow never has to move; without MREMAP_MAYMOVE it could not.
 */
static int run_inplace_loop(uint64_t count)
{
	uint64_t i, start;
	char *region;
	int ret = 0;

	region = mmap(NULL, 2 * page_size, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (region == MAP_FAILED)
		return fail_errno("mmap %" PRIu64 " bytes", 2 * page_size);
	if (munmap(region + page_size, page_size)) {
		ret = fail_errno("munmap the page after %p", (void *)region);
		goto cleanup;
	}
	*(volatile char *)region = 1;
	start = now_ns();
	for (i = 0; i < count; i++) {
		if (mremap(region, page_size, 2 * page_size, 0) == MAP_FAILED) {
			ret = fail_errno("mremap grow %p in place",
					 (void *)region);
			goto cleanup;
		}
		if (mremap(region, 2 * page_size, page_size, 0) == MAP_FAILED) {
			ret = fail_errno("mremap shrink %p", (void *)region);
			goto cleanup;
		}
	}
	print_loop("inplace", 2 * count, now_ns() - start);
cleanup:
	munmap(region, 2 * page_size);
	return ret;
}

int cmd_inplace_loop(int argc, char **argv)
{
	return run_count_only(argc, argv, run_inplace_loop);
}

/*
 * syscall-loop: getppid() N times, through syscall(2) so that no libc
 * caches it.  ptscope traces no getppid; a tracer on the raw_syscalls or
 * syscalls tracepoints still slows it down, since enabling any syscall
 * tracepoint sends every syscall through the tracing entry path
 * (SYSCALL_WORK_SYSCALL_TRACEPOINT, kernel/entry/common.c).
 */
static int run_syscall_loop(uint64_t count)
{
	uint64_t i, start;

	start = now_ns();
	for (i = 0; i < count; i++)
		syscall(SYS_getppid);
	print_loop("syscall", count, now_ns() - start);
	return 0;
}

int cmd_syscall_loop(int argc, char **argv)
{
	return run_count_only(argc, argv, run_syscall_loop);
}

/* Move @size bytes @count times between @a and @b, starting at @a. */
static int move_back_and_forth(char *a, char *b, uint64_t size,
			       uint64_t count)
{
	char *from, *to;
	uint64_t i;

	for (i = 0; i < count; i++) {
		from = i % 2 ? b : a;
		to = i % 2 ? a : b;
		if (mremap(from, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
			   to) != to)
			return fail_errno("mremap %p -> %p", (void *)from,
					  (void *)to);
	}
	return 0;
}

/*
 * move-loop: populate SIZE bytes once (MADV_NOHUGEPAGE), then move them N
 * times back and forth between two fixed addresses A and B of a reserved
 * window with MREMAP_MAYMOVE | MREMAP_FIXED.  A and B are PMD aligned;
 * --class page shifts B by one page, so that no PMD entry can move.
 */
static int run_move_loop(enum align_mode class, uint64_t size,
			 uint64_t count)
{
	uint64_t pmd = pmd_span(), window_len, start;
	char *window, *a, *b;
	int ret;

	window_len = 2 * ALIGN_UP(size, pmd) + 3 * pmd;
	if (reserve_va(window_len, &window))
		return fail_errno("mmap reserve %" PRIu64 " bytes", window_len);
	a = (char *)(uintptr_t)ALIGN_UP((uintptr_t)window, pmd);
	b = a + ALIGN_UP(size, pmd) + pmd;
	if (class == ALIGN_PAGE)
		b += page_size;
	if (mmap(a, size, PROT_READ | PROT_WRITE,
		 MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS, -1, 0) == MAP_FAILED) {
		ret = fail_errno("mmap %p", (void *)a);
		goto cleanup;
	}
	if (madvise(a, size, MADV_NOHUGEPAGE)) {
		ret = fail_errno("madvise(MADV_NOHUGEPAGE) %p", (void *)a);
		goto cleanup;
	}
	write_markers(a, 0, size / page_size, 0);
	start = now_ns();
	ret = move_back_and_forth(a, b, size, count);
	if (ret)
		goto cleanup;
	print_loop(class == ALIGN_PAGE ? "move_pte" : "move_pmd", count,
		   now_ns() - start);
	ret = check_markers(count % 2 ? b : a, 0, size / page_size, 0);
cleanup:
	munmap(window, window_len);
	return ret;
}

int cmd_move_loop(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_CLASS) | OPT_BIT(OPT_SIZE) |
				    OPT_BIT(OPT_COUNT);
	struct bench_args args = { .class = ALIGN_PMD };
	int ret;

	args.size = 2 * pmd_span();
	ret = parse_args(argc, argv, options, &args) ?:
	      require(&args, "move-loop", OPT_COUNT) ?:
	      check_bytes("move-loop", OPT_SIZE, args.size, page_size);
	if (ret)
		return ret;
	if (args.class == ALIGN_PUD)
		return usage_error("move-loop: --class must be pmd or page");
	return run_move_loop(args.class, args.size, args.count);
}

/*
 * fault-loop: N times map SIZE bytes (PMD aligned), madvise them, write
 * one byte every FOLIO bytes, unmap.  Each write is one fault of a FOLIO
 * sized folio when the THP settings give one (--thp always for the PMD
 * size, the hugepages-<size>kB knob for an mTHP size), of a page
 * otherwise.  Only the writes are timed.
 */
static int run_fault_loop(uint64_t size, uint64_t folio, enum thp_mode thp,
			  uint64_t count)
{
	uint64_t i, offset, ns = 0, start;
	char *region, name[32];
	int ret;

	for (i = 0; i < count; i++) {
		ret = map_advised(size, pmd_span(), thp, &region);
		if (ret)
			return ret;
		start = now_ns();
		for (offset = 0; offset < size; offset += folio)
			*(volatile char *)(region + offset) = 1;
		ns += now_ns() - start;
		ret = unmap_region(region, size, 0);
		if (ret)
			return ret;
	}
	snprintf(name, sizeof(name), "fault_%" PRIu64 "k", folio >> 10);
	print_loop(name, count * (size / folio), ns);
	return 0;
}

static int fault_loop_check(const struct bench_args *args)
{
	int ret;

	ret = require(args, "fault-loop", OPT_SIZE) ?:
	      require(args, "fault-loop", OPT_COUNT) ?:
	      check_bytes("fault-loop", OPT_SIZE, args->size, page_size);
	if (ret)
		return ret;
	if (args->folio < page_size || args->folio > args->size ||
	    (args->folio & (args->folio - 1)) || args->size % args->folio)
		return usage_error("fault-loop: --folio must be a power of two "
				   "of at least %" PRIu64 " bytes that divides "
				   "--size", page_size);
	return 0;
}

int cmd_fault_loop(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZE) | OPT_BIT(OPT_FOLIO) |
				    OPT_BIT(OPT_THP) | OPT_BIT(OPT_COUNT);
	struct bench_args args = { .thp = THP_NEVER };
	int ret;

	args.folio = page_size;
	ret = parse_args(argc, argv, options, &args) ?:
	      fault_loop_check(&args);
	if (ret)
		return ret;
	return run_fault_loop(args.size, args.folio, args.thp, args.count);
}
