// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope diff: flatten two stat recordings into named values, join them
 * by name, rank the rows by relative change.
 *
 * A value missing from one recording is never taken as zero unless that
 * recording says so by leaving it out (collapse results and fault orders
 * are written only when nonzero).  A metric that was not attached in one
 * recording becomes one "only in" entry with the reason it was not.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording_diff.h"
#include "data/format.h"
#include "data/schema.h"

const char *const diff_side_name[DIFF_SIDES] = { "base", "new" };

/* one named value of one recording */
struct diff_value {
	char name[DIFF_NAME_LEN];
	double value;
	const char *section;	/* counters section it needs; NULL: always written */
	bool ratio;		/* left out where its denominator is 0 */
	const struct pts_field *field;	/* the schema row it came from, or NULL */
	int label;		/* its label value (order), -1: none */
};

/* one recording, flattened */
struct diff_values {
	json_object *rec;
	json_object *counters;
	struct diff_value *v;
	size_t nr, cap;
	double seconds;
	double mremap_calls;	/* < 0: mremap not recorded */
	unsigned int found_needs;	/* needs_any of the path-bound rows found */
	const struct pts_field *field;	/* the row being flattened */
	int label;
	int err;		/* -ENOMEM once an add failed, -EINVAL */
	char bad_name[DIFF_NAME_LEN];	/* -EINVAL: the first invalid value */
	double bad_value;
};

static json_object *get(json_object *obj, const char *key)
{
	json_object *val;

	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &val))
		return NULL;
	return val;
}

static bool is_object(json_object *obj)
{
	return obj && json_object_is_type(obj, json_type_object);
}

static bool is_number(json_object *obj)
{
	return obj && (json_object_is_type(obj, json_type_int) ||
		       json_object_is_type(obj, json_type_double));
}

/* @obj.@key as a number: false when absent or not a number */
static bool get_num(json_object *obj, const char *key, double *val)
{
	json_object *field = get(obj, key);

	if (!is_number(field))
		return false;
	*val = json_object_get_double(field);
	return true;
}

static const char *get_str(json_object *obj, const char *key)
{
	json_object *field = get(obj, key);

	if (!field || !json_object_is_type(field, json_type_string))
		return NULL;
	return json_object_get_string(field);
}

/* append a zeroed element to the array at @arrp; NULL when out of memory */
static void *grow(void *arrp, size_t *nr, size_t *cap, size_t size)
{
	void **arr = arrp;
	size_t new_cap;
	void *bigger;

	if (*nr == *cap) {
		new_cap = *cap ? *cap * 2 : 32;
		bigger = realloc(*arr, new_cap * size);
		if (!bigger)
			return NULL;
		*arr = bigger;
		*cap = new_cap;
	}
	memset((char *)*arr + *nr * size, 0, size);
	return (char *)*arr + (*nr)++ * size;
}

/* ---- flattening one recording into named values ---- */

/*
 * Every value a recording holds is a counter (u64 in the maps and in
 * /proc/vmstat) or a duration: never negative, never above 2^64.  One
 * that is makes the recording invalid rather than a row of nonsense.
 */
static bool valid_count(double value)
{
	return value >= 0 && value <= 18446744073709551615.0;
}

static void vadd(struct diff_values *dv, const char *section, bool ratio,
		 double value, const char *fmt, va_list ap)
{
	struct diff_value *v;

	if (!ratio && !valid_count(value)) {
		if (!dv->err) {
			vsnprintf(dv->bad_name, sizeof(dv->bad_name), fmt, ap);
			dv->bad_value = value;
			dv->err = -EINVAL;
		}
		return;
	}
	if (!isfinite(value))
		return;
	v = grow(&dv->v, &dv->nr, &dv->cap, sizeof(*v));
	if (!v) {
		dv->err = -ENOMEM;
		return;
	}
	vsnprintf(v->name, sizeof(v->name), fmt, ap);
	v->value = value;
	v->section = section;
	v->ratio = ratio;
	v->field = dv->field;
	v->label = dv->label;
}

__attribute__((format(printf, 4, 5)))
static void add(struct diff_values *dv, const char *section, double value,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(dv, section, false, value, fmt, ap);
	va_end(ap);
}

/* @num / @den; nothing when @den is 0: a mean of nothing is not zero */
__attribute__((format(printf, 5, 6)))
static void add_ratio(struct diff_values *dv, const char *section, double num,
		      double den, const char *fmt, ...)
{
	va_list ap;

	if (!(den > 0))
		return;
	va_start(ap, fmt);
	vadd(dv, section, true, num / den, fmt, ap);
	va_end(ap);
}

/* every number in @obj as PREFIX.KEY; their sum */
static double add_numbers(struct diff_values *dv, const char *section,
			  json_object *obj, const char *prefix)
{
	double sum = 0;

	if (!is_object(obj))
		return 0;
	json_object_object_foreach(obj, key, val) {
		if (!is_number(val))
			continue;
		add(dv, section, json_object_get_double(val), "%s.%s", prefix,
		    key);
		sum += json_object_get_double(val);
	}
	return sum;
}

static void flatten_run(struct diff_values *dv)
{
	json_object *procs = get(dv->counters, "processes");

	add(dv, NULL, dv->seconds, "run.seconds");
	if (procs && json_object_is_type(procs, json_type_array))
		add(dv, NULL, json_object_array_length(procs), "run.processes");
}

/*
 * A histogram {count, sum} as PREFIX.<diff> (its mean) and, when the row
 * says so, PREFIX.<diff_sum>.
 */
static void add_hist(struct diff_values *dv, const struct pts_field *f,
		     json_object *hist, const char *prefix)
{
	const char *sec = f->section->key;
	double count, sum;

	if (!get_num(hist, "count", &count) || !get_num(hist, "sum", &sum))
		return;
	if (!valid_count(count)) {
		add(dv, sec, count, "%s.%s.count", prefix, f->key);
		return;
	}
	if (!valid_count(sum)) {
		add(dv, sec, sum, "%s.%s.sum", prefix, f->key);
		return;
	}
	if (f->diff_sum)
		add(dv, sec, sum, "%s.%s", prefix, f->diff_sum);
	add_ratio(dv, sec, sum, count, "%s.%s", prefix, f->diff);
}

/* one value of row @f, found at @val, named PREFIX.<diff> */
static void add_field(struct diff_values *dv, const struct pts_field *f,
		      json_object *val, const char *prefix, int label)
{
	const char *sec = f->section->key;
	double v;

	if (!f->diff || !val)
		return;
	dv->field = f;
	dv->label = label;
	dv->found_needs |= f->needs_any;
	if (f->kind == PTS_FIELD_HIST) {
		add_hist(dv, f, val, prefix);
	} else if (is_number(val)) {
		v = json_object_get_double(val);
		add(dv, sec, v, "%s.%s", prefix, f->diff);
		if (f->per_mremap)
			add_ratio(dv, sec, v, dv->mremap_calls,
				  "%s.%s_per_mremap", prefix, f->diff);
	}
	dv->field = NULL;
	dv->label = -1;
}

/* "classes": { "pmd": { key: ... } } as PREFIX.pmd.<diff> */
static void flatten_by_class(struct diff_values *dv, const struct pts_field *f,
			     json_object *sec)
{
	const char *prefix = f->section->diff;
	json_object *classes = get(sec, "classes");
	char name[DIFF_NAME_LEN];

	if (f->json_total)
		add_field(dv, f, get(sec, f->key), prefix, -1);
	if (!is_object(classes))
		return;
	json_object_object_foreach(classes, class, stats) {
		snprintf(name, sizeof(name), "%s.%.60s", prefix, class);
		add_field(dv, f, get(stats, f->key), name, -1);
	}
}

/* "orders": [ { "order": 9, key: ... } ] as PREFIX.order9.<diff> */
static void flatten_by_order(struct diff_values *dv, const struct pts_field *f,
			     json_object *sec)
{
	json_object *orders = get(sec, "orders"), *stats;
	char name[DIFF_NAME_LEN];
	double order;
	size_t i;

	if (!orders || !json_object_is_type(orders, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(orders); i++) {
		stats = json_object_array_get_idx(orders, i);
		if (!get_num(stats, "order", &order) || order < 0 || order > 64)
			continue;
		snprintf(name, sizeof(name), "%s.order%u", f->section->diff,
			 (unsigned int)order);
		add_field(dv, f, get(stats, f->key), name, (int)order);
	}
}

/* every result as PREFIX.<result>, and their sum as PREFIX.total */
static void flatten_by_result(struct diff_values *dv, const struct pts_field *f,
			      json_object *sec)
{
	double total;

	dv->field = f;
	total = add_numbers(dv, f->section->key, sec, f->section->diff);
	add(dv, f->section->key, total, "%s.total", f->section->diff);
	dv->field = NULL;
}

/* the schema's rows, read back from the recording's "counters" */
static void flatten_fields(struct diff_values *dv)
{
	const struct pts_field *f;
	json_object *sec;
	size_t i;

	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		sec = get(dv->counters, f->section->key);
		if (!sec)
			continue;
		switch (f->label) {
		case PTS_LABEL_CLASS:
			flatten_by_class(dv, f, sec);
			break;
		case PTS_LABEL_ORDER:
			flatten_by_order(dv, f, sec);
			break;
		case PTS_LABEL_RESULT:
			flatten_by_result(dv, f, sec);
			break;
		default:
			add_field(dv, f, get(sec, f->key), f->section->diff, -1);
			break;
		}
	}
}

static const struct diff_value *find_value(const struct diff_values *dv,
					   const char *name);

/* "mremap%s.calls" with @part for "%s" */
static void derived_name(char *buf, size_t len, const char *fmt,
			 const char *part)
{
	const char *at = strstr(fmt, "%s");

	if (!at) {
		snprintf(buf, len, "%s", fmt);
		return;
	}
	snprintf(buf, len, "%.*s%s%s", (int)(at - fmt), fmt, part, at + 2);
}

static bool derived_value(const struct diff_values *dv, const char *fmt,
			  const char *part, double *value)
{
	const struct diff_value *v;
	char name[DIFF_NAME_LEN];

	derived_name(name, sizeof(name), fmt, part);
	v = find_value(dv, name);
	if (v)
		*value = v->value;
	return v != NULL;
}

static void add_derived_one(struct diff_values *dv, const struct pts_derived *d,
			    const char *part)
{
	double num, den, plus = 0;
	char name[DIFF_NAME_LEN];

	if (!derived_value(dv, d->num, part, &num) ||
	    !derived_value(dv, d->den, part, &den) ||
	    (d->den_plus && !derived_value(dv, d->den_plus, part, &plus)))
		return;
	derived_name(name, sizeof(name), d->name, part);
	add_ratio(dv, NULL, d->scale * num, den + plus, "%s", name);
}

/* the schema's ratios, once per class or order the recording has */
static void flatten_derived(struct diff_values *dv)
{
	const struct pts_derived *d;
	json_object *classes = get(get(dv->counters, "mremap"), "classes");
	char part[DIFF_NAME_LEN];
	size_t i;
	int order;

	for (i = 0; i < pts_nr_derived; i++) {
		d = &pts_derived[i];
		if (d->label == PTS_LABEL_NONE) {
			add_derived_one(dv, d, "");
		} else if (d->label == PTS_LABEL_CLASS && is_object(classes)) {
			json_object_object_foreach(classes, class, stats) {
				(void)stats;
				snprintf(part, sizeof(part), ".%.60s", class);
				add_derived_one(dv, d, part);
			}
		} else if (d->label == PTS_LABEL_ORDER) {
			for (order = 0; order <= 64; order++) {
				snprintf(part, sizeof(part), ".order%d", order);
				add_derived_one(dv, d, part);
			}
		}
	}
}

/* the kernel's own THP counters over the run, by group (vmstat, sizes) */
static void flatten_kernel(struct diff_values *dv)
{
	json_object *groups = get(dv->rec, "kernel_counters");
	char prefix[DIFF_NAME_LEN];

	if (!is_object(groups))
		return;
	json_object_object_foreach(groups, group, counters) {
		snprintf(prefix, sizeof(prefix), "kernel.%.60s", group);
		add_numbers(dv, NULL, counters, prefix);
	}
}

static int flatten(struct diff_values *dv, json_object *rec)
{
	const struct pts_field *calls = schema_find("mremap", "calls");

	memset(dv, 0, sizeof(*dv));
	dv->rec = rec;
	dv->counters = get(rec, "counters");
	dv->mremap_calls = -1;
	dv->label = -1;
	get_num(get(rec, "run"), "seconds", &dv->seconds);
	get_num(get(dv->counters, calls->section->key), calls->key,
		&dv->mremap_calls);
	flatten_run(dv);
	flatten_fields(dv);
	flatten_derived(dv);
	flatten_kernel(dv);
	return dv->err;
}

void diff_slim_recording(json_object *rec)
{
	json_object *counters = get(rec, "counters");
	json_object *procs = get(counters, "processes"), *nulls;
	size_t n;

	if (!procs || !json_object_is_type(procs, json_type_array))
		return;
	n = json_object_array_length(procs);
	nulls = json_object_new_array_ext((int)n);
	if (!nulls)
		return;		/* keep the original: same result, more memory */
	if (n && json_object_array_put_idx(nulls, n - 1, NULL)) {
		json_object_put(nulls);
		return;
	}
	json_object_object_add(counters, "processes", nulls);	/* frees it */
}

static const struct diff_value *find_value(const struct diff_values *dv,
					   const char *name)
{
	size_t i;

	for (i = 0; i < dv->nr; i++)
		if (!strcmp(dv->v[i].name, name))
			return &dv->v[i];
	return NULL;
}

/*
 * Does @dv's recording say @v is 0 by leaving it out?  Results and folio
 * orders are written only when shown (schema_label_shown(): seen, or
 * always shown); order 0 and the rows bound to the fault functions only
 * where those are traced (the recording has such a row).
 */
static bool absent_means_zero(const struct diff_values *dv,
			      const struct diff_value *v)
{
	const struct pts_field *f = v->field;
	bool outcomes = dv->found_needs & (PTS_CFG_FAULT_FUNCS | PTS_CFG_FAULT_TP);

	if (!f || v->ratio || f->kind == PTS_FIELD_HIST ||
	    !get(dv->counters, f->section->key))
		return false;
	if (f->label == PTS_LABEL_RESULT)
		return true;
	if (f->label != PTS_LABEL_ORDER || (f->needs_any && !outcomes))
		return false;
	return v->label != 0 || outcomes;
}

/* ---- the result ---- */

static int add_row(struct diff_result *res, const char *name, double base,
		   double new)
{
	struct diff_row *row;

	if (base == 0 && new == 0)
		return 0;
	row = grow(&res->rows, &res->nr_rows, &res->cap_rows, sizeof(*row));
	if (!row)
		return -ENOMEM;
	snprintf(row->name, sizeof(row->name), "%s", name);
	row->val[DIFF_BASE] = base;
	row->val[DIFF_NEW] = new;
	row->change_pct = NAN;
	if (base == 0) {
		row->change = DIFF_APPEARED;
	} else if (new == 0) {
		row->change = DIFF_GONE;
	} else {
		row->change = DIFF_CHANGED;
		row->change_pct = (new - base) / fabs(base) * 100;
	}
	return 0;
}

__attribute__((format(printf, 6, 7)))
static int add_only(struct diff_result *res, enum diff_side side,
		    const char *name, bool has_value, double value,
		    const char *fmt, ...)
{
	struct diff_only *only;
	va_list ap;

	only = grow(&res->only, &res->nr_only, &res->cap_only, sizeof(*only));
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

	note = grow(&res->notes, &res->nr_notes, &res->cap_notes, sizeof(*note));
	if (!note)
		return -ENOMEM;
	va_start(ap, fmt);
	vsnprintf(*note, sizeof(*note), fmt, ap);
	va_end(ap);
	return 0;
}

/* @v is in the @have recording only; @other is the one without it */
static int join_missing(struct diff_result *res, enum diff_side have,
			const struct diff_value *v,
			const struct diff_values *other)
{
	double val[DIFF_SIDES];

	if (v->section && !get(other->counters, v->section))
		return 0;	/* metric unavailable there: one entry for all */
	if (absent_means_zero(other, v)) {
		val[have] = v->value;
		val[!have] = 0;
		return add_row(res, v->name, val[DIFF_BASE], val[DIFF_NEW]);
	}
	if (v->ratio || v->value == 0)
		return 0;	/* undefined there, or nothing to tell */
	return add_only(res, have, v->name, true, v->value,
			"not recorded in %s", diff_side_name[!have]);
}

static int join_values(struct diff_result *res,
		       const struct diff_values dv[DIFF_SIDES])
{
	const struct diff_value *v, *match;
	size_t i;
	int err;

	for (i = 0; i < dv[DIFF_BASE].nr; i++) {
		v = &dv[DIFF_BASE].v[i];
		match = find_value(&dv[DIFF_NEW], v->name);
		if (match)
			err = add_row(res, v->name, v->value, match->value);
		else
			err = join_missing(res, DIFF_BASE, v, &dv[DIFF_NEW]);
		if (err)
			return err;
	}
	for (i = 0; i < dv[DIFF_NEW].nr; i++) {
		v = &dv[DIFF_NEW].v[i];
		if (find_value(&dv[DIFF_BASE], v->name))
			continue;
		err = join_missing(res, DIFF_NEW, v, &dv[DIFF_BASE]);
		if (err)
			return err;
	}
	return 0;
}

static bool metric_attached(json_object *metric)
{
	const char *status = get_str(metric, "status");

	return status && strcmp(status, "unavailable");
}

/* attached in both: say so when they were measured differently */
static int note_method(struct diff_result *res, const char *name,
		       json_object *const metric[DIFF_SIDES])
{
	const char *status[DIFF_SIDES], *probe[DIFF_SIDES];
	int side;

	for (side = 0; side < DIFF_SIDES; side++) {
		status[side] = get_str(metric[side], "status");
		probe[side] = get_str(metric[side], "probe");
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
	reason = get_str(lacking, "reason");
	return add_only(res, have, name, false, 0, "unavailable in %s: %s",
			diff_side_name[!have], reason ? reason : "no reason recorded");
}

static int compare_metrics(struct diff_result *res,
			   json_object *const rec[DIFF_SIDES])
{
	json_object *base_cat = get(rec[DIFF_BASE], "metrics");
	json_object *new_cat = get(rec[DIFF_NEW], "metrics");
	json_object *metric[DIFF_SIDES];
	int err;

	json_object_object_foreach(base_cat, base_name, base_metric) {
		metric[DIFF_BASE] = base_metric;
		metric[DIFF_NEW] = get(new_cat, base_name);
		err = compare_metric(res, base_name, metric);
		if (err)
			return err;
	}
	json_object_object_foreach(new_cat, new_name, new_metric) {
		if (get(base_cat, new_name))
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
	json_object *base_thp = get(get(rec[DIFF_BASE], "system"), "thp");
	json_object *new_thp = get(get(rec[DIFF_NEW], "system"), "thp");
	json_object *base_sizes = get(base_thp, "sizes");
	json_object *new_sizes = get(new_thp, "sizes");
	int err;

	err = compare_setting(res, "enabled", get_str(base_thp, "enabled"),
			      get_str(new_thp, "enabled"));
	if (!err)
		err = compare_setting(res, "defrag", get_str(base_thp, "defrag"),
				      get_str(new_thp, "defrag"));
	if (err)
		return err;
	if (is_object(base_sizes)) {
		json_object_object_foreach(base_sizes, size, base_val) {
			err = compare_setting(res, size, json_object_get_string(base_val),
					      get_str(new_sizes, size));
			if (err)
				return err;
		}
	}
	if (is_object(new_sizes)) {
		json_object_object_foreach(new_sizes, size, new_val) {
			if (get(base_sizes, size))
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
	const struct diff_run *run = res->run;
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

static void read_run(struct diff_run *run, json_object *rec)
{
	json_object *sys = get(rec, "system"), *r = get(rec, "run");
	const char *kernel = get_str(sys, "kernel");
	const char *machine = get_str(sys, "machine");
	const char *command = get_str(r, "command");
	double status = 0;

	snprintf(run->kernel, sizeof(run->kernel), "%s", kernel ? kernel : "unknown");
	snprintf(run->machine, sizeof(run->machine), "%s",
		 machine ? machine : "unknown");
	snprintf(run->command, sizeof(run->command), "%s", command ? command : "?");
	get_num(r, "seconds", &run->seconds);
	get_num(r, "exit_status", &status);
	run->exit_status = (int)status;
}

/* ---- checks ---- */

__attribute__((format(printf, 3, 4)))
static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* a JSON object with an integer ptscope_version */
static int check_version(json_object *rec, const char *label, char *err,
			 size_t errlen)
{
	json_object *version = get(rec, "ptscope_version");

	if (!is_object(rec))
		return fail(err, errlen, "%s is not a ptscope recording "
			    "(its JSON is not an object)", label);
	if (!version)
		return fail(err, errlen, "%s has no ptscope_version (not a "
			    "'ptscope stat --json' recording)", label);
	if (!json_object_is_type(version, json_type_int))
		return fail(err, errlen, "%s: ptscope_version is not an integer",
			    label);
	return 0;
}

/* the sections a stat recording has and diff reads */
static const struct {
	const char *parent;
	const char *key;
	bool object;		/* else a number */
} stat_fields[] = {
	{ NULL, "run", true },
	{ "run", "seconds", false },
	{ NULL, "system", true },
	{ "system", "page_size", false },
	{ NULL, "metrics", true },
	{ NULL, "counters", true },
};

int diff_check_recording(json_object *rec, const char *label, char *err,
			 size_t errlen)
{
	json_object *parent, *field;
	int64_t version;
	size_t i;
	int ret;

	ret = check_version(rec, label, err, errlen);
	if (ret)
		return ret;
	version = json_object_get_int64(get(rec, "ptscope_version"));
	if (version != DIFF_FORMAT_VERSION)
		return fail(err, errlen, "%s is ptscope_version %lld; this ptscope "
			    "reads version %d", label, (long long)version,
			    DIFF_FORMAT_VERSION);
	for (i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++) {
		parent = stat_fields[i].parent ? get(rec, stat_fields[i].parent) : rec;
		field = get(parent, stat_fields[i].key);
		if (stat_fields[i].object ? is_object(field) : is_number(field))
			continue;
		return fail(err, errlen, "%s is not a 'ptscope stat --json' "
			    "recording: no %s%s%s", label,
			    stat_fields[i].parent ? stat_fields[i].parent : "",
			    stat_fields[i].parent ? "." : "", stat_fields[i].key);
	}
	return 0;
}

static int check_pair(json_object *const rec[DIFF_SIDES],
		      const char *const labels[DIFF_SIDES], char *err,
		      size_t errlen)
{
	int64_t version[DIFF_SIDES], page_size[DIFF_SIDES];
	int side, ret;

	for (side = 0; side < DIFF_SIDES; side++) {
		ret = check_version(rec[side], labels[side], err, errlen);
		if (ret)
			return ret;
		version[side] = json_object_get_int64(get(rec[side], "ptscope_version"));
	}
	if (version[DIFF_BASE] != version[DIFF_NEW])
		return fail(err, errlen, "%s is ptscope_version %lld, %s is "
			    "ptscope_version %lld: recordings of different formats",
			    labels[DIFF_BASE], (long long)version[DIFF_BASE],
			    labels[DIFF_NEW], (long long)version[DIFF_NEW]);
	for (side = 0; side < DIFF_SIDES; side++) {
		ret = diff_check_recording(rec[side], labels[side], err, errlen);
		if (ret)
			return ret;
		page_size[side] = json_object_get_int64(
			get(get(rec[side], "system"), "page_size"));
	}
	if (page_size[DIFF_BASE] != page_size[DIFF_NEW])
		return fail(err, errlen, "%s has %lld-byte pages, %s has %lld-byte "
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

int diff_compare(json_object *base, json_object *new,
		 const char *const labels[DIFF_SIDES], struct diff_result *res,
		 char *err, size_t errlen)
{
	json_object *const rec[DIFF_SIDES] = { base, new };
	struct diff_values dv[DIFF_SIDES] = {};
	int side, ret;

	memset(res, 0, sizeof(*res));
	ret = check_pair(rec, labels, err, errlen);
	if (ret)
		return ret;
	for (side = 0; side < DIFF_SIDES; side++) {
		read_run(&res->run[side], rec[side]);
		ret = flatten(&dv[side], rec[side]);
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s is not a valid recording: %s is "
				 "%g, not a count from 0 to 2^64-1", labels[side],
				 dv[side].bad_name, dv[side].bad_value);
		if (ret)
			goto out;
	}
	ret = join_values(res, dv);
	if (!ret)
		ret = compare_metrics(res, rec);
	if (!ret)
		ret = compare_setup(res, rec);
	if (!ret) {
		diff_sort_rows(res->rows, res->nr_rows);
		if (res->nr_only)
			qsort(res->only, res->nr_only, sizeof(*res->only),
			      only_cmp);
	}
out:
	for (side = 0; side < DIFF_SIDES; side++)
		free(dv[side].v);
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

static double significance(const struct diff_row *row)
{
	return row->change == DIFF_CHANGED ? fabs(row->change_pct) : INFINITY;
}

static int row_cmp(const void *a, const void *b)
{
	const struct diff_row *ra = a, *rb = b;
	double sa = significance(ra), sb = significance(rb);

	if (sa != sb)
		return sa > sb ? -1 : 1;
	return strcmp(ra->name, rb->name);
}

void diff_sort_rows(struct diff_row *rows, size_t nr)
{
	if (nr)
		qsort(rows, nr, sizeof(*rows), row_cmp);
}

bool diff_row_significant(const struct diff_row *row)
{
	return significance(row) >= DIFF_SIGNIFICANT_PCT;
}

bool diff_kernels_differ(const struct diff_result *res)
{
	return strcmp(res->run[DIFF_BASE].kernel, res->run[DIFF_NEW].kernel) != 0;
}

/* ---- formatting ---- */

const char *diff_fmt_value(char *buf, size_t len, double value)
{
	double mag = fabs(value);

	if (mag < 1e15 && value == floor(value))
		snprintf(buf, len, "%.0f", value);
	else if (mag >= 100 && mag < 1e15)
		snprintf(buf, len, "%.1f", value);
	else
		snprintf(buf, len, "%.3g", value);
	return buf;
}

const char *diff_fmt_change(char *buf, size_t len, const struct diff_row *row)
{
	switch (row->change) {
	case DIFF_APPEARED:
		snprintf(buf, len, "new");
		break;
	case DIFF_GONE:
		snprintf(buf, len, "gone");
		break;
	default:
		if (fabs(row->change_pct) < 0.05)
			snprintf(buf, len, "0.0%%");
		else
			snprintf(buf, len, "%+.1f%%", row->change_pct);
		break;
	}
	return buf;
}

/*
 * Integral values as JSON integers (400, not 400.0), others with ten
 * significant digits; NULL (JSON null) for what is not a number.
 */
static json_object *json_number(double value)
{
	char text[32];

	if (!isfinite(value))
		return NULL;
	if (fabs(value) < 9e15 && value == floor(value))
		return json_object_new_int64((int64_t)value);
	snprintf(text, sizeof(text), "%.10g", value);
	return json_object_new_double_s(value, text);
}

static json_object *run_json(const struct diff_run *run, const char *label)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "file", json_object_new_string(label));
	json_object_object_add(obj, "kernel", fmt_json_string(run->kernel));
	json_object_object_add(obj, "machine", fmt_json_string(run->machine));
	json_object_object_add(obj, "command", fmt_json_string(run->command));
	json_object_object_add(obj, "seconds", json_number(run->seconds));
	json_object_object_add(obj, "exit_status",
			       json_object_new_int(run->exit_status));
	return obj;
}

static json_object *row_json(const struct diff_row *row)
{
	json_object *obj = json_object_new_object();
	char change[32];

	json_object_object_add(obj, "metric", fmt_json_string(row->name));
	json_object_object_add(obj, "base", json_number(row->val[DIFF_BASE]));
	json_object_object_add(obj, "new", json_number(row->val[DIFF_NEW]));
	/* null when base is 0: the change is "new" or "gone", not a number */
	json_object_object_add(obj, "change_pct", row->change == DIFF_CHANGED ?
			       json_number(row->change_pct) : NULL);
	json_object_object_add(obj, "change", json_object_new_string(
				       diff_fmt_change(change, sizeof(change), row)));
	json_object_object_add(obj, "significant",
			       json_object_new_boolean(diff_row_significant(row)));
	return obj;
}

static json_object *only_json(const struct diff_only *only)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "metric", fmt_json_string(only->name));
	json_object_object_add(obj, "only_in",
			       json_object_new_string(diff_side_name[only->side]));
	if (only->has_value)
		json_object_object_add(obj, "value", json_number(only->value));
	json_object_object_add(obj, "reason", fmt_json_string(only->reason));
	return obj;
}

json_object *diff_result_json(const struct diff_result *res,
			      const char *const labels[DIFF_SIDES])
{
	json_object *root = json_object_new_object();
	json_object *rows = json_object_new_array();
	json_object *only = json_object_new_array();
	json_object *notes = json_object_new_array();
	size_t i;

	json_object_object_add(root, "base", run_json(&res->run[DIFF_BASE],
						      labels[DIFF_BASE]));
	json_object_object_add(root, "new", run_json(&res->run[DIFF_NEW],
						     labels[DIFF_NEW]));
	json_object_object_add(root, "kernels_differ",
			       json_object_new_boolean(diff_kernels_differ(res)));
	json_object_object_add(root, "significant_pct",
			       json_number(DIFF_SIGNIFICANT_PCT));
	for (i = 0; i < res->nr_notes; i++)
		json_object_array_add(notes, fmt_json_string(res->notes[i]));
	json_object_object_add(root, "notes", notes);
	for (i = 0; i < res->nr_rows; i++)
		json_object_array_add(rows, row_json(&res->rows[i]));
	json_object_object_add(root, "rows", rows);
	for (i = 0; i < res->nr_only; i++)
		json_object_array_add(only, only_json(&res->only[i]));
	json_object_object_add(root, "only", only);
	return root;
}
