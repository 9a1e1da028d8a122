// SPDX-License-Identifier: GPL-2.0
/* ptscope diff BASE.json NEW.json: compare two 'stat --json' recordings. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording_diff.h"
#include "data/format.h"
#include "views/report.h"
#include "views/views.h"

#define MAX_RECORDING	(64 << 20)	/* far above any stat recording */
#define SUMMARY_ROWS	5
#define SUMMARY_NAMES	6
#define SAFE_NAME_LEN	(4 * DIFF_NAME_LEN)	/* an escaped name */

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
	if (*rec && jerr == json_tokener_success) {
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
		diff_slim_recording(*rec);
	return ret;
}

/* a recording's strings come from anywhere: escape them */
static void print_run(FILE *out, const struct diff_run *run, const char *side,
		      const char *path)
{
	char cmd[4 * sizeof(run->command)], kernel[4 * sizeof(run->kernel)];
	char machine[4 * sizeof(run->machine)];

	fprintf(out, "  %-4s  %s: '%s' on %s %s, %.3f s, exit %d\n", side, path,
		fmt_escape(cmd, sizeof(cmd), run->command),
		fmt_escape(kernel, sizeof(kernel), run->kernel),
		fmt_escape(machine, sizeof(machine), run->machine), run->seconds,
		run->exit_status);
}

static void print_header(FILE *out, const struct diff_result *res,
			 const char *const files[DIFF_SIDES])
{
	char base[4 * sizeof(res->run[0].kernel)], new[sizeof(base)];
	char note[4 * DIFF_TEXT_LEN];
	size_t i;

	fprintf(out, "ptscope diff\n");
	print_run(out, &res->run[DIFF_BASE], "base", files[DIFF_BASE]);
	print_run(out, &res->run[DIFF_NEW], "new", files[DIFF_NEW]);
	if (diff_kernels_differ(res))
		fprintf(out, "  kernels differ: base %s, new %s\n",
			fmt_escape(base, sizeof(base), res->run[DIFF_BASE].kernel),
			fmt_escape(new, sizeof(new), res->run[DIFF_NEW].kernel));
	else
		fprintf(out, "  same kernel: %s\n",
			fmt_escape(base, sizeof(base), res->run[DIFF_BASE].kernel));
	for (i = 0; i < res->nr_notes; i++)
		fprintf(out, "  note: %s\n",
			fmt_escape(note, sizeof(note), res->notes[i]));
}

static void print_rows(FILE *out, const struct diff_result *res)
{
	char base[32], new[32], change[32], name[SAFE_NAME_LEN];
	int width = (int)strlen("metric");
	size_t i;

	if (!res->nr_rows) {
		fprintf(out, "\n  no values to compare: everything is zero in both\n");
		return;
	}
	for (i = 0; i < res->nr_rows; i++) {
		fmt_escape(name, sizeof(name), res->rows[i].name);
		if ((int)strlen(name) > width)
			width = (int)strlen(name);
	}
	fprintf(out, "\n  %-*s %14s %14s %9s\n", width, "metric", "base", "new",
		"%change");
	for (i = 0; i < res->nr_rows; i++)
		fprintf(out, "  %-*s %14s %14s %9s\n", width,
			fmt_escape(name, sizeof(name), res->rows[i].name),
			diff_fmt_value(base, sizeof(base), res->rows[i].val[DIFF_BASE]),
			diff_fmt_value(new, sizeof(new), res->rows[i].val[DIFF_NEW]),
			diff_fmt_change(change, sizeof(change), &res->rows[i]));
}

static void print_only(FILE *out, const struct diff_result *res)
{
	char value[32], name[SAFE_NAME_LEN], reason[4 * DIFF_TEXT_LEN];
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
				diff_fmt_value(value, sizeof(value), only->value),
				reason);
		else
			fprintf(out, "  only in %s: %s (%s)\n",
				diff_side_name[only->side], name, reason);
	}
}

/* "  appeared (zero in base): a, b, c and 4 more" */
static void print_names(FILE *out, const struct diff_result *res,
			enum diff_change change, const char *title)
{
	char name[SAFE_NAME_LEN];
	size_t i, shown = 0, total = 0;

	for (i = 0; i < res->nr_rows; i++) {
		if (res->rows[i].change != change)
			continue;
		if (total++ < SUMMARY_NAMES)
			fprintf(out, "%s%s", shown++ ? ", " : title,
				fmt_escape(name, sizeof(name), res->rows[i].name));
	}
	if (total > shown)
		fprintf(out, " and %zu more", total - shown);
	if (total)
		fputc('\n', out);
}

static void print_summary(FILE *out, const struct diff_result *res)
{
	char base[32], new[32], change[32], name[SAFE_NAME_LEN];
	const struct diff_row *row;
	size_t i, shown = 0;

	fprintf(out, "\nwhat changed (|change| >= %.0f%%):\n", DIFF_SIGNIFICANT_PCT);
	for (i = 0; i < res->nr_rows && shown < SUMMARY_ROWS; i++) {
		row = &res->rows[i];
		if (row->change != DIFF_CHANGED || !diff_row_significant(row))
			continue;
		fprintf(out, "  %s %s (%s -> %s)\n",
			fmt_escape(name, sizeof(name), row->name),
			diff_fmt_change(change, sizeof(change), row),
			diff_fmt_value(base, sizeof(base), row->val[DIFF_BASE]),
			diff_fmt_value(new, sizeof(new), row->val[DIFF_NEW]));
		shown++;
	}
	print_names(out, res, DIFF_APPEARED, "  appeared (zero in base): ");
	print_names(out, res, DIFF_GONE, "  gone (zero in new): ");
	for (i = 0; i < res->nr_rows; i++)
		if (diff_row_significant(&res->rows[i]))
			return;
	fprintf(out, "  no significant change: no metric moved by %.0f%% or more\n",
		DIFF_SIGNIFICANT_PCT);
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
		print_header(out, res, files);
		print_rows(out, res);
		print_only(out, res);
		print_summary(out, res);
	}
	if (err) {
		fprintf(stderr, "ptscope: out of memory\n");
		report_close(out, opts->output);
		return 1;
	}
	return report_close(out, opts->output);
}

int view_diff(const struct pts_options *opts)
{
	const char *const files[DIFF_SIDES] = { opts->diff_base, opts->diff_new };
	json_object *rec[DIFF_SIDES] = { NULL, NULL };
	struct diff_result res;
	char err[1024];
	int side, ret;

	memset(&res, 0, sizeof(res));
	for (side = 0; side < DIFF_SIDES; side++) {
		ret = load_recording(files[side], &rec[side]);
		if (ret)
			goto out;
	}
	ret = diff_compare(rec[DIFF_BASE], rec[DIFF_NEW], files, &res, err,
			   sizeof(err));
	if (ret) {
		fprintf(stderr, "ptscope: cannot compare: %s\n", err);
		ret = ret == -EINVAL ? 2 : 1;
		goto out;
	}
	ret = write_report(opts, &res, files);
out:
	diff_result_free(&res);
	for (side = 0; side < DIFF_SIDES; side++)
		json_object_put(rec[side]);
	return ret;
}
