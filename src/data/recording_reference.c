// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope diff and the machine's own speed: the reference timed around
 * every run (data/reference.h) compared first, times compared relative
 * to it, and the share of a changed run time the traced work (mremaps,
 * timed hugepage faults) accounts for.  Method: docs/regressions.md.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording_compare.h"

/* ---- the reference ---- */

/* the reference of every run of @rec into @out, ns: how many; 0 unless all */
static size_t ref_samples(const struct recording *rec, double *out)
{
	size_t r;

	for (r = 0; r < rec->nr_runs; r++) {
		if (!(rec->runs[r].reference > 0))
			return 0;
		out[r] = rec->runs[r].reference * 1e9;
	}
	return rec->nr_runs;
}

static bool same_work(const struct rec_header *a, const struct rec_header *b)
{
	return a->ref_hash_rounds == b->ref_hash_rounds &&
	       a->ref_syscalls == b->ref_syscalls;
}

static double cv_pct(const struct stats_summary *s)
{
	return s->mean > 0 ? s->sd / s->mean * 100 : 0;
}

static void judge_reference(struct diff_reference *ref)
{
	struct stats_summary *s = ref->row.side;

	ref->cv_pct[DIFF_BASE] = cv_pct(&s[DIFF_BASE]);
	ref->cv_pct[DIFF_NEW] = cv_pct(&s[DIFF_NEW]);
	ref->factor = s[DIFF_NEW].mean / s[DIFF_BASE].mean;
	if (s[DIFF_BASE].n < 2 || s[DIFF_NEW].n < 2)
		ref->state = DIFF_REF_UNTESTED;
	else if (ref->cv_pct[DIFF_BASE] > DIFF_REF_MAX_CV_PCT ||
		 ref->cv_pct[DIFF_NEW] > DIFF_REF_MAX_CV_PCT)
		ref->state = DIFF_REF_NOISY;
	else if (ref->factor > DIFF_REF_MAX_FACTOR ||
		 ref->factor < 1 / DIFF_REF_MAX_FACTOR)
		ref->state = DIFF_REF_MOVED;
	else
		ref->state = DIFF_REF_USED;
}

int diff_compare_reference(struct diff_result *res,
			   const struct recording flat[DIFF_SIDES])
{
	struct diff_reference *ref = &res->ref;
	double *v[DIFF_SIDES];
	size_t n[DIFF_SIDES];
	int side, err = 0;

	memset(ref, 0, sizeof(*ref));
	ref->state = DIFF_REF_MISSING;
	v[DIFF_BASE] = calloc(flat[DIFF_BASE].nr_runs, sizeof(double));
	v[DIFF_NEW] = calloc(flat[DIFF_NEW].nr_runs, sizeof(double));
	if (!v[DIFF_BASE] || !v[DIFF_NEW]) {
		err = -ENOMEM;
		goto out;
	}
	for (side = 0; side < DIFF_SIDES; side++) {
		n[side] = ref_samples(&flat[side], v[side]);
		ref->present[side] = n[side] > 0;
	}
	if (!n[DIFF_BASE] || !n[DIFF_NEW])
		goto out;
	snprintf(ref->row.name, sizeof(ref->row.name), "reference_ns");
	ref->row.kind = REC_TIME;
	ref->row.unit = REC_UNIT_NS;
	diff_test_row(&ref->row, v[DIFF_BASE], n[DIFF_BASE], v[DIFF_NEW],
		      n[DIFF_NEW]);
	/* its own test, not one of the workload's rows: no Holm family */
	err = diff_decide(&ref->row, 1, &res->params);
	if (!same_work(&flat[DIFF_BASE].header, &flat[DIFF_NEW].header))
		ref->state = DIFF_REF_OTHER_WORK;
	else
		judge_reference(ref);
out:
	free(v[DIFF_BASE]);
	free(v[DIFF_NEW]);
	return err;
}

/* ---- times relative to it ---- */

static bool is_rate(const struct diff_row *row)
{
	return row->unit == REC_UNIT_PER_SEC;
}

static bool is_duration(const struct diff_row *row)
{
	return row->unit == REC_UNIT_NS || row->unit == REC_UNIT_SECONDS;
}

/*
 * @n values relative to their runs' references, scaled by @scale (the
 * base's mean reference) so that they keep their unit
 */
static void relative(double *out, const double *v, const double *ref,
		     size_t n, double scale, bool rate)
{
	size_t i;

	for (i = 0; i < n; i++)
		out[i] = rate ? v[i] * ref[i] / scale : v[i] / ref[i] * scale;
}

int diff_normalize_row(struct diff_row *row, const double *base,
		       const double *base_ref, size_t nr_base,
		       const double *new, const double *new_ref,
		       size_t nr_new)
{
	struct diff_row rel = {};
	struct stats_summary s;
	double *b, *n;

	if (row->test != DIFF_TEST_WELCH || row->change != DIFF_CHANGED ||
	    (!is_rate(row) && !is_duration(row)))
		return 0;
	b = calloc(nr_base + nr_new, sizeof(double));
	if (!b)
		return -ENOMEM;
	n = b + nr_base;
	stats_summarize(base_ref, nr_base, &s);
	relative(b, base, base_ref, nr_base, s.mean, is_rate(row));
	relative(n, new, new_ref, nr_new, s.mean, is_rate(row));
	diff_test_row(&rel, b, nr_base, n, nr_new);
	free(b);
	row->raw_change_pct = row->change_pct;
	row->raw_ci_low_pct = row->ci_low_pct;
	row->raw_ci_high_pct = row->ci_high_pct;
	row->raw_p = row->p;
	row->change_pct = rel.change_pct;
	row->ci_low_pct = rel.ci_low_pct;
	row->ci_high_pct = rel.ci_high_pct;
	row->p = row->p_adjusted = rel.p;
	row->normalized = true;
	return 0;
}

/* ---- the share of a changed run time in the traced work ---- */

/* the difference of the means and its 95% interval (exact: a point) */
static void interval(const double *base, size_t nr_base, const double *new,
		     size_t nr_new, struct diff_interval *out)
{
	struct stats_summary sb, sn;
	struct stats_welch w;

	stats_summarize(base, nr_base, &sb);
	stats_summarize(new, nr_new, &sn);
	out->diff = out->low = out->high = sn.mean - sb.mean;
	if (!stats_welch(&sb, &sn, DIFF_CONFIDENCE, &w)) {
		out->low = w.ci_low;
		out->high = w.ci_high;
	}
}

/*
 * The time of @run's hugepage faults, seconds: the sum of each order's
 * latency histogram, where the fault path was traced from its functions
 * (the only path that times them); *@timed says whether any was
 */
static double fault_seconds(const struct rec_run *run, bool *timed)
{
	json_object *orders = rec_get(rec_get(run->counters, "hugepage_faults"),
				      "orders");
	double sum, total = 0;
	size_t i;

	if (!orders || !json_object_is_type(orders, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(orders); i++) {
		if (!rec_get_num(rec_get(json_object_array_get_idx(orders, i),
					 "latency_ns"), "sum", &sum))
			continue;
		total += sum * 1e-9;
		*timed = true;
	}
	return total;
}

/*
 * Per run of @rec: run.seconds, and the traced work's time in seconds:
 * mremap calls x mean latency, and the hugepage faults' time
 */
static size_t run_times(const struct recording *rec, double *run,
			double *traced, bool *faults)
{
	const struct rec_value *secs, *calls, *lat;
	size_t r, n = 0;

	for (r = 0; r < rec->nr_runs; r++) {
		secs = rec_run_find(&rec->runs[r], "run.seconds");
		calls = rec_run_find(&rec->runs[r], "mremap.calls");
		lat = rec_run_find(&rec->runs[r], "mremap.latency_mean");
		if (!secs || !calls)
			return 0;	/* mremap not traced: nothing to tell */
		run[n] = secs->value;
		traced[n] = lat ? calls->value * lat->value * 1e-9 : 0;
		traced[n++] += fault_seconds(&rec->runs[r], faults);
	}
	return n;
}

static const struct diff_row *changed_run_time(const struct diff_result *res)
{
	size_t i;

	for (i = 0; i < res->nr_rows; i++)
		if (res->rows[i].changed &&
		    !strcmp(res->rows[i].name, "run.seconds"))
			return &res->rows[i];
	return NULL;
}

/*
 * The ratio of the traced time added to the run time added, and its
 * range: the traced interval's far end over the run interval's near end
 * (in the direction the run time moved), and the other way round
 */
static void share_of(struct diff_share *sh)
{
	double sign = sh->run.diff < 0 ? -1 : 1;
	double run_near = sign > 0 ? sh->run.low : -sh->run.high;
	double run_far = sign > 0 ? sh->run.high : -sh->run.low;
	double traced_near = sign > 0 ? sh->traced.low : -sh->traced.high;
	double traced_far = sign > 0 ? sh->traced.high : -sh->traced.low;

	sh->share = sh->traced.diff / sh->run.diff;
	sh->share_high = run_near > 0 ? traced_far / run_near : NAN;
	sh->share_low = run_far > 0 ? traced_near / run_far : NAN;
	if (sh->share_low < 0)
		sh->share_low = 0;
	sh->elsewhere = sh->share_high < DIFF_SHARE_SMALL;
}

int diff_compute_share(struct diff_result *res,
		       const struct recording flat[DIFF_SIDES])
{
	struct diff_share *sh = &res->share;
	double *buf, *run[DIFF_SIDES], *traced[DIFF_SIDES];
	size_t n[DIFF_SIDES], total;
	int side;

	memset(sh, 0, sizeof(*sh));
	if (!changed_run_time(res))
		return 0;
	total = flat[DIFF_BASE].nr_runs + flat[DIFF_NEW].nr_runs;
	buf = calloc(2 * total, sizeof(double));
	if (!buf)
		return -ENOMEM;
	run[DIFF_BASE] = buf;
	run[DIFF_NEW] = buf + flat[DIFF_BASE].nr_runs;
	traced[DIFF_BASE] = buf + total;
	traced[DIFF_NEW] = traced[DIFF_BASE] + flat[DIFF_BASE].nr_runs;
	for (side = 0; side < DIFF_SIDES; side++)
		n[side] = run_times(&flat[side], run[side], traced[side],
				    &sh->faults);
	if (n[DIFF_BASE] && n[DIFF_NEW]) {
		interval(run[DIFF_BASE], n[DIFF_BASE], run[DIFF_NEW], n[DIFF_NEW],
			 &sh->run);
		interval(traced[DIFF_BASE], n[DIFF_BASE], traced[DIFF_NEW],
			 n[DIFF_NEW], &sh->traced);
		sh->have = sh->run.diff != 0;
		if (sh->have)
			share_of(sh);
	}
	free(buf);
	return 0;
}
