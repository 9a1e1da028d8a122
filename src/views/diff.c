// SPDX-License-Identifier: GPL-2.0
/* ptscope diff BASE.json NEW.json: compare two 'stat --json' recordings. */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording_diff.h"
#include "data/format.h"
#include "views/report.h"
#include "views/values.h"
#include "views/views.h"

#define MAX_RECORDING	(64 << 20)	/* far above any stat recording */
#define SAFE_NAME_LEN	FMT_ESCAPED_LEN(DIFF_NAME_LEN)	/* an escaped name */

/* the whole file, NUL-terminated, in *@text; 0 or -errno */
static int read_text(const char *path, char **text, size_t *len)
{
	size_t used = 0, cap = 0, got;
	char *buf = NULL, *bigger;
	FILE *f = fopen(path, "r");
	int err = 0;

	if (!f)
		return -errno;
	do {
		if (cap - used < 2) {
			cap = cap ? cap * 2 : 65536;
			bigger = cap > MAX_RECORDING ? NULL : realloc(buf, cap);
			if (!bigger) {
				err = cap > MAX_RECORDING ? -EFBIG : -ENOMEM;
				goto out;
			}
			buf = bigger;
		}
		got = fread(buf + used, 1, cap - used - 1, f);
		used += got;
	} while (got);
	if (ferror(f))
		err = errno ? -errno : -EIO;
out:
	fclose(f);
	if (err) {
		free(buf);
		return err;
	}
	buf[used] = '\0';
	*text = buf;
	*len = used;
	return 0;
}

/* stat's text report, saved with -o but without --json? */
static bool is_text_report(const char *text)
{
	text += strspn(text, " \t\r\n");
	return !strncmp(text, "ptscope stat: ", strlen("ptscope stat: "));
}

/* 0, or 2 with a message on stderr */
static int parse_recording(const char *path, const char *text, size_t len,
			   json_object **rec)
{
	struct json_tokener *tok = json_tokener_new();
	enum json_tokener_error jerr;
	size_t end;

	if (!tok) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	*rec = json_tokener_parse_ex(tok, text, (int)len);
	jerr = json_tokener_get_error(tok);
	end = json_tokener_get_parse_end(tok);
	json_tokener_free(tok);
	if (is_text_report(text)) {
		fprintf(stderr, "ptscope: %s is a text report of 'ptscope stat': "
			"record with --json (ptscope stat -o FILE.json -- CMD)\n",
			path);
	} else if (*rec && jerr == json_tokener_success) {
		end += strspn(text + end, " \t\r\n");
		if (end == len)
			return 0;
		fprintf(stderr, "ptscope: %s is not JSON: more text after the "
			"value, at byte %zu\n", path, end);
	} else if (jerr == json_tokener_continue || jerr == json_tokener_success) {
		fprintf(stderr, "ptscope: %s is not JSON: %s\n", path,
			len ? "it ends in the middle of a value" : "the file is empty");
	} else {
		fprintf(stderr, "ptscope: %s is not JSON: %s at byte %zu\n", path,
			json_tokener_error_desc(jerr), end);
	}
	json_object_put(*rec);
	*rec = NULL;
	return 2;
}

/* 0, 1 (runtime failure) or 2 (unusable input), message on stderr */
static int load_recording(const char *path, json_object **rec)
{
	char *text = NULL;
	size_t len = 0;
	int err, ret;

	err = read_text(path, &text, &len);
	if (err == -ENOMEM) {
		fprintf(stderr, "ptscope: reading %s: out of memory\n", path);
		return 1;
	}
	if (err == -EFBIG) {
		fprintf(stderr, "ptscope: %s is over %d MiB: not a ptscope "
			"recording\n", path, MAX_RECORDING >> 20);
		return 2;
	}
	if (err) {
		fprintf(stderr, "ptscope: cannot read %s: %s\n", path, strerror(-err));
		return 2;
	}
	ret = parse_recording(path, text, len, rec);
	free(text);
	if (!ret)
		recording_slim(*rec);
	return ret;
}

/* changed rows shown without --all; the rest are counted, never dropped */
#define CHANGED_ROWS	12
/* counts named in the explanation of a changed time */
#define EXPLAIN_ROWS	6

/* "[+35.0%, +47.1%] p=0.0004", "exact", "untested" */
static const char *fmt_interval(char *buf, size_t len, const struct diff_row *row)
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
	}
	fprintf(out, "  %zu rows tested over %zu and %zu runs: counts the same in "
		"every run exactly, the rest by Welch's t-test (Holm-adjusted "
		"p < %g, 95%% interval beyond ±%g%%)\n", res->nr_tested,
		runs[DIFF_BASE], runs[DIFF_NEW], res->params.alpha,
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
		fmt_interval(interval, sizeof(interval), row));
}

static void print_table_head(FILE *out, int width)
{
	fprintf(out, "  %-*s %20s %20s %8s  %s\n", width, "metric",
		"base (mean ± sd)", "new (mean ± sd)", "change",
		"95% interval, adjusted p");
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
	if (!total)
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
			fmt_interval(interval, sizeof(interval), row));
	}
	if (any)
		print_counts_moved(out, res);
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

static void print_text(FILE *out, const struct diff_result *res,
		       const char *const files[DIFF_SIDES], bool all)
{
	print_verdict(out, res);
	print_header(out, res, files);
	if (res->verdict == DIFF_NOT_ENOUGH_RUNS)
		print_differs(out, res);
	print_changed(out, res, all);
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

static int write_json(FILE *out, const struct diff_result *res,
		      const char *const files[DIFF_SIDES])
{
	json_object *root = diff_result_json(res, files);

	if (!root)
		return -ENOMEM;
	fprintf(out, "%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(root);
	return 0;
}

static int write_report(const struct pts_options *opts,
			const struct diff_result *res,
			const char *const files[DIFF_SIDES])
{
	FILE *out = report_open(opts->output);
	int err = 0;

	if (!out)
		return 1;
	if (opts->json) {
		err = write_json(out, res, files);
	} else {
		print_text(out, res, files, opts->diff_all);
	}
	if (err) {
		fprintf(stderr, "ptscope: out of memory\n");
		report_close(out, opts->output);
		return 1;
	}
	return report_close(out, opts->output);
}

/* the options' test settings; the defaults where they are unset (0) */
static void diff_params_from(const struct pts_options *opts,
			     struct diff_params *params)
{
	diff_default_params(params);
	if (opts->alpha > 0 && opts->alpha < 1)
		params->alpha = opts->alpha;
	if (opts->min_effect_pct >= 0)
		params->min_effect_pct = opts->min_effect_pct;
}

int view_diff(const struct pts_options *opts)
{
	const char *const files[DIFF_SIDES] = { opts->diff_base, opts->diff_new };
	json_object *rec[DIFF_SIDES] = { NULL, NULL };
	struct diff_params params;
	struct diff_result res;
	char err[1024];
	int side, ret;

	memset(&res, 0, sizeof(res));
	for (side = 0; side < DIFF_SIDES; side++) {
		ret = load_recording(files[side], &rec[side]);
		if (ret)
			goto out;
	}
	diff_params_from(opts, &params);
	ret = diff_compare(rec[DIFF_BASE], rec[DIFF_NEW], files, &params, &res,
			   err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ptscope: cannot compare: %s\n", err);
		ret = ret == -EINVAL ? 2 : 1;
		goto out;
	}
	ret = write_report(opts, &res, files);
	/* for CI pipelines: the report is written, the verdict is the code */
	if (!ret && opts->fail_on_change && res.verdict == DIFF_VERDICT_CHANGED)
		ret = 1;
out:
	diff_result_free(&res);
	for (side = 0; side < DIFF_SIDES; side++)
		json_object_put(rec[side]);
	return ret;
}
