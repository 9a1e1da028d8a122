// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope diff and the machine's own speed: the reference timed around
 * every run (data/reference.h) compared first, times compared relative
 * to it.  Method: docs/regressions.md.
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
