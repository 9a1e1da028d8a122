/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptscope diff: compares two "ptscope stat --json" recordings.  Each one is
 * flattened into named values (raw counters and per-operation ratios such
 * as mremap.pte.latency_mean_ns), the two are joined by name, and the rows
 * are ranked by relative change.  Pure functions over json-c objects; the
 * view does the file I/O and the printing.
 */
#ifndef PTSCOPE_DIFF_H
#define PTSCOPE_DIFF_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

#define DIFF_FORMAT_VERSION	1	/* the ptscope_version diff reads */
#define DIFF_SIGNIFICANT_PCT	10.0	/* "what changed" threshold */
#define DIFF_NAME_LEN		96
#define DIFF_TEXT_LEN		512

enum diff_side {
	DIFF_BASE,
	DIFF_NEW,
	DIFF_SIDES,
};

enum diff_change {
	DIFF_CHANGED,	/* nonzero in base: change_pct is finite */
	DIFF_APPEARED,	/* zero in base, nonzero in new */
	DIFF_GONE,	/* nonzero in base, zero in new */
};

/* one value recorded in both recordings, not zero in both */
struct diff_row {
	char name[DIFF_NAME_LEN];
	double val[DIFF_SIDES];
	double change_pct;
	enum diff_change change;
};

/* a metric (or one of its values) that only one recording has */
struct diff_only {
	char name[DIFF_NAME_LEN];
	enum diff_side side;		/* the recording that has it */
	bool has_value;			/* a value, not a whole metric */
	double value;
	char reason[DIFF_TEXT_LEN];	/* why the other one lacks it */
};

/* what the header says about each recording */
struct diff_run {
	char kernel[128];
	char machine[64];
	char command[512];
	double seconds;
	int exit_status;
};

struct diff_result {
	struct diff_run run[DIFF_SIDES];
	struct diff_row *rows;		/* most significant first */
	size_t nr_rows, cap_rows;
	struct diff_only *only;
	size_t nr_only, cap_only;
	char (*notes)[DIFF_TEXT_LEN];	/* differences in setup worth knowing */
	size_t nr_notes, cap_notes;
};

extern const char *const diff_side_name[DIFF_SIDES];	/* "base", "new" */

/*
 * Is @rec a stat recording this diff understands?  0, or -EINVAL with the
 * reason in @err, which starts with @label (the file name).
 */
int diff_check_recording(json_object *rec, const char *label, char *err,
			 size_t errlen);

/*
 * Compare two recordings into @res (freed with diff_result_free, also on
 * error).  0; -EINVAL when they cannot be compared (message in @err, with
 * the file names in @labels); -ENOMEM.
 */
int diff_compare(json_object *base, json_object *new,
		 const char *const labels[DIFF_SIDES], struct diff_result *res,
		 char *err, size_t errlen);
void diff_result_free(struct diff_result *res);

/*
 * Free what diff will not read: of counters.processes only the length
 * counts, so its objects (most of a large recording) become as many nulls.
 * Called on each recording as it is loaded, it keeps one whole parsed
 * recording in memory at a time, not two.
 */
void diff_slim_recording(json_object *rec);

/* largest absolute relative change first (appeared/gone count as infinite) */
void diff_sort_rows(struct diff_row *rows, size_t nr);
/* appeared, gone, or changed by DIFF_SIGNIFICANT_PCT or more */
bool diff_row_significant(const struct diff_row *row);
bool diff_kernels_differ(const struct diff_result *res);

/* "1234", "12.5", "0.0123" */
const char *diff_fmt_value(char *buf, size_t len, double value);
/* "+300.0%", "-37.2%", "0.0%", "new", "gone" */
const char *diff_fmt_change(char *buf, size_t len, const struct diff_row *row);

/* the comparison as JSON; @labels are the two file names */
json_object *diff_result_json(const struct diff_result *res,
			      const char *const labels[DIFF_SIDES]);

#endif
