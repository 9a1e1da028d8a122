// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope maps: a process's anonymous pages by folio size.
 *
 * Each present anonymous page of a VMA with anonymous memory (smaps
 * "Anonymous" above 0; pagemap_scan.c skips its empty ranges) is looked
 * up in /proc/kpageflags.  Pages of large folios become runs: consecutive
 * virtual pages mapping consecutive frames of one folio.  Sorted by
 * folio, the runs say whether all of a folio is mapped here and whether
 * as one run starting at its head on a virtual address aligned to its
 * size.
 *
 * PMD or PTE mapped: pagemap reports each page of a PMD-mapped THP like a
 * PTE-mapped one (pagemap_pmd_range(), fs/proc/task_mmu.c), so which one
 * it is comes from smaps: AnonHugePages counts HPAGE_PMD_SIZE for each
 * anonymous folio a PMD entry maps in the VMA (smaps_pmd_entry(), same
 * file, as of 6.12; the field is there since 2.6.38).  A PMD entry maps a
 * whole PMD-order folio at a PMD-aligned address inside one VMA, so in
 * each VMA those candidates are counted and AnonHugePages / PMD size of
 * them are PMD-mapped, the rest PTE-mapped: a PMD-order folio whose PMD
 * was split (mprotect() of part of it, __split_huge_pmd() in
 * mm/huge_memory.c) but not the folio is whole, aligned and PTE-mapped.
 * The counts are exact; which candidate is which is not known when a VMA
 * has both, and ptscope does not say.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/kernel-page-flags.h>
#include "data/grow.h"
#include "data/schema.h"
#include "maps/kpageflags.h"
#include "maps/mapscan.h"
#include "maps/pagemap_scan.h"
#include "maps/smaps.h"

/*
 * pagemap entries, Documentation/admin-guide/mm/pagemap.rst: bits 0-54
 * the frame when present (zero without CAP_SYS_ADMIN since 4.2), 61 a
 * file page or shared anonymous memory, 62 swapped, 63 present.
 */
#define PM_PFN_MASK	((1ULL << 55) - 1)
#define PM_FILE		(1ULL << 61)
#define PM_SWAP		(1ULL << 62)
#define PM_PRESENT	(1ULL << 63)

#define PAGEMAP_CHUNK	4096	/* entries read at once: 32 KiB */

/* pages of one large folio mapped at consecutive virtual addresses */
struct run {
	uint64_t head;		/* the folio's head frame */
	uint64_t pfn;		/* the run's first frame */
	uint64_t vaddr;		/* ... mapped here */
	uint64_t pages;
	unsigned int order;
};

struct scan {
	struct mapscan_counts *c;
	int pagemap_fd;
	struct kpf_reader kpf;
	struct run *runs;
	size_t nr_runs;
	size_t cap_runs;
};

void mapscan_init(struct mapscan_counts *c, uint64_t page_size)
{
	memset(c, 0, sizeof(*c));
	c->page_size = page_size;
	c->pmd_order = schema_order_pmd(page_size);
}

uint64_t mapscan_bytes(const struct mapscan_counts *c, uint64_t pages)
{
	return pages * c->page_size;
}

static int add_run(struct scan *s, const struct kpf_folio *f, uint64_t pfn,
		   uint64_t vaddr)
{
	struct run *r = s->nr_runs ? &s->runs[s->nr_runs - 1] : NULL;
	uint64_t page_size = s->c->page_size;

	if (r && r->head == f->head && r->pfn + r->pages == pfn &&
	    r->vaddr + r->pages * page_size == vaddr) {
		r->pages++;
		return 0;
	}
	if (grow_for_one((void **)&s->runs, &s->cap_runs, s->nr_runs,
			 sizeof(*s->runs)))
		return -ENOMEM;
	s->runs[s->nr_runs++] = (struct run){
		.head = f->head, .pfn = pfn, .vaddr = vaddr, .pages = 1,
		.order = f->order,
	};
	return 0;
}

/* a present page that is not a file page: anonymous, zero or special */
static int visit_frame(struct scan *s, uint64_t vaddr, uint64_t pfn)
{
	struct mapscan_counts *c = s->c;
	struct kpf_folio f;
	int err;

	err = kpf_folio(&s->kpf, pfn, &f);
	if (err == -ESTALE) {
		c->anon_pages++;
		c->unresolved_pages++;
		return 0;
	}
	if (err)
		return err;
	if (f.flags & KPF_BIT(KPF_ZERO_PAGE)) {
		c->zero_pages++;
		return 0;
	}
	/* a PFN mapping (VM_PFNMAP) has no struct page behind it */
	if (!(f.flags & KPF_BIT(KPF_ANON)))
		return 0;
	c->anon_pages++;
	if (!f.order) {
		c->order0_pages++;
		return 0;
	}
	if (!(f.flags & KPF_BIT(KPF_THP))) {
		c->unresolved_pages++;
		return 0;
	}
	return add_run(s, &f, pfn, vaddr);
}

static int visit_entry(struct scan *s, uint64_t vaddr, uint64_t pme)
{
	uint64_t pfn = pme & PM_PFN_MASK;

	if (!(pme & PM_PRESENT)) {
		if ((pme & PM_SWAP) && !(pme & PM_FILE))
			s->c->swap_pages++;
		return 0;
	}
	if (pme & PM_FILE)
		return 0;
	if (!pfn)
		return -EPERM;	/* pagemap_read(): no CAP_SYS_ADMIN */
	return visit_frame(s, vaddr, pfn);
}

/* the pagemap entries of [start, end), a populated range */
static int scan_range(void *ctx, uint64_t start, uint64_t end)
{
	struct scan *s = ctx;
	uint64_t page_size = s->c->page_size, buf[PAGEMAP_CHUNK];
	uint64_t addr = start, want, i;
	ssize_t got;
	int err;

	while (addr < end) {
		want = (end - addr) / page_size;
		if (want > PAGEMAP_CHUNK)
			want = PAGEMAP_CHUNK;
		got = pread(s->pagemap_fd, buf, want * sizeof(*buf),
			    (off_t)(addr / page_size * sizeof(*buf)));
		/* pagemap_read() reads nothing once the process is gone */
		if (got <= 0)
			return got ? -EIO : -ESRCH;
		for (i = 0; i < (uint64_t)got / sizeof(*buf); i++) {
			err = visit_entry(s, addr, buf[i]);
			if (err)
				return err;
			addr += page_size;
		}
	}
	return 0;
}

static int scan_vma(struct scan *s, const struct smaps_vma *v)
{
	return pagemap_populated(s->pagemap_fd, v->start, v->end, scan_range,
				 s);
}

static int cmp_runs(const void *a, const void *b)
{
	const struct run *ra = a, *rb = b;

	if (ra->head != rb->head)
		return ra->head < rb->head ? -1 : 1;
	if (ra->vaddr != rb->vaddr)
		return ra->vaddr < rb->vaddr ? -1 : 1;
	return 0;
}

/*
 * A whole PMD-order folio mapped as one aligned run inside one VMA may be
 * PMD-mapped: count it for that VMA (@cands), else it is PTE-mapped.
 */
static bool pmd_candidate(const struct smaps_list *vmas, const struct run *r,
			  uint64_t bytes, uint64_t *cands)
{
	const struct smaps_vma *v = smaps_find(vmas, r->vaddr);

	if (!v || r->vaddr + bytes > v->end)
		return false;
	cands[v - vmas->vma]++;
	return true;
}

/* the runs of one folio, @r[0..n): whole, aligned or partial */
static void classify_folio(struct mapscan_counts *c,
			   const struct smaps_list *vmas, const struct run *r,
			   size_t n, uint64_t *cands)
{
	uint64_t nr = 1ULL << r->order, bytes = nr * c->page_size, mapped = 0;
	enum mapscan_fit fit = MAPSCAN_UNALIGNED;
	size_t i;

	for (i = 0; i < n; i++)
		mapped += r[i].pages;
	if (mapped > nr) {	/* frames of another folio: it changed */
		c->unresolved_pages += mapped;
		return;
	}
	if (mapped < nr)
		fit = MAPSCAN_PARTIAL;
	else if (n == 1 && r->pfn == r->head && !(r->vaddr % bytes))
		fit = MAPSCAN_ALIGNED;
	if (fit == MAPSCAN_ALIGNED && r->order == c->pmd_order &&
	    pmd_candidate(vmas, r, bytes, cands))
		return;
	c->pte[r->order][fit].folios++;
	c->pte[r->order][fit].pages += mapped;
}

/* per VMA, AnonHugePages / PMD size of its candidates are PMD-mapped */
static void split_pmd_mapped(struct mapscan_counts *c,
			     const struct smaps_list *vmas,
			     const uint64_t *cands)
{
	uint64_t pmd_kb = (c->page_size << c->pmd_order) / 1024, nr_pages;
	struct mapscan_tally *pte = &c->pte[c->pmd_order][MAPSCAN_ALIGNED];
	uint64_t mapped, pmd;
	size_t i;

	nr_pages = 1ULL << c->pmd_order;
	for (i = 0; i < vmas->nr; i++) {
		mapped = vmas->vma[i].anon_huge_kb / pmd_kb;
		pmd = mapped < cands[i] ? mapped : cands[i];
		c->pmd.folios += pmd;
		c->pmd.pages += pmd * nr_pages;
		pte->folios += cands[i] - pmd;
		pte->pages += (cands[i] - pmd) * nr_pages;
		c->pmd_unmatched += mapped - pmd;
	}
}

static int classify(struct scan *s, const struct smaps_list *vmas)
{
	uint64_t *cands = calloc(vmas->nr ? vmas->nr : 1, sizeof(*cands));
	size_t i, j;

	if (!cands)
		return -ENOMEM;
	if (s->nr_runs)
		qsort(s->runs, s->nr_runs, sizeof(*s->runs), cmp_runs);
	for (i = 0; i < s->nr_runs; i = j) {
		for (j = i + 1; j < s->nr_runs; j++)
			if (s->runs[j].head != s->runs[i].head ||
			    s->runs[j].order != s->runs[i].order)
				break;
		classify_folio(s->c, vmas, &s->runs[i], j - i, cands);
	}
	split_pmd_mapped(s->c, vmas, cands);
	free(cands);
	return 0;
}

static void add_smaps_totals(struct mapscan_counts *c,
			     const struct smaps_list *vmas)
{
	size_t i;

	for (i = 0; i < vmas->nr; i++) {
		c->smaps_anon_kb += vmas->vma[i].anon_kb;
		c->smaps_anon_huge_kb += vmas->vma[i].anon_huge_kb;
	}
}

int mapscan_scan(FILE *smaps, int pagemap_fd, int kpageflags_fd,
		 struct mapscan_counts *c)
{
	struct smaps_list vmas;
	struct scan s = { .c = c, .pagemap_fd = pagemap_fd };
	size_t i;
	int err;

	mapscan_init(c, c->page_size);
	err = smaps_read(smaps, &vmas);
	if (err)
		return err;
	add_smaps_totals(c, &vmas);
	err = kpf_init(&s.kpf, kpageflags_fd, c->pmd_order);
	if (err)
		goto out;
	for (i = 0; i < vmas.nr && !err; i++)
		if (vmas.vma[i].anon_kb)
			err = scan_vma(&s, &vmas.vma[i]);
	if (!err)
		err = classify(&s, &vmas);
out:
	kpf_release(&s.kpf);
	free(s.runs);
	smaps_free(&vmas);
	return err;
}

/* open /proc/@pid/@name: -ESRCH when the process is gone */
static int open_proc(pid_t pid, const char *name, int *fd)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	*fd = open(path, O_RDONLY | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	return errno == ENOENT ? -ESRCH : -errno;
}

static int scan_once(pid_t pid, int kpageflags_fd, struct mapscan_counts *c)
{
	int smaps_fd, pagemap_fd, err;
	FILE *smaps;

	err = open_proc(pid, "smaps", &smaps_fd);
	if (err)
		return err;
	err = open_proc(pid, "pagemap", &pagemap_fd);
	if (err) {
		close(smaps_fd);
		return err;
	}
	smaps = fdopen(smaps_fd, "r");
	if (!smaps) {
		err = -errno;
		close(smaps_fd);
		goto out;
	}
	err = mapscan_scan(smaps, pagemap_fd, kpageflags_fd, c);
	fclose(smaps);
out:
	close(pagemap_fd);
	return err;
}

int mapscan_pid(pid_t pid, int kpageflags_fd, struct mapscan_counts *c)
{
	int err = scan_once(pid, kpageflags_fd, c);

	if (!err && (c->pmd_unmatched || c->unresolved_pages))
		err = scan_once(pid, kpageflags_fd, c);
	return err;
}

void mapscan_add(struct mapscan_counts *sum, const struct mapscan_counts *c)
{
	unsigned int o, k;

	sum->pmd.folios += c->pmd.folios;
	sum->pmd.pages += c->pmd.pages;
	for (o = 0; o < PTS_MAX_ORDER; o++) {
		for (k = 0; k < MAPSCAN_FITS; k++) {
			sum->pte[o][k].folios += c->pte[o][k].folios;
			sum->pte[o][k].pages += c->pte[o][k].pages;
		}
	}
	sum->order0_pages += c->order0_pages;
	sum->anon_pages += c->anon_pages;
	sum->unresolved_pages += c->unresolved_pages;
	sum->zero_pages += c->zero_pages;
	sum->swap_pages += c->swap_pages;
	sum->smaps_anon_kb += c->smaps_anon_kb;
	sum->smaps_anon_huge_kb += c->smaps_anon_huge_kb;
	sum->pmd_unmatched += c->pmd_unmatched;
}
