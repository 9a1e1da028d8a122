// SPDX-License-Identifier: GPL-2.0
/* Plain-text rendering of metric status and snapshots (stat, top). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/format.h"
#include "data/hist.h"
#include "data/selfcheck.h"
#include "engine/batch_check.h"
#include "render/hist_print.h"
#include "render/report.h"

#define REPORT_WIDTH	100	/* probe and stat lines, continuations included */

int report_wrap(FILE *out, int col, int indent, const char *text)
{
	return fmt_wrap(out, col, indent, REPORT_WIDTH, text);
}

void report_table_cells(FILE *out, int n, const bool shown[],
			const int width[], const char *const text[])
{
	const char *sep = "";
	int c;

	for (c = 0; c < n; c++) {
		if (!shown[c])
			continue;
		fprintf(out, "%s%*s", sep, width[c], text[c]);
		sep = " ";
	}
}

int report_fit_columns(int n, const int width[], const int keep[],
		       bool shown[], int room)
{
	int used = -1, dropped = 0, low, c;

	for (c = 0; c < n; c++)
		used += shown[c] ? 1 + abs(width[c]) : 0;
	while (used > room) {
		low = -1;
		for (c = 0; c < n; c++)
			if (shown[c] && keep[c] < REPORT_KEEP_ALWAYS &&
			    (low < 0 || keep[c] < keep[low]))
				low = c;
		if (low < 0)
			break;
		shown[low] = false;
		used -= 1 + abs(width[low]);
		dropped++;
	}
	return dropped;
}

#define REPORT_MAX_REASONS	(PTS_MAX_METRICS * PTS_MAX_CANDS)

/*
 * The unavailability reasons of the report, each once, in the order the
 * metrics first give them: a metric sharing one refers to its number.
 * Returns how many there are.
 */
static int collect_reasons(const struct pts_report_input *rep,
			   const char **list)
{
	const struct pts_choice *ch;
	int i, j, k, n = 0;

	for (i = 0; i < rep->eng->nr_choices; i++) {
		ch = &rep->eng->choices[i];
		if (ch->chosen >= 0 || ch->metric->internal)
			continue;
		for (j = 0; j < ch->metric->nr_cands; j++) {
			if (!engine_reason_shown(ch, j))
				continue;
			for (k = 0; k < n && strcmp(list[k], ch->why[j]); k++)
				;
			if (k == n && n < REPORT_MAX_REASONS)
				list[n++] = ch->why[j];
		}
	}
	return n;
}

int report_reason_number(const struct pts_report_input *rep, const char *why)
{
	const char *list[REPORT_MAX_REASONS];
	int i, n = collect_reasons(rep, list);

	for (i = 0; i < n; i++)
		if (!strcmp(list[i], why))
			return i + 1;
	return 0;
}

/* "[1,3]": the numbers of @ch's reasons */
static int reason_refs(FILE *out, const struct pts_report_input *rep,
		       const struct pts_choice *ch)
{
	int i, col = 0, n = 0;

	for (i = 0; i < ch->metric->nr_cands; i++)
		if (engine_reason_shown(ch, i))
			col += fprintf(out, "%s%d", n++ ? "," : "[",
				       report_reason_number(rep, ch->why[i]));
	return col + fprintf(out, "%s", n ? "]" : "");
}

/* each reason once: "  [n] why", wrapped below itself */
static void reasons_text(FILE *out, const struct pts_report_input *rep)
{
	const char *list[REPORT_MAX_REASONS];
	int i, n = collect_reasons(rep, list), col;
	char tag[16];

	if (n)
		fprintf(out, "  why unavailable:\n");
	for (i = 0; i < n; i++) {
		snprintf(tag, sizeof(tag), "[%d]", i + 1);
		col = fprintf(out, "  %8s ", tag);
		report_wrap(out, col, col, list[i]);
		fputc('\n', out);
	}
}

/* under an inferred mremap.pte_batches: the rule its start-up check took */
static void batch_rule_text(FILE *out, int col,
			    const struct pts_batch_check *bc)
{
	char line[256];

	if (!bc->ran || bc->rule < 0)
		return;
	snprintf(line, sizeof(line), "start-up check: rule %s, %s (%.1f ms)",
		 batch_rule_name(bc->rule), batch_rule_desc(bc->rule), bc->ms);
	fprintf(out, "%*s", col, "");
	report_wrap(out, col, col, line);
	fputc('\n', out);
}

void report_metric_status(FILE *out, const struct pts_report_input *rep)
{
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	int i, col;

	for (i = 0; i < rep->eng->nr_choices; i++) {
		ch = &rep->eng->choices[i];
		if (ch->metric->internal)
			continue;
		if (ch->chosen < 0) {
			fprintf(out, "  %-24s unavailable ", ch->metric->name);
			reason_refs(out, rep, ch);
			fputc('\n', out);
			continue;
		}
		c = &ch->metric->cands[ch->chosen];
		col = fprintf(out, "  %-24s %-9s ", ch->metric->name,
			      c->exact ? "exact" : "inferred");
		report_wrap(out, col, col, c->label);
		fputc('\n', out);
		if (!strcmp(ch->metric->name, PTS_BATCH_CHECK_METRIC))
			batch_rule_text(out, col, &rep->eng->batch_check);
	}
	reasons_text(out, rep);
}

/* one line for live views: "mremap.calls=tracepoint ... levels=n/a" */
void report_metric_line(FILE *out, const struct pts_report_input *rep)
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

/* one cell: a count, bytes, or a histogram's mean ("-" when empty) */
static const char *cell(char *buf, size_t len, const struct pts_field *f,
			const struct pts_snapshot *s, unsigned int i)
{
	const struct pts_hist *h;
	uint64_t v;

	if (f->kind == PTS_FIELD_HIST) {
		h = schema_hist(f, s, i);
		if (!h->count)
			return "-";
		if (f->unit == PTS_UNIT_NS)
			return fmt_ns(buf, len, hist_mean(h));
		snprintf(buf, len, "%.1f", hist_mean(h));
		return buf;
	}
	v = schema_counter(f, s, i);
	if (f->unit == PTS_UNIT_BYTES)
		return fmt_bytes(buf, len, v);
	snprintf(buf, len, "%llu", (unsigned long long)v);
	return buf;
}

/* may @f be printed in @sec's block? */
static bool in_block(const struct pts_schema_ctx *sc,
		     const struct pts_section *sec, const struct pts_field *f)
{
	return f->section == sec && !f->not_in_text &&
	       schema_field_present(sc, f);
}

/* the first field of @sec with label @kind, NULL if none */
static const struct pts_field *first_labelled(const struct pts_schema_ctx *sc,
					      const struct pts_section *sec,
					      enum pts_label_kind kind)
{
	size_t i;

	for (i = 0; i < pts_nr_fields; i++)
		if (in_block(sc, sec, &pts_fields[i]) &&
		    pts_fields[i].label == kind)
			return &pts_fields[i];
	return NULL;
}

/* rows: the label values (classes, orders); columns: the fields */
static void label_table(FILE *out, const struct pts_schema_ctx *sc,
			const struct pts_section *sec,
			const struct pts_snapshot *s, enum pts_label_kind kind)
{
	const struct pts_field *first = first_labelled(sc, sec, kind), *f;
	char label_buf[32], buf[32];
	const char *label;
	unsigned int v;
	size_t i;

	if (!first || kind == PTS_LABEL_RESULT)
		return;
	if (kind == PTS_LABEL_CLASS)
		fprintf(out, "  %-9s %-26s", "class", "meaning");
	else
		fprintf(out, "  %-6s %5s", "size", "order");
	for (i = 0; i < pts_nr_fields; i++)
		if (in_block(sc, sec, &pts_fields[i]) &&
		    pts_fields[i].label == kind)
			fprintf(out, " %10s", pts_fields[i].title);
	fputc('\n', out);
	for (v = 0; v < schema_label_count(first); v++) {
		if (!schema_label_shown(sc, first, s, v))
			continue;
		label = schema_label_value(sc, first, v, label_buf,
					   sizeof(label_buf));
		if (kind == PTS_LABEL_CLASS)
			fprintf(out, "  %-9s %-26s", label, mremap_class_desc(v));
		else
			fprintf(out, "  %-6s %5u", label, v);
		for (i = 0; i < pts_nr_fields; i++) {
			f = &pts_fields[i];
			if (in_block(sc, sec, f) && f->label == kind)
				fprintf(out, " %10s", cell(buf, sizeof(buf), f, s, v));
		}
		fputc('\n', out);
	}
}

/* how many present fields of @sec carry @f's title */
static int title_uses(const struct pts_schema_ctx *sc,
		      const struct pts_section *sec, const struct pts_field *f)
{
	int n = 0;
	size_t i;

	for (i = 0; i < pts_nr_fields; i++)
		if (in_block(sc, sec, &pts_fields[i]) &&
		    !strcmp(pts_fields[i].title, f->title))
			n++;
	return n;
}

/* fields with a fixed label sharing titles: a label x title table */
static bool in_fixed_table(const struct pts_schema_ctx *sc,
			   const struct pts_field *f)
{
	return f->label == PTS_LABEL_NONE && f->fixed_label &&
	       title_uses(sc, f->section, f) > 1;
}

static void fixed_table(FILE *out, const struct pts_schema_ctx *sc,
			const struct pts_section *sec,
			const struct pts_snapshot *s)
{
	const char *rows[8], *cols[8], *label = NULL;
	int nr_rows = 0, nr_cols = 0, r, c;
	char buf[32];
	size_t i, j;

	for (i = 0; i < pts_nr_fields; i++) {
		const struct pts_field *f = &pts_fields[i];

		if (!in_block(sc, sec, f) || !in_fixed_table(sc, f))
			continue;
		label = f->fixed_label;
		for (r = 0; r < nr_rows && strcmp(rows[r], f->fixed_value); r++)
			;
		if (r == nr_rows && nr_rows < 8)
			rows[nr_rows++] = f->fixed_value;
		for (c = 0; c < nr_cols && strcmp(cols[c], f->title); c++)
			;
		if (c == nr_cols && nr_cols < 8)
			cols[nr_cols++] = f->title;
	}
	if (!nr_rows)
		return;
	fprintf(out, "  %-10s", label);
	for (c = 0; c < nr_cols; c++)
		fprintf(out, " %10s", cols[c]);
	fputc('\n', out);
	for (r = 0; r < nr_rows; r++) {
		fprintf(out, "  %-10s", rows[r]);
		for (c = 0; c < nr_cols; c++)
			for (j = 0; j < pts_nr_fields; j++) {
				const struct pts_field *f = &pts_fields[j];

				if (in_block(sc, sec, f) && in_fixed_table(sc, f) &&
				    !strcmp(f->fixed_value, rows[r]) &&
				    !strcmp(f->title, cols[c]))
					fprintf(out, " %10s",
						cell(buf, sizeof(buf), f, s, 0));
			}
		fputc('\n', out);
	}
}

/* single values, one per line */
static void plain_lines(FILE *out, const struct pts_schema_ctx *sc,
			const struct pts_section *sec,
			const struct pts_snapshot *s)
{
	const struct pts_field *f;
	char buf[32];
	size_t i;

	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		if (!in_block(sc, sec, f) || f->label != PTS_LABEL_NONE ||
		    in_fixed_table(sc, f))
			continue;
		fprintf(out, "  %-30s %s%s\n", f->title,
			f->kind == PTS_FIELD_HIST ? "mean " : "",
			cell(buf, sizeof(buf), f, s, 0));
	}
}

/* "SCAN_SUCCEED=3 SCAN_PMD_NULL=1" */
static void result_line(FILE *out, const struct pts_schema_ctx *sc,
			const struct pts_section *sec,
			const struct pts_snapshot *s)
{
	const struct pts_field *f = first_labelled(sc, sec, PTS_LABEL_RESULT);
	char buf[32];
	unsigned int st;
	int seen = 0;

	if (!f)
		return;
	for (st = 0; st < schema_label_count(f); st++) {
		if (!schema_label_shown(sc, f, s, st))
			continue;
		fprintf(out, " %s=%llu",
			schema_label_value(sc, f, st, buf, sizeof(buf)),
			(unsigned long long)schema_counter(f, s, st));
		seen++;
	}
	fprintf(out, "%s\n", seen ? "" : " none");
}

/* say which fields this attach path cannot give, never print them as 0 */
static void missing_line(FILE *out, const struct pts_schema_ctx *sc,
			 const struct pts_section *sec)
{
	const char *sep = "  not measured on this attach path: ";
	size_t i;

	for (i = 0; i < pts_nr_fields; i++) {
		if (pts_fields[i].section != sec ||
		    schema_field_present(sc, &pts_fields[i]))
			continue;
		fprintf(out, "%s%s", sep, pts_fields[i].title);
		sep = ", ";
	}
	if (strcmp(sep, ", ") == 0)
		fprintf(out, " (see 'ptscope probe')\n");
}

/* every histogram of @sec with values, drawn */
static void section_hists(FILE *out, const struct pts_schema_ctx *sc,
			  const struct pts_section *sec,
			  const struct pts_snapshot *s)
{
	const struct pts_hist *h;
	const struct pts_field *f;
	char label[32];
	unsigned int v;
	size_t i;

	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		if (!in_block(sc, sec, f) || f->kind != PTS_FIELD_HIST)
			continue;
		for (v = 0; v < schema_label_count(f); v++) {
			h = schema_hist(f, s, v);
			if (!h->count || (f->label != PTS_LABEL_NONE &&
					  !schema_label_shown(sc, f, s, v)))
				continue;
			fprintf(out, "\n  %s %s", sec->key, f->key);
			if (f->label != PTS_LABEL_NONE)
				fprintf(out, ", %s %s", schema_label_name(f),
					schema_label_value(sc, f, v, label,
							   sizeof(label)));
			fprintf(out, " (count %llu, sum %llu)\n",
				(unsigned long long)h->count,
				(unsigned long long)h->sum);
			hist_print(out, h, f->unit == PTS_UNIT_NS ? "nsecs" :
				   "ptes");
		}
	}
}

/* the reasons are in report_metric_status()'s list: refer to them */
static void unavailable_text(FILE *out, const struct pts_report_input *rep,
			     const struct pts_section *sec)
{
	const struct pts_choice *ch = engine_choice(rep->eng, sec->metric);

	if (!ch)
		return;
	fprintf(out, "\n%s: %s unavailable ", sec->title, ch->metric->name);
	reason_refs(out, rep, ch);
	fputc('\n', out);
}

void report_snapshot_text(FILE *out, const struct pts_report_input *rep,
			  const struct pts_snapshot *s, bool hists)
{
	const struct pts_section *sec;
	struct pts_schema_ctx sc;
	size_t i;

	report_schema_ctx(rep, &sc);
	for (i = 0; i < pts_nr_sections; i++) {
		sec = &pts_sections[i];
		if (!schema_section_attached(&sc, sec)) {
			unavailable_text(out, rep, sec);
			continue;
		}
		fprintf(out, "\n%s%s", sec->title,
			first_labelled(&sc, sec, PTS_LABEL_RESULT) ? ":" : "\n");
		result_line(out, &sc, sec, s);
		label_table(out, &sc, sec, s, PTS_LABEL_CLASS);
		label_table(out, &sc, sec, s, PTS_LABEL_ORDER);
		fixed_table(out, &sc, sec, s);
		plain_lines(out, &sc, sec, s);
		missing_line(out, &sc, sec);
		if (hists)
			section_hists(out, &sc, sec, s);
	}
}

void report_selfcheck_text(FILE *out, const struct pts_report_input *rep,
			   const struct pts_snapshot *snap,
			   const struct kcounters *kc)
{
	struct selfcheck sc;

	selfcheck_run(&sc, snap, kc, rep->page_size);
	selfcheck_text(out, &sc);
}
