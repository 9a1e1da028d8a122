/* SPDX-License-Identifier: GPL-2.0 */
/* Renders probe results and snapshots as text and as JSON (json-c). */
#ifndef PTSCOPE_REPORT_H
#define PTSCOPE_REPORT_H

#include <stdbool.h>
#include <stdio.h>
#include <json-c/json.h>
#include "data/collector.h"
#include "data/kcounters.h"
#include "data/report_input.h"	/* struct pts_report_input */
#include "data/schema.h"

/* the orders of the process and cgroup tables (top -s) */
enum pts_sort {
	PTS_SORT_ACTIVITY = 0,	/* mremap calls + hugepage faults */
	PTS_SORT_MREMAP,
	PTS_SORT_FAULTS,
	PTS_SORT_LATENCY,	/* mean mremap latency */
	PTS_SORT_PID,
};
#define PTS_NR_SORTS	(PTS_SORT_PID + 1)

json_object *report_system_json(const struct pts_report_input *rep);
/* the schema context of @rep: engine, page size, khugepaged result names */
void report_schema_ctx(const struct pts_report_input *rep,
		       struct pts_schema_ctx *sc);
json_object *report_metrics_json(const struct pts_report_input *rep);
json_object *report_snapshot_json(const struct pts_report_input *rep,
				  const struct pts_snapshot *snap);
/*
 * The status of each metric; the unavailable ones refer by number to a
 * list of reasons after them, each reason given once.
 */
void report_metric_status(FILE *out, const struct pts_report_input *rep);
/* @why's number in report_metric_status()'s list, 0 if not in it */
int report_reason_number(const struct pts_report_input *rep, const char *why);
/*
 * @text word-wrapped from column @col to lines of at most 100 columns,
 * continuation lines starting at column @indent; returns the column.
 */
int report_wrap(FILE *out, int col, int indent, const char *text);
/*
 * A line of a table of @n columns, without its end: the @text of those
 * @shown, each padded to its @width (negative: left-aligned), one space
 * apart.
 */
void report_table_cells(FILE *out, int n, const bool shown[],
			const int width[], const char *const text[]);
/* a column report_fit_columns() never drops */
#define REPORT_KEEP_ALWAYS	100
/*
 * Drop columns of a table of @n (those @shown) until its cells fit in
 * @room columns: the lowest @keep first, never REPORT_KEEP_ALWAYS; the
 * others keep their order.  Returns how many it dropped.
 */
int report_fit_columns(int n, const int width[], const int keep[],
		       bool shown[], int room);
void report_metric_line(FILE *out, const struct pts_report_input *rep);
void report_snapshot_text(FILE *out, const struct pts_report_input *rep,
			  const struct pts_snapshot *snap, bool hists);
/*
 * The self-check of @snap against @kc, the kernel's counters over the
 * same window (data/selfcheck.h): a line per count above the kernel's
 * (stat text, after the kernel counters), a "self_check" object (JSON).
 */
void report_selfcheck_text(FILE *out, const struct pts_report_input *rep,
			   const struct pts_snapshot *snap,
			   const struct kcounters *kc);
json_object *report_selfcheck_json(const struct pts_report_input *rep,
				   const struct pts_snapshot *snap,
				   const struct kcounters *kc);
/* the processes of @s in top's -s @key order: largest first, then by pid */
void report_sort_procs(struct pts_snapshot *s, enum pts_sort key);
/*
 * The per-process table of @d, an interval of @span seconds: @rows
 * processes at most, in @width columns (report_procs.c)
 */
void report_procs_text(FILE *out, const struct pts_snapshot *d,
		       uint64_t page_size, int rows, int width, double span);
/* the per-cgroup rows of @s in the order of top's -s @key */
void report_sort_cgroups(struct pts_snapshot *s, enum pts_sort key);
/*
 * The per-cgroup table, in @s's order, at most @rows rows; @active:
 * without the cgroups that did nothing (top's intervals).  Nothing when
 * the tracer keeps no per-cgroup rows.
 */
void report_cgroups_text(FILE *out, const struct pts_report_input *rep,
			 const struct pts_snapshot *s, int rows, bool active,
			 int width);
/* 0 when -o @path can be opened for writing, else -errno; it stays as it was */
int report_check_output(const char *path);
/* @path opened for writing, stdout when NULL; NULL after saying why */
FILE *report_open(const char *path);
/* the same, @fallback (stderr: stat's report) when @path is NULL */
FILE *report_open_or(const char *path, FILE *fallback);
/*
 * Flush @out (from report_open) and close it unless it is stdout or
 * stderr; 0, or 1
 * (the exit code) after saying on stderr what failed: a write error at any
 * point, the flush or the close.
 */
int report_close(FILE *out, const char *path);
/* report_close, @err: the errno of a write that failed, or 0 */
int report_close_err(FILE *out, const char *path, int err);
/* @root, pretty, to @path or stdout; 0, or 1 after saying why */
int report_write_json(json_object *root, const char *path);
/* @root, pretty, to @out (opened for @path) and closed; 0 or 1 */
int report_write_json_to(json_object *root, FILE *out, const char *path);

#endif
