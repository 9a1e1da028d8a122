/* SPDX-License-Identifier: GPL-2.0 */
/* ptscope diff's report of a comparison: text or JSON. */
#ifndef PTSCOPE_DIFF_FORMAT_H
#define PTSCOPE_DIFF_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <json-c/json.h>
#include "data/recording_compare.h"

/* "+300.0%", "-37.2%", "0.0%", "new", "gone" */
const char *diff_fmt_change(char *buf, size_t len, const struct diff_row *row);

/*
 * The text report: verdict, the two runs, the changed rows (every row
 * with @all), why the times moved, what only one side has.  @files are
 * the two file names.
 */
void diff_print_text(FILE *out, const struct diff_result *res,
		     const char *const files[DIFF_SIDES], bool all);

/* the comparison as JSON; @labels are the two file names */
json_object *diff_result_json(const struct diff_result *res,
			      const char *const labels[DIFF_SIDES]);

#endif
