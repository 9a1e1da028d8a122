// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope diff: join two flattened recordings by name, run by run, test
 * each row, adjust for the number of rows tested, and give the verdict.
 *
 * A metric that was not attached in one recording becomes one "only in"
 * entry with the reason it was not.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording_compare.h"
#include "data/grow.h"

const char *const diff_side_name[DIFF_SIDES] = { "base", "new" };
void diff_default_params(struct diff_params *p)
{
	p->alpha = DIFF_ALPHA;
	p->min_effect_pct = DIFF_MIN_EFFECT_PCT;
}

/* a zeroed element appended to *@arr; NULL when out of memory */
static void *append(void **arr, size_t *nr, size_t *cap, size_t size)
{
	char *elem;

	if (grow_for_one(arr, cap, *nr, size))
		return NULL;
	elem = (char *)*arr + (*nr)++ * size;
	memset(elem, 0, size);
	return elem;
}

/* ---- one row: summaries and its test ---- */

static void row_change(struct diff_row *row)
{
	double base = row->val[DIFF_BASE], new = row->val[DIFF_NEW];

	row->change_pct = NAN;
	if (base == 0) {
		row->change = DIFF_APPEARED;
	} else if (new == 0) {
		row->change = DIFF_GONE;
	} else {
		row->change = DIFF_CHANGED;
		row->change_pct = (new - base) / fabs(base) * 100;
	}
}

void diff_test_row(struct diff_row *row, const double *base, size_t nr_base,
		   const double *new, size_t nr_new)
{
	struct stats_summary *s = row->side;
	struct stats_welch w;

	stats_summarize(base, nr_base, &s[DIFF_BASE]);
	stats_summarize(new, nr_new, &s[DIFF_NEW]);
	row->val[DIFF_BASE] = s[DIFF_BASE].mean;
	row->val[DIFF_NEW] = s[DIFF_NEW].mean;
	row_change(row);
	row->ci_low_pct = row->ci_high_pct = NAN;
	row->p = row->p_adjusted = 1;
	row->changed = false;
	row->differs = row->val[DIFF_BASE] != row->val[DIFF_NEW];
	if (nr_base < 2 || nr_new < 2) {
		row->test = DIFF_TEST_NONE;
		return;
	}
	if (stats_constant(&s[DIFF_BASE]) && stats_constant(&s[DIFF_NEW])) {
		row->test = DIFF_TEST_EXACT;
		row->p = row->p_adjusted = row->differs ? 0 : 1;
		return;
	}
	row->test = DIFF_TEST_WELCH;
	if (stats_welch(&s[DIFF_BASE], &s[DIFF_NEW], DIFF_CONFIDENCE, &w))
		return;
	row->p = row->p_adjusted = w.p;
	if (row->change == DIFF_CHANGED) {
		row->ci_low_pct = w.ci_low / fabs(row->val[DIFF_BASE]) * 100;
		row->ci_high_pct = w.ci_high / fabs(row->val[DIFF_BASE]) * 100;
		/* every value is >= 0: the t interval can reach below -100% */
		if (row->ci_low_pct < -100)
			row->ci_low_pct = -100;
	}
}

/*
 * The whole interval lies beyond the minimum effect, so "changed" means
 * "by at least that much" at the interval's confidence, not a point
 * estimate that noise carried over it.  An exact count has no interval:
 * its change itself must reach the minimum effect, so 199,939 -> 199,984
 * calls (+0.02%) is a count that differs, not a change to act on.
 * Appeared and gone are infinite.
 */
static bool large_enough(const struct diff_row *row,
			 const struct diff_params *params)
{
	if (row->change != DIFF_CHANGED)
		return true;
	if (row->test == DIFF_TEST_EXACT)
		return fabs(row->change_pct) >= params->min_effect_pct;
	return row->ci_low_pct >= params->min_effect_pct ||
	       row->ci_high_pct <= -params->min_effect_pct;
}

/* a Welch row in the family Holm adjusts: not one the reference forbids */
static bool in_family(const struct diff_row *row)
{
	return row->test == DIFF_TEST_WELCH && !row->unreliable;
}

/*
 * A time compared relative to the machine changed only when it changed
 * as measured too, in the same direction (an intersection-union test:
 * each at alpha, the two together at alpha).  Relative alone, it may be
 * a time that does not scale with the machine's speed (an mremap that
 * is not preempted while a CPU hog runs); as measured alone, it moved
 * with the machine.  The raw test: Holm over the same family.
 */
static void decide_raw(struct diff_row *rows, size_t nr, double *p,
		       const struct diff_params *params)
{
	struct diff_row raw;
	size_t i, n = 0;

	for (i = 0; i < nr; i++)
		if (in_family(&rows[i]))
			p[n++] = rows[i].normalized ? rows[i].raw_p : rows[i].p;
	if (stats_holm(p, n, p))
		return;		/* -ENOMEM: raw_changed stays false */
	for (i = 0, n = 0; i < nr; i++) {
		if (!in_family(&rows[i]))
			continue;
		n++;
		if (!rows[i].normalized)
			continue;
		raw = rows[i];
		raw.ci_low_pct = raw.raw_ci_low_pct;
		raw.ci_high_pct = raw.raw_ci_high_pct;
		rows[i].raw_changed = p[n - 1] < params->alpha &&
				      large_enough(&raw, params);
		/* both ways, the same way: neither model of the machine alone */
		rows[i].rel_changed = rows[i].changed;
		rows[i].changed = rows[i].rel_changed && rows[i].raw_changed &&
				  (rows[i].change_pct > 0) ==
				  (rows[i].raw_change_pct > 0);
	}
}

int diff_decide(struct diff_row *rows, size_t nr,
		const struct diff_params *params)
{
	double *p;
	size_t i, n = 0;

	p = calloc(nr ? nr : 1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	for (i = 0; i < nr; i++)
		if (in_family(&rows[i]))
			p[n++] = rows[i].p;
	if (stats_holm(p, n, p)) {
		free(p);
		return -ENOMEM;
	}
	for (i = 0, n = 0; i < nr; i++) {
		rows[i].changed = false;
		if (rows[i].test == DIFF_TEST_EXACT) {
			rows[i].changed = rows[i].differs &&
					  large_enough(&rows[i], params);
		} else if (in_family(&rows[i])) {
			rows[i].p_adjusted = p[n++];
			rows[i].changed = rows[i].p_adjusted < params->alpha &&
					  large_enough(&rows[i], params);
		}
	}
	decide_raw(rows, nr, p, params);
	free(p);
	return 0;
}

/* ---- joining the runs of both recordings by name ---- */

/* every name any run of @rec has, appended to @names once */
static int collect_names(const struct recording *rec,
			 const struct rec_value ***names, size_t *nr,
			 size_t *cap)
{
	const struct rec_value *v, **slot;
	size_t r, i, j;

	for (r = 0; r < rec->nr_runs; r++) {
		for (i = 0; i < rec->runs[r].nr; i++) {
			v = &rec->runs[r].v[i];
			for (j = 0; j < *nr; j++)
				if (!strcmp((*names)[j]->name, v->name))
					break;
			if (j < *nr)
				continue;
			slot = append((void **)names, nr, cap, sizeof(*slot));
			if (!slot)
				return -ENOMEM;
			*slot = v;
		}
	}
	return 0;
}

/*
 * @v's value in each run of @rec that has it, or says it is 0 by leaving
 * it out, into @out: how many
 */
static size_t samples(const struct recording *rec, const struct rec_value *v,
		      double *out, double *ref)
{
	const struct rec_value *found;
	size_t r, n = 0;

	for (r = 0; r < rec->nr_runs; r++) {
		found = rec_run_find(&rec->runs[r], v->name);
		if (found)
			out[n] = found->value;
		else if (rec_absent_means_zero(&rec->runs[r], v))
			out[n] = 0;
		else
			continue;
		ref[n++] = rec->runs[r].reference;	/* that run's */
	}
	return n;
}

__attribute__((format(printf, 6, 7)))
static int add_only(struct diff_result *res, enum diff_side side,
		    const char *name, bool has_value, double value,
		    const char *fmt, ...)
{
	struct diff_only *only;
	va_list ap;

	only = append((void **)&res->only, &res->nr_only, &res->cap_only,
		      sizeof(*only));
	if (!only)
		return -ENOMEM;
	snprintf(only->name, sizeof(only->name), "%s", name);
	only->side = side;
	only->has_value = has_value;
	only->value = value;
	va_start(ap, fmt);
	vsnprintf(only->reason, sizeof(only->reason), fmt, ap);
	va_end(ap);
	return 0;
}

__attribute__((format(printf, 2, 3)))
static int add_note(struct diff_result *res, const char *fmt, ...)
{
	char (*note)[DIFF_TEXT_LEN];
	va_list ap;

	note = append((void **)&res->notes, &res->nr_notes, &res->cap_notes,
		      sizeof(*note));
	if (!note)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(*note, sizeof(*note), fmt, ap);
	va_end(ap);
	return 0;
}


/* the values of both sides and their runs' references */
struct join_buf {
	double *values[DIFF_SIDES];
	double *refs[DIFF_SIDES];
};

/*
 * A time, as the machine's reference allows: relative to it, as
 * measured (no reference), or not compared at all (unreliable)
 */
static int time_row(struct diff_result *res, struct diff_row *row,
		    const struct join_buf *buf, const size_t n[DIFF_SIDES])
{
	switch (res->ref.state) {
	case DIFF_REF_USED:
		return diff_normalize_row(row, buf->values[DIFF_BASE],
					  buf->refs[DIFF_BASE], n[DIFF_BASE],
					  buf->values[DIFF_NEW],
					  buf->refs[DIFF_NEW], n[DIFF_NEW]);
	case DIFF_REF_NOISY:
	case DIFF_REF_MOVED:
		row->unreliable = row->test == DIFF_TEST_WELCH;
		return 0;
	default:
		return 0;
	}
}

static int add_row(struct diff_result *res, const struct rec_value *v,
		   const struct join_buf *buf, const size_t n[DIFF_SIDES])
{
	struct diff_row *row;

	row = append((void **)&res->rows, &res->nr_rows, &res->cap_rows,
		     sizeof(*row));
	if (!row)
		return -ENOMEM;
	snprintf(row->name, sizeof(row->name), "%s", v->name);
	row->kind = v->kind;
	row->unit = v->unit;
	diff_test_row(row, buf->values[DIFF_BASE], n[DIFF_BASE],
		      buf->values[DIFF_NEW], n[DIFF_NEW]);
	/* counts are never negative: a mean of 0 is zero in every run */
	if (row->val[DIFF_BASE] == 0 && row->val[DIFF_NEW] == 0) {
		res->nr_rows--;
		return 0;
	}
	return row->kind == REC_TIME ? time_row(res, row, buf, n) : 0;
}

/* @v is in the @have recording only; @other is the one without it */
static int join_missing(struct diff_result *res, enum diff_side have,
			const struct rec_value *v, double value,
			const struct recording *other)
{
	if (v->section && !rec_get(other->runs[0].counters, v->section))
		return 0;	/* metric unavailable there: one entry for all */
	if (v->ratio || value == 0)
		return 0;	/* undefined there, or nothing to tell */
	if (v->events_only)
		return add_only(res, have, v->name, true, value, "%s traced no "
				"events: its processes were not counted, not 0",
				diff_side_name[!have]);
	return add_only(res, have, v->name, true, value,
			"not recorded in %s", diff_side_name[!have]);
}

static int join_name(struct diff_result *res,
		     const struct recording rec[DIFF_SIDES],
		     const struct rec_value *v, const struct join_buf *buf)
{
	struct stats_summary s;
	size_t n[DIFF_SIDES];
	enum diff_side have;
	int side;

	for (side = 0; side < DIFF_SIDES; side++)
		n[side] = samples(&rec[side], v, buf->values[side],
				  buf->refs[side]);
	if (n[DIFF_BASE] && n[DIFF_NEW])
		return add_row(res, v, buf, n);
	have = n[DIFF_BASE] ? DIFF_BASE : DIFF_NEW;
	stats_summarize(buf->values[have], n[have], &s);
	return join_missing(res, have, v, s.mean, &rec[!have]);
}

static int join_values(struct diff_result *res,
		       const struct recording rec[DIFF_SIDES])
{
	const struct rec_value **names = NULL;
	struct join_buf buf = {};
	size_t nr = 0, cap = 0, i;
	int side, err = 0;

	for (side = 0; side < DIFF_SIDES && !err; side++) {
		buf.values[side] = calloc(2 * rec[side].nr_runs, sizeof(double));
		if (!buf.values[side])
			err = -ENOMEM;
		else
			err = collect_names(&rec[side], &names, &nr, &cap);
		if (!err)
			buf.refs[side] = buf.values[side] + rec[side].nr_runs;
	}
	for (i = 0; i < nr && !err; i++)
		err = join_name(res, rec, names[i], &buf);
	for (side = 0; side < DIFF_SIDES; side++)
		free(buf.values[side]);
	free(names);
	return err;
}

static bool metric_attached(json_object *metric)
{
	const char *status = rec_get_str(metric, "status");

	return status && strcmp(status, "unavailable");
}

/* attached in both: say so when they were measured differently */
static int note_method(struct diff_result *res, const char *name,
		       json_object *const metric[DIFF_SIDES])
{
	const char *status[DIFF_SIDES], *probe[DIFF_SIDES];
	int side;

	for (side = 0; side < DIFF_SIDES; side++) {
		status[side] = rec_get_str(metric[side], "status");
		probe[side] = rec_get_str(metric[side], "probe");
		if (!probe[side])
			probe[side] = "probe not recorded";
	}
	if (!strcmp(status[DIFF_BASE], status[DIFF_NEW]) &&
	    !strcmp(probe[DIFF_BASE], probe[DIFF_NEW]))
		return 0;
	return add_note(res, "%s measured differently: base %s (%s), new %s (%s)",
			name, status[DIFF_BASE], probe[DIFF_BASE],
			status[DIFF_NEW], probe[DIFF_NEW]);
}

static int compare_metric(struct diff_result *res, const char *name,
			  json_object *const metric[DIFF_SIDES])
{
	bool on_base = metric_attached(metric[DIFF_BASE]);
	bool on_new = metric_attached(metric[DIFF_NEW]);
	enum diff_side have = on_base ? DIFF_BASE : DIFF_NEW;
	json_object *lacking = metric[!have];
	const char *reason;

	if (on_base && on_new)
		return note_method(res, name, metric);
	if (!on_base && !on_new)
		return 0;
	if (!lacking)
		return add_only(res, have, name, false, 0,
				"not in %s's metric catalog", diff_side_name[!have]);
	reason = rec_get_str(lacking, "reason");
	return add_only(res, have, name, false, 0, "unavailable in %s: %s",
			diff_side_name[!have], reason ? reason : "no reason recorded");
}

static int compare_metrics(struct diff_result *res,
			   json_object *const rec[DIFF_SIDES])
{
	json_object *base_cat = rec_get(rec[DIFF_BASE], "metrics");
	json_object *new_cat = rec_get(rec[DIFF_NEW], "metrics");
	json_object *metric[DIFF_SIDES];
	int err;

	json_object_object_foreach(base_cat, base_name, base_metric) {
		metric[DIFF_BASE] = base_metric;
		metric[DIFF_NEW] = rec_get(new_cat, base_name);
		err = compare_metric(res, base_name, metric);
		if (err)
			return err;
	}
	json_object_object_foreach(new_cat, new_name, new_metric) {
		if (rec_get(base_cat, new_name))
			continue;
		metric[DIFF_BASE] = NULL;
		metric[DIFF_NEW] = new_metric;
		err = compare_metric(res, new_name, metric);
		if (err)
			return err;
	}
	return 0;
}

/* a THP setting; a kernel without a size's knob has that size "never" */
static int compare_setting(struct diff_result *res, const char *what,
			   const char *base, const char *new)
{
	if (!strcmp(base ? base : "never", new ? new : "never"))
		return 0;
	return add_note(res, "THP %s: base %s, new %s", what,
			base ? base : "(no such setting)",
			new ? new : "(no such setting)");
}

static int compare_thp(struct diff_result *res, json_object *const rec[DIFF_SIDES])
{
	json_object *base_thp = rec_get(rec_get(rec[DIFF_BASE], "system"), "thp");
	json_object *new_thp = rec_get(rec_get(rec[DIFF_NEW], "system"), "thp");
	json_object *base_sizes = rec_get(base_thp, "sizes");
	json_object *new_sizes = rec_get(new_thp, "sizes");
	int err;

	err = compare_setting(res, "enabled", rec_get_str(base_thp, "enabled"),
			      rec_get_str(new_thp, "enabled"));
	if (!err)
		err = compare_setting(res, "defrag", rec_get_str(base_thp, "defrag"),
				      rec_get_str(new_thp, "defrag"));
	if (err)
		return err;
	if (rec_is_object(base_sizes)) {
		json_object_object_foreach(base_sizes, size, base_val) {
			err = compare_setting(res, size, json_object_get_string(base_val),
					      rec_get_str(new_sizes, size));
			if (err)
				return err;
		}
	}
	if (rec_is_object(new_sizes)) {
		json_object_object_foreach(new_sizes, size, new_val) {
			if (rec_get(base_sizes, size))
				continue;
			err = compare_setting(res, size, NULL,
					      json_object_get_string(new_val));
			if (err)
				return err;
		}
	}
	return 0;
}

static int compare_setup(struct diff_result *res, json_object *const rec[DIFF_SIDES])
{
	const struct rec_header *run = res->run;
	int side, err;

	if (strcmp(run[DIFF_BASE].machine, run[DIFF_NEW].machine)) {
		err = add_note(res, "machines differ: base %s, new %s",
			       run[DIFF_BASE].machine, run[DIFF_NEW].machine);
		if (err)
			return err;
	}
	for (side = 0; side < DIFF_SIDES; side++) {
		if (!run[side].exit_status)
			continue;
		err = add_note(res, "the %s command exited %d", diff_side_name[side],
			       run[side].exit_status);
		if (err)
			return err;
	}
	return compare_thp(res, rec);
}


/* ---- checks ---- */

static int check_pair(json_object *const rec[DIFF_SIDES],
		      const char *const labels[DIFF_SIDES], char *err,
		      size_t errlen)
{
	int64_t page_size[DIFF_SIDES];
	int side;

	for (side = 0; side < DIFF_SIDES; side++)
		page_size[side] = json_object_get_int64(
			rec_get(rec_get(rec[side], "system"), "page_size"));
	if (page_size[DIFF_BASE] != page_size[DIFF_NEW])
		return rec_fail(err, errlen, "%s has %lld-byte pages, %s has %lld-byte "
			    "pages: per-page counts do not compare",
			    labels[DIFF_BASE], (long long)page_size[DIFF_BASE],
			    labels[DIFF_NEW], (long long)page_size[DIFF_NEW]);
	return 0;
}

/* ---- comparing ---- */

/* whole metrics first, then single values; by name */
static int only_cmp(const void *a, const void *b)
{
	const struct diff_only *oa = a, *ob = b;

	if (oa->has_value != ob->has_value)
		return oa->has_value ? 1 : -1;
	return strcmp(oa->name, ob->name);
}


static void decide_verdict(struct diff_result *res)
{
	size_t i;

	res->nr_changed = res->nr_tested = 0;
	for (i = 0; i < res->nr_rows; i++) {
		res->nr_changed += res->rows[i].changed;
		res->nr_tested += res->rows[i].test != DIFF_TEST_NONE &&
				  !res->rows[i].unreliable;
	}
	if (res->nr_runs[DIFF_BASE] < 2 || res->nr_runs[DIFF_NEW] < 2)
		res->verdict = DIFF_NOT_ENOUGH_RUNS;
	else if (res->nr_changed)
		res->verdict = DIFF_VERDICT_CHANGED;
	else if (diff_times_unreliable(res))
		res->verdict = DIFF_UNRELIABLE;
	else
		res->verdict = DIFF_NO_CHANGE;
}

static int compare_flat(struct diff_result *res,
			json_object *const rec[DIFF_SIDES],
			const struct recording flat[DIFF_SIDES])
{
	int ret;

	ret = diff_compare_reference(res, flat);
	if (!ret)
		ret = join_values(res, flat);
	if (!ret)
		ret = diff_decide(res->rows, res->nr_rows, &res->params);
	if (!ret)
		ret = diff_compute_share(res, flat);
	if (!ret)
		ret = compare_metrics(res, rec);
	if (!ret)
		ret = compare_setup(res, rec);
	if (ret)
		return ret;
	decide_verdict(res);
	diff_sort_rows(res->rows, res->nr_rows);
	if (res->nr_only)
		qsort(res->only, res->nr_only, sizeof(*res->only), only_cmp);
	return 0;
}

int diff_compare(json_object *base, json_object *new,
		 const char *const labels[DIFF_SIDES],
		 const struct diff_params *params, struct diff_result *res,
		 char *err, size_t errlen)
{
	json_object *const rec[DIFF_SIDES] = { base, new };
	struct recording flat[DIFF_SIDES] = {};
	int side, ret = 0;

	memset(res, 0, sizeof(*res));
	res->params = *params;
	for (side = 0; side < DIFF_SIDES && !ret; side++) {
		ret = recording_flatten(rec[side], labels[side], &flat[side], err,
					errlen);
		res->run[side] = flat[side].header;
		res->nr_runs[side] = flat[side].nr_runs;
	}
	if (!ret)
		ret = check_pair(rec, labels, err, errlen);
	if (!ret)
		ret = compare_flat(res, rec, flat);
	for (side = 0; side < DIFF_SIDES; side++)
		recording_free(&flat[side]);
	if (ret == -ENOMEM)
		snprintf(err, errlen, "out of memory");
	return ret;
}

void diff_result_free(struct diff_result *res)
{
	free(res->rows);
	free(res->only);
	free(res->notes);
	memset(res, 0, sizeof(*res));
}

static double magnitude(const struct diff_row *row)
{
	return row->change == DIFF_CHANGED ? fabs(row->change_pct) : INFINITY;
}

static int row_cmp(const void *a, const void *b)
{
	const struct diff_row *ra = a, *rb = b;
	double ma = magnitude(ra), mb = magnitude(rb);

	if (ra->changed != rb->changed)
		return ra->changed ? -1 : 1;
	if (ra->changed && ra->p_adjusted != rb->p_adjusted)
		return ra->p_adjusted < rb->p_adjusted ? -1 : 1;
	if (ma != mb)
		return ma > mb ? -1 : 1;
	return strcmp(ra->name, rb->name);
}

void diff_sort_rows(struct diff_row *rows, size_t nr)
{
	if (nr)
		qsort(rows, nr, sizeof(*rows), row_cmp);
}

bool diff_times_unreliable(const struct diff_result *res)
{
	return res->ref.state == DIFF_REF_NOISY ||
	       res->ref.state == DIFF_REF_MOVED;
}

bool diff_kernels_differ(const struct diff_result *res)
{
	return strcmp(res->run[DIFF_BASE].kernel, res->run[DIFF_NEW].kernel) != 0;
}
