// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/maps/mapscan.c, smaps.c, kpageflags.c and
 * src/data/procfind.c on synthetic files: an smaps text, a sparse pagemap
 * file (one 64-bit entry per virtual page) and a sparse kpageflags file
 * (one per frame), laid out as Documentation/admin-guide/mm/pagemap.rst
 * says.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/kernel-page-flags.h>
#include "data/procfind.h"
#include "maps/kpageflags.h"
#include "maps/mapscan.h"
#include "maps/smaps.h"

#define KIB		1024ULL
#define MIB		(1024 * KIB)
#define PRESENT		(1ULL << 63)
#define SWAPPED		(1ULL << 62)
#define FILE_PAGE	(1ULL << 61)
#define ANON_LARGE	(KPF_BIT(KPF_ANON) | KPF_BIT(KPF_THP) | KPF_BIT(KPF_LRU))
#define VA_SPAN		(4096 * MIB)	/* the pagemap file covers this */

struct fx {
	uint64_t page_size;
	int pagemap_fd;
	int kpf_fd;
	char smaps[4096];
	size_t smaps_len;
};

static int tmp_fd(void)
{
	char path[] = "/tmp/ptscope-mapscan.XXXXXX";
	int fd = mkstemp(path);

	assert_true(fd >= 0);
	unlink(path);
	return fd;
}

static struct fx *fx_new(uint64_t page_size)
{
	struct fx *fx = calloc(1, sizeof(*fx));

	assert_non_null(fx);
	fx->page_size = page_size;
	fx->pagemap_fd = tmp_fd();
	fx->kpf_fd = tmp_fd();
	/* sparse: unwritten entries read as 0, not present */
	assert_int_equal(ftruncate(fx->pagemap_fd,
				   (off_t)(VA_SPAN / page_size * 8)), 0);
	return fx;
}

static int fx_teardown(void **state)
{
	struct fx *fx = *state;

	if (fx) {
		close(fx->pagemap_fd);
		close(fx->kpf_fd);
		free(fx);
	}
	return 0;
}

static int setup_4k(void **state)
{
	*state = fx_new(4096);
	return 0;
}

static void put_u64(int fd, uint64_t index, uint64_t v)
{
	assert_int_equal(pwrite(fd, &v, sizeof(v), (off_t)(index * 8)), 8);
}

static void put_pme(struct fx *fx, uint64_t vaddr, uint64_t pme)
{
	put_u64(fx->pagemap_fd, vaddr / fx->page_size, pme);
}

/* a VMA in smaps with its Anonymous and AnonHugePages */
static void add_vma(struct fx *fx, uint64_t start, uint64_t end,
		    uint64_t anon_kb, uint64_t huge_kb)
{
	fx->smaps_len += (size_t)snprintf(fx->smaps + fx->smaps_len,
		sizeof(fx->smaps) - fx->smaps_len,
		"%llx-%llx rw-p 00000000 00:00 0 \n"
		"Size:           %8llu kB\n"
		"Anonymous:      %8llu kB\n"
		"AnonHugePages:  %8llu kB\n"
		"VmFlags: rd wr mr mw me ac hg\n",
		(unsigned long long)start, (unsigned long long)end,
		(unsigned long long)((end - start) / KIB),
		(unsigned long long)anon_kb, (unsigned long long)huge_kb);
}

/* the frames of a folio of @order at @head in kpageflags */
static void put_folio(struct fx *fx, uint64_t head, unsigned int order,
		      uint64_t flags)
{
	uint64_t i;

	put_u64(fx->kpf_fd, head, flags | KPF_BIT(KPF_COMPOUND_HEAD));
	for (i = 1; i < 1ULL << order; i++)
		put_u64(fx->kpf_fd, head + i, flags | KPF_BIT(KPF_COMPOUND_TAIL));
}

/* @count pages from page @first of the folio at @head mapped at @vaddr */
static void map_pages(struct fx *fx, uint64_t vaddr, uint64_t head,
		      uint64_t first, uint64_t count)
{
	uint64_t i;

	for (i = 0; i < count; i++)
		put_pme(fx, vaddr + i * fx->page_size,
			PRESENT | (head + first + i));
}

/* a whole anonymous large folio at @head mapped in order at @vaddr */
static void map_folio(struct fx *fx, uint64_t vaddr, uint64_t head,
		      unsigned int order)
{
	put_folio(fx, head, order, ANON_LARGE);
	map_pages(fx, vaddr, head, 0, 1ULL << order);
}

/* an anonymous order-0 page at @pfn mapped at @vaddr */
static void map_small(struct fx *fx, uint64_t vaddr, uint64_t pfn)
{
	put_u64(fx->kpf_fd, pfn, KPF_BIT(KPF_ANON) | KPF_BIT(KPF_LRU));
	put_pme(fx, vaddr, PRESENT | pfn);
}

static int scan(struct fx *fx, struct mapscan_counts *c)
{
	FILE *f = fmemopen(fx->smaps, fx->smaps_len, "r");
	int err;

	assert_non_null(f);
	mapscan_init(c, fx->page_size);
	err = mapscan_scan(f, fx->pagemap_fd, fx->kpf_fd, c);
	fclose(f);
	return err;
}

static void assert_tally(const struct mapscan_tally *t, uint64_t folios,
			 uint64_t pages)
{
	assert_int_equal(t->folios, folios);
	assert_int_equal(t->pages, pages);
}

/* no large folio of @order outside what the test checked */
static uint64_t pte_folios(const struct mapscan_counts *c)
{
	uint64_t n = 0;
	unsigned int o, k;

	for (o = 0; o < PTS_MAX_ORDER; o++)
		for (k = 0; k < MAPSCAN_FITS; k++)
			n += c->pte[o][k].folios;
	return n;
}

/* two 2 MiB THPs, both PMD-mapped per AnonHugePages */
static void test_pmd_mapped(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 6 * MIB, 4096, 4096);
	map_folio(fx, 2 * MIB, 0x400, 9);
	map_folio(fx, 4 * MIB, 0x1000, 9);
	assert_int_equal(scan(fx, &c), 0);
	assert_int_equal(c.pmd_order, 9);
	assert_tally(&c.pmd, 2, 1024);
	assert_int_equal(pte_folios(&c), 0);
	assert_int_equal(c.anon_pages, 1024);
	assert_int_equal(c.order0_pages, 0);
	assert_int_equal(c.smaps_anon_kb, 4096);
	assert_int_equal(c.smaps_anon_huge_kb, 4096);
	assert_int_equal(c.pmd_unmatched, 0);
	assert_int_equal(mapscan_bytes(&c, c.pmd.pages), 4 * MIB);
}

/* AnonHugePages says one PMD: the other candidate is PTE-mapped */
static void test_pmd_order_pte_mapped(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 6 * MIB, 4096, 2048);
	map_folio(fx, 2 * MIB, 0x400, 9);
	map_folio(fx, 4 * MIB, 0x1000, 9);
	assert_int_equal(scan(fx, &c), 0);
	assert_tally(&c.pmd, 1, 512);
	assert_tally(&c.pte[9][MAPSCAN_ALIGNED], 1, 512);
	assert_int_equal(pte_folios(&c), 1);
}

/* more PMD mappings in smaps than candidates: the process changed */
static void test_pmd_unmatched(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 6 * MIB, 4096, 4096);
	map_folio(fx, 2 * MIB, 0x400, 9);
	assert_int_equal(scan(fx, &c), 0);
	assert_tally(&c.pmd, 1, 512);
	assert_int_equal(c.pmd_unmatched, 1);
}

/*
 * mprotect() of one page in the middle: three VMAs over one PMD-order
 * folio, which no PMD can map any more; it is whole and aligned
 */
static void test_mprotect_split(void **state)
{
	struct fx *fx = *state;
	uint64_t mid = 3 * MIB;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, mid, 1024, 0);
	add_vma(fx, mid, mid + 4 * KIB, 4, 0);
	add_vma(fx, mid + 4 * KIB, 4 * MIB, 1020, 0);
	map_folio(fx, 2 * MIB, 0x400, 9);
	assert_int_equal(scan(fx, &c), 0);
	assert_tally(&c.pmd, 0, 0);
	assert_tally(&c.pte[9][MAPSCAN_ALIGNED], 1, 512);
	assert_int_equal(pte_folios(&c), 1);
	assert_int_equal(c.anon_pages, 512);
}

/* 64 KiB folios: aligned, moved 4 KiB off, and one with a page unmapped */
static void test_mthp_fits(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 2 * MIB + 128 * KIB, 128, 0);
	map_folio(fx, 2 * MIB, 0x800, 4);
	map_folio(fx, 2 * MIB + 64 * KIB, 0x810, 4);
	add_vma(fx, 8 * MIB + 4 * KIB, 8 * MIB + 68 * KIB, 64, 0);
	map_folio(fx, 8 * MIB + 4 * KIB, 0x820, 4);
	add_vma(fx, 16 * MIB, 16 * MIB + 60 * KIB, 60, 0);
	put_folio(fx, 0x830, 4, ANON_LARGE);
	map_pages(fx, 16 * MIB, 0x830, 0, 15);
	assert_int_equal(scan(fx, &c), 0);
	assert_tally(&c.pte[4][MAPSCAN_ALIGNED], 2, 32);
	assert_tally(&c.pte[4][MAPSCAN_UNALIGNED], 1, 16);
	assert_tally(&c.pte[4][MAPSCAN_PARTIAL], 1, 15);
	assert_int_equal(pte_folios(&c), 4);
	assert_int_equal(c.anon_pages, 63);
}

/* a whole folio mapped in two pieces (its halves swapped) is not aligned */
static void test_whole_not_in_order(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 2 * MIB + 128 * KIB, 128, 0);
	put_folio(fx, 0x800, 4, ANON_LARGE);
	map_pages(fx, 2 * MIB, 0x800, 8, 8);
	map_pages(fx, 2 * MIB + 32 * KIB, 0x800, 0, 8);
	put_folio(fx, 0x810, 4, ANON_LARGE);
	map_pages(fx, 2 * MIB + 64 * KIB, 0x810, 0, 16);
	assert_int_equal(scan(fx, &c), 0);
	assert_tally(&c.pte[4][MAPSCAN_UNALIGNED], 1, 16);
	assert_tally(&c.pte[4][MAPSCAN_ALIGNED], 1, 16);
}

/* order-0, zero page, file and shared pages, swap, a PFN mapping */
static void test_small_and_others(void **state)
{
	struct fx *fx = *state;
	uint64_t base = 32 * MIB, ps = fx->page_size;
	struct mapscan_counts c;

	add_vma(fx, base, base + 16 * ps, 12, 0);
	map_small(fx, base, 0x5000);
	map_small(fx, base + ps, 0x5003);
	put_u64(fx->kpf_fd, 0x6000, KPF_BIT(KPF_ZERO_PAGE));
	put_pme(fx, base + 2 * ps, PRESENT | 0x6000);
	put_pme(fx, base + 3 * ps, PRESENT | FILE_PAGE | 0x7000);
	put_pme(fx, base + 4 * ps, SWAPPED | 0x1234);
	put_pme(fx, base + 5 * ps, SWAPPED | FILE_PAGE | 0x1234);
	put_u64(fx->kpf_fd, 0x8000, KPF_BIT(KPF_NOPAGE));
	put_pme(fx, base + 6 * ps, PRESENT | 0x8000);
	assert_int_equal(scan(fx, &c), 0);
	assert_int_equal(c.order0_pages, 2);
	assert_int_equal(c.anon_pages, 2);
	assert_int_equal(c.zero_pages, 1);
	assert_int_equal(c.swap_pages, 1);
	assert_int_equal(c.unresolved_pages, 0);
	assert_int_equal(pte_folios(&c), 0);
}

/* a VMA without anonymous memory is not read */
static void test_skips_file_vmas(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 4 * MIB, 0, 0);
	map_small(fx, 2 * MIB, 0x5000);
	assert_int_equal(scan(fx, &c), 0);
	assert_int_equal(c.anon_pages, 0);
}

/* without CAP_SYS_ADMIN pagemap zeroes the frames of present pages */
static void test_hidden_frames(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 4 * MIB, 4, 0);
	put_pme(fx, 2 * MIB, PRESENT);
	assert_int_equal(scan(fx, &c), -EPERM);
}

/* a tail whose head is not there: the folio changed while being read */
static void test_unresolved(void **state)
{
	struct fx *fx = *state;
	struct mapscan_counts c;

	add_vma(fx, 2 * MIB, 4 * MIB, 8, 0);
	put_u64(fx->kpf_fd, 0x901, ANON_LARGE | KPF_BIT(KPF_COMPOUND_TAIL));
	put_pme(fx, 2 * MIB, PRESENT | 0x901);
	/* a head and tails that are not a power of two */
	put_folio(fx, 0xa00, 2, ANON_LARGE);
	put_u64(fx->kpf_fd, 0xa04, ANON_LARGE | KPF_BIT(KPF_COMPOUND_TAIL));
	put_pme(fx, 2 * MIB + 4 * KIB, PRESENT | 0xa00);
	assert_int_equal(scan(fx, &c), 0);
	assert_int_equal(c.unresolved_pages, 2);
	assert_int_equal(c.anon_pages, 2);
	assert_int_equal(pte_folios(&c), 0);
}

/* 16 KiB pages: a PMD maps 32 MiB, order 11 */
static void test_16k_pages(void **state)
{
	struct fx *fx = fx_new(16 * KIB);
	struct mapscan_counts c;

	*state = fx;
	add_vma(fx, 32 * MIB, 128 * MIB, 65600, 32768);
	map_folio(fx, 32 * MIB, 0x800, 11);
	map_folio(fx, 64 * MIB, 0x1000, 11);
	map_folio(fx, 96 * MIB, 0x2000, 2);
	assert_int_equal(scan(fx, &c), 0);
	assert_int_equal(c.pmd_order, 11);
	assert_tally(&c.pmd, 1, 2048);
	assert_tally(&c.pte[11][MAPSCAN_ALIGNED], 1, 2048);
	assert_tally(&c.pte[2][MAPSCAN_ALIGNED], 1, 4);
	assert_int_equal(mapscan_bytes(&c, c.pmd.pages), 32 * MIB);
}

/* 64 KiB pages: a PMD maps 512 MiB, order 13 */
static void test_64k_pages(void **state)
{
	struct fx *fx = fx_new(64 * KIB);
	struct mapscan_counts c;

	*state = fx;
	add_vma(fx, 512 * MIB, 1024 * MIB, 524288, 524288);
	map_folio(fx, 512 * MIB, 0x4000, 13);
	assert_int_equal(scan(fx, &c), 0);
	assert_int_equal(c.pmd_order, 13);
	assert_tally(&c.pmd, 1, 8192);
	assert_int_equal(mapscan_bytes(&c, c.pmd.pages), 512 * MIB);
}

static void test_add(void **state)
{
	struct mapscan_counts a, b;

	mapscan_init(&a, 4096);
	mapscan_init(&b, 4096);
	a.pmd = (struct mapscan_tally){ 2, 1024 };
	b.pmd = (struct mapscan_tally){ 1, 512 };
	b.pte[4][MAPSCAN_PARTIAL] = (struct mapscan_tally){ 1, 15 };
	a.anon_pages = 1024;
	b.anon_pages = 600;
	b.smaps_anon_kb = 2400;
	mapscan_add(&a, &b);
	assert_tally(&a.pmd, 3, 1536);
	assert_tally(&a.pte[4][MAPSCAN_PARTIAL], 1, 15);
	assert_int_equal(a.anon_pages, 1624);
	assert_int_equal(a.smaps_anon_kb, 2400);
}

static int read_smaps(const char *text, struct smaps_list *l)
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int err;

	assert_non_null(f);
	err = smaps_read(f, l);
	fclose(f);
	return err;
}

static void test_smaps_read(void **state)
{
	static const char text[] =
		"55d5c1a0e000-55d5c1a10000 r--p 00000000 08:01 1234    /usr/bin/a b\n"
		"Anonymous:             0 kB\n"
		"AnonHugePages:         0 kB\n"
		"7f0c00000000-7f0c04000000 rw-p 00000000 00:00 0 \n"
		"Size:              65536 kB\n"
		"Anonymous:         65536 kB\n"
		"AnonHugePages:     63488 kB\n"
		"THPeligible:    1\n"
		"VmFlags: rd wr mr mw me ac sd hg\n";
	struct smaps_list l;

	assert_int_equal(read_smaps(text, &l), 0);
	assert_int_equal(l.nr, 2);
	assert_int_equal(l.vma[1].start, 0x7f0c00000000ULL);
	assert_int_equal(l.vma[1].end, 0x7f0c04000000ULL);
	assert_int_equal(l.vma[1].anon_kb, 65536);
	assert_int_equal(l.vma[1].anon_huge_kb, 63488);
	assert_ptr_equal(smaps_find(&l, 0x7f0c00001000ULL), &l.vma[1]);
	assert_ptr_equal(smaps_find(&l, 0x55d5c1a0e000ULL), &l.vma[0]);
	assert_null(smaps_find(&l, 0x7f0c04000000ULL));
	assert_null(smaps_find(&l, 0x1000));
	smaps_free(&l);
}

static void test_smaps_malformed(void **state)
{
	struct smaps_list l;

	assert_int_equal(read_smaps("Anonymous: 4 kB\n", &l), -EINVAL);
	assert_int_equal(read_smaps("2000-1000 rw-p 0 0 0\n", &l), -EINVAL);
	assert_int_equal(read_smaps("1000-3000 rw-p 0 0 0\n"
				    "2000-4000 rw-p 0 0 0\n", &l), -EINVAL);
	assert_null(l.vma);
	assert_int_equal(read_smaps("", &l), 0);
	assert_int_equal(l.nr, 0);
	smaps_free(&l);
}

/* a folio read at the end of kpageflags (a short read) and the cache */
static void test_kpf_folio(void **state)
{
	struct fx *fx = *state;
	struct kpf_reader r;
	struct kpf_folio f;

	put_folio(fx, 0x10, 4, ANON_LARGE);
	assert_int_equal(kpf_init(&r, fx->kpf_fd, 9), 0);
	assert_int_equal(kpf_folio(&r, 0x1a, &f), 0);
	assert_int_equal(f.head, 0x10);
	assert_int_equal(f.order, 4);
	assert_true(f.flags & KPF_BIT(KPF_COMPOUND_TAIL));
	assert_int_equal(kpf_folio(&r, 0x10, &f), 0);
	assert_int_equal(f.order, 4);
	assert_true(f.flags & KPF_BIT(KPF_COMPOUND_HEAD));
	/* past the end of the file: no page */
	assert_int_equal(kpf_folio(&r, 0x100000, &f), 0);
	assert_int_equal(f.order, 0);
	assert_true(f.flags & KPF_BIT(KPF_NOPAGE));
	kpf_release(&r);
}

/* a directory laid out like /proc: ROOT/PID/@name holding @text */
static void put_proc_file(const char *root, const char *pid,
			  const char *name, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", root, pid);
	assert_int_equal(mkdir(path, 0755), 0);
	snprintf(path, sizeof(path), "%s/%s/%s", root, pid, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void put_comm(const char *root, const char *pid, const char *comm)
{
	char text[64];

	snprintf(text, sizeof(text), "%s\n", comm);
	put_proc_file(root, pid, "comm", text);
}

static void test_proc_find_comm(void **state)
{
	char root[] = "/tmp/ptscope-proc.XXXXXX", cmd[300], comm[16];
	pid_t *pids;
	size_t nr;

	assert_non_null(mkdtemp(root));
	put_comm(root, "12", "holder");
	put_comm(root, "7", "holder");
	put_comm(root, "9", "other");
	put_comm(root, "self", "holder");
	assert_int_equal(proc_find_comm(root, "holder", &pids, &nr), 0);
	assert_int_equal(nr, 2);
	assert_int_equal(pids[0], 7);
	assert_int_equal(pids[1], 12);
	free(pids);
	assert_int_equal(proc_find_comm(root, "none", &pids, &nr), 0);
	assert_int_equal(nr, 0);
	assert_null(pids);
	assert_int_equal(proc_comm(root, 9, comm, sizeof(comm)), 0);
	assert_string_equal(comm, "other");
	assert_int_equal(proc_comm(root, 10, comm, sizeof(comm)), -ESRCH);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

/* /proc/PID/stat of a fake tree: a comm with ") 1 (" tries the parser */
static void put_stat(const char *root, const char *pid, const char *ppid)
{
	char text[128];

	snprintf(text, sizeof(text), "%s (w) 1 (x) S %s 1 1 0 -1\n", pid, ppid);
	put_proc_file(root, pid, "stat", text);
}

/* 10 -> 11 -> 13 -> 14, 10 -> 12; 20 -> 21 is another tree */
static void test_proc_find_descendants(void **state)
{
	static const char *const tree[][2] = {	/* pid, parent */
		{ "10", "1" }, { "14", "13" }, { "11", "10" }, { "12", "10" },
		{ "13", "11" }, { "20", "1" }, { "21", "20" },
	};
	char root[] = "/tmp/ptscope-proc.XXXXXX", cmd[300];
	pid_t *pids;
	size_t nr, i;

	assert_non_null(mkdtemp(root));
	for (i = 0; i < sizeof(tree) / sizeof(tree[0]); i++)
		put_stat(root, tree[i][0], tree[i][1]);
	assert_int_equal(proc_find_descendants(root, 10, &pids, &nr), 0);
	assert_int_equal(nr, 4);
	assert_int_equal(pids[0], 11);
	assert_int_equal(pids[1], 12);
	assert_int_equal(pids[2], 13);
	assert_int_equal(pids[3], 14);
	free(pids);
	assert_int_equal(proc_find_descendants(root, 21, &pids, &nr), 0);
	assert_int_equal(nr, 0);
	assert_null(pids);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	assert_int_equal(system(cmd), 0);
}

#define FX_TEST(fn)	cmocka_unit_test_setup_teardown(fn, setup_4k, fx_teardown)
#define OWN_FX_TEST(fn)	cmocka_unit_test_teardown(fn, fx_teardown)

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_TEST(test_pmd_mapped),
		FX_TEST(test_pmd_order_pte_mapped),
		FX_TEST(test_pmd_unmatched),
		FX_TEST(test_mprotect_split),
		FX_TEST(test_mthp_fits),
		FX_TEST(test_whole_not_in_order),
		FX_TEST(test_small_and_others),
		FX_TEST(test_skips_file_vmas),
		FX_TEST(test_hidden_frames),
		FX_TEST(test_unresolved),
		OWN_FX_TEST(test_16k_pages),
		OWN_FX_TEST(test_64k_pages),
		cmocka_unit_test(test_add),
		cmocka_unit_test(test_smaps_read),
		cmocka_unit_test(test_smaps_malformed),
		FX_TEST(test_kpf_folio),
		cmocka_unit_test(test_proc_find_comm),
		cmocka_unit_test(test_proc_find_descendants),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
