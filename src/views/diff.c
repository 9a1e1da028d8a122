// SPDX-License-Identifier: GPL-2.0
/* ptscope diff BASE.json NEW.json: compare two 'stat --json' recordings. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include "data/recording_compare.h"
#include "render/diff_format.h"
#include "render/report.h"
#include "views/views.h"

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
		ret = recording_load(files[side], &rec[side]);
		if (ret) {
			ret = ret == -ENOMEM ? 1 : 2;
			goto out;
		}
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
