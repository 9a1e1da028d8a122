// SPDX-License-Identifier: GPL-2.0
/*
 * The per-process table of top: the busiest processes' mremap calls by
 * class and hugepage faults by size, from the schema rows kept per
 * process, columns dropped on a narrow terminal with a line saying which.
 */
#include <stdio.h>
#include <stdlib.h>
#include "data/collector.h"
#include "data/format.h"
#include "data/schema.h"
#include "render/report.h"

static enum pts_sort sort_key;

/* value @i of the schema row @section.@key in a process's row */
static __u64 proc_count(const struct pts_proc *p, const char *section,
			const char *key, unsigned int i)
{
	return schema_proc_counter(schema_find(section, key), p, i);
}

static __u64 sort_value(const struct pts_proc_entry *e)
{
	const struct pts_proc *p = &e->stats;
	__u64 calls = proc_total_mremap(p);

	switch (sort_key) {
	case PTS_SORT_MREMAP:
		return calls;
	case PTS_SORT_FAULTS:
		return proc_total_faults(p);
	case PTS_SORT_LATENCY:
		return calls ? proc_count(p, "mremap", "mremap_ns", 0) / calls : 0;
	case PTS_SORT_PID:
		return 0;
	case PTS_SORT_ACTIVITY:
		break;
	}
	return calls + proc_total_faults(p);
}

/* largest first, then by pid */
static int cmp_procs(const void *a, const void *b)
{
	const struct pts_proc_entry *pa = a, *pb = b;
	__u64 na = sort_value(pa), nb = sort_value(pb);

	if (na != nb)
		return na < nb ? 1 : -1;
	return (int)pa->tgid - (int)pb->tgid;
}

void report_sort_procs(struct pts_snapshot *d, enum pts_sort key)
{
	sort_key = key;
	/* qsort(NULL, 0, ...) is undefined: an empty frame has no procs */
	if (d->nr_procs)
		qsort(d->procs, d->nr_procs, sizeof(*d->procs), cmp_procs);
}

enum top_col {
	COL_PID, COL_COMM, COL_MREMAP, COL_PUD, COL_PMD, COL_PTE, COL_INPLACE,
	COL_LAT, COL_F64K, COL_FPMD, COL_FALLBACK, NR_COLS,
};

/*
 * The process table's columns.  On a narrow terminal the lowest @keep
 * goes first: fallbacks, PUD-class calls, the two fault sizes, the mean
 * latency, PTE, PMD, in-place resizes (most of a realloc loop's calls),
 * then all calls; PID and COMM always stay.  The others keep their
 * order, so a row never wraps.
 */
static const struct top_col_spec {
	const char *head;	/* NULL: the fault columns name their size */
	int width;		/* negative: left-aligned */
	int keep;
} top_cols[NR_COLS] = {
	[COL_PID] = { "PID", 7, REPORT_KEEP_ALWAYS },
	[COL_COMM] = { "COMM", -16, REPORT_KEEP_ALWAYS },
	[COL_MREMAP] = { "MREMAP", 7, 9 },
	[COL_PUD] = { "PUD", 5, 2 },
	[COL_PMD] = { "PMD", 5, 7 },
	[COL_PTE] = { "PTE", 6, 6 },
	[COL_INPLACE] = { "INPLACE", 8, 8 },
	[COL_LAT] = { "MEAN-LAT", 9, 5 },
	[COL_F64K] = { NULL, 7, 4 },
	[COL_FPMD] = { NULL, 7, 3 },
	[COL_FALLBACK] = { "F-FALLBK", 8, 1 },
};

/* which columns fit in @width; returns how many were dropped */
static int fit_columns(int width, bool shown[NR_COLS])
{
	int widths[NR_COLS], keep[NR_COLS], c;

	for (c = 0; c < NR_COLS; c++) {
		shown[c] = true;
		widths[c] = top_cols[c].width;
		keep[c] = top_cols[c].keep;
	}
	return report_fit_columns(NR_COLS, widths, keep, shown, width);
}

static const char *col_head(char *buf, size_t len, enum top_col col,
			    uint64_t page_size)
{
	char size[16];
	unsigned int order = col == COL_F64K ? schema_order_64k(page_size) :
			     schema_order_pmd(page_size);

	if (top_cols[col].head)
		return top_cols[col].head;
	snprintf(buf, len, "F-%s", fmt_order_size(size, sizeof(size), order,
						  page_size));
	return buf;
}

static __u64 proc_fallbacks(const struct pts_proc *p)
{
	__u64 fallback = 0;
	int o;

	for (o = 0; o < PTS_MAX_ORDER; o++)
		fallback += proc_count(p, "hugepage_faults", "fallback", o);
	return fallback;
}

static const char *col_cell(char *buf, size_t len, enum top_col col,
			    const struct pts_proc_entry *e, uint64_t page_size)
{
	const struct pts_proc *p = &e->stats;
	__u64 calls = proc_total_mremap(p), v = 0;

	switch (col) {
	case COL_PID:
		v = e->tgid;
		break;
	case COL_COMM:
		return fmt_escape(buf, len, p->comm);
	case COL_MREMAP:
		v = calls;
		break;
	case COL_PUD:
	case COL_PMD:
	case COL_PTE:
	case COL_INPLACE:
		v = proc_count(p, "mremap", "calls",
			       PTS_MREMAP_PUD + col - COL_PUD);
		break;
	case COL_LAT:
		return calls ? fmt_ns(buf, len, (double)proc_count(p, "mremap", "mremap_ns", 0) / calls) :
			       "-";
	case COL_F64K:
		v = proc_count(p, "hugepage_faults", "alloc",
			       schema_order_64k(page_size));
		break;
	case COL_FPMD:
		v = proc_count(p, "hugepage_faults", "alloc",
			       schema_order_pmd(page_size));
		break;
	case COL_FALLBACK:
	case NR_COLS:
		v = proc_fallbacks(p);
		break;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

static void table_line(FILE *out, const bool shown[NR_COLS],
		       const char *const cells[NR_COLS])
{
	int width[NR_COLS], c;

	for (c = 0; c < NR_COLS; c++)
		width[c] = top_cols[c].width;
	report_table_cells(out, NR_COLS, shown, width, cells);
	fputc('\n', out);
}

/* what a narrow terminal left out, so nothing goes missing unsaid */
static void hidden_line(FILE *out, const bool shown[NR_COLS], int width,
			uint64_t page_size)
{
	char head[20];
	int c;

	fprintf(out, "hidden at %d columns:", width);
	for (c = 0; c < NR_COLS; c++)
		if (!shown[c])
			fprintf(out, " %s", col_head(head, sizeof(head), c,
						     page_size));
	fputc('\n', out);
}

void report_procs_text(FILE *out, const struct pts_snapshot *d,
		       uint64_t page_size, int rows, int width, double span)
{
	char bufs[NR_COLS][FMT_COMM_LEN], per[32];
	const char *cells[NR_COLS];
	bool shown[NR_COLS];
	size_t i;
	int c;

	fprintf(out, "\nper process, per %s: mremap calls by class, hugepage "
		"faults by size (F-*)\n", fmt_secs(per, sizeof(per), span));
	if (fit_columns(width, shown))
		hidden_line(out, shown, width, page_size);
	for (c = 0; c < NR_COLS; c++)
		cells[c] = col_head(bufs[c], sizeof(bufs[c]), c, page_size);
	table_line(out, shown, cells);
	for (i = 0; i < d->nr_procs && (int)i < rows; i++) {
		if (!proc_total_mremap(&d->procs[i].stats) &&
		    !proc_total_faults(&d->procs[i].stats))
			break;
		for (c = 0; c < NR_COLS; c++)
			cells[c] = col_cell(bufs[c], sizeof(bufs[c]), c,
					    &d->procs[i], page_size);
		table_line(out, shown, cells);
	}
}
