// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope maps as text and JSON.  Shares are of the anonymous pages
 * ptscope found (anon_pages); smaps' own Anonymous and AnonHugePages
 * totals are printed beside them as the kernel's cross-check.
 */
#include <time.h>
#include "data/format.h"
#include "render/maps_report.h"

static const char *const fit_names[MAPSCAN_FITS] = {
	[MAPSCAN_ALIGNED] = "aligned",
	[MAPSCAN_UNALIGNED] = "unaligned",
	[MAPSCAN_PARTIAL] = "partial",
};

static double share(const struct mapscan_counts *c, uint64_t pages)
{
	return c->anon_pages ? (double)pages / (double)c->anon_pages : 0.0;
}

/* the pages of PTE-mapped large folios of fit @fit, every order */
static uint64_t pte_pages(const struct mapscan_counts *c, enum mapscan_fit fit)
{
	uint64_t pages = 0;
	unsigned int o;

	for (o = 1; o < PTS_MAX_ORDER; o++)
		pages += c->pte[o][fit].pages;
	return pages;
}

static bool order_used(const struct mapscan_counts *c, unsigned int order)
{
	unsigned int k;

	for (k = 0; k < MAPSCAN_FITS; k++)
		if (c->pte[order][k].folios)
			return true;
	return false;
}

/* ------------------------------------------------------------------ JSON */

static json_object *tally_json(const struct mapscan_counts *c,
			       uint64_t folios, uint64_t pages)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "folios", json_object_new_uint64(folios));
	json_object_object_add(o, "pages", json_object_new_uint64(pages));
	json_object_object_add(o, "bytes",
			       json_object_new_uint64(mapscan_bytes(c, pages)));
	json_object_object_add(o, "share",
			       json_object_new_double(share(c, pages)));
	return o;
}

static void add_size(json_object *o, const struct mapscan_counts *c,
		     unsigned int order)
{
	char size[16];

	json_object_object_add(o, "order", json_object_new_int((int)order));
	json_object_object_add(o, "size", json_object_new_string(
		fmt_order_size(size, sizeof(size), order, c->page_size)));
}

/* "2M": { "order": 9, "size": "2M", "aligned": {...}, ... } per order */
static json_object *pte_mapped_json(const struct mapscan_counts *c)
{
	json_object *sizes = json_object_new_object(), *o;
	const struct mapscan_tally *t;
	unsigned int order, k;
	char size[16];

	for (order = PTS_MAX_ORDER - 1; order > 0; order--) {
		if (!order_used(c, order))
			continue;
		o = json_object_new_object();
		add_size(o, c, order);
		for (k = 0; k < MAPSCAN_FITS; k++) {
			t = &c->pte[order][k];
			json_object_object_add(o, fit_names[k],
					       tally_json(c, t->folios, t->pages));
		}
		json_object_object_add(sizes, fmt_order_size(size, sizeof(size),
					order, c->page_size), o);
	}
	return sizes;
}

static void add_u64(json_object *o, const char *key, uint64_t v)
{
	json_object_object_add(o, key, json_object_new_uint64(v));
}

/* @c's counts into @o */
static json_object *add_counts(json_object *o, const struct mapscan_counts *c)
{
	json_object *pmd, *small;

	add_u64(o, "anon_pages", c->anon_pages);
	add_u64(o, "anon_bytes", mapscan_bytes(c, c->anon_pages));
	add_u64(o, "smaps_anon_bytes", c->smaps_anon_kb * 1024);
	add_u64(o, "smaps_anon_huge_bytes", c->smaps_anon_huge_kb * 1024);
	pmd = tally_json(c, c->pmd.folios, c->pmd.pages);
	add_size(pmd, c, c->pmd_order);
	json_object_object_add(o, "pmd_mapped", pmd);
	json_object_object_add(o, "pte_mapped", pte_mapped_json(c));
	small = tally_json(c, c->order0_pages, c->order0_pages);
	add_size(small, c, 0);
	json_object_object_add(o, "order0", small);
	add_u64(o, "unresolved_pages", c->unresolved_pages);
	add_u64(o, "zero_pages", c->zero_pages);
	add_u64(o, "swap_pages", c->swap_pages);
	add_u64(o, "pmd_unmatched", c->pmd_unmatched);
	return o;
}

static json_object *row_json(const struct maps_row *r)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "pid", json_object_new_int(r->pid));
	json_object_object_add(o, "comm", fmt_json_string(r->comm));
	return add_counts(o, &r->counts);
}

json_object *maps_frame_json(const struct maps_frame *f)
{
	json_object *root = json_object_new_object();
	json_object *rows = json_object_new_array(), *total;
	size_t i;

	json_object_object_add(root, "ptscope_version",
			       json_object_new_int(MAPS_FORMAT_VERSION));
	json_object_object_add(root, "system", report_system_json(f->rep));
	json_object_object_add(root, "time", json_object_new_double(f->time));
	if (f->comm)
		json_object_object_add(root, "comm", fmt_json_string(f->comm));
	for (i = 0; i < f->nr_rows; i++)
		json_object_array_add(rows, row_json(&f->rows[i]));
	json_object_object_add(root, "processes", rows);
	total = json_object_new_object();
	add_u64(total, "processes", f->nr_rows);
	json_object_object_add(root, "total", add_counts(total, &f->total));
	return root;
}

/* ------------------------------------------------------------------ text */

static void tally_line(FILE *out, const struct mapscan_counts *c,
		       const char *mapped, unsigned int order, const char *fit,
		       uint64_t folios, uint64_t pages)
{
	char size[16], bytes[32];

	fprintf(out, "  %-6s %-6s %-10s %9llu %10llu %11s %6.1f%%\n", mapped,
		fmt_order_size(size, sizeof(size), order, c->page_size), fit,
		(unsigned long long)folios, (unsigned long long)pages,
		fmt_bytes(bytes, sizeof(bytes), mapscan_bytes(c, pages)),
		100.0 * share(c, pages));
}

static void pte_lines(FILE *out, const struct mapscan_counts *c)
{
	const struct mapscan_tally *t;
	unsigned int order, k;

	for (order = PTS_MAX_ORDER - 1; order > 0; order--) {
		for (k = 0; k < MAPSCAN_FITS; k++) {
			t = &c->pte[order][k];
			if (t->folios)
				tally_line(out, c, "PTE", order, fit_names[k],
					   t->folios, t->pages);
		}
	}
}

/* what is not in the table, when there is any */
static void notes(FILE *out, const struct mapscan_counts *c)
{
	if (c->unresolved_pages)
		fprintf(out, "  %llu anonymous pages of large folios that changed "
			"while being read (not in the table)\n",
			(unsigned long long)c->unresolved_pages);
	if (c->zero_pages)
		fprintf(out, "  %llu pages map the shared zero page (not "
			"anonymous memory)\n", (unsigned long long)c->zero_pages);
	if (c->swap_pages)
		fprintf(out, "  %llu anonymous pages swapped out\n",
			(unsigned long long)c->swap_pages);
	if (c->pmd_unmatched)
		fprintf(out, "  smaps counted %llu PMD mappings more than there "
			"were PMD-order folios to map: the process changed while "
			"being read\n", (unsigned long long)c->pmd_unmatched);
}

static void counts_text(FILE *out, const struct mapscan_counts *c)
{
	char anon[32], smaps[32], huge[32];

	fprintf(out, "anonymous %s (smaps: Anonymous %s, AnonHugePages %s)\n",
		fmt_bytes(anon, sizeof(anon), mapscan_bytes(c, c->anon_pages)),
		fmt_bytes(smaps, sizeof(smaps), c->smaps_anon_kb * 1024),
		fmt_bytes(huge, sizeof(huge), c->smaps_anon_huge_kb * 1024));
	fprintf(out, "  %-6s %-6s %-10s %9s %10s %11s %7s\n", "MAPPED", "FOLIO",
		"FIT", "FOLIOS", "PAGES", "BYTES", "SHARE");
	tally_line(out, c, "PMD", c->pmd_order, "aligned", c->pmd.folios,
		   c->pmd.pages);
	pte_lines(out, c);
	tally_line(out, c, "PTE", 0, "small", c->order0_pages, c->order0_pages);
	notes(out, c);
}

static void header(FILE *out, const struct maps_frame *f)
{
	const struct mapscan_counts *c = &f->total;
	char stamp[32], page[16], pmd[16];
	time_t now = (time_t)f->time;

	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	fprintf(out, "ptscope maps - %s  kernel %s  page %s, PMD %s\n", stamp,
		f->rep->kf->release,
		fmt_order_size(page, sizeof(page), 0, c->page_size),
		fmt_order_size(pmd, sizeof(pmd), c->pmd_order, c->page_size));
}

/* -c: one line per process, then their sum */
static void rows_text(FILE *out, const struct maps_frame *f)
{
	char comm[FMT_COMM_LEN], anon[32];
	const struct mapscan_counts *c;
	size_t i;

	fprintf(out, "\n%zu process%s named %s\n", f->nr_rows,
		f->nr_rows == 1 ? "" : "es",
		fmt_escape(comm, sizeof(comm), f->comm));
	fprintf(out, "%8s %-16s %11s %6s %8s %10s %8s %6s\n", "PID", "COMM",
		"ANON", "PMD", "ALIGNED", "UNALIGNED", "PARTIAL", "SMALL");
	for (i = 0; i < f->nr_rows; i++) {
		c = &f->rows[i].counts;
		fprintf(out, "%8d %-16s %11s %5.1f%% %7.1f%% %9.1f%% %7.1f%% "
			"%5.1f%%\n", (int)f->rows[i].pid,
			fmt_escape(comm, sizeof(comm), f->rows[i].comm),
			fmt_bytes(anon, sizeof(anon),
				  mapscan_bytes(c, c->anon_pages)),
			100.0 * share(c, c->pmd.pages),
			100.0 * share(c, pte_pages(c, MAPSCAN_ALIGNED)),
			100.0 * share(c, pte_pages(c, MAPSCAN_UNALIGNED)),
			100.0 * share(c, pte_pages(c, MAPSCAN_PARTIAL)),
			100.0 * share(c, c->order0_pages));
	}
	fprintf(out, "\ntotal of %zu process%s: ", f->nr_rows,
		f->nr_rows == 1 ? "" : "es");
}

void maps_frame_text(FILE *out, const struct maps_frame *f)
{
	char comm[FMT_COMM_LEN];

	header(out, f);
	if (f->comm) {
		rows_text(out, f);
	} else if (f->nr_rows) {
		fprintf(out, "\npid %d %s: ", (int)f->rows[0].pid,
			fmt_escape(comm, sizeof(comm), f->rows[0].comm));
	}
	counts_text(out, &f->total);
}
