/* SPDX-License-Identifier: GPL-2.0 */
/* What ptscope stat measured, and its report: text, or a JSON recording. */
#ifndef PTSCOPE_STAT_REPORT_H
#define PTSCOPE_STAT_REPORT_H

#include <stddef.h>
#include "data/collector.h"
#include "data/kcounters.h"
#include "tracer/tracer.h"
#include "views/options.h"

/* one run of the command, or one window of -p */
struct stat_run {
	struct pts_snapshot delta;	/* the counters of this run alone */
	struct kcounters kc;		/* the kernel's, over the run */
	double seconds;
	int exit_status;		/* 0 for a window */
	/* data/reference.h: the machine's fixed work, timed before and after */
	double reference[2];
};

struct stat_state {
	struct pts_tracer t;
	char cmd[512];			/* the command line, or "pid N (comm)" */
	struct stat_run *runs;
	size_t nr_runs, want_runs;
	struct pts_snapshot totals;	/* all runs: the maps since attach */
	/* the kernel's over the runs' own windows, not the gaps between */
	struct kcounters kc_total;
};

/* the first nonzero exit status of the runs, else 0 */
int stat_exit_status(const struct stat_state *st);
/*
 * The report, to -o or stderr (never into the command's stdout): JSON
 * with --json or an -o name ending in .json, else text.  0 or 1.
 */
int stat_report(struct stat_state *st, const struct pts_options *opts);

#endif
