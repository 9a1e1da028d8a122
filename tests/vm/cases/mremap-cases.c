// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope-cases - a seeded generator of mremap() cases shaped like real
 * heaps, for the differential level test (tests/vm/checkers/check_levels.py).
 *
 *   ptscope-cases [--seed N] [--count N] [--max-write BYTES]
 *                 [--max-thp BYTES]
 *
 * Each case maps an anonymous region (private or shared, THP on or off) at
 * a chosen offset from a PUD boundary, writes a subset of it (none, the
 * first page, the first N MiB, every k-th page, every k-th PMD, all), and
 * moves it with mremap(MREMAP_MAYMOVE | MREMAP_FIXED) to a destination at
 * a chosen offset from another PUD boundary; then unmaps it.  One line per
 * case says what was done:
 *
 *   case=3 src=0x... dst=0x... len=... shared=0 thp=1 write=every_pmd:2
 *        written=... ret=0x...
 *
 * Case 0 and 1 are fixed (the sparse heap, private and shared):
 * 2 GiB at a 1 GiB boundary, only its first 4 MiB written, moved 2 MiB
 * past a 1 GiB boundary.  Every case gets its own source and destination
 * slots, far apart, so no page table is shared between cases and every
 * destination starts empty.  Geometry comes from the running kernel's
 * page size (PMD = page * page/8, PUD = PMD * page/8), and so do the
 * per-table counts the cases draw from: with 4 KiB pages every draw is
 * the one it always was, with 16 KiB pages (2048 entries per table, PMD
 * 32 MiB, PUD 64 GiB) the same shapes scale up.  Regions are mapped with
 * MAP_NORESERVE: a 16 KiB-page case spans up to two 64 GiB PUDs, far more
 * than a test VM has, and a PUD move needs the entry present, not the
 * memory behind it.
 *
 * Only libc is used, so it links statically for x86_64 and aarch64; nothing
 * but the cases calls mremap().
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE	0x100000
#endif

#define EXIT_RUNTIME	1
#define EXIT_USAGE	2

/* first slot: 32 TiB, above anything the loader or libc maps */
#define SLOT_BASE	(32ULL << 40)
/*
 * The slots stay below 128 TiB, the user address space without an mmap
 * hint on x86-64 (4-level) and on arm64 with 16 KiB pages (VA_BITS_MIN 47
 * even on a 52-bit kernel, arch/arm64/include/asm/memory.h).
 */
#define SLOT_END	(1ULL << 47)

enum write_kind {
	WRITE_NONE,
	WRITE_FIRST_PAGE,
	WRITE_FIRST_MIB,	/* arg: MiB */
	WRITE_EVERY_PAGE,	/* arg: k */
	WRITE_EVERY_PMD,	/* arg: k */
	WRITE_ALL,
	WRITE_KINDS,
};

static const char *const write_names[WRITE_KINDS] = {
	"none", "first_page", "first_mib", "every_page", "every_pmd", "all",
};

struct geometry {
	uint64_t page;
	uint64_t ptrs;		/* entries per table: PTRS_PER_PTE = page / 8 */
	uint64_t pmd;
	uint64_t pud;
	uint64_t slot;		/* distance between case slots */
};

struct mcase {
	uint64_t src_off;	/* from the source slot's PUD boundary */
	uint64_t dst_off;
	uint64_t len;
	int shared;
	int thp;
	enum write_kind write;
	uint64_t write_arg;
};

/* splitmix64: the same sequence on every libc and architecture */
static uint64_t rng_state;

static uint64_t rng_next(void)
{
	uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* uniform in [0, n) (n > 0; the modulo bias is irrelevant here) */
static uint64_t rng_below(uint64_t n)
{
	return rng_next() % n;
}

/*
 * C leaves the order of calls within one expression open: every draw is
 * its own statement, so a seed gives the same cases on every compiler.
 */
static uint64_t pick_len(const struct geometry *g)
{
	uint64_t a, b;

	switch (rng_below(6)) {
	case 0:		/* a few pages */
		return g->page * (1 + rng_below(64));
	case 1:		/* below one PMD */
		return g->page * (1 + rng_below(g->pmd / g->page));
	case 2:		/* whole PMDs */
		return g->pmd * (1 + rng_below(32));
	case 3:		/* PMDs and pages */
		a = rng_below(32);
		b = 1 + rng_below(g->ptrs - 1);
		return g->pmd * a + g->page * b;
	case 4:		/* around one PUD: a little more, or one PMD less */
		a = rng_below(2 * g->ptrs);
		b = rng_below(2);
		return b ? g->pud - g->pmd + g->page * a : g->pud + g->page * a;
	default:	/* GiBs */
		a = 1 + rng_below(2);
		b = rng_below(4);
		return g->pud * a + g->pmd * b + g->page * rng_below(3);
	}
}

/* an offset from a PUD boundary: on it, on PMDs, on pages, near the end */
static uint64_t pick_offset(const struct geometry *g)
{
	uint64_t a;

	switch (rng_below(5)) {
	case 0:
		return 0;
	case 1:
		return g->pmd * (1 + rng_below(8));
	case 2:
		a = rng_below(8);
		return g->pmd * a + g->page * (1 + rng_below(g->ptrs - 1));
	case 3:
		return g->page * (1 + rng_below(16));
	default:	/* just below the next PUD boundary: the move crosses it */
		a = 1 + rng_below(2);
		return g->pud - g->pmd * a + g->page * rng_below(2);
	}
}

/* the destination: congruent with the source, off by pages, or anywhere */
static uint64_t pick_dst_offset(const struct geometry *g, uint64_t src_off)
{
	switch (rng_below(5)) {
	case 0:
		return src_off;
	case 1:
		return (src_off + g->page) % g->pud;
	case 2:
		return (src_off + g->pmd) % g->pud;
	case 3:
		return (src_off + g->pud - g->page) % g->pud;
	default:
		return pick_offset(g);
	}
}

static void pick_write(struct mcase *c,
		       uint64_t max_write)
{
	c->write = rng_below(WRITE_KINDS);
	c->write_arg = 0;
	switch (c->write) {
	case WRITE_FIRST_MIB:
		c->write_arg = 1 + rng_below(8);
		break;
	case WRITE_EVERY_PAGE:
		c->write_arg = 1 + rng_below(64);
		break;
	case WRITE_EVERY_PMD:
		c->write_arg = 1 + rng_below(4);
		break;
	case WRITE_ALL:
		if (c->len > max_write)
			c->write = WRITE_EVERY_PMD, c->write_arg = 1;
		break;
	default:
		break;
	}
}

static void make_case(const struct geometry *g, uint64_t index,
		      uint64_t max_write, struct mcase *c)
{
	memset(c, 0, sizeof(*c));
	if (index < 2) {
		/* the sparse heap (2 GiB, first 4 MiB written) */
		c->src_off = 0;
		c->dst_off = g->pmd;
		c->len = 2 * g->pud;
		c->shared = index == 1;
		c->write = WRITE_FIRST_MIB;
		c->write_arg = 4;
		return;
	}
	c->len = pick_len(g);
	c->src_off = pick_offset(g);
	c->dst_off = pick_dst_offset(g, c->src_off);
	c->shared = rng_below(4) == 0;
	c->thp = rng_below(3) == 0;
	pick_write(c, max_write);
}

/*
 * Write one byte in each chosen page; returns the number of pages.  In a
 * THP case a write may fault in a whole PMD folio (32 MiB with 16 KiB
 * pages), so nothing at or above @max_thp bytes into the region is
 * written there; the default bound is above every 4 KiB-page case.
 */
static uint64_t write_subset(const struct geometry *g, const struct mcase *c,
			     char *base, uint64_t max_write, uint64_t max_thp)
{
	uint64_t pages = c->len / g->page, limit = max_write / g->page;
	uint64_t step = 1, n = 0, p;

	if (c->thp && pages > max_thp / g->page)
		pages = max_thp / g->page;

	switch (c->write) {
	case WRITE_NONE:
		return 0;
	case WRITE_FIRST_PAGE:
		limit = 1;
		break;
	case WRITE_FIRST_MIB:
		if (limit > (c->write_arg << 20) / g->page)
			limit = (c->write_arg << 20) / g->page;
		break;
	case WRITE_EVERY_PAGE:
		step = c->write_arg;
		break;
	case WRITE_EVERY_PMD:
		/* the first page of every k-th PMD-sized stretch of the region */
		step = g->pmd / g->page * c->write_arg;
		break;
	default:
		break;
	}
	for (p = 0; p < pages && n < limit; p += step, n++)
		base[p * g->page] = 1;
	return n;
}

static int run_case(const struct geometry *g, uint64_t index,
		    const struct mcase *c, uint64_t max_write, uint64_t max_thp)
{
	char *src = (char *)(uintptr_t)(SLOT_BASE + 2 * index * g->slot + c->src_off);
	char *dst = (char *)(uintptr_t)(SLOT_BASE + (2 * index + 1) * g->slot + c->dst_off);
	int flags = (c->shared ? MAP_SHARED : MAP_PRIVATE) | MAP_ANONYMOUS |
		    MAP_FIXED_NOREPLACE | MAP_NORESERVE;
	uint64_t written;
	void *got;

	got = mmap(src, c->len, PROT_READ | PROT_WRITE, flags, -1, 0);
	if (got != src) {
		fprintf(stderr, "ptscope-cases: case %" PRIu64 ": mmap at %p: %s\n",
			index, (void *)src, got == MAP_FAILED ? strerror(errno) :
			"placed elsewhere");
		return EXIT_RUNTIME;
	}
	if (madvise(src, c->len, c->thp ? MADV_HUGEPAGE : MADV_NOHUGEPAGE))
		fprintf(stderr, "ptscope-cases: case %" PRIu64 ": madvise: %s\n",
			index, strerror(errno));
	written = write_subset(g, c, src, max_write, max_thp);
	got = mremap(src, c->len, c->len, MREMAP_MAYMOVE | MREMAP_FIXED, dst);
	printf("case=%" PRIu64 " src=%p dst=%p len=%" PRIu64 " shared=%d thp=%d "
	       "write=%s:%" PRIu64 " written=%" PRIu64 " ret=%p\n", index,
	       (void *)src, (void *)dst, c->len, c->shared, c->thp,
	       write_names[c->write], c->write_arg, written, got);
	if (got == MAP_FAILED) {
		fprintf(stderr, "ptscope-cases: case %" PRIu64 ": mremap: %s\n",
			index, strerror(errno));
		munmap(src, c->len);
		return EXIT_RUNTIME;
	}
	munmap(dst, c->len);
	return 0;
}

static int parse_u64(const char *text, uint64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoull(text, &end, 0);
	return errno || end == text || *end || text[0] == '-' ? -1 : 0;
}

static void usage(FILE *f)
{
	fprintf(f, "usage: ptscope-cases [--seed N] [--count N] "
		"[--max-write BYTES] [--max-thp BYTES]\n"
		"  --seed N          generator seed (default 1)\n"
		"  --count N         cases, the two fixed ones included "
		"(default 300);\n"
		"                    each takes two slots of 4 PUDs below 128 TiB: "
		"at most\n"
		"                    12288 with 4 KiB pages, 192 with 16 KiB\n"
		"  --max-write BYTES most bytes written per case (default 32 PMDs:\n"
		"                    64 MiB with 4 KiB pages, 1 GiB with 16 KiB)\n"
		"  --max-thp BYTES   THP cases write nothing this far into the "
		"region or beyond\n"
		"                    (default 2 GiB + 64 MiB)\n");
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seed", required_argument, NULL, 's' },
		{ "count", required_argument, NULL, 'n' },
		{ "max-write", required_argument, NULL, 'w' },
		{ "max-thp", required_argument, NULL, 't' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 },
	};
	uint64_t seed = 1, count = 300, max_write = 0, i, *arg;
	uint64_t max_thp = (2ULL << 30) + (64ULL << 20), max_count;
	bool max_write_given = false;
	struct geometry g;
	struct mcase c;
	int opt, rc = 0;

	while ((opt = getopt_long(argc, argv, "h", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			arg = &seed;
			break;
		case 'n':
			arg = &count;
			break;
		case 'w':
			arg = &max_write;
			max_write_given = true;
			break;
		case 't':
			arg = &max_thp;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
		if (parse_u64(optarg, arg)) {
			fprintf(stderr, "ptscope-cases: bad number '%s' for --%s\n",
				optarg, opts[opt == 's' ? 0 : opt == 'n' ? 1 :
					     opt == 'w' ? 2 : 3].name);
			return EXIT_USAGE;
		}
	}
	if (optind != argc || !count || count > 100000) {
		usage(stderr);
		return EXIT_USAGE;
	}
	g.page = (uint64_t)sysconf(_SC_PAGESIZE);
	g.ptrs = g.page / 8;
	g.pmd = g.page * g.ptrs;
	g.pud = g.pmd * g.ptrs;
	/* room for the longest case at the largest offset, PUD aligned */
	g.slot = 4 * g.pud;
	/*
	 * "all" is written up to 32 PMDs: the same share of the cases as
	 * with 4 KiB pages (every length drawn below a PUD), so as many are
	 * fully written ones the geometry check can model
	 */
	if (!max_write_given)
		max_write = 32 * g.pmd;
	max_count = (SLOT_END - SLOT_BASE) / (2 * g.slot);
	if (count > max_count) {
		fprintf(stderr, "ptscope-cases: --count %" PRIu64 " needs %"
			PRIu64 " slots of %" PRIu64 " GiB (4 PUDs): at most %"
			PRIu64 " cases fit below 128 TiB with %" PRIu64
			"-byte pages\n", count, 2 * count, g.slot >> 30,
			max_count, g.page);
		return EXIT_USAGE;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("seed=%" PRIu64 " count=%" PRIu64 " page=%" PRIu64 " pmd=%" PRIu64
	       " pud=%" PRIu64 "\n", seed, count, g.page, g.pmd, g.pud);
	rng_state = seed;
	for (i = 0; i < count && !rc; i++) {
		make_case(&g, i, max_write, &c);
		rc = run_case(&g, i, &c, max_write, max_thp);
	}
	return rc;
}
