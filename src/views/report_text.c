// SPDX-License-Identifier: GPL-2.0
/* Plain-text rendering of metric status and snapshots (stat, top). */
#include <stdio.h>
#include "data/format.h"
#include "data/hist.h"
#include "views/report.h"

void report_metric_status(FILE *out, const struct pts_report *rep)
{
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	char reason[1024];
	int i;

	for (i = 0; i < rep->eng->nr_choices; i++) {
		ch = &rep->eng->choices[i];
		if (ch->metric->internal)
			continue;
		if (ch->chosen < 0) {
			engine_unavailable_reason(ch, reason, sizeof(reason));
			fprintf(out, "  %-24s unavailable: %s\n", ch->metric->name,
				reason);
			continue;
		}
		c = &ch->metric->cands[ch->chosen];
		fprintf(out, "  %-24s %-9s %s\n", ch->metric->name,
			c->exact ? "exact" : "inferred", c->label);
	}
}

/* one line for live views: "mremap.calls=tracepoint ... levels=n/a" */
void report_metric_line(FILE *out, const struct pts_report *rep)
{
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	int i;

	fprintf(out, "probes:");
	for (i = 0; i < rep->eng->nr_choices; i++) {
		ch = &rep->eng->choices[i];
		if (ch->metric->internal)
			continue;
		if (ch->chosen < 0) {
			fprintf(out, " %s=n/a", ch->metric->name);
			continue;
		}
		c = &ch->metric->cands[ch->chosen];
		fprintf(out, " %s=%s%s", ch->metric->name, path_kind_name(c->kind),
			c->exact ? "" : "(inferred)");
	}
	fprintf(out, "  (n/a: see 'ptscope probe')\n");
}

static void mremap_text(FILE *out, const struct pts_snapshot *s, bool hists)
{
	char old_b[32], new_b[32], mean[32];
	const struct pts_hist *h;
	int c;

	fprintf(out, "\nmremap calls by alignment class\n");
	fprintf(out, "  %-9s %-26s %10s %12s %12s %10s\n", "class", "meaning",
		"calls", "old bytes", "new bytes", "mean lat");
	for (c = 0; c < PTS_MREMAP_CLASSES; c++) {
		h = &s->hists.h[PTS_H_MREMAP_NS + c];
		fprintf(out, "  %-9s %-26s %10llu %12s %12s %10s\n",
			mremap_class_name(c), mremap_class_desc(c),
			(unsigned long long)s->counters.v[PTS_C_MREMAP_CALLS + c],
			fmt_bytes(old_b, sizeof(old_b),
				  s->counters.v[PTS_C_MREMAP_OLD_BYTES + c]),
			fmt_bytes(new_b, sizeof(new_b),
				  s->counters.v[PTS_C_MREMAP_NEW_BYTES + c]),
			h->count ? fmt_ns(mean, sizeof(mean), hist_mean(h)) : "-");
	}
	if (!hists)
		return;
	for (c = 0; c < PTS_MREMAP_CLASSES; c++) {
		h = &s->hists.h[PTS_H_MREMAP_NS + c];
		if (!h->count)
			continue;
		fprintf(out, "\n  mremap latency, class %s (count %llu, sum %llu ns)\n",
			mremap_class_name(c), (unsigned long long)h->count,
			(unsigned long long)h->sum);
		hist_print(out, h, "nsecs");
	}
}

static void mpt_text(FILE *out, const struct pts_snapshot *s, bool hists)
{
	char req[32], moved[32];
	const struct pts_hist *h = &s->hists.h[PTS_H_MPT_NS];

	fprintf(out, "\nmove_page_tables: %llu calls, %s requested, %s moved, "
		"%llu partial, %llu exec-stack, %llu reverse\n",
		(unsigned long long)s->counters.v[PTS_C_MPT_CALLS],
		fmt_bytes(req, sizeof(req), s->counters.v[PTS_C_MPT_BYTES_REQUESTED]),
		fmt_bytes(moved, sizeof(moved), s->counters.v[PTS_C_MPT_BYTES_MOVED]),
		(unsigned long long)s->counters.v[PTS_C_MPT_PARTIAL],
		(unsigned long long)s->counters.v[PTS_C_MPT_STACK],
		(unsigned long long)s->counters.v[PTS_C_MPT_REVERSE]);
	if (hists && h->count)
		hist_print(out, h, "nsecs");
}

static void levels_text(FILE *out, const struct pts_report *rep,
			const struct pts_snapshot *s)
{
	const __u64 *v = s->counters.v;
	char bytes[32];

	fprintf(out, "\npage-table entries moved (exec stack moves not included)\n");
	fprintf(out, "  %-10s %10s %10s\n", "level", "moved", "fell back");
	fprintf(out, "  %-10s %10llu %10llu\n", "PUD",
		(unsigned long long)v[PTS_C_LV_PUD_MOVED],
		(unsigned long long)v[PTS_C_LV_PUD_FALLBACK]);
	fprintf(out, "  %-10s %10llu %10llu\n", "PMD",
		(unsigned long long)v[PTS_C_LV_PMD_MOVED],
		(unsigned long long)v[PTS_C_LV_PMD_FALLBACK]);
	fprintf(out, "  %-10s %10llu %10llu\n", "huge PMD",
		(unsigned long long)v[PTS_C_LV_HPMD_MOVED],
		(unsigned long long)v[PTS_C_LV_HPMD_FALLBACK]);
	fprintf(out, "  PTE level: %llu extents, %s",
		(unsigned long long)v[PTS_C_LV_PTE_EXTENTS],
		fmt_bytes(bytes, sizeof(bytes), v[PTS_C_LV_PTE_BYTES]));
	if (report_has_pte_counts(rep))
		fprintf(out, ", %llu PTEs", (unsigned long long)v[PTS_C_LV_PTES]);
	else
		fprintf(out, ", PTE count unavailable on this kernel");
	if (report_has_level_tps(rep)) {
		/* the tracepoints see batches, not empty extents or splits */
		fprintf(out, " in %llu batches, %llu folio lookups\n",
			(unsigned long long)v[PTS_C_LV_PTE_BATCHES],
			(unsigned long long)v[PTS_C_LV_FOLIO_LOOKUPS]);
		return;
	}
	fprintf(out, "; %llu empty extents, %llu THP splits\n",
		(unsigned long long)v[PTS_C_LV_EMPTY],
		(unsigned long long)v[PTS_C_LV_SPLITS]);
}

static void folio_lookups_text(FILE *out, const struct pts_snapshot *s,
			       bool hists)
{
	const struct pts_hist *h = &s->hists.h[PTS_H_VNF_NS];
	char mean[32];

	fprintf(out, "\nvm_normal_folio() inside move_page_tables: %llu calls, "
		"mean %s\n", (unsigned long long)s->counters.v[PTS_C_VNF_CALLS],
		h->count ? fmt_ns(mean, sizeof(mean), hist_mean(h)) : "-");
	if (hists && h->count)
		hist_print(out, h, "nsecs");
}

static void fault_row(FILE *out, const struct pts_report *rep,
		      const struct pts_snapshot *s, unsigned int order, bool funcs)
{
	const struct pts_hist *lat = &s->hists.h[PTS_H_FAULT_NS + order];
	char size[16], mean[32];

	fprintf(out, "  %-6s %5u %10llu %10llu",
		fmt_order_size(size, sizeof(size), order, rep->page_size), order,
		(unsigned long long)s->counters.v[PTS_C_FAULT_ALLOC + order],
		(unsigned long long)s->counters.v[PTS_C_FAULT_FALLBACK + order]);
	if (funcs)
		fprintf(out, " %10llu %10s",
			(unsigned long long)s->counters.v[PTS_C_FAULT_FALLBACK_CHARGE + order],
			lat->count ? fmt_ns(mean, sizeof(mean), hist_mean(lat)) : "-");
	fputc('\n', out);
}

static void faults_text(FILE *out, const struct pts_report *rep,
			const struct pts_snapshot *s, bool hists)
{
	bool funcs = report_has_fault_funcs(rep);
	const struct pts_hist *lat;
	char size[16];
	unsigned int order;

	fprintf(out, "\nanonymous page faults by folio size\n");
	fprintf(out, "  %-6s %5s %10s %10s", "size", "order", "alloc", "fallback");
	if (funcs)
		fprintf(out, " %10s %10s", "charge-fb", "mean lat");
	fputc('\n', out);
	for (order = 0; order < PTS_MAX_ORDER; order++) {
		if (!s->counters.v[PTS_C_FAULT_ALLOC + order] &&
		    !s->counters.v[PTS_C_FAULT_FALLBACK + order] &&
		    order != 4 && order != 9 && !(funcs && order == 0))
			continue;
		fault_row(out, rep, s, order, funcs);
	}
	if (!funcs) {
		fprintf(out, "  (order 0, charge fallbacks and fault latency need "
			"the fentry or kprobe path)\n");
		return;
	}
	fprintf(out, "  huge zero page mapped by %llu read faults\n",
		(unsigned long long)s->counters.v[PTS_C_FAULT_ZERO_PAGE]);
	for (order = 0; hists && order < PTS_MAX_ORDER; order++) {
		lat = &s->hists.h[PTS_H_FAULT_NS + order];
		if (!lat->count)
			continue;
		fprintf(out, "\n  fault latency, %s folios (count %llu, sum %llu ns)\n",
			fmt_order_size(size, sizeof(size), order, rep->page_size),
			(unsigned long long)lat->count, (unsigned long long)lat->sum);
		hist_print(out, lat, "nsecs");
	}
}

static void collapse_text(FILE *out, const struct pts_report *rep,
			  const struct pts_snapshot *s)
{
	const char *name;
	int st, seen = 0;

	fprintf(out, "\nkhugepaged collapses (system-wide):");
	for (st = 0; st < PTS_COLLAPSE_STATUSES; st++) {
		uint64_t n = s->counters.v[PTS_C_COLLAPSE + st];

		if (!n)
			continue;
		name = kfeatures_enum_name(rep->kf, "scan_result", st);
		if (name)
			fprintf(out, " %s=%llu", name, (unsigned long long)n);
		else
			fprintf(out, " status_%d=%llu", st, (unsigned long long)n);
		seen++;
	}
	fprintf(out, "%s\n", seen ? "" : " none");
}

static void unavailable_text(FILE *out, const struct pts_report *rep,
			     const char *metric, const char *title)
{
	const struct pts_choice *ch = engine_choice(rep->eng, metric);
	char reason[1024];

	if (!ch)
		return;
	engine_unavailable_reason(ch, reason, sizeof(reason));
	fprintf(out, "\n%s: unavailable (%s)\n", title, reason);
}

void report_snapshot_text(FILE *out, const struct pts_report *rep,
			  const struct pts_snapshot *s, bool hists)
{
	const struct pts_engine *eng = rep->eng;

	if (engine_available(eng, "mremap.calls"))
		mremap_text(out, s, hists);
	else
		unavailable_text(out, rep, "mremap.calls", "mremap calls");
	if (engine_available(eng, "mremap.move_page_tables"))
		mpt_text(out, s, hists);
	else
		unavailable_text(out, rep, "mremap.move_page_tables",
				 "move_page_tables");
	if (engine_available(eng, "mremap.levels"))
		levels_text(out, rep, s);
	else
		unavailable_text(out, rep, "mremap.levels",
				 "PUD/PMD/PTE entries moved");
	if (engine_available(eng, "mremap.folio_lookups"))
		folio_lookups_text(out, s, hists);
	else
		unavailable_text(out, rep, "mremap.folio_lookups",
				 "vm_normal_folio() inside move_page_tables");
	if (engine_available(eng, "thp.fault_alloc"))
		faults_text(out, rep, s, hists);
	else
		unavailable_text(out, rep, "thp.fault_alloc", "hugepage faults");
	if (engine_available(eng, "thp.collapse"))
		collapse_text(out, rep, s);
	fprintf(out, "\ndrops: inflight map full %llu, process map full %llu, "
		"traced map full %llu\n",
		(unsigned long long)s->counters.v[PTS_C_DROP_START_MAP],
		(unsigned long long)s->counters.v[PTS_C_DROP_PROC_MAP],
		(unsigned long long)s->counters.v[PTS_C_DROP_TRACED_MAP]);
}
