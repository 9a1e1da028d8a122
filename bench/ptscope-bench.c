// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope-bench - workload generator with exactly known geometry.
 *
 * Every subcommand does a precisely known set of mmap/mremap/fault
 * operations so that ptscope's output can be checked against it:
 *
 *   mremap  move a region N times between fixed pud/pmd/page aligned
 *           addresses with mremap(MREMAP_MAYMOVE | MREMAP_FIXED)
 *   grow    grow a region N times with mremap(MREMAP_MAYMOVE)
 *   fault   fault in N aligned regions and report their AnonHugePages
 *   collapse  fault in N regions as small pages, then MADV_COLLAPSE them
 *   hold    fault a region of known backing and keep it mapped (for
 *           ptscope maps)
 *   table   user-side timing of the pud/pmd/page moves (demo only)
 *   bw      read bandwidth per buffer size, like lmbench bw_mem rd
 *   inplace-loop, move-loop, fault-loop, syscall-loop
 *           timed loops for the overhead benchmark (bench/overhead.sh)
 *
 * Only libc is used, so it links statically for x86_64 and aarch64.
 * The mremap subcommand issues exactly --count mremap() calls; nothing
 * else in this program calls mremap() (no realloc() either).
 *
 * Build: gcc -O2 -Wall -Wextra -o ptscope-bench bench/ptscope-bench.c
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define PROG_NAME	"ptscope-bench"

#ifndef MREMAP_DONTUNMAP
#define MREMAP_DONTUNMAP	4	/* uapi linux/mman.h, Linux 5.7 */
#endif

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

#define KIB		(1ULL << 10)
#define MIB		(1ULL << 20)
#define GIB		(1ULL << 30)

/* Sanity cap for sizes and offsets; keeps all address math in range. */
#define MAX_REGION	(1ULL << 40)
#define MAX_COUNT	100000000ULL
#define MAX_RUNS	1000

#define MARKER_MAGIC	0x70747363ULL	/* "ptsc" */
#define LINE_BUF_SIZE	8192

/* Synchronous collapse into PMD THPs (Linux 6.1); glibc < 2.37 lacks it. */
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE	25
#endif

/* bw: each timed sample reads at least this much; default buffer sizes. */
#define BW_MIN_BYTES	(64 * MIB)
#define BW_DEFAULT_SIZES	"16K,64K,256K,1M,4M,16M,64M"
#define BW_DEFAULT_RUNS	7
#define MAX_SIZES	32

#define ALIGN_UP(x, a)	(((x) + (a) - 1) & ~((uint64_t)(a) - 1))

enum align_mode {
	ALIGN_PUD,
	ALIGN_PMD,
	ALIGN_PAGE,
};

enum thp_mode {
	THP_NEVER,
	THP_DEFAULT,
	THP_ALWAYS,
};

/* mremap: which pages of the source are written before each move */
enum populate_mode {
	POPULATE_NONE,
	POPULATE_SPARSE,	/* the first page of every PMD-sized stretch */
	POPULATE_FULL,
};

/* Long option codes; also bit numbers (minus OPT_BASE) in args.seen. */
enum opt_code {
	OPT_BASE = 256,
	OPT_SIZE = OPT_BASE,
	OPT_ALIGN,
	OPT_COUNT,
	OPT_SRC_OFFSET,
	OPT_DST_OFFSET,
	OPT_THP,
	OPT_NO_POPULATE,
	OPT_POPULATE,
	OPT_DONTUNMAP,
	OPT_START,
	OPT_STEP,
	OPT_RUNS,
	OPT_STRIDE,
	OPT_READ,
	OPT_SIZES,
	OPT_CLASS,
	OPT_FOLIO,
	OPT_MOVE_OFFSET,
	OPT_SPLIT_MPROTECT,
	OPT_PUNCH,
	OPT_PAUSE,
	OPT_HELP,
};

#define OPT_BIT(code)	(1U << ((code) - OPT_BASE))

struct bench_args {
	uint64_t size;
	uint64_t count;
	uint64_t src_extra;
	uint64_t dst_extra;
	uint64_t start;
	uint64_t step;
	uint64_t runs;
	uint64_t fault_align;
	uint64_t stride;		/* fault: touch one byte every stride */
	bool read;			/* fault: read instead of write */
	uint64_t sizes[MAX_SIZES];	/* bw: buffer sizes */
	size_t nsizes;
	const char *align_text;		/* --align as typed */
	enum align_mode class;		/* move-loop: pmd or page */
	uint64_t folio;			/* fault-loop: bytes per fault */
	uint64_t move_offset;		/* hold: past an --align boundary */
	uint64_t mprotect_at;		/* hold: offset of the page to mprotect */
	uint64_t punch_at;		/* hold: offset of the page to unmap */
	bool pause;			/* hold: wait for a signal only */
	enum thp_mode thp;
	enum populate_mode populate;
	bool dontunmap;
	unsigned int seen;
};

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

struct line_reader {
	int fd;
	size_t len;		/* valid bytes in buf */
	size_t pos;		/* start of the next unread line */
	bool eof;
	bool skipping;		/* dropping the tail of an overlong line */
	char buf[LINE_BUF_SIZE + 1];
};

static uint64_t page_size;

/*
 * Page-table geometry from the running kernel's page size: a table is one
 * page of 8-byte entries, so an entry one level up maps page_size / 8
 * times more (PMD 2 MiB and PUD 1 GiB with 4 KiB pages, 32 MiB and
 * 64 GiB with 16 KiB pages).
 */
static uint64_t pmd_span(void)
{
	return page_size / 8 * page_size;
}

static uint64_t pud_span(void)
{
	return page_size / 8 * pmd_span();
}

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
"  fault --size SIZE --count N [--thp never|default|always] [--align SIZE]\n"
"        [--stride BYTES] [--read]\n"
"      N times: map SIZE bytes aligned to --align (default the PMD size,\n"
"      2M with 4 KiB pages), write (or --read) one byte every --stride\n"
"      (default a page), report AnonHugePages from /proc/self/smaps,\n"
"      unmap.\n"
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

static void print_usage(FILE *stream)
{
	fputs(usage_text, stream);
}

static void vreport(int errnum, const char *fmt, va_list ap)
{
	fprintf(stderr, PROG_NAME ": ");
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

/* Runtime failure caused by a syscall: message plus errno text. */
static int fail_errno(const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(saved_errno, fmt, ap);
	va_end(ap);
	return EXIT_RUNTIME;
}

/* Runtime failure without an errno (e.g. data mismatch). */
static int fail_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	return EXIT_RUNTIME;
}

static int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_usage(stderr);
	return EXIT_USAGE;
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

/* ---------------------------------------------------------------- parsing */

/* Decimal number with an optional K/M/G suffix (powers of 1024). */
static int parse_size(const char *text, uint64_t *out)
{
	unsigned long long value;
	uint64_t multiplier = 1;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno)
		return -1;
	switch (*end) {
	case 'k':
	case 'K':
		multiplier = KIB;
		end++;
		break;
	case 'm':
	case 'M':
		multiplier = MIB;
		end++;
		break;
	case 'g':
	case 'G':
		multiplier = GIB;
		end++;
		break;
	}
	if (*end || value > UINT64_MAX / multiplier)
		return -1;
	*out = value * multiplier;
	return 0;
}

static int parse_count(const char *text, uint64_t *out)
{
	unsigned long long value;
	char *end;

	if (!isdigit((unsigned char)text[0]))
		return -1;
	errno = 0;
	value = strtoull(text, &end, 10);
	if (errno || *end || value > MAX_COUNT)
		return -1;
	*out = value;
	return 0;
}

/* the names of enum thp_mode, enum populate_mode and enum align_mode */
static const char *const thp_names[] = { "never", "default", "always" };
static const char *const populate_names[] = { "none", "sparse", "full" };
static const char *const align_names[] = { "pud", "pmd", "page" };

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the index of @text in @names (an enum's names in order), or -1 */
static int name_index(const char *text, const char *const *names,
		      size_t count)
{
	size_t i;

	for (i = 0; i < count; i++)
		if (!strcmp(text, names[i]))
			return (int)i;
	return -1;
}

static int parse_thp(const char *text, enum thp_mode *out)
{
	int i = name_index(text, thp_names, ARRAY_SIZE(thp_names));

	if (i < 0)
		return -1;
	*out = (enum thp_mode)i;
	return 0;
}

static int parse_populate(const char *text, enum populate_mode *out)
{
	int i = name_index(text, populate_names, ARRAY_SIZE(populate_names));

	if (i < 0)
		return -1;
	*out = (enum populate_mode)i;
	return 0;
}

static int parse_align_mode(const char *text, enum align_mode *out)
{
	int i = name_index(text, align_names, ARRAY_SIZE(align_names));

	if (i < 0)
		return -1;
	*out = (enum align_mode)i;
	return 0;
}

/* Comma separated sizes, at most max of them; -1 if malformed. */
static int parse_size_list(const char *text, uint64_t *sizes, size_t max,
			   size_t *count)
{
	char item[32];
	const char *comma;
	size_t len, n = 0;

	for (;;) {
		comma = strchr(text, ',');
		len = comma ? (size_t)(comma - text) : strlen(text);
		if (!len || len >= sizeof(item) || n == max)
			return -1;
		memcpy(item, text, len);
		item[len] = '\0';
		if (parse_size(item, &sizes[n++]))
			return -1;
		if (!comma)
			break;
		text = comma + 1;
	}
	*count = n;
	return 0;
}

/* fault-loop --folio: "page", "pmd" or a size */
static int parse_folio(const char *text, uint64_t *out)
{
	if (!strcmp(text, "page"))
		*out = page_size;
	else if (!strcmp(text, "pmd"))
		*out = pmd_span();
	else
		return parse_size(text, out);
	return 0;
}

static const char *opt_name(int code)
{
	switch (code) {
	case OPT_SIZE:		return "--size";
	case OPT_ALIGN:		return "--align";
	case OPT_COUNT:		return "--count";
	case OPT_SRC_OFFSET:	return "--src-offset";
	case OPT_DST_OFFSET:	return "--dst-offset";
	case OPT_THP:		return "--thp";
	case OPT_POPULATE:	return "--populate";
	case OPT_START:		return "--start";
	case OPT_STEP:		return "--step";
	case OPT_RUNS:		return "--runs";
	case OPT_STRIDE:	return "--stride";
	case OPT_SIZES:		return "--sizes";
	case OPT_CLASS:		return "--class";
	case OPT_FOLIO:		return "--folio";
	case OPT_MOVE_OFFSET:	return "--move-offset";
	case OPT_SPLIT_MPROTECT: return "--split-mprotect";
	case OPT_PUNCH:		return "--punch";
	}
	return "option";
}

/* Store one option's value; returns 0 or -1 for a malformed value. */
static int store_option(struct bench_args *args, int code, const char *value)
{
	switch (code) {
	case OPT_SIZE:
		return parse_size(value, &args->size);
	case OPT_COUNT:
		return parse_count(value, &args->count);
	case OPT_SRC_OFFSET:
		return parse_size(value, &args->src_extra);
	case OPT_DST_OFFSET:
		return parse_size(value, &args->dst_extra);
	case OPT_START:
		return parse_size(value, &args->start);
	case OPT_STEP:
		return parse_size(value, &args->step);
	case OPT_RUNS:
		return parse_count(value, &args->runs);
	case OPT_THP:
		return parse_thp(value, &args->thp);
	case OPT_ALIGN:
		/* pud|pmd|page for mremap, a size for fault: checked later */
		args->align_text = value;
		return 0;
	case OPT_CLASS:
		return parse_align_mode(value, &args->class);
	case OPT_FOLIO:
		return parse_folio(value, &args->folio);
	case OPT_DONTUNMAP:
		args->dontunmap = true;
		return 0;
	case OPT_NO_POPULATE:
		args->populate = POPULATE_NONE;
		return 0;
	case OPT_POPULATE:
		return parse_populate(value, &args->populate);
	case OPT_STRIDE:
		return parse_size(value, &args->stride);
	case OPT_READ:
		args->read = true;
		return 0;
	case OPT_SIZES:
		return parse_size_list(value, args->sizes, MAX_SIZES,
				       &args->nsizes);
	case OPT_MOVE_OFFSET:
		return parse_size(value, &args->move_offset);
	case OPT_SPLIT_MPROTECT:
		return parse_size(value, &args->mprotect_at);
	case OPT_PUNCH:
		return parse_size(value, &args->punch_at);
	case OPT_PAUSE:
		args->pause = true;
		return 0;
	}
	return -1;
}

/*
 * Parse the options of one subcommand.  argv[0] is the subcommand name.
 * Returns 0, EXIT_USAGE after reporting, or -1 when help was requested.
 */
static int parse_args(int argc, char **argv, const struct option *longopts,
		      struct bench_args *args)
{
	int code;

	opterr = 0;
	optind = 1;
	while ((code = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
		if (code == 'h' || code == OPT_HELP)
			return -1;
		if (code == '?')
			return usage_error("%s: unknown option '%s'", argv[0],
					   argv[optind - 1]);
		if (code == ':')
			return usage_error("%s: option '%s' needs a value",
					   argv[0], argv[optind - 1]);
		if (store_option(args, code, optarg))
			return usage_error("%s: bad value '%s' for %s", argv[0],
					   optarg, opt_name(code));
		args->seen |= OPT_BIT(code);
	}
	if (optind < argc)
		return usage_error("%s: unexpected argument '%s'", argv[0],
				   argv[optind]);
	return 0;
}

/* Returns EXIT_USAGE (after reporting) if a required option is missing. */
static int require(const struct bench_args *args, const char *cmd, int code)
{
	if (args->seen & OPT_BIT(code))
		return 0;
	return usage_error("%s: %s is required", cmd, opt_name(code));
}

/* A byte count that must be a page multiple in [min, MAX_REGION]. */
static int check_bytes(const char *cmd, int code, uint64_t value, uint64_t min)
{
	if (value < min || value > MAX_REGION || value % page_size)
		return usage_error("%s: %s must be a multiple of %" PRIu64
				   " between %" PRIu64 " and %llu bytes", cmd,
				   opt_name(code), page_size, min, MAX_REGION);
	return 0;
}

/* ------------------------------------------------------- memory helpers */

static int apply_thp(char *addr, uint64_t len, enum thp_mode thp)
{
	if (thp == THP_NEVER)
		return madvise(addr, len, MADV_NOHUGEPAGE);
	if (thp == THP_ALWAYS)
		return madvise(addr, len, MADV_HUGEPAGE);
	return 0;
}

static uint64_t marker_for(uint64_t iteration, uint64_t page)
{
	return (MARKER_MAGIC << 32) ^ (iteration << 24) ^ page;
}

/* Write one marker word at the start of pages [first, first + count). */
static void write_markers(char *base, uint64_t first, uint64_t count,
			  uint64_t iteration)
{
	uint64_t page;

	for (page = first; page < first + count; page++)
		*(volatile uint64_t *)(base + page * page_size) =
			marker_for(iteration, page);
}

/* Check markers of pages [first, first + count); 0 if all match. */
static int check_markers(const char *base, uint64_t first, uint64_t count,
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

/* ---------------------------------------------------------- smaps reader */

static int reader_fill(struct line_reader *lr)
{
	ssize_t got;

	if (lr->pos) {
		memmove(lr->buf, lr->buf + lr->pos, lr->len - lr->pos);
		lr->len -= lr->pos;
		lr->pos = 0;
	}
	do {
		got = read(lr->fd, lr->buf + lr->len, LINE_BUF_SIZE - lr->len);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	if (got == 0)
		lr->eof = true;
	lr->len += (size_t)got;
	return 0;
}

/*
 * Next line without its newline: 1 and *line set, 0 at end of file, -1 on
 * read error.  Overlong lines are cut to LINE_BUF_SIZE bytes.  No memory
 * is allocated, so reading smaps never adds or changes a mapping.
 */
static int reader_next(struct line_reader *lr, char **line)
{
	char *start, *newline;

	for (;;) {
		start = lr->buf + lr->pos;
		newline = memchr(start, '\n', lr->len - lr->pos);
		if (newline) {
			*newline = '\0';
			lr->pos = (size_t)(newline + 1 - lr->buf);
			if (lr->skipping) {
				lr->skipping = false;
				continue;
			}
			*line = start;
			return 1;
		}
		if (lr->eof) {
			if (lr->pos == lr->len || lr->skipping)
				return 0;
			lr->buf[lr->len] = '\0';
			lr->pos = lr->len;
			*line = start;
			return 1;
		}
		if (lr->len - lr->pos == LINE_BUF_SIZE) {
			bool was_skipping = lr->skipping;

			lr->buf[lr->len] = '\0';
			lr->pos = lr->len;
			lr->skipping = true;
			if (!was_skipping) {
				*line = start;
				return 1;
			}
		}
		if (reader_fill(lr))
			return -1;
	}
}

/* "start-end perms ..." line that opens a VMA block in smaps. */
static bool parse_vma_header(const char *line, uintptr_t *start,
			     uintptr_t *end)
{
	char *rest;

	if (!isxdigit((unsigned char)line[0]))
		return false;
	*start = strtoull(line, &rest, 16);
	if (*rest != '-')
		return false;
	*end = strtoull(rest + 1, &rest, 16);
	return *rest == ' ';
}

/* Sum @key ("AnonHugePages:") in kB of every VMA overlapping [start, end). */
static int smaps_sum_kb(const char *start, const char *end, const char *key,
			uint64_t *kb_out)
{
	size_t key_len = strlen(key);
	struct line_reader lr = { .fd = -1 };
	uintptr_t vm_start, vm_end;
	uint64_t total_kb = 0;
	bool in_range = false;
	int got, saved_errno;
	char *line;

	lr.fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return -1;
	while ((got = reader_next(&lr, &line)) > 0) {
		if (parse_vma_header(line, &vm_start, &vm_end)) {
			in_range = vm_start < (uintptr_t)end &&
				   vm_end > (uintptr_t)start;
			continue;
		}
		if (in_range && !strncmp(line, key, key_len))
			total_kb += strtoull(line + key_len, NULL, 10);
	}
	saved_errno = errno;
	close(lr.fd);
	if (got < 0) {
		errno = saved_errno;
		return -1;
	}
	*kb_out = total_kb;
	return 0;
}

static int smaps_anon_huge_kb(const char *start, const char *end,
			      uint64_t *kb_out)
{
	return smaps_sum_kb(start, end, "AnonHugePages:", kb_out);
}

/* --------------------------------------------------------------- mremap */

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
	if (align == ALIGN_PMD)
		return 2 * pmd_span();
	if (align == ALIGN_PAGE)
		return 2 * page_size;
	return 0;
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
	plan->window = mmap(NULL, plan->window_len, PROT_NONE,
			    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (plan->window == MAP_FAILED) {
		plan->window = NULL;
		return fail_errno("mmap reserve window of %" PRIu64 " bytes",
				  plan->window_len);
	}
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
	if (plan->thp == THP_ALWAYS &&
	    smaps_anon_huge_kb(plan->src, plan->src + plan->size,
			       &result->anon_huge_kb))
		return fail_errno("read /proc/self/smaps");
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

static int cmd_mremap(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",	 required_argument, NULL, OPT_SIZE },
		{ "align",	 required_argument, NULL, OPT_ALIGN },
		{ "count",	 required_argument, NULL, OPT_COUNT },
		{ "src-offset",	 required_argument, NULL, OPT_SRC_OFFSET },
		{ "dst-offset",	 required_argument, NULL, OPT_DST_OFFSET },
		{ "thp",	 required_argument, NULL, OPT_THP },
		{ "no-populate", no_argument,	    NULL, OPT_NO_POPULATE },
		{ "populate",	 required_argument, NULL, OPT_POPULATE },
		{ "dontunmap",	 no_argument,	    NULL, OPT_DONTUNMAP },
		{ "help",	 no_argument,	    NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = {
		.thp = THP_DEFAULT,
		.populate = POPULATE_FULL,
	};
	struct move_plan plan = { 0 };
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		goto out;
	ret = require(&args, "mremap", OPT_SIZE) ?:
	      require(&args, "mremap", OPT_ALIGN) ?:
	      require(&args, "mremap", OPT_COUNT) ?:
	      check_bytes("mremap", OPT_SIZE, args.size, page_size) ?:
	      check_bytes("mremap", OPT_SRC_OFFSET, args.src_extra, 0) ?:
	      check_bytes("mremap", OPT_DST_OFFSET, args.dst_extra, 0);
	if (ret)
		goto out;
	if (parse_align_mode(args.align_text, &plan.align)) {
		ret = usage_error("mremap: --align must be pud, pmd or page");
		goto out;
	}
	plan.size = args.size;
	plan.src_extra = args.src_extra;
	plan.dst_extra = args.dst_extra;
	plan.thp = args.thp;
	plan.populate = args.populate;
	plan.dontunmap = args.dontunmap;
	ret = run_mremap_loop(&plan, args.count);
out:
	return ret;
}

/* ----------------------------------------------------------------- grow */

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

static int cmd_grow(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "start", required_argument, NULL, OPT_START },
		{ "step",  required_argument, NULL, OPT_STEP },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { 0 };
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, "grow", OPT_START) ?:
	      require(&args, "grow", OPT_STEP) ?:
	      require(&args, "grow", OPT_COUNT) ?:
	      check_bytes("grow", OPT_START, args.start, page_size) ?:
	      check_bytes("grow", OPT_STEP, args.step, page_size);
	if (ret)
		return ret;
	if (args.count && args.step > (MAX_REGION - args.start) / args.count)
		return usage_error("grow: final size above %llu bytes",
				   MAX_REGION);
	return run_grow(args.start, args.step, args.count);
}

/* ---------------------------------------------------------------- fault */

/*
 * Map len bytes aligned to align: reserve len + align + a page of address
 * space (PROT_NONE, MAP_NORESERVE: no memory is committed, so even a PUD
 * alignment of 64 GiB costs nothing), map the region over it and unmap
 * the slack on both sides, so the region has a hole on each side and
 * cannot merge with a neighbouring VMA.
 */
static int map_aligned(uint64_t len, uint64_t align, char **out)
{
	uint64_t reserve_len = len + align + page_size;
	uintptr_t raw, start, end;
	void *mapped;

	mapped = mmap(NULL, reserve_len, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (mapped == MAP_FAILED)
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

static int fault_once(uint64_t len, uint64_t align, enum thp_mode thp,
		      uint64_t stride, bool read)
{
	uint64_t offset, anon_huge_kb;
	volatile char sink;
	char *region = NULL;
	int ret;

	ret = map_aligned(len, align, &region);
	if (ret)
		return ret;
	if (apply_thp(region, len, thp)) {
		ret = fail_errno("madvise %p", (void *)region);
		goto cleanup;
	}
	for (offset = 0; offset < len; offset += stride) {
		if (read)
			sink = *(volatile char *)(region + offset);
		else
			*(volatile char *)(region + offset) = 1;
	}
	(void)sink;
	if (smaps_anon_huge_kb(region, region + len, &anon_huge_kb)) {
		ret = fail_errno("read /proc/self/smaps");
		goto cleanup;
	}
	printf("fault size=%" PRIu64 " anon_huge_kb=%" PRIu64 "\n", len,
	       anon_huge_kb);
cleanup:
	if (munmap(region, len) && !ret)
		ret = fail_errno("munmap %p", (void *)region);
	return ret;
}

/* --align SIZE of fault and hold into args->fault_align, if given */
static int parse_align_size(const char *cmd, struct bench_args *args)
{
	uint64_t align;

	if (!args->align_text)
		return 0;
	if (parse_size(args->align_text, &align) || align < page_size ||
	    align > MAX_REGION || (align & (align - 1)))
		return usage_error("%s: --align must be a power of two between "
				   "%" PRIu64 " and %llu bytes", cmd, page_size,
				   MAX_REGION);
	args->fault_align = align;
	return 0;
}

static int cmd_fault(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",  required_argument, NULL, OPT_SIZE },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "thp",   required_argument, NULL, OPT_THP },
		{ "align", required_argument, NULL, OPT_ALIGN },
		{ "stride", required_argument, NULL, OPT_STRIDE },
		{ "read",  no_argument,	      NULL, OPT_READ },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = {
		.thp = THP_DEFAULT,
		.fault_align = pmd_span(),
		.stride = page_size,
	};
	uint64_t region;
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, "fault", OPT_SIZE) ?:
	      require(&args, "fault", OPT_COUNT) ?:
	      check_bytes("fault", OPT_SIZE, args.size, page_size);
	if (ret)
		return ret;
	ret = parse_align_size("fault", &args);
	if (ret)
		return ret;
	if (!args.stride || args.stride % page_size)
		return usage_error("fault: --stride must be a multiple of %"
				   PRIu64, page_size);
	for (region = 0; region < args.count; region++) {
		ret = fault_once(args.size, args.fault_align, args.thp,
				 args.stride, args.read);
		if (ret)
			return ret;
	}
	printf("fault_regions=%" PRIu64 " bytes_touched=%" PRIu64 "\n",
	       args.count, args.count * args.size);
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
static int collapse_once(uint64_t len, uint64_t iteration, int *collapse_ret)
{
	uint64_t pages = len / page_size, kb_before, kb_after;
	char *region = NULL;
	int ret;

	ret = map_aligned(len, pmd_span(), &region);
	if (ret)
		return ret;
	if (madvise(region, len, MADV_NOHUGEPAGE)) {
		ret = fail_errno("madvise(MADV_NOHUGEPAGE) %p", (void *)region);
		goto cleanup;
	}
	write_markers(region, 0, pages, iteration);
	if (smaps_anon_huge_kb(region, region + len, &kb_before)) {
		ret = fail_errno("read /proc/self/smaps");
		goto cleanup;
	}
	if (madvise(region, len, MADV_HUGEPAGE)) {
		ret = fail_errno("madvise(MADV_HUGEPAGE) %p", (void *)region);
		goto cleanup;
	}
	*collapse_ret = madvise(region, len, MADV_COLLAPSE) ? -errno : 0;
	if (smaps_anon_huge_kb(region, region + len, &kb_after)) {
		ret = fail_errno("read /proc/self/smaps");
		goto cleanup;
	}
	ret = check_markers(region, 0, pages, iteration);
	if (ret)
		goto cleanup;
	printf("collapse size=%" PRIu64 " anon_huge_kb_before=%" PRIu64
	       " anon_huge_kb_after=%" PRIu64 " ret=%d\n", len, kb_before,
	       kb_after, *collapse_ret);
cleanup:
	if (munmap(region, len) && !ret)
		ret = fail_errno("munmap %p", (void *)region);
	return ret;
}

static int cmd_collapse(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",  required_argument, NULL, OPT_SIZE },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { 0 };
	uint64_t region, failed = 0;
	int ret, collapse_ret = 0, first_error = 0;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, "collapse", OPT_SIZE) ?:
	      require(&args, "collapse", OPT_COUNT);
	if (ret)
		return ret;
	if (args.size < pmd_span() || args.size > MAX_REGION ||
	    args.size % pmd_span())
		return usage_error("collapse: --size must be a multiple of %"
				   PRIu64 " between %" PRIu64 " and %llu bytes",
				   pmd_span(), pmd_span(), MAX_REGION);
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

/* ----------------------------------------------------------------- hold */

static volatile sig_atomic_t hold_stop;

static void on_hold_signal(int sig)
{
	(void)sig;
	hold_stop = 1;
}

/*
 * Until SIGTERM, SIGINT or SIGHUP, or (unless @signal_only) end of file
 * on stdin.  The signals are blocked outside ppoll(), so one that comes
 * between the check and the wait is not lost.
 */
static int hold_wait(bool signal_only)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	struct sigaction sa;
	sigset_t block, wait_mask;
	char buf[256];
	size_t i;
	int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_hold_signal;
	sigemptyset(&block);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaddset(&block, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	while (!hold_stop) {
		if (ppoll(signal_only ? NULL : &in, signal_only ? 0 : 1, NULL,
			  &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			ret = fail_errno("ppoll");
			break;
		}
		if (read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
			break;	/* end of file, or stdin is gone */
	}
	sigprocmask(SIG_SETMASK, &wait_mask, NULL);
	return ret;
}

/*
 * Move the populated region to @offset past an @align boundary of a fresh
 * window: mremap() moves the PTEs (a PMD that cannot move whole is split
 * first, move_huge_pmd() in mm/huge_memory.c), the folios stay as they
 * were.  The rest of the window is unmapped again.
 */
static int hold_move(char **region, uint64_t len, uint64_t align,
		     uint64_t offset)
{
	uint64_t window_len = len + 2 * align;
	char *window, *dst, *window_end;

	window = mmap(NULL, window_len, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (window == MAP_FAILED)
		return fail_errno("mmap reserve %" PRIu64 " bytes", window_len);
	window_end = window + window_len;
	dst = (char *)(uintptr_t)ALIGN_UP((uintptr_t)window, align) + offset;
	if (mremap(*region, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst) !=
	    dst) {
		munmap(window, window_len);
		return fail_errno("mremap %p -> %p", (void *)*region, (void *)dst);
	}
	*region = dst;
	if ((dst > window && munmap(window, (size_t)(dst - window))) ||
	    (window_end > dst + len &&
	     munmap(dst + len, (size_t)(window_end - dst - len))))
		return fail_errno("munmap the rest of the window");
	return 0;
}

/*
 * The line tests read: where the region is, what smaps says of it now,
 * and @faulted_huge_kb, its AnonHugePages right after the faults.
 */
static int hold_report(const char *start, const char *end,
		       uint64_t faulted_huge_kb)
{
	uint64_t anon_kb, anon_huge_kb;

	if (smaps_sum_kb(start, end, "Anonymous:", &anon_kb) ||
	    smaps_anon_huge_kb(start, end, &anon_huge_kb))
		return fail_errno("read /proc/self/smaps");
	printf("hold pid=%d start=%p end=%p size=%" PRIu64 " page_size=%"
	       PRIu64 " pmd_size=%" PRIu64 " faulted_huge_kb=%" PRIu64
	       " anon_kb=%" PRIu64 " anon_huge_kb=%" PRIu64 "\n",
	       (int)getpid(), (void *)start, (void *)end,
	       (uint64_t)(end - start), page_size, pmd_span(), faulted_huge_kb,
	       anon_kb, anon_huge_kb);
	if (fflush(stdout))
		return fail_errno("write stdout");
	return 0;
}

static int run_hold(const struct bench_args *args)
{
	uint64_t len = args->size, faulted_huge_kb;
	char *region = NULL;
	int ret;

	ret = map_aligned(len, args->fault_align, &region);
	if (ret)
		return ret;
	if (apply_thp(region, len, args->thp)) {
		ret = fail_errno("madvise %p", (void *)region);
		goto cleanup;
	}
	write_markers(region, 0, len / page_size, 0);
	if (smaps_anon_huge_kb(region, region + len, &faulted_huge_kb)) {
		ret = fail_errno("read /proc/self/smaps");
		goto cleanup;
	}
	if (args->seen & OPT_BIT(OPT_MOVE_OFFSET)) {
		ret = hold_move(&region, len, args->fault_align,
				args->move_offset);
		if (ret)
			goto cleanup;
	}
	if ((args->seen & OPT_BIT(OPT_SPLIT_MPROTECT)) &&
	    mprotect(region + args->mprotect_at, page_size, PROT_READ)) {
		ret = fail_errno("mprotect %p", (void *)(region + args->mprotect_at));
		goto cleanup;
	}
	if ((args->seen & OPT_BIT(OPT_PUNCH)) &&
	    munmap(region + args->punch_at, page_size)) {
		ret = fail_errno("munmap %p", (void *)(region + args->punch_at));
		goto cleanup;
	}
	ret = hold_report(region, region + len, faulted_huge_kb) ?:
	      hold_wait(args->pause);
cleanup:
	munmap(region, len);
	return ret;
}

/* a page offset inside the region, if option @code was given */
static int check_offset(const struct bench_args *args, int code,
			uint64_t offset, uint64_t limit)
{
	if (!(args->seen & OPT_BIT(code)))
		return 0;
	if (offset % page_size || offset >= limit)
		return usage_error("hold: %s must be a multiple of %" PRIu64
				   " below %" PRIu64, opt_name(code), page_size,
				   limit);
	return 0;
}

static int cmd_hold(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",  required_argument, NULL, OPT_SIZE },
		{ "thp",   required_argument, NULL, OPT_THP },
		{ "align", required_argument, NULL, OPT_ALIGN },
		{ "move-offset", required_argument, NULL, OPT_MOVE_OFFSET },
		{ "split-mprotect", required_argument, NULL, OPT_SPLIT_MPROTECT },
		{ "punch", required_argument, NULL, OPT_PUNCH },
		{ "pause", no_argument,	      NULL, OPT_PAUSE },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { .thp = THP_DEFAULT };
	int ret;

	args.fault_align = pmd_span();
	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, "hold", OPT_SIZE) ?:
	      check_bytes("hold", OPT_SIZE, args.size, page_size) ?:
	      parse_align_size("hold", &args);
	if (ret)
		return ret;
	return check_offset(&args, OPT_MOVE_OFFSET, args.move_offset,
			    args.fault_align) ?:
	       check_offset(&args, OPT_SPLIT_MPROTECT, args.mprotect_at,
			    args.size) ?:
	       check_offset(&args, OPT_PUNCH, args.punch_at, args.size) ?:
	       run_hold(&args);
}

/* ---------------------------------------------------------------- table */

struct table_row {
	const char *name;
	enum align_mode align;
	uint64_t median_ns;
	uint64_t min_ns;
};

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

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
	qsort(samples, runs, sizeof(samples[0]), compare_u64);
	row->min_ns = samples[0];
	row->median_ns = runs % 2 ? samples[runs / 2] :
			 (samples[runs / 2 - 1] + samples[runs / 2]) / 2;
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

static int cmd_table(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size", required_argument, NULL, OPT_SIZE },
		{ "runs", required_argument, NULL, OPT_RUNS },
		{ "help", no_argument,	     NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct table_row rows[] = {
		{ .name = "pud",  .align = ALIGN_PUD },
		{ .name = "pmd",  .align = ALIGN_PMD },
		{ .name = "page", .align = ALIGN_PAGE },
	};
	struct bench_args args = { .size = GIB, .runs = 5 };
	size_t i;
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = check_bytes("table", OPT_SIZE, args.size, page_size);
	if (ret)
		return ret;
	if (args.runs < 1 || args.runs > MAX_RUNS)
		return usage_error("table: --runs must be between 1 and %d",
				   MAX_RUNS);
	printf("# size=%" PRIu64 " runs=%" PRIu64
	       " warmup=1 thp=never populated=yes (user-side timing)\n",
	       args.size, args.runs);
	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++) {
		ret = time_alignment(&rows[i], args.size, args.runs);
		if (ret)
			return ret;
	}
	print_table(rows, sizeof(rows) / sizeof(rows[0]));
	return 0;
}

/* ------------------------------------------------------------------- bw */

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
	uint64_t passes, run, anon_huge_kb, median_ns;
	char *buf = NULL;
	int ret;

	ret = map_aligned(len, pmd_span(), &buf);
	if (ret)
		return ret;
	if (apply_thp(buf, len, thp)) {
		ret = fail_errno("madvise %p", (void *)buf);
		goto cleanup;
	}
	memset(buf, 1, len);
	if (smaps_anon_huge_kb(buf, buf + len, &anon_huge_kb)) {
		ret = fail_errno("read /proc/self/smaps");
		goto cleanup;
	}
	passes = (BW_MIN_BYTES + len - 1) / len;
	rd_sample(buf, len, passes);		/* warm-up */
	for (run = 0; run < runs; run++)
		samples[run] = rd_sample(buf, len, passes) ?: 1;
	qsort(samples, runs, sizeof(samples[0]), compare_u64);
	median_ns = runs % 2 ? samples[runs / 2] :
		    (samples[runs / 2 - 1] + samples[runs / 2]) / 2;
	printf("%7" PRIu64 "  %8.1f  %12" PRIu64 "\n", (uint64_t)(len / KIB),
	       (double)len * passes * 1e3 / (double)median_ns, anon_huge_kb);
cleanup:
	if (munmap(buf, len) && !ret)
		ret = fail_errno("munmap %p", (void *)buf);
	return ret;
}

static int cmd_bw(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ "thp",   required_argument, NULL, OPT_THP },
		{ "runs",  required_argument, NULL, OPT_RUNS },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = {
		.thp = THP_DEFAULT,
		.runs = BW_DEFAULT_RUNS,
	};
	size_t i;
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	if (!args.nsizes &&
	    parse_size_list(BW_DEFAULT_SIZES, args.sizes, MAX_SIZES,
			    &args.nsizes))
		return fail_msg("bad built-in size list");
	for (i = 0; i < args.nsizes; i++) {
		ret = check_bytes("bw", OPT_SIZES, args.sizes[i], page_size);
		if (ret)
			return ret;
	}
	if (args.runs < 1 || args.runs > MAX_RUNS)
		return usage_error("bw: --runs must be between 1 and %d",
				   MAX_RUNS);
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

static int run_multi(const uint64_t *sizes, size_t n)
{
	uint64_t starts[MAX_SIZES], len, pages = 0, before, after;
	char *src, *dst;
	void *moved;
	size_t i;

	multi_layout(sizes, n, starts);
	len = starts[n - 1] + sizes[n - 1];
	if (map_aligned(len, pmd_span(), &src) ||
	    map_aligned(len, pmd_span(), &dst))
		return 1;
	for (i = 0; i + 1 < n; i++) {
		char *gap = src + starts[i] + sizes[i];

		if (munmap(gap, starts[i + 1] - starts[i] - sizes[i]))
			return fail_errno("munmap gap %p", (void *)gap);
	}
	if (apply_thp(src, len, THP_NEVER) && errno != ENOMEM)
		return fail_errno("madvise %p", (void *)src);
	for (i = 0; i < n; i++) {
		write_markers(src, starts[i] / page_size, sizes[i] / page_size,
			      1);
		pages += sizes[i] / page_size;
	}
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
	printf("multi vmas=%zu page_size=%" PRIu64 " len=%" PRIu64
	       " src=%p dst=%p ns=%" PRIu64 " pages_populated=%" PRIu64 "\n",
	       n, page_size, len, (void *)src, (void *)dst, after - before,
	       pages);
	for (i = 0; i < n; i++)
		printf("vma %zu offset=%" PRIu64 " size=%" PRIu64 "\n", i,
		       starts[i], sizes[i]);
	munmap(dst, len);
	return 0;
}

static int cmd_multi(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "sizes", required_argument, NULL, OPT_SIZES },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { 0 };
	size_t i;
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	if (!args.nsizes) {
		args.sizes[0] = 2 * pmd_span();
		args.sizes[1] = pmd_span() / 2 + 3 * page_size;
		args.sizes[2] = pmd_span();
		args.nsizes = 3;
	}
	for (i = 0; i < args.nsizes; i++) {
		ret = check_bytes("multi", OPT_SIZES, args.sizes[i], page_size);
		if (ret)
			return ret;
	}
	return run_multi(args.sizes, args.nsizes);
}

/* a subcommand whose one option is --count N: run(N) */
static int run_count_only(int argc, char **argv, int (*run)(uint64_t count))
{
	static const struct option longopts[] = {
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { 0 };
	int ret;

	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, argv[0], OPT_COUNT);
	if (ret)
		return ret;
	return run(args.count);
}

/* ------------------------------------------------------ overhead loops */

/*
 * The workloads of bench/overhead.sh: tight loops whose cost per
 * operation a tracer adds to.  Each prints one line,
 *   loop=NAME page_size=P ops=N ns=TOTAL ns_per_op=X
 * (NAME: inplace, move_pmd, move_pte, fault_<folio KiB>k, syscall), where
 * ops counts mremap calls, faults or syscalls and only they are timed.
 */
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

static int cmd_inplace_loop(int argc, char **argv)
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

static int cmd_syscall_loop(int argc, char **argv)
{
	return run_count_only(argc, argv, run_syscall_loop);
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
	uint64_t pmd = pmd_span(), window_len, i, start;
	char *window, *a, *b, *from, *to;
	int ret = 0;

	window_len = 2 * ALIGN_UP(size, pmd) + 3 * pmd;
	window = mmap(NULL, window_len, PROT_NONE,
		      MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (window == MAP_FAILED)
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
	for (i = 0; i < count; i++) {
		from = i % 2 ? b : a;
		to = i % 2 ? a : b;
		if (mremap(from, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
			   to) != to) {
			ret = fail_errno("mremap %p -> %p", (void *)from,
					 (void *)to);
			goto cleanup;
		}
	}
	print_loop(class == ALIGN_PAGE ? "move_pte" : "move_pmd", count,
		   now_ns() - start);
	ret = check_markers(count % 2 ? b : a, 0, size / page_size, 0);
cleanup:
	munmap(window, window_len);
	return ret;
}

static int cmd_move_loop(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "class", required_argument, NULL, OPT_CLASS },
		{ "size",  required_argument, NULL, OPT_SIZE },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { .class = ALIGN_PMD };
	int ret;

	args.size = 2 * pmd_span();
	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, "move-loop", OPT_COUNT) ?:
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
		ret = map_aligned(size, pmd_span(), &region);
		if (ret)
			return ret;
		if (apply_thp(region, size, thp)) {
			ret = fail_errno("madvise %p", (void *)region);
			munmap(region, size);
			return ret;
		}
		start = now_ns();
		for (offset = 0; offset < size; offset += folio)
			*(volatile char *)(region + offset) = 1;
		ns += now_ns() - start;
		if (munmap(region, size))
			return fail_errno("munmap %p", (void *)region);
	}
	snprintf(name, sizeof(name), "fault_%" PRIu64 "k", folio >> 10);
	print_loop(name, count * (size / folio), ns);
	return 0;
}

static int cmd_fault_loop(int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "size",  required_argument, NULL, OPT_SIZE },
		{ "folio", required_argument, NULL, OPT_FOLIO },
		{ "thp",   required_argument, NULL, OPT_THP },
		{ "count", required_argument, NULL, OPT_COUNT },
		{ "help",  no_argument,	      NULL, OPT_HELP },
		{ NULL, 0, NULL, 0 }
	};
	struct bench_args args = { .thp = THP_NEVER };
	int ret;

	args.folio = page_size;
	ret = parse_args(argc, argv, longopts, &args);
	if (ret)
		return ret;
	ret = require(&args, "fault-loop", OPT_SIZE) ?:
	      require(&args, "fault-loop", OPT_COUNT) ?:
	      check_bytes("fault-loop", OPT_SIZE, args.size, page_size);
	if (ret)
		return ret;
	if (args.folio < page_size || args.folio > args.size ||
	    (args.folio & (args.folio - 1)) || args.size % args.folio)
		return usage_error("fault-loop: --folio must be a power of two "
				   "of at least %" PRIu64 " bytes that divides "
				   "--size", page_size);
	return run_fault_loop(args.size, args.folio, args.thp, args.count);
}

/* ----------------------------------------------------------------- main */

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

static int cmd_fail(int argc, char **argv)
{
	return run_count_only(argc, argv, run_fail);
}

struct command {
	const char *name;
	int (*run)(int argc, char **argv);
};

static const struct command commands[] = {
	{ "mremap", cmd_mremap },
	{ "grow",   cmd_grow },
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
	for (i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
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
