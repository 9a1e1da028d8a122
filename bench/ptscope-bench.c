// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope-bench - workload generator with exactly known geometry.
 *
 * Every subcommand does a precisely known set of mmap/mremap/fault
 * operations so that ptscope's output can be checked against it.  This
 * file holds the usage and the dispatch; each workload family has a file
 * of its own over bench_common.h:
 *
 *   bench_move.c    mremap, table, multi: moves between fixed addresses
 *                   with mremap(MREMAP_MAYMOVE | MREMAP_FIXED)
 *   bench_resize.c  grow, realloc, fail: resizes with mremap(MREMAP_MAYMOVE)
 *   bench_thp.c     fault, collapse: hugepages from faults and collapse
 *   bench_hold.c    hold: a region of known backing kept for ptscope maps
 *   bench_bw.c      bw: read bandwidth per buffer size, like lmbench
 *   bench_loops.c   inplace-loop, move-loop, fault-loop, syscall-loop:
 *                   timed loops for the overhead benchmark
 *                   (bench/overhead.sh)
 *
 * and the parts they share: bench_common.c (geometry, errors, timing),
 * bench_args.c (options), bench_map.c (mappings, markers), bench_smaps.c,
 * bench_usage.c (the --help text, which usage errors print too).
 *
 * Only libc is used, so it links statically for x86_64 and aarch64.
 * The mremap subcommand issues exactly --count mremap() calls; nothing
 * else in this program calls mremap() (no realloc() either).
 *
 * Build: make (build/ptscope-bench; make static: x86_64 and aarch64), or
 *   gcc -O2 -Wall -Wextra -o ptscope-bench bench/ptscope-bench.c bench/bench_*.c
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

/* Static stdout buffer: no malloc()/brk() happens inside measured loops. */
static char stdout_buf[64 * 1024];

/* geometry: what the scenarios size their regions from; no options */
static int cmd_geometry(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
		return -1;
	if (argc > 1)
		return usage_error("geometry: unexpected argument '%s'",
				   argv[1]);
	printf("page=%" PRIu64 " pmd=%" PRIu64 " pud=%" PRIu64 "\n",
	       page_size, pmd_span(), pud_span());
	return 0;
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "mremap", cmd_mremap },
	{ "grow",   cmd_grow },
	{ "realloc", cmd_realloc },
	{ "fault",  cmd_fault },
	{ "collapse", cmd_collapse },
	{ "hold",   cmd_hold },
	{ "fail",   cmd_fail },
	{ "multi",  cmd_multi },
	{ "geometry", cmd_geometry },
	{ "table",  cmd_table },
	{ "bw",     cmd_bw },
	{ "inplace-loop", cmd_inplace_loop },
	{ "syscall-loop", cmd_syscall_loop },
	{ "move-loop", cmd_move_loop },
	{ "fault-loop", cmd_fault_loop },
};

int main(int argc, char **argv)
{
	long sys_page_size = sysconf(_SC_PAGESIZE);
	size_t i;
	int ret;

	if (sys_page_size <= 0)
		return fail_errno("sysconf(_SC_PAGESIZE)");
	page_size = (uint64_t)sys_page_size;
	setvbuf(stdout, stdout_buf, isatty(STDOUT_FILENO) ? _IOLBF : _IOFBF,
		sizeof(stdout_buf));

	if (argc < 2)
		return usage_error("missing command");
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") ||
	    !strcmp(argv[1], "help")) {
		print_usage(stdout);
		return 0;
	}
	for (i = 0; i < ARRAY_SIZE(commands); i++) {
		if (strcmp(argv[1], commands[i].name))
			continue;
		ret = commands[i].run(argc - 1, argv + 1);
		if (ret < 0) {
			print_usage(stdout);
			ret = 0;
		}
		if (fflush(stdout) && !ret)
			ret = fail_errno("write stdout");
		return ret;
	}
	return usage_error("unknown command '%s'", argv[1]);
}
