/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ptscope diff: compares two "ptscope stat --json" recordings run by run.
 * Each value (data/recording.h) becomes a row with the runs of both sides;
 * a row is tested exactly when every run of each side gave one value (a
 * deterministic count), by Welch's t-test otherwise, and the p-values of
 * the tested rows are adjusted by Holm's method.  A row changed when the
 * exact values differ by at least the minimum effect, or when its adjusted
 * p is below alpha and its 95% interval lies beyond the minimum effect.
 * One run on a side is "not enough runs", never a change.  The machine's
 * own reference, timed around every run, is compared first: times are
 * tested relative to it as well as measured, and not at all where it is
 * unreliable.  Pure functions over json-c objects; the view reads the
 * files and renders the result (render/diff_format.c).
 */
#ifndef PTSCOPE_RECORDING_COMPARE_H
#define PTSCOPE_RECORDING_COMPARE_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "data/recording.h"
#include "data/stats.h"

#define DIFF_ALPHA		0.05	/* family-wise error rate of "changed" */
#define DIFF_MIN_EFFECT_PCT	2.0	/* the smallest change called one */
#define DIFF_CONFIDENCE		0.95	/* of the interval shown */
/*
 * The machine's reference (data/reference.h): times are compared relative
 * to it, unless it varied more than this between the runs of a side, or
 * moved by more than this factor between the sides: then no time is
 * compared at all.
 */
#define DIFF_REF_MAX_CV_PCT	50.0
#define DIFF_REF_MAX_FACTOR	2.0
/* the traced work that adds at most this share of a run time is not its cause */
#define DIFF_SHARE_SMALL	0.25
#define DIFF_NAME_LEN		REC_NAME_LEN
#define DIFF_TEXT_LEN		512

enum diff_side {
	DIFF_BASE,
	DIFF_NEW,
	DIFF_SIDES,
};

enum diff_change {
	DIFF_CHANGED,	/* nonzero mean in base: change_pct is finite */
	DIFF_APPEARED,	/* zero in base, nonzero in new */
	DIFF_GONE,	/* nonzero in base, zero in new */
};

/* how a row was compared */
enum diff_test {
	DIFF_TEST_NONE,		/* a side has one run: not tested */
	DIFF_TEST_EXACT,	/* every run of each side gave one value */
	DIFF_TEST_WELCH,	/* Welch's t-test, Holm-adjusted */
};

enum diff_verdict {
	DIFF_NO_CHANGE,
	DIFF_VERDICT_CHANGED,
	DIFF_NOT_ENOUGH_RUNS,	/* a side has one run */
	DIFF_UNRELIABLE,	/* no count changed; the times cannot be told */
};

/* what the machine's reference allows */
enum diff_ref_state {
	DIFF_REF_MISSING,	/* a side has none: times as measured */
	DIFF_REF_OTHER_WORK,	/* the sides timed different work: as measured */
	DIFF_REF_UNTESTED,	/* one run a side */
	DIFF_REF_USED,		/* times compared relative to it */
	DIFF_REF_NOISY,		/* it varied too much: times not compared */
	DIFF_REF_MOVED,		/* the machine changed too much: not compared */
};

/* what decides "changed" */
struct diff_params {
	double alpha;		/* 0 < alpha < 1 */
	double min_effect_pct;	/* >= 0 */
};

/* one value recorded in both recordings, not zero in both */
struct diff_row {
	char name[DIFF_NAME_LEN];
	enum rec_kind kind;
	enum rec_unit unit;
	struct stats_summary side[DIFF_SIDES];	/* over the runs */
	double val[DIFF_SIDES];		/* the means */
	double change_pct;		/* of the means; NAN unless CHANGED */
	double ci_low_pct, ci_high_pct;	/* NAN unless tested and CHANGED */
	double p, p_adjusted;		/* 1 where not tested, 0 exact change */
	enum diff_change change;
	enum diff_test test;
	bool changed;			/* the verdict on this row */
	bool differs;			/* untested, but the means differ */
	/*
	 * A time compared relative to the machine's reference: change_pct,
	 * the interval and p are of value / reference run by run (rates:
	 * value * reference); raw_* as measured, and whether that alone
	 * would have been called a change
	 */
	bool normalized;
	double raw_change_pct, raw_ci_low_pct, raw_ci_high_pct, raw_p;
	bool raw_changed;		/* as measured: a change */
	bool rel_changed;		/* relative to the machine: a change */
	bool unreliable;		/* a time the reference forbids comparing */
};

/* the machine's reference, base against new */
struct diff_reference {
	enum diff_ref_state state;
	bool present[DIFF_SIDES];
	struct diff_row row;		/* reference_ns, as measured */
	double cv_pct[DIFF_SIDES];	/* its spread over the runs of a side */
	double factor;			/* new mean / base mean */
};

/* an interval of a difference new - base, in seconds a run */
struct diff_interval {
	double diff, low, high;
};

/*
 * How much of a changed run time the traced work accounts for: the
 * mremap time (calls x mean latency) and, where they were timed, the
 * hugepage faults' time added a run, against the run time added, and
 * their ratio with its range from the two intervals
 */
struct diff_share {
	bool have;
	bool faults;		/* the traced time has timed faults in it */
	struct diff_interval traced, run;
	double share, share_low, share_high;	/* fractions; NAN: unknown */
	bool elsewhere;		/* share_high below DIFF_SHARE_SMALL */
};

/* a metric (or one of its values) that only one recording has */
struct diff_only {
	char name[DIFF_NAME_LEN];
	enum diff_side side;		/* the recording that has it */
	bool has_value;			/* a value, not a whole metric */
	double value;
	char reason[DIFF_TEXT_LEN];	/* why the other one lacks it */
};

struct diff_result {
	struct rec_header run[DIFF_SIDES];
	size_t nr_runs[DIFF_SIDES];
	struct diff_params params;
	enum diff_verdict verdict;
	size_t nr_changed, nr_tested;
	struct diff_row *rows;		/* changed first, then by |change| */
	size_t nr_rows, cap_rows;
	struct diff_only *only;
	size_t nr_only, cap_only;
	char (*notes)[DIFF_TEXT_LEN];	/* differences in setup worth knowing */
	size_t nr_notes, cap_notes;
	struct diff_reference ref;
	struct diff_share share;
};

extern const char *const diff_side_name[DIFF_SIDES];	/* "base", "new" */

/* alpha DIFF_ALPHA, minimum effect DIFF_MIN_EFFECT_PCT */
void diff_default_params(struct diff_params *p);

/*
 * Compare two recordings into @res (freed with diff_result_free, also on
 * error).  0; -EINVAL when they cannot be compared (message in @err, with
 * the file names in @labels); -ENOMEM.
 */
int diff_compare(json_object *base, json_object *new,
		 const char *const labels[DIFF_SIDES],
		 const struct diff_params *params, struct diff_result *res,
		 char *err, size_t errlen);
void diff_result_free(struct diff_result *res);

/*
 * One row from the runs of both sides: summaries, change, the test and
 * its raw p.  changed is decided for all rows at once by diff_decide().
 */
void diff_test_row(struct diff_row *row, const double *base, size_t nr_base,
		   const double *new, size_t nr_new);
/*
 * After diff_test_row(): test @row again on its values relative to each
 * run's reference (@base_ref, @new_ref: seconds), keeping the measured
 * test in raw_*.  Durations are divided by the reference, rates (per
 * second) multiplied; other rows are left alone.  0 or -ENOMEM.
 */
int diff_normalize_row(struct diff_row *row, const double *base,
		       const double *base_ref, size_t nr_base,
		       const double *new, const double *new_ref,
		       size_t nr_new);
/*
 * Holm over the Welch rows (not those the reference forbids), then each
 * row's verdict; a time relative to the machine changed only where it
 * did as measured too, the same way.  0 or -ENOMEM.
 */
int diff_decide(struct diff_row *rows, size_t nr,
		const struct diff_params *params);

/*
 * For diff_compare (data/recording_reference.c): the references of both
 * recordings into res->ref, before the rows are joined; the share of a
 * changed run.seconds in the traced mremap time into res->share, after
 * the verdict.  0 or -ENOMEM.
 */
int diff_compare_reference(struct diff_result *res,
			   const struct recording flat[DIFF_SIDES]);
int diff_compute_share(struct diff_result *res,
		       const struct recording flat[DIFF_SIDES]);

/* changed first (exact, then by adjusted p), then by |change| */
void diff_sort_rows(struct diff_row *rows, size_t nr);
bool diff_kernels_differ(const struct diff_result *res);
/* the machine's reference forbids comparing the times (noisy, moved) */
bool diff_times_unreliable(const struct diff_result *res);

#endif
