// SPDX-License-Identifier: GPL-2.0
/* ptscope diff BASE.json NEW.json: compare two 'stat --json' recordings. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording_compare.h"
#include "views/diff_format.h"
#include "views/report.h"
#include "views/views.h"

#define MAX_RECORDING	(64 << 20)	/* far above any stat recording */

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
		diff_print_text(out, res, files, opts->diff_all);
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
