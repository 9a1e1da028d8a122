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

/* "[+35.0%, +47.1%] p=0.0004", "exact", "untested" */
const char *diff_fmt_interval(char *buf, size_t len, const struct diff_row *row);
/* why the machine's reference forbids comparing the times */
const char *diff_fmt_unreliable(char *buf, size_t len,
				const struct diff_result *res);

/* render/diff_machine.c: the machine's reference, and the traced share */
void diff_print_machine(FILE *out, const struct diff_result *res);
void diff_print_machine_moved(FILE *out, const struct diff_result *res);
void diff_print_share(FILE *out, const struct diff_result *res);
json_object *diff_reference_json(const struct diff_result *res);
json_object *diff_share_json(const struct diff_result *res);

/* a number as JSON (integral ones as integers), NULL for NaN */
json_object *diff_json_number(double value);
json_object *diff_row_json(const struct diff_row *row);

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
