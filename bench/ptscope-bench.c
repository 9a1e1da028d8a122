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
 * bench_args.c (options), bench_map.c (mappings, markers), bench_smaps.c.
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

static const char usage_text[] =
"Usage: " PROG_NAME " COMMAND [OPTIONS]\n"
"\n"
"Workload generator with exactly known geometry (ground truth for ptscope).\n"
"SIZE and BYTES take an optional K, M or G suffix (powers of 1024).\n"
"\n"
"Commands:\n"
"  mremap --size SIZE --align pud|pmd|page --count N\n"
"         [--src-offset BYTES] [--dst-offset BYTES]\n"
"         [--thp never|default|always] [--populate full|sparse|none]\n"
"         [--no-populate] [--dontunmap]\n"
"      Map, populate and move a region N times with\n"
"      mremap(MREMAP_MAYMOVE|MREMAP_FIXED) between fixed addresses:\n"
"        pud   src and dst PUD aligned (1 GiB with 4 KiB pages)\n"
"        pmd   src and dst PMD aligned (2 MiB), not PUD aligned\n"
"        page  src and dst page aligned, offsets differ mod the PMD size\n"
"      The offsets (page multiples) shift src/dst further.  --populate\n"
"      writes every page (full, the default), the first page of every\n"
"      PMD-sized stretch from the start (sparse: one page per PTE table\n"
"      of a PMD-aligned source, and the region is mapped MAP_NORESERVE,\n"
"      so a 64 GiB PUD of 16 KiB pages moves in a small VM) or none\n"
"      (--no-populate).  --dontunmap adds MREMAP_DONTUNMAP (the source\n"
"      stays mapped, empty).\n"
"\n"
"  geometry\n"
"      Print the page-table geometry of the running kernel:\n"
"      page=BYTES pmd=BYTES pud=BYTES (a table is a page of 8-byte\n"
"      entries).\n"
"\n"
"  grow --start SIZE --step SIZE --count N\n"
"      Map SIZE bytes, then grow it N times by STEP with\n"
"      mremap(MREMAP_MAYMOVE), touching every new page.\n"
"\n"
"  realloc --start SIZE --step SIZE --count N\n"
"      malloc() SIZE bytes, then realloc() the block N times, STEP larger\n"
"      each time, touching every new page (stress-ng bigheap's pattern:\n"
"      glibc grows large blocks with mremap(MREMAP_MAYMOVE)); prints\n"
"      realloc calls per second.\n"
"\n"
"  fault --size SIZE --count N [--thp never|default|always] [--align SIZE]\n"
"        [--stride BYTES] [--read] [--threads T]\n"
"      N times: map SIZE bytes aligned to --align (default the PMD size,\n"
"      2M with 4 KiB pages), write (or --read) one byte every --stride\n"
"      (default a page), report AnonHugePages from /proc/self/smaps,\n"
"      unmap.  With --threads, T threads touch the same bytes in the same\n"
"      order, released together by a barrier for each, so they fault the\n"
"      same ranges at once and all but one lose each race to map a range.\n"
"\n"
"  collapse --size SIZE --count N\n"
"      N times: map SIZE bytes (a multiple of the PMD size, 2M with\n"
"      4 KiB pages) PMD aligned, write every page with MADV_NOHUGEPAGE,\n"
"      then MADV_HUGEPAGE and MADV_COLLAPSE it into PMD THPs; report\n"
"      AnonHugePages before and after, unmap.\n"
"\n"
"  multi [--sizes LIST]\n"
"      One VMA per size (default: two PMD spans, half a PMD span plus\n"
"      three pages, one PMD span), each on a PMD boundary with an empty\n"
"      PMD span before the next, populated with MADV_NOHUGEPAGE; then ONE\n"
"      mremap(MREMAP_MAYMOVE|MREMAP_FIXED) of the whole range to a PMD\n"
"      aligned address.  6.17+ moves every VMA (gaps kept); older\n"
"      kernels refuse with EFAULT (exit 1).\n"
"\n"
"  hold --size SIZE [--thp never|default|always] [--align SIZE]\n"
"       [--move-offset BYTES] [--split-mprotect OFFSET] [--punch OFFSET]\n"
"       [--pause]\n"
"      Map SIZE bytes aligned to --align (default the PMD size, 2M with\n"
"      4 KiB pages), madvise, write every page, then: --move-offset\n"
"      moves the region with mremap to BYTES past an --align boundary\n"
"      (its folios stay whole, no longer aligned); --split-mprotect\n"
"      makes the page at OFFSET read-only (splitting the PMD that maps\n"
"      it); --punch unmaps the page at OFFSET (its folio is then mapped\n"
"      in part).  Prints one line, \"hold pid=P start=0x.. end=0x..\n"
"      size=S page_size=P pmd_size=M faulted_huge_kb=F anon_kb=A\n"
"      anon_huge_kb=H\" (F: smaps AnonHugePages of the region right after\n"
"      the faults, A and H: smaps of [start, end) at the end), and keeps\n"
"      the region until stdin reaches end of\n"
"      file or SIGTERM, SIGINT or SIGHUP arrives (--pause: the signal\n"
"      only, for a shell's background job, whose stdin is /dev/null).\n"
"\n"
"  fail --count N\n"
"      N mremap calls that fail with EINVAL (unaligned old address).\n"
"\n"
"  table [--size SIZE] [--runs N]\n"
"      For pud, pmd and page alignment move a populated SIZE (default 1G)\n"
"      region with MADV_NOHUGEPAGE, 1 warm-up + N (default 5) timed runs,\n"
"      and print median/min microseconds and the ratio against pud.\n"
"\n"
"  bw [--sizes LIST] [--thp never|default|always] [--runs N]\n"
"      Read bandwidth like lmbench bw_mem rd: for each size in LIST\n"
"      (default " BW_DEFAULT_SIZES ") map a PMD aligned buffer,\n"
"      memset it, then read one int every 16 bytes, >= 64 MiB per sample;\n"
"      print the median of N (default 7) samples in MB/s (1e6 bytes/s).\n"
"\n"
"  inplace-loop --count N\n"
"      Grow a one-page mapping by a page in place and shrink it back, N\n"
"      times (2N mremap calls).\n"
"\n"
"  move-loop --count N [--class pmd|page] [--size SIZE]\n"
"      Populate SIZE (default two PMD spans, 4M with 4 KiB pages) bytes\n"
"      with MADV_NOHUGEPAGE once, then move them N times back and forth\n"
"      between two PMD aligned addresses (--class page: the second one\n"
"      a page off) with mremap(MREMAP_MAYMOVE|MREMAP_FIXED).\n"
"\n"
"  syscall-loop --count N\n"
"      N getppid() calls: a syscall no probe of ptscope's is on, for what\n"
"      a tracer costs every other syscall on the box.\n"
"\n"
"  fault-loop --size SIZE --count N [--folio page|pmd|SIZE]\n"
"             [--thp never|default|always]\n"
"      N times: map SIZE bytes PMD aligned, madvise (default never),\n"
"      write one byte per folio (default a page), unmap.\n"
"\n"
"      The four loops print one line: loop=NAME page_size=P ops=N ns=T\n"
"      ns_per_op=X; ops are the mremap calls, the writes (faults) or the\n"
"      syscalls,\n"
"      and only they are timed.  These are bench/overhead.sh's workloads.\n"
"\n"
"  --help\n"
"      Show this help.\n"
"\n"
"--thp: never = MADV_NOHUGEPAGE, default = no madvise,\n"
"       always = MADV_HUGEPAGE.\n"
"Exit status: 0 success, 1 runtime failure, 2 bad usage.\n";

void print_usage(FILE *stream)
{
	fputs(usage_text, stream);
}

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
