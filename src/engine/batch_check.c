// SPDX-License-Identifier: GPL-2.0
/*
 * The start-up check of the PTE batch model (batch_check.h).
 *
 * The model is one version's move_ptes(): which present PTE makes
 * mremap_folio_pte_batch() look its folio up, and how far the batch goes.
 * Kernels differ: 6.17-rc1 looks up every present PTE's folio but an
 * extent's last (max_nr == 1), 7.3 (and 6.17 from 0b5be138ce00) only
 * where pte_batch_hint() is above 1, which is never on x86; a distribution
 * kernel may do either.  A batch never goes past one folio, so each
 * lookup starts one batch: equal lookup counts over folios of each size
 * also check where the model ends the batches.
 *
 * Each shape is a move of ptscope's own memory, in this thread, that must
 * go through move_ptes(): the destination sits a page off the source's
 * offset in a PMD.  The BPF side counts this thread's moves apart
 * (check_tid): the model's PTEs, batches and lookups, and the kernel's
 * vm_normal_folio() calls inside them.  The THP settings are read, never
 * written: a shape whose folio size is off does not run, and says so.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/libbpf.h>
#include "engine/batch_check.h"

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
/* PMD-sized entries of the reservation: source, gap, destination, slack */
#define RESERVE_PMDS	5

struct check_geom {
	size_t page;
	size_t pmd;
	size_t mthp;		/* the smallest enabled mTHP size, 0: none */
};

typedef int (*shape_fn)(const struct check_geom *g, char *area,
			struct pts_check_shape *sh);

static const char *const rule_names[PTS_LOOKUP_RULES] = {
	[PTS_LOOKUP_HINTED] = "hinted",
	[PTS_LOOKUP_EVERY_PRESENT] = "every-present",
};

static const char *const rule_descs[PTS_LOOKUP_RULES] = {
	[PTS_LOOKUP_HINTED] = "a folio lookup only where pte_batch_hint() is "
		"above 1, an arm64 contpte block (7.3; 6.17 with 0b5be138ce00)",
	[PTS_LOOKUP_EVERY_PRESENT] = "a folio lookup for every present PTE "
		"but an extent's last (6.17-rc1)",
};

const char *batch_rule_name(int rule)
{
	return rule >= 0 && rule < PTS_LOOKUP_RULES ? rule_names[rule] : "none";
}

const char *batch_rule_desc(int rule)
{
	return rule >= 0 && rule < PTS_LOOKUP_RULES ? rule_descs[rule] :
		"no known rule";
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* "[always] madvise never" -> the bracketed word, or "" */
static void thp_setting(const char *path, char *word, size_t len)
{
	char line[128], *open, *close;
	FILE *f = fopen(path, "r");

	word[0] = '\0';
	if (!f)
		return;
	if (fgets(line, sizeof(line), f) && (open = strchr(line, '[')) &&
	    (close = strchr(open, ']'))) {
		*close = '\0';
		snprintf(word, len, "%s", open + 1);
	}
	fclose(f);
}

/* would an madvise(MADV_HUGEPAGE) region get folios of this setting? */
static bool setting_on(const char *word, const char *global)
{
	if (!strcmp(word, "inherit"))
		return !strcmp(global, "always") || !strcmp(global, "madvise");
	return !strcmp(word, "always") || !strcmp(word, "madvise");
}

/* the smallest mTHP size below a PMD that MADV_HUGEPAGE memory gets */
static size_t smallest_mthp(const struct check_geom *g, const char *global)
{
	char path[128], word[32];
	size_t kb;

	for (kb = g->page * 2 / 1024; kb * 1024 < g->pmd; kb *= 2) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%zukB/enabled",
			 kb);
		thp_setting(path, word, sizeof(word));
		if (setting_on(word, global))
			return kb * 1024;
	}
	return 0;
}

/* @len bytes of private anonymous memory at @addr, every page written */
static int map_filled(char *addr, size_t len, size_t page, int advice)
{
	size_t off;

	if (mmap(addr, len, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED)
		return -errno;
	if (madvise(addr, len, advice))
		return -errno;
	for (off = 0; off < len; off += page)
		addr[off] = 1;
	return 0;
}

static int move_to(char *src, size_t len, char *dst)
{
	if (mremap(src, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst) ==
	    MAP_FAILED)
		return -errno;
	return 0;
}

/*
 * 4 KiB pages (order 0), 256 of them across the source's PMD boundary,
 * the destination a page off: three PTE-level extents
 */
static int shape_pages(const struct check_geom *g, char *area,
		       struct pts_check_shape *sh)
{
	size_t len = 256 * g->page, half = len / 2;
	char *src = area + g->pmd - half;
	char *dst = area + 3 * g->pmd - half + g->page;
	int err;

	sh->ptes_expected = len / g->page;
	err = map_filled(src, len, g->page, MADV_NOHUGEPAGE);
	return err ? err : move_to(src, len, dst);
}

/* AnonHugePages of this process in kB, -1: unknown */
static long anon_huge_kb(void)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen("/proc/self/smaps_rollup", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "AnonHugePages: %ld kB", &kb) == 1)
			break;
	fclose(f);
	return kb;
}

/* a PMD-sized THP moved a page off: split, its PTEs moved in batches */
static int shape_thp(const struct check_geom *g, char *area,
		     struct pts_check_shape *sh)
{
	long before = anon_huge_kb(), after;
	int err;

	sh->ptes_expected = g->pmd / g->page;
	err = map_filled(area, g->pmd, g->page, MADV_HUGEPAGE);
	if (err)
		return err;
	after = anon_huge_kb();
	snprintf(sh->note, sizeof(sh->note), "%s",
		 before >= 0 && after - before >= (long)(g->pmd / 1024) ?
		 "a PMD THP, split by the move" :
		 "no THP was allocated (memory fragmented?): order-0 pages");
	return move_to(area, g->pmd, area + 2 * g->pmd + g->page);
}

/*
 * 16 times the smallest enabled mTHP size, moved a page off: the fault
 * takes the largest enabled size that fits (alloc_anon_folio()), so the
 * folios are of that size or larger, below a PMD
 */
static int shape_mthp(const struct check_geom *g, char *area,
		      struct pts_check_shape *sh)
{
	size_t len = 16 * g->mthp;
	int err;

	sh->ptes_expected = len / g->page;
	snprintf(sh->note, sizeof(sh->note), "%zu KiB in mTHP folios of %zu "
		 "KiB or larger, where the faults got them", len / 1024,
		 g->mthp / 1024);
	err = map_filled(area, len, g->page, MADV_HUGEPAGE);
	return err ? err : move_to(area, len, area + 2 * g->pmd + g->page);
}

/* a PROT_NONE reservation and its first PMD-aligned address */
static char *reserve(const struct check_geom *g, void **base, size_t *len)
{
	uintptr_t a;

	*len = (RESERVE_PMDS + 1) * g->pmd;
	*base = mmap(NULL, *len, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (*base == MAP_FAILED)
		return NULL;
	a = ((uintptr_t)*base + g->pmd - 1) & ~(uintptr_t)(g->pmd - 1);
	return (char *)a;
}

/* run @fn once under each rule; false (with the note) if it could not */
static bool run_shape(struct pts_engine *eng, const struct check_geom *g,
		      shape_fn fn, struct pts_check_shape *sh)
{
	struct pts_check_counts drop;
	size_t len;
	void *base;
	char *area;
	int rule, err;

	for (rule = 0; rule < PTS_LOOKUP_RULES; rule++) {
		area = reserve(g, &base, &len);
		if (!area) {
			err = -errno;
			goto failed;
		}
		objects_set_lookup_rule(&eng->objs, rule);
		objects_take_check_counts(&eng->objs, &drop);
		err = fn(g, area, sh);
		objects_take_check_counts(&eng->objs, &sh->seen[rule]);
		munmap(base, len);
		if (err)
			goto failed;
	}
	sh->ran = true;
	return true;
failed:
	snprintf(sh->note, sizeof(sh->note), "could not run: %s",
		 strerror(-err));
	return false;
}

static bool rule_fits(const struct pts_batch_check *bc, int rule)
{
	const struct pts_check_shape *sh;
	int i;

	for (i = 0; i < bc->nr_shapes; i++) {
		sh = &bc->shapes[i];
		if (!sh->ran)
			continue;
		if (sh->seen[rule].lookups != sh->seen[rule].vnf_calls ||
		    sh->seen[rule].ptes != sh->ptes_expected)
			return false;
	}
	return true;
}

static struct pts_check_shape *add_shape(struct pts_batch_check *bc,
					 const char *name)
{
	struct pts_check_shape *sh = &bc->shapes[bc->nr_shapes++];

	sh->name = name;
	return sh;
}

/* every shape this kernel's settings allow; false if the first failed */
static bool run_shapes(struct pts_engine *eng, struct pts_batch_check *bc)
{
	struct check_geom g = { .page = (size_t)sysconf(_SC_PAGESIZE) };
	struct pts_check_shape *sh;
	char global[32];

	g.pmd = g.page * (g.page / 8);
	thp_setting(THP_DIR "/enabled", global, sizeof(global));
	g.mthp = smallest_mthp(&g, global);
	if (!run_shape(eng, &g, shape_pages, add_shape(bc, "order-0 pages")))
		return false;
	sh = add_shape(bc, "PMD THP split by the move");
	if (setting_on(global, ""))
		run_shape(eng, &g, shape_thp, sh);
	else
		snprintf(sh->note, sizeof(sh->note), "not run: THP enabled is "
			 "'%s'", global[0] ? global : "unknown");
	sh = add_shape(bc, "mTHP folios");
	if (g.mthp)
		run_shape(eng, &g, shape_mthp, sh);
	else
		snprintf(sh->note, sizeof(sh->note), "not run: no mTHP size "
			 "below a PMD is enabled");
	return true;
}

int batch_check_choose(struct pts_batch_check *bc)
{
	int rule, fits = 0;

	bc->rule = -1;
	for (rule = 0; rule < PTS_LOOKUP_RULES; rule++) {
		if (!rule_fits(bc, rule))
			continue;
		fits++;
		bc->rule = rule;
	}
	if (fits == 1)
		return bc->rule;
	bc->rule = -1;
	snprintf(bc->note, sizeof(bc->note), "start-up check: %s", fits ?
		 "more than one lookup rule fits, the count would be a guess" :
		 "no known lookup rule gives this kernel's folio lookups "
		 "(probe shows what it saw)");
	return -1;
}

/* take the one rule that fits every shape, or withdraw the metric */
static void choose_rule(struct pts_engine *eng, struct pts_batch_check *bc)
{
	if (batch_check_choose(bc) >= 0)
		objects_set_lookup_rule(&eng->objs, bc->rule);
	else
		engine_withdraw(eng, PTS_BATCH_CHECK_METRIC, bc->note);
}

/* why the check is not needed or cannot run; NULL: run it */
static const char *check_needed(const struct pts_engine *eng,
				const struct pts_config *cfg)
{
	const struct pts_choice *ch = engine_choice(eng,
						   PTS_BATCH_CHECK_METRIC);

	if (!ch || ch->chosen < 0)
		return "not run: the metric is unavailable";
	if (ch->metric->cands[ch->chosen].exact)
		return "not needed: the kernel counts them";
	if (!(cfg->parts & PTS_PART_PTE_MARKER))
		return "not run: the PTE-table marker is off (--parts)";
	return NULL;
}

/* attach the truth probe unless the user's folio_lookups metric has it */
static int attach_truth(struct pts_engine *eng, struct bpf_link **links,
			char *why, size_t len)
{
	if (engine_available(eng, "mremap.folio_lookups"))
		return 0;
	return engine_attach_check_progs(eng, PTS_BATCH_CHECK_METRIC, links,
					 why, len);
}

void batch_check_run(struct pts_engine *eng, const struct pts_config *cfg)
{
	struct pts_batch_check *bc = &eng->batch_check;
	struct bpf_link *links[PTS_MAX_PROGS];
	const char *skip = check_needed(eng, cfg);
	char why[PTS_WHY_LEN];
	double start = now_ms();
	int nr, i;

	memset(bc, 0, sizeof(*bc));
	bc->rule = -1;
	if (skip) {
		snprintf(bc->note, sizeof(bc->note), "%s", skip);
		return;
	}
	nr = attach_truth(eng, links, why, sizeof(why));
	if (nr < 0) {
		snprintf(bc->note, sizeof(bc->note), "start-up check could not "
			 "count the kernel's lookups: %.140s", why);
		engine_withdraw(eng, PTS_BATCH_CHECK_METRIC, bc->note);
		return;
	}
	objects_set_check_tid(&eng->objs, (__u32)gettid());
	bc->ran = run_shapes(eng, bc);
	objects_set_check_tid(&eng->objs, 0);
	for (i = 0; i < nr; i++)
		bpf_link__destroy(links[i]);
	if (bc->ran) {
		choose_rule(eng, bc);
	} else {
		snprintf(bc->note, sizeof(bc->note), "start-up check could not "
			 "run: %.160s", bc->shapes[0].note);
		engine_withdraw(eng, PTS_BATCH_CHECK_METRIC, bc->note);
	}
	bc->ms = now_ms() - start;
}

/* "order-0 pages: 256 PTEs, kernel 253 lookups, hinted 0, every-present 253" */
static size_t shape_summary(const struct pts_check_shape *sh, char *buf,
			    size_t len)
{
	int rule, n;

	if (!sh->ran)
		return (size_t)snprintf(buf, len, "%s: %s", sh->name, sh->note);
	n = snprintf(buf, len, "%s (%s): %llu PTEs, the kernel made %llu "
		     "lookups; the model:", sh->name, sh->note[0] ? sh->note :
		     "all present", (unsigned long long)sh->seen[0].ptes,
		     (unsigned long long)sh->seen[0].vnf_calls);
	for (rule = 0; rule < PTS_LOOKUP_RULES && n > 0 && (size_t)n < len;
	     rule++)
		n += snprintf(buf + n, len - n, " %s %llu lookups/%llu "
			      "batches (kernel %llu)", rule_names[rule],
			      (unsigned long long)sh->seen[rule].lookups,
			      (unsigned long long)sh->seen[rule].batches,
			      (unsigned long long)sh->seen[rule].vnf_calls);
	return n < 0 ? 0 : (size_t)n;
}

void batch_check_summary(const struct pts_batch_check *bc, char *buf,
			 size_t len)
{
	size_t n;
	int i;

	if (!bc->ran) {
		snprintf(buf, len, "%s", bc->note);
		return;
	}
	n = (size_t)snprintf(buf, len, "rule %s: %s, checked in %.1f ms on ",
			     batch_rule_name(bc->rule),
			     batch_rule_desc(bc->rule), bc->ms);
	for (i = 0; i < bc->nr_shapes && n < len; i++) {
		n += shape_summary(&bc->shapes[i], buf + n, len - n);
		if (i + 1 < bc->nr_shapes && n + 2 < len)
			n += (size_t)snprintf(buf + n, len - n, "; ");
	}
}
