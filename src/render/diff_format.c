// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope diff's report: a comparison (data/recording_compare.h) as text
 * (the verdict, the changed rows, why the times moved, what only one side
 * has) or as one JSON object.  A recording's strings come from anywhere:
 * the text escapes them, JSON quotes them.
 */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "data/format.h"
#include "render/diff_format.h"
#include "render/values.h"

#define SAFE_NAME_LEN	FMT_ESCAPED_LEN(DIFF_NAME_LEN)	/* an escaped name */

static const char *const verdict_name[] = {
	[DIFF_NO_CHANGE] = "no significant change",
	[DIFF_VERDICT_CHANGED] = "changed",
	[DIFF_NOT_ENOUGH_RUNS] = "not enough runs",
	[DIFF_UNRELIABLE] = "unreliable",
};
static const char *const test_name[] = {
	[DIFF_TEST_NONE] = "none",
	[DIFF_TEST_EXACT] = "exact",
	[DIFF_TEST_WELCH] = "welch",
};

const char *diff_fmt_change(char *buf, size_t len, const struct diff_row *row)
{
	switch (row->change) {
	case DIFF_APPEARED:
		snprintf(buf, len, "new");
		break;
	case DIFF_GONE:
		snprintf(buf, len, "gone");
		break;
	default:
		if (fabs(row->change_pct) < 0.05)
			snprintf(buf, len, "0.0%%");
		else
			snprintf(buf, len, "%+.1f%%", row->change_pct);
		break;
	}
	return buf;
}

/* ---- text ---- */

/* changed rows shown without --all; the rest are counted, never dropped */
#define CHANGED_ROWS	12
/* counts named in the explanation of a changed time */
#define EXPLAIN_ROWS	6

const char *diff_fmt_interval(char *buf, size_t len, const struct diff_row *row)
{
	if (row->test == DIFF_TEST_EXACT)
		snprintf(buf, len, "exact");
	else if (row->test == DIFF_TEST_NONE)
		snprintf(buf, len, "untested");
	else if (isnan(row->ci_low_pct))
		snprintf(buf, len, "p=%.2g", row->p_adjusted);
	else
		snprintf(buf, len, "[%+.1f%%, %+.1f%%] p=%.2g", row->ci_low_pct,
			 row->ci_high_pct, row->p_adjusted);
	return buf;
}

/* a recording's strings come from anywhere: escape them */
static void print_run(FILE *out, const struct rec_header *run, size_t nr_runs,
		      const char *side, const char *path)
{
	char cmd[FMT_ESCAPED_LEN(sizeof(run->command))];
	char kernel[FMT_ESCAPED_LEN(sizeof(run->kernel))];
	char machine[FMT_ESCAPED_LEN(sizeof(run->machine))];

	fprintf(out, "  %-4s  %s: '%s' on %s %s, %zu run%s, %.3f s, exit %d\n",
		side, path, fmt_escape(cmd, sizeof(cmd), run->command),
		fmt_escape(kernel, sizeof(kernel), run->kernel),
		fmt_escape(machine, sizeof(machine), run->machine), nr_runs,
		nr_runs == 1 ? "" : "s", run->seconds, run->exit_status);
}

static void print_verdict(FILE *out, const struct diff_result *res)
{
	const size_t *runs = res->nr_runs;
	char why[DIFF_TEXT_LEN];

	switch (res->verdict) {
	case DIFF_VERDICT_CHANGED:
		fprintf(out, "ptscope diff: %zu metric%s changed\n",
			res->nr_changed, res->nr_changed == 1 ? "" : "s");
		break;
	case DIFF_NO_CHANGE:
		fprintf(out, "ptscope diff: no significant change\n");
		break;
	case DIFF_NOT_ENOUGH_RUNS:
		fprintf(out, "ptscope diff: not enough runs (%zu in base, %zu in "
			"new): noise cannot be told from change; record with "
			"--repeat 5\n", runs[DIFF_BASE], runs[DIFF_NEW]);
		return;
	case DIFF_UNRELIABLE:
		fprintf(out, "ptscope diff: no count changed, and the times cannot "
			"be compared: %s\n",
			diff_fmt_unreliable(why, sizeof(why), res));
		break;
	}
	fprintf(out, "  %zu rows tested over %zu and %zu runs: counts the same in "
		"every run exactly (a change of at least ±%g%%), the rest by "
		"Welch's t-test (Holm-adjusted p < %g, 95%% interval beyond "
		"±%g%%)\n", res->nr_tested, runs[DIFF_BASE], runs[DIFF_NEW],
		res->params.min_effect_pct, res->params.alpha,
		res->params.min_effect_pct);
}

static void print_header(FILE *out, const struct diff_result *res,
			 const char *const files[DIFF_SIDES])
{
	char base[FMT_ESCAPED_LEN(sizeof(res->run[0].kernel))], new[sizeof(base)];
	char note[FMT_ESCAPED_LEN(DIFF_TEXT_LEN)];
	int side;

	for (side = 0; side < DIFF_SIDES; side++)
		print_run(out, &res->run[side], res->nr_runs[side],
			  diff_side_name[side], files[side]);
	if (diff_kernels_differ(res))
		fprintf(out, "  kernels differ: base %s, new %s\n",
			fmt_escape(base, sizeof(base), res->run[DIFF_BASE].kernel),
			fmt_escape(new, sizeof(new), res->run[DIFF_NEW].kernel));
	else
		fprintf(out, "  same kernel: %s\n",
			fmt_escape(base, sizeof(base), res->run[DIFF_BASE].kernel));
	diff_print_machine(out, res);
	for (size_t i = 0; i < res->nr_notes; i++)
		fprintf(out, "  note: %s\n",
			fmt_escape(note, sizeof(note), res->notes[i]));
}

static int name_width(const struct diff_result *res, bool all)
{
	char name[SAFE_NAME_LEN];
	int width = (int)strlen("metric");
	size_t i;

	for (i = 0; i < res->nr_rows; i++) {
		if (!all && !res->rows[i].changed && !res->rows[i].differs)
			continue;
		fmt_escape(name, sizeof(name), res->rows[i].name);
		if ((int)strlen(name) > width)
			width = (int)strlen(name);
	}
	return width;
}

static void print_row(FILE *out, const struct diff_row *row, int width)
{
	char base[48], new[48], change[32], interval[64], name[SAFE_NAME_LEN];

	fprintf(out, "  %-*s %20s %20s %8s  %s\n", width,
		fmt_escape(name, sizeof(name), row->name),
		fmt_mean_sd(base, sizeof(base), &row->side[DIFF_BASE], row->unit),
		fmt_mean_sd(new, sizeof(new), &row->side[DIFF_NEW], row->unit),
		diff_fmt_change(change, sizeof(change), row),
		diff_fmt_interval(interval, sizeof(interval), row));
}

static void print_table_head(FILE *out, int width)
{
	fprintf(out, "  %-*s %20s %20s %8s  %s\n", width, "metric",
		"base (mean ± sd)", "new (mean ± sd)", "change",
		"95% interval, adjusted p");
}

/* is a row shown (changed, or @all) a time relative to the machine? */
static bool shown_relative(const struct diff_result *res, bool all)
{
	size_t i;

	for (i = 0; i < res->nr_rows; i++)
		if ((all || res->rows[i].changed) && res->rows[i].normalized)
			return true;
	return false;
}

static void note_relative(FILE *out, const struct diff_result *res, bool all)
{
	if (shown_relative(res, all))
		fprintf(out, "  (a time's change and interval are relative to the "
			"machine's reference)\n");
}

/* the changed rows, CHANGED_ROWS of them unless --all; a cut is said */
static void print_changed(FILE *out, const struct diff_result *res, bool all)
{
	int width = name_width(res, false);
	size_t i, shown = 0;

	if (!res->nr_changed)
		return;
	fprintf(out, "\nchanged:\n");
	print_table_head(out, width);
	for (i = 0; i < res->nr_rows; i++) {
		if (!res->rows[i].changed)
			continue;
		if (!all && shown == CHANGED_ROWS)
			break;
		print_row(out, &res->rows[i], width);
		shown++;
	}
	if (shown < res->nr_changed)
		fprintf(out, "  and %zu more (--all shows every row)\n",
			res->nr_changed - shown);
	note_relative(out, res, false);
}

/* an exact count that differs by less than the minimum effect */
static bool differs_slightly(const struct diff_row *row)
{
	return row->test == DIFF_TEST_EXACT && row->differs && !row->changed;
}

/*
 * "counts that differ by less than ±2% (not called a change): a 199939
 * -> 199984 (+0.023%)": real, since exact, but too small to act on
 */
static void print_slight(FILE *out, const struct diff_result *res)
{
	char base[32], new[32], name[SAFE_NAME_LEN];
	size_t i, n = 0;

	for (i = 0; i < res->nr_rows; i++) {
		const struct diff_row *row = &res->rows[i];

		if (!differs_slightly(row) || n++ >= EXPLAIN_ROWS)
			continue;
		if (n == 1)
			fprintf(out, "\ncounts that differ by less than ±%g%% (not "
				"called a change):\n  ", res->params.min_effect_pct);
		fprintf(out, "%s%s %s -> %s (%+.2g%%)", n > 1 ? ", " : "",
			fmt_escape(name, sizeof(name), row->name),
			fmt_value(base, sizeof(base), row->val[DIFF_BASE], row->unit),
			fmt_value(new, sizeof(new), row->val[DIFF_NEW], row->unit),
			row->change_pct);
	}
	if (n > EXPLAIN_ROWS)
		fprintf(out, " and %zu more", n - EXPLAIN_ROWS);
	if (n)
		fputc('\n', out);
}

/* with one run a side: the counts that differ, named but not judged */
static void print_differs(FILE *out, const struct diff_result *res)
{
	int width = name_width(res, false);
	size_t i, n = 0;

	for (i = 0; i < res->nr_rows; i++) {
		const struct diff_row *row = &res->rows[i];

		if (row->test != DIFF_TEST_NONE || !row->differs ||
		    row->kind != REC_COUNT)
			continue;
		if (!n++) {
			fprintf(out, "\ncounts that differ (measured once a side: "
				"not called a change):\n");
			print_table_head(out, width);
		}
		print_row(out, row, width);
	}
	fprintf(out, "\n  timings and system-wide counters are not compared "
		"with one run a side\n");
}

/* a changed count, per operation (a name with "_per_") or total */
static bool counts_moved(const struct diff_row *row, bool per_op)
{
	return row->changed && row->kind == REC_COUNT &&
	       (strstr(row->name, "_per_") != NULL) == per_op;
}

/*
 * "with them: a 0 -> 261,120, b 1 -> 16 and 3 more": the changed counts,
 * those per operation (lookups per PTE, bytes per call) first
 */
static void print_counts_moved(FILE *out, const struct diff_result *res)
{
	char base[32], new[32], name[SAFE_NAME_LEN];
	size_t i, n = 0, total = 0;
	int per_op;

	fprintf(out, "  with them: ");
	for (per_op = 1; per_op >= 0; per_op--) {
		for (i = 0; i < res->nr_rows; i++) {
			const struct diff_row *row = &res->rows[i];

			if (!counts_moved(row, per_op) || total++ >= EXPLAIN_ROWS)
				continue;
			fprintf(out, "%s%s %s -> %s", n++ ? ", " : "",
				fmt_escape(name, sizeof(name), row->name),
				fmt_value(base, sizeof(base), row->val[DIFF_BASE],
					  row->unit),
				fmt_value(new, sizeof(new), row->val[DIFF_NEW],
					  row->unit));
		}
	}
	if (total > n)
		fprintf(out, " and %zu more", total - n);
	if (!total && res->ref.state == DIFF_REF_USED)
		fprintf(out, "no count of the traced work changed: the same work "
			"took a different time, more than the machine's own "
			"speed accounts for (memory, I/O, what else runs)");
	else if (!total)
		fprintf(out, "no count of the traced work changed: the same work "
			"took a different time (load on the machine, CPU "
			"frequency, virtualization)");
	fputc('\n', out);
}

/*
 * Why the times moved: the changed times, then the kernel-side counts
 * that changed with them (lookups per moved PTE, batches, bytes per call)
 */
static void print_explanation(FILE *out, const struct diff_result *res)
{
	char change[32], interval[64], name[SAFE_NAME_LEN];
	size_t i;
	bool any = false;

	for (i = 0; i < res->nr_rows; i++) {
		const struct diff_row *row = &res->rows[i];

		if (!row->changed || row->kind != REC_TIME)
			continue;
		if (!any)
			fprintf(out, "\nwhy: the times that changed, and the "
				"kernel's counts that changed with them\n");
		any = true;
		fprintf(out, "  %s %s %s\n",
			fmt_escape(name, sizeof(name), row->name),
			diff_fmt_change(change, sizeof(change), row),
			diff_fmt_interval(interval, sizeof(interval), row));
	}
	if (any) {
		print_counts_moved(out, res);
		diff_print_share(out, res);
	}
}

static void print_all(FILE *out, const struct diff_result *res)
{
	int width = name_width(res, true);
	size_t i;

	if (!res->nr_rows) {
		fprintf(out, "\n  no values to compare: everything is zero in both\n");
		return;
	}
	fprintf(out, "\nall rows:\n");
	print_table_head(out, width);
	for (i = 0; i < res->nr_rows; i++)
		print_row(out, &res->rows[i], width);
	note_relative(out, res, true);
}

static void print_only(FILE *out, const struct diff_result *res)
{
	char value[32], name[SAFE_NAME_LEN], reason[FMT_ESCAPED_LEN(DIFF_TEXT_LEN)];
	const struct diff_only *only;
	size_t i;

	if (res->nr_only)
		fputc('\n', out);
	for (i = 0; i < res->nr_only; i++) {
		only = &res->only[i];
		fmt_escape(name, sizeof(name), only->name);
		fmt_escape(reason, sizeof(reason), only->reason);
		if (only->has_value)
			fprintf(out, "  only in %s: %s = %s (%s)\n",
				diff_side_name[only->side], name,
				fmt_value(value, sizeof(value), only->value,
					  REC_UNIT_COUNT),
				reason);
		else
			fprintf(out, "  only in %s: %s (%s)\n",
				diff_side_name[only->side], name, reason);
	}
}

void diff_print_text(FILE *out, const struct diff_result *res,
		     const char *const files[DIFF_SIDES], bool all)
{
	print_verdict(out, res);
	print_header(out, res, files);
	if (res->verdict == DIFF_NOT_ENOUGH_RUNS)
		print_differs(out, res);
	print_changed(out, res, all);
	print_slight(out, res);
	diff_print_machine_moved(out, res);
	print_explanation(out, res);
	if (all)
		print_all(out, res);
	else if (res->verdict == DIFF_NOT_ENOUGH_RUNS)
		fprintf(out, "\n  %zu rows in all (--all shows every one)\n",
			res->nr_rows);
	else if (res->nr_rows > res->nr_changed)
		fprintf(out, "\n  %zu more rows without a change (--all shows "
			"them)\n", res->nr_rows - res->nr_changed);
	print_only(out, res);
}

/* ---- JSON ---- */

/*
 * Integral values as JSON integers (400, not 400.0), others with ten
 * significant digits; NULL (JSON null) for what is not a number.
 */
json_object *diff_json_number(double value)
{
	char text[32];

	if (!isfinite(value))
		return NULL;
	if (fabs(value) < 9e15 && value == floor(value))
		return json_object_new_int64((int64_t)value);
	snprintf(text, sizeof(text), "%.10g", value);
	return json_object_new_double_s(value, text);
}

static json_object *run_json(const struct rec_header *run, size_t nr_runs,
			      const char *label)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "file", json_object_new_string(label));
	json_object_object_add(obj, "kernel", fmt_json_string(run->kernel));
	json_object_object_add(obj, "machine", fmt_json_string(run->machine));
	json_object_object_add(obj, "command", fmt_json_string(run->command));
	json_object_object_add(obj, "seconds", diff_json_number(run->seconds));
	json_object_object_add(obj, "exit_status",
			       json_object_new_int(run->exit_status));
	json_object_object_add(obj, "runs", json_object_new_int64((int64_t)nr_runs));
	json_object_object_add(obj, "format_version",
			       json_object_new_int(run->version));
	return obj;
}


static json_object *only_json(const struct diff_only *only)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "metric", fmt_json_string(only->name));
	json_object_object_add(obj, "only_in",
			       json_object_new_string(diff_side_name[only->side]));
	if (only->has_value)
		json_object_object_add(obj, "value", diff_json_number(only->value));
	json_object_object_add(obj, "reason", fmt_json_string(only->reason));
	return obj;
}


static const char *const kind_name[] = {
	[REC_COUNT] = "count",
	[REC_TIME] = "time",
	[REC_SYSTEM] = "system",
};

static json_object *side_json(const struct stats_summary *s)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "runs", json_object_new_int64((int64_t)s->n));
	json_object_object_add(obj, "mean", diff_json_number(s->mean));
	json_object_object_add(obj, "stddev", diff_json_number(s->sd));
	json_object_object_add(obj, "min", diff_json_number(s->min));
	json_object_object_add(obj, "max", diff_json_number(s->max));
	return obj;
}

static void bool_json(json_object *obj, const char *key, bool value)
{
	json_object_object_add(obj, key, json_object_new_boolean(value));
}

/* PREFIXchange_pct, PREFIXci_low_pct, PREFIXci_high_pct and PREFIXp */
static void change_json(json_object *obj, const char *prefix, double pct,
			double low, double high, double p)
{
	static const char *const keys[] = { "change_pct", "ci_low_pct",
					     "ci_high_pct", "p" };
	const double values[] = { pct, low, high, p };
	char key[32];
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		snprintf(key, sizeof(key), "%s%s", prefix, keys[i]);
		json_object_object_add(obj, key, diff_json_number(values[i]));
	}
}

json_object *diff_row_json(const struct diff_row *row)
{
	json_object *obj = json_object_new_object();
	bool pct = row->change == DIFF_CHANGED;
	char change[32];

	json_object_object_add(obj, "name", fmt_json_string(row->name));
	json_object_object_add(obj, "kind",
			       json_object_new_string(kind_name[row->kind]));
	json_object_object_add(obj, "base", diff_json_number(row->val[DIFF_BASE]));
	json_object_object_add(obj, "new", diff_json_number(row->val[DIFF_NEW]));
	/* the names leave it out: the text prints each value in its own unit */
	json_object_object_add(obj, "unit",
			       json_object_new_string(rec_unit_name(row->unit)));
	/* null when base is 0: the change is "new" or "gone", not a number */
	change_json(obj, "", pct ? row->change_pct : NAN, row->ci_low_pct,
		    row->ci_high_pct, row->p);
	json_object_object_add(obj, "change", json_object_new_string(
				       diff_fmt_change(change, sizeof(change), row)));
	json_object_object_add(obj, "test",
			       json_object_new_string(test_name[row->test]));
	json_object_object_add(obj, "p_adjusted", diff_json_number(row->p_adjusted));
	bool_json(obj, "changed", row->changed);
	bool_json(obj, "differs", row->differs);
	bool_json(obj, "relative_to_machine", row->normalized);
	if (row->normalized) {
		change_json(obj, "raw_", row->raw_change_pct, row->raw_ci_low_pct,
			    row->raw_ci_high_pct, row->raw_p);
		bool_json(obj, "raw_changed", row->raw_changed);
		bool_json(obj, "relative_changed", row->rel_changed);
	}
	bool_json(obj, "unreliable", row->unreliable);
	json_object_object_add(obj, "base_runs", side_json(&row->side[DIFF_BASE]));
	json_object_object_add(obj, "new_runs", side_json(&row->side[DIFF_NEW]));
	return obj;
}

static json_object *params_json(const struct diff_result *res)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "test", json_object_new_string(
				       "Welch's t-test; exact where every run of "
				       "each side gave one value"));
	json_object_object_add(obj, "adjustment", json_object_new_string("holm"));
	json_object_object_add(obj, "alpha", diff_json_number(res->params.alpha));
	json_object_object_add(obj, "min_effect_pct",
			       diff_json_number(res->params.min_effect_pct));
	json_object_object_add(obj, "confidence", diff_json_number(DIFF_CONFIDENCE));
	json_object_object_add(obj, "rows_tested",
			       json_object_new_int64((int64_t)res->nr_tested));
	return obj;
}

json_object *diff_result_json(const struct diff_result *res,
			      const char *const labels[DIFF_SIDES])
{
	json_object *root = json_object_new_object();
	json_object *rows = json_object_new_array();
	json_object *changed = json_object_new_array();
	json_object *only = json_object_new_array();
	json_object *notes = json_object_new_array();
	size_t i;

	json_object_object_add(root, "verdict", json_object_new_string(
				       verdict_name[res->verdict]));
	json_object_object_add(root, "base", run_json(&res->run[DIFF_BASE],
		res->nr_runs[DIFF_BASE], labels[DIFF_BASE]));
	json_object_object_add(root, "new", run_json(&res->run[DIFF_NEW],
		res->nr_runs[DIFF_NEW], labels[DIFF_NEW]));
	json_object_object_add(root, "kernels_differ",
			       json_object_new_boolean(diff_kernels_differ(res)));
	json_object_object_add(root, "method", params_json(res));
	json_object_object_add(root, "reference", diff_reference_json(res));
	json_object_object_add(root, "traced_share", diff_share_json(res));
	for (i = 0; i < res->nr_notes; i++)
		json_object_array_add(notes, fmt_json_string(res->notes[i]));
	json_object_object_add(root, "notes", notes);
	for (i = 0; i < res->nr_rows; i++) {
		json_object_array_add(rows, diff_row_json(&res->rows[i]));
		if (res->rows[i].changed)
			json_object_array_add(changed, diff_row_json(&res->rows[i]));
	}
	json_object_object_add(root, "changed", changed);
	json_object_object_add(root, "rows", rows);
	for (i = 0; i < res->nr_only; i++)
		json_object_array_add(only, only_json(&res->only[i]));
	json_object_object_add(root, "only", only);
	return root;
}
