// SPDX-License-Identifier: GPL-2.0
/*
 * The per-cgroup table of top and stat: one row per cgroup v2, the
 * columns of top's process table, the level moves where they are traced,
 * and the cgroup's path last (paths are long), or for a pod's cgroup its
 * namespace/pod/container; "removed" sums the cgroups removed meanwhile.
 * Each column is a row of the output schema (cg_cols[]), read from the
 * cgroup's counters through it.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/cgroup_names.h"
#include "data/format.h"
#include "render/report.h"

#define CGROUP_PATH_SHOWN	256	/* bytes of a cgroup's path shown */
#define CELL_LEN		32	/* a column's head or value */

static enum pts_sort cgroup_sort_key;

/* the cgroup's mremap time (a row kept only per cgroup and process) */
static __u64 mremap_ns(const struct pts_cgroup *c)
{
	static const struct pts_field *f;

	if (!f)
		f = schema_find("mremap", "mremap_ns");
	return schema_cgroup_counter(f, c, 0);
}

static __u64 sort_value(const struct pts_cgroup_entry *e)
{
	__u64 calls = cgroup_total_mremap(&e->stats);

	switch (cgroup_sort_key) {
	case PTS_SORT_MREMAP:
		return calls;
	case PTS_SORT_FAULTS:
		return cgroup_total_faults(&e->stats);
	case PTS_SORT_LATENCY:
		return calls ? mremap_ns(&e->stats) / calls : 0;
	case PTS_SORT_PID:
		return 0;
	case PTS_SORT_ACTIVITY:
		break;
	}
	return calls + cgroup_total_faults(&e->stats);
}

/* largest first, then by path (unknown paths last, by id) */
static int cmp_cgroups(const void *a, const void *b)
{
	const struct pts_cgroup_entry *ca = a, *cb = b;
	__u64 na = sort_value(ca), nb = sort_value(cb);

	if (na != nb)
		return na < nb ? 1 : -1;
	if (ca->path && cb->path)
		return strcmp(ca->path, cb->path);
	if (ca->path || cb->path)
		return ca->path ? -1 : 1;
	return ca->id < cb->id ? -1 : ca->id > cb->id;
}

void report_sort_cgroups(struct pts_snapshot *s, enum pts_sort key)
{
	cgroup_sort_key = key;
	if (s->nr_cgroups)
		qsort(s->cgroups, s->nr_cgroups, sizeof(*s->cgroups),
		      cmp_cgroups);
}

/*
 * Which value of its schema row a column shows for a cgroup: one label
 * value, the one of a folio size, all of them summed, or the cgroup's
 * mremap time per call of the row.
 */
enum cg_pick {
	CG_LABEL = 0,	/* label value .label (0: a row without labels) */
	CG_ORDER_64K,	/* the folio order of 64 KiB at this page size */
	CG_ORDER_PMD,	/* the folio order of a PMD */
	CG_SUM,		/* every label value of the row */
	/*
	 * the row mremap.mremap_ns over the row's sum: mremap's
	 * latency_ns is a histogram, which the rows do not keep
	 */
	CG_MEAN_NS,
};

/*
 * The table's columns, left to right: each shows a schema row that the
 * rows keep per cgroup (schema_field_per_cgroup()); one marked
 * if_present only where the chosen attach path provides its row.
 */
static const struct cg_col {
	const char *section;	/* the schema row: section and key */
	const char *key;
	const char *head;	/* NULL: "F-" and the folio's size */
	int width;
	int keep;		/* on a narrow terminal the lowest goes first */
	enum cg_pick pick;
	unsigned int label;	/* CG_LABEL: which value */
	bool if_present;
} cg_cols[] = {
	{ "mremap", "calls", "MREMAP", 7, REPORT_KEEP_ALWAYS, .pick = CG_SUM },
	{ "mremap", "calls", "PUD", 5, 2, .label = PTS_MREMAP_PUD },
	{ "mremap", "calls", "PMD", 5, 7, .label = PTS_MREMAP_PMD },
	{ "mremap", "calls", "PTE", 6, 6, .label = PTS_MREMAP_PTE },
	{ "mremap", "calls", "INPLACE", 8, 8, .label = PTS_MREMAP_INPLACE },
	{ "mremap", "calls", "MEAN-LAT", 9, 5, .pick = CG_MEAN_NS },
	{ "hugepage_faults", "alloc", NULL, 7, 4, .pick = CG_ORDER_64K },
	{ "hugepage_faults", "alloc", NULL, 7, 3, .pick = CG_ORDER_PMD },
	{ "hugepage_faults", "fallback", "F-FALLBK", 8, 1, .pick = CG_SUM },
	{ "mremap_levels", "pud_moved", "PUD-MV", 7, 0, .if_present = true },
	{ "mremap_levels", "pmd_moved", "PMD-MV", 7, 0, .if_present = true },
	{ "mremap_levels", "huge_pmd_moved", "HPMD-MV", 7, 0,
	  .if_present = true },
};
#define NR_CG_COLS	(sizeof(cg_cols) / sizeof(cg_cols[0]))

static const struct pts_field *col_field(const struct cg_col *col)
{
	return schema_find(col->section, col->key);
}

/* which columns the table has; true if one of them is if_present */
static bool columns_shown(const struct pts_report_input *rep,
			  bool shown[NR_CG_COLS])
{
	struct pts_schema_ctx sc;
	bool optional = false;
	size_t i;

	report_schema_ctx(rep, &sc);
	for (i = 0; i < NR_CG_COLS; i++) {
		shown[i] = !cg_cols[i].if_present ||
			   schema_field_present(&sc, col_field(&cg_cols[i]));
		optional |= shown[i] && cg_cols[i].if_present;
	}
	return optional;
}

static unsigned int col_label(const struct cg_col *col, uint64_t page_size)
{
	switch (col->pick) {
	case CG_ORDER_64K:
		return schema_order_64k(page_size);
	case CG_ORDER_PMD:
		return schema_order_pmd(page_size);
	default:
		return col->label;
	}
}

static uint64_t row_sum(const struct pts_field *f, const struct pts_cgroup *c)
{
	unsigned int i, n = schema_label_count(f);
	uint64_t sum = 0;

	for (i = 0; i < n; i++)
		sum += schema_cgroup_counter(f, c, i);
	return sum;
}

static const char *col_head(char *buf, size_t len, const struct cg_col *col,
			    uint64_t page_size)
{
	char size[16];

	if (col->head)
		return col->head;
	snprintf(buf, len, "F-%s", fmt_order_size(size, sizeof(size),
						  col_label(col, page_size),
						  page_size));
	return buf;
}

static const char *col_cell(char *buf, size_t len, const struct cg_col *col,
			    const struct pts_cgroup *c, uint64_t page_size)
{
	const struct pts_field *f = col_field(col);
	uint64_t v;

	switch (col->pick) {
	case CG_SUM:
		v = row_sum(f, c);
		break;
	case CG_MEAN_NS:
		v = row_sum(f, c);
		return v ? fmt_ns(buf, len, (double)mremap_ns(c) / v) : "-";
	default:
		v = schema_cgroup_counter(f, c, col_label(col, page_size));
		break;
	}
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/*
 * The shown columns' @text, then the cgroup's @name two spaces on; a name
 * longer than @room (0: any length) keeps its end, the cgroup itself
 */
static void table_line(FILE *out, const bool shown[NR_CG_COLS],
		       const char *const text[NR_CG_COLS], const char *name,
		       int room)
{
	int width[NR_CG_COLS];
	size_t i, len = strlen(name);

	for (i = 0; i < NR_CG_COLS; i++)
		width[i] = cg_cols[i].width;
	report_table_cells(out, NR_CG_COLS, shown, width, text);
	if (room <= 3 || len <= (size_t)room) {
		fprintf(out, "  %s\n", name);
		return;
	}
	name += len - (size_t)(room - 3);
	while ((*name & 0xc0) == 0x80)	/* not inside a UTF-8 character */
		name++;
	fprintf(out, "  ...%s\n", name);
}

static void table_head(FILE *out, const struct pts_report_input *rep,
		       const bool shown[NR_CG_COLS])
{
	char buf[NR_CG_COLS][CELL_LEN];
	const char *text[NR_CG_COLS];
	size_t i;

	for (i = 0; i < NR_CG_COLS; i++)
		text[i] = col_head(buf[i], sizeof(buf[i]), &cg_cols[i],
				   rep->page_size);
	table_line(out, shown, text, "CGROUP", 0);
}

/* the name of @e's row, escaped: its path, id, or namespace/pod/container */
static const char *row_name(char *buf, size_t len,
			    const struct pts_cgroup_entry *e)
{
	char kube[CGROUP_PATH_SHOWN], id[32];

	return fmt_escape(buf, len, e->kube ?
			  kube_label(kube, sizeof(kube), e->kube) :
			  cgroup_label(id, sizeof(id), e->path, e->id));
}

static void table_row(FILE *out, const struct pts_report_input *rep,
		      const struct pts_cgroup_entry *e,
		      const bool shown[NR_CG_COLS], int room)
{
	char buf[NR_CG_COLS][CELL_LEN];
	char name[FMT_ESCAPED_LEN(CGROUP_PATH_SHOWN)];
	const char *text[NR_CG_COLS];
	size_t i;

	for (i = 0; i < NR_CG_COLS; i++)
		text[i] = col_cell(buf[i], sizeof(buf[i]), &cg_cols[i],
				   &e->stats, rep->page_size);
	table_line(out, shown, text, row_name(name, sizeof(name), e), room);
}

/* a row of the table: top (@active) shows only cgroups that did something */
static bool row_drawn(const struct pts_cgroup_entry *e, bool active)
{
	/* the removed cgroups' row only once it holds something */
	if (!active && e->id != PTS_CGROUP_REMOVED_ID)
		return true;
	return cgroup_total_mremap(&e->stats) || cgroup_total_faults(&e->stats);
}

/* the longest name of the first @rows rows drawn */
static int longest_name(const struct pts_snapshot *s, int rows, bool active)
{
	char name[FMT_ESCAPED_LEN(CGROUP_PATH_SHOWN)];
	int drawn = 0, len, longest = (int)strlen("CGROUP");
	size_t i;

	for (i = 0; i < s->nr_cgroups && drawn < rows; i++) {
		if (!row_drawn(&s->cgroups[i], active))
			continue;
		len = (int)strlen(row_name(name, sizeof(name), &s->cgroups[i]));
		if (len > longest)
			longest = len;
		drawn++;
	}
	return longest;
}

/*
 * On @width columns the names come first, up to half the line: columns
 * go, the lowest keep first, until the longest name fits in that, and
 * those gone are named; the name's room, what is left (0: no limit)
 */
static int fit_names(FILE *out, const struct pts_report_input *rep,
		     bool shown[NR_CG_COLS], int width, int longest)
{
	int widths[NR_CG_COLS], keep[NR_CG_COLS], used = -1;
	bool had[NR_CG_COLS];
	char head[CELL_LEN];
	size_t i;

	if (width <= 0)
		return 0;
	if (longest > width / 2)
		longest = width / 2;
	for (i = 0; i < NR_CG_COLS; i++) {
		widths[i] = cg_cols[i].width;
		keep[i] = cg_cols[i].keep;
		had[i] = shown[i];
	}
	if (report_fit_columns(NR_CG_COLS, widths, keep, shown,
			       width - 2 - longest)) {
		fprintf(out, "hidden at %d columns:", width);
		for (i = 0; i < NR_CG_COLS; i++)
			if (had[i] && !shown[i])
				fprintf(out, " %s", col_head(head, sizeof(head),
							     &cg_cols[i],
							     rep->page_size));
		fputc('\n', out);
	}
	for (i = 0; i < NR_CG_COLS; i++)
		used += shown[i] ? 1 + widths[i] : 0;
	return width - used - 2;
}

void report_cgroups_text(FILE *out, const struct pts_report_input *rep,
			 const struct pts_snapshot *s, int rows, bool active,
			 int width)
{
	bool shown[NR_CG_COLS], levels;
	int drawn = 0, room;
	size_t i;

	if (!s->has_cgroups)
		return;
	levels = columns_shown(rep, shown);
	fprintf(out, "\nper cgroup v2: mremap calls per alignment class, "
		"hugepage faults per size (F-*)%s\n",
		levels ? ", page-table entries moved (*-MV)" : "");
	room = fit_names(out, rep, shown, width, longest_name(s, rows, active));
	table_head(out, rep, shown);
	for (i = 0; i < s->nr_cgroups && drawn < rows; i++) {
		if (!row_drawn(&s->cgroups[i], active))
			continue;
		table_row(out, rep, &s->cgroups[i], shown, room);
		drawn++;
	}
}
