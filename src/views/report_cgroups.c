// SPDX-License-Identifier: GPL-2.0
/*
 * The per-cgroup table of top and stat: one row per cgroup v2, the
 * columns of top's process table, the level moves where they are traced,
 * and the cgroup's path last (paths are long), or for a pod's cgroup its
 * namespace/pod/container; "removed" sums the cgroups removed meanwhile.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/cgroup_names.h"
#include "data/format.h"
#include "views/report.h"

#define CGROUP_PATH_SHOWN	256	/* bytes of a cgroup's path shown */

static enum pts_sort cgroup_sort_key;

static __u64 sort_value(const struct pts_cgroup_entry *e)
{
	__u64 calls = cgroup_total_mremap(&e->stats);

	switch (cgroup_sort_key) {
	case PTS_SORT_MREMAP:
		return calls;
	case PTS_SORT_FAULTS:
		return cgroup_total_faults(&e->stats);
	case PTS_SORT_LATENCY:
		return calls ? e->stats.mremap_ns / calls : 0;
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

/* the level counters the table shows, where mremap.levels is attached */
static const char *const level_keys[] = {
	"pud_moved", "pmd_moved", "huge_pmd_moved",
};
static const char *const level_heads[] = { "PUD-MV", "PMD-MV", "HPMD-MV" };
#define NR_LEVEL_COLS	(sizeof(level_keys) / sizeof(level_keys[0]))

static bool levels_shown(const struct pts_report *rep)
{
	struct pts_schema_ctx sc;

	report_schema_ctx(rep, &sc);
	return schema_field_present(&sc, schema_find("mremap_levels",
						     level_keys[0]));
}

static void table_head(FILE *out, const struct pts_report *rep, bool levels)
{
	unsigned int small = schema_order_64k(rep->page_size);
	unsigned int pmd = schema_order_pmd(rep->page_size);
	char size[16], small_s[20], pmd_s[20];
	size_t i;

	snprintf(small_s, sizeof(small_s), "F-%s",
		 fmt_order_size(size, sizeof(size), small, rep->page_size));
	snprintf(pmd_s, sizeof(pmd_s), "F-%s",
		 fmt_order_size(size, sizeof(size), pmd, rep->page_size));
	fprintf(out, "%7s %5s %5s %6s %8s %9s %7s %7s %8s", "MREMAP", "PUD",
		"PMD", "PTE", "INPLACE", "MEAN-LAT", small_s, pmd_s,
		"F-FALLBK");
	for (i = 0; levels && i < NR_LEVEL_COLS; i++)
		fprintf(out, " %7s", level_heads[i]);
	fprintf(out, "  CGROUP\n");
}

static void table_row(FILE *out, const struct pts_report *rep,
		      const struct pts_cgroup_entry *e, bool levels)
{
	const struct pts_cgroup *c = &e->stats;
	__u64 calls = cgroup_total_mremap(c), fallback = 0;
	unsigned int small = schema_order_64k(rep->page_size);
	unsigned int pmd = schema_order_pmd(rep->page_size);
	char lat[32], id[32], path[FMT_ESCAPED_LEN(CGROUP_PATH_SHOWN)];
	char kube[CGROUP_PATH_SHOWN];
	size_t i;

	for (i = 0; i < PTS_MAX_ORDER; i++)
		fallback += c->v[PTS_C_FAULT_FALLBACK + i];
	fprintf(out, "%7llu %5llu %5llu %6llu %8llu %9s %7llu %7llu %8llu",
		(unsigned long long)calls,
		(unsigned long long)c->v[PTS_C_MREMAP_CALLS + PTS_MREMAP_PUD],
		(unsigned long long)c->v[PTS_C_MREMAP_CALLS + PTS_MREMAP_PMD],
		(unsigned long long)c->v[PTS_C_MREMAP_CALLS + PTS_MREMAP_PTE],
		(unsigned long long)c->v[PTS_C_MREMAP_CALLS + PTS_MREMAP_INPLACE],
		calls ? fmt_ns(lat, sizeof(lat),
			       (double)c->mremap_ns / calls) : "-",
		(unsigned long long)c->v[PTS_C_FAULT_ALLOC + small],
		(unsigned long long)c->v[PTS_C_FAULT_ALLOC + pmd],
		(unsigned long long)fallback);
	for (i = 0; levels && i < NR_LEVEL_COLS; i++)
		fprintf(out, " %7llu", (unsigned long long)schema_cgroup_counter(
				schema_find("mremap_levels", level_keys[i]), c, 0));
	fprintf(out, "  %s\n", fmt_escape(path, sizeof(path), e->kube ?
					  kube_label(kube, sizeof(kube), e->kube) :
					  cgroup_label(id, sizeof(id), e->path,
						       e->id)));
}

void report_cgroups_text(FILE *out, const struct pts_report *rep,
			 const struct pts_snapshot *s, int rows, bool active)
{
	bool levels = levels_shown(rep);
	int shown = 0;
	size_t i;

	if (!s->has_cgroups)
		return;
	fprintf(out, "\nper cgroup v2: mremap calls per alignment class, "
		"hugepage faults per size (F-*)%s\n",
		levels ? ", page-table entries moved (*-MV)" : "");
	table_head(out, rep, levels);
	for (i = 0; i < s->nr_cgroups && shown < rows; i++) {
		/* the removed cgroups' row only once it holds something */
		if ((active || s->cgroups[i].id == PTS_CGROUP_REMOVED_ID) &&
		    !cgroup_total_mremap(&s->cgroups[i].stats) &&
		    !cgroup_total_faults(&s->cgroups[i].stats))
			continue;
		table_row(out, rep, &s->cgroups[i], levels);
		shown++;
	}
}
