// SPDX-License-Identifier: GPL-2.0
/*
 * A stat recording as diff reads it: checked, and every run flattened
 * into named values.
 *
 * A value missing from a run is never taken as zero unless the recording
 * says so by leaving it out (collapse results and fault orders are
 * written only when nonzero): rec_absent_means_zero().
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/recording.h"
#include "data/grow.h"

/* the state of flattening one run */
struct rec_flat {
	struct rec_run *run;
	json_object *kernel_counters;
	double mremap_calls;	/* < 0: mremap not recorded */
	const struct pts_field *field;	/* the row being flattened */
	int label;
	enum rec_kind kind;	/* of the values being added */
	enum rec_unit unit;
	int err;		/* -ENOMEM once an add failed, -EINVAL */
	char bad_name[REC_NAME_LEN];	/* -EINVAL: the first invalid value */
	double bad_value;
};

json_object *rec_get(json_object *obj, const char *key)
{
	json_object *val;

	if (!json_object_is_type(obj, json_type_object) ||
	    !json_object_object_get_ex(obj, key, &val))
		return NULL;
	return val;
}

bool rec_is_object(json_object *obj)
{
	return obj && json_object_is_type(obj, json_type_object);
}

bool rec_is_number(json_object *obj)
{
	return obj && (json_object_is_type(obj, json_type_int) ||
		       json_object_is_type(obj, json_type_double));
}

bool rec_get_num(json_object *obj, const char *key, double *val)
{
	json_object *field = rec_get(obj, key);

	if (!rec_is_number(field))
		return false;
	*val = json_object_get_double(field);
	return true;
}

const char *rec_get_str(json_object *obj, const char *key)
{
	json_object *field = rec_get(obj, key);

	if (!field || !json_object_is_type(field, json_type_string))
		return NULL;
	return json_object_get_string(field);
}

const struct rec_value *rec_run_find(const struct rec_run *run,
				     const char *name)
{
	size_t i;

	for (i = 0; i < run->nr; i++)
		if (!strcmp(run->v[i].name, name))
			return &run->v[i];
	return NULL;
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

static void vadd(struct rec_flat *dv, const char *section, bool ratio,
		 double value, const char *fmt, va_list ap)
{
	struct rec_value *v;

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
	if (grow_for_one((void **)&dv->run->v, &dv->run->cap, dv->run->nr,
			 sizeof(*v))) {
		dv->err = -ENOMEM;
		return;
	}
	v = &dv->run->v[dv->run->nr++];
	memset(v, 0, sizeof(*v));
	vsnprintf(v->name, sizeof(v->name), fmt, ap);
	v->value = value;
	v->section = section;
	v->ratio = ratio;
	v->field = dv->field;
	v->label = dv->label;
	v->kind = dv->kind;
	v->unit = dv->unit;
}

/* the kind and unit of the values added next */
static void measure(struct rec_flat *dv, enum rec_kind kind,
		    enum rec_unit unit)
{
	dv->kind = kind;
	dv->unit = unit;
}

__attribute__((format(printf, 4, 5)))
static void add(struct rec_flat *dv, const char *section, double value,
		const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vadd(dv, section, false, value, fmt, ap);
	va_end(ap);
}

/* @num / @den; nothing when @den is 0: a mean of nothing is not zero */
__attribute__((format(printf, 5, 6)))
static void add_ratio(struct rec_flat *dv, const char *section, double num,
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
static double add_numbers(struct rec_flat *dv, const char *section,
			  json_object *obj, const char *prefix)
{
	double sum = 0;

	if (!rec_is_object(obj))
		return 0;
	json_object_object_foreach(obj, key, val) {
		if (!rec_is_number(val))
			continue;
		add(dv, section, json_object_get_double(val), "%s.%s", prefix,
		    key);
		sum += json_object_get_double(val);
	}
	return sum;
}

/*
 * run.processes: the processes with traced events.  A run that traced
 * none says nothing of how many processes ran (the same single one may
 * have), so it has no such value rather than a 0 that diff would call
 * "new" against a side with events.
 */
static void flatten_run(struct rec_flat *dv)
{
	json_object *procs = rec_get(dv->run->counters, "processes");
	size_t n;

	measure(dv, REC_TIME, REC_UNIT_SECONDS);
	add(dv, NULL, dv->run->seconds, "run.seconds");
	measure(dv, REC_COUNT, REC_UNIT_COUNT);
	if (!procs || !json_object_is_type(procs, json_type_array))
		return;
	n = json_object_array_length(procs);
	if (!n)
		return;
	add(dv, NULL, n, "run.processes");
	if (!dv->err)
		dv->run->v[dv->run->nr - 1].events_only = true;
}

/*
 * A histogram {count, sum} as PREFIX.<diff> (its mean) and, when the row
 * says so, PREFIX.<diff_sum>.
 */
static void add_hist(struct rec_flat *dv, const struct pts_field *f,
		     json_object *hist, const char *prefix)
{
	const char *sec = f->section->key;
	double count, sum;

	if (!rec_get_num(hist, "count", &count) || !rec_get_num(hist, "sum", &sum))
		return;
	if (f->unit == PTS_UNIT_NS)
		measure(dv, REC_TIME, REC_UNIT_NS);
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
static void add_field(struct rec_flat *dv, const struct pts_field *f,
		      json_object *val, const char *prefix, int label)
{
	const char *sec = f->section->key;
	double v;

	if (!f->diff || !val)
		return;
	dv->field = f;
	dv->label = label;
	dv->run->found_needs |= f->needs_any;
	if (f->unit == PTS_UNIT_BYTES)
		measure(dv, REC_COUNT, REC_UNIT_BYTES);
	if (f->kind == PTS_FIELD_HIST) {
		add_hist(dv, f, val, prefix);
	} else if (rec_is_number(val)) {
		v = json_object_get_double(val);
		add(dv, sec, v, "%s.%s", prefix, f->diff);
		if (f->per_mremap)
			add_ratio(dv, sec, v, dv->mremap_calls,
				  "%s.%s_per_mremap", prefix, f->diff);
	}
	dv->field = NULL;
	dv->label = -1;
	measure(dv, REC_COUNT, REC_UNIT_COUNT);
}

/* "classes": { "pmd": { key: ... } } as PREFIX.pmd.<diff> */
static void flatten_by_class(struct rec_flat *dv, const struct pts_field *f,
			     json_object *sec)
{
	const char *prefix = f->section->diff;
	json_object *classes = rec_get(sec, "classes");
	char name[REC_NAME_LEN];

	if (f->json_total)
		add_field(dv, f, rec_get(sec, f->key), prefix, -1);
	if (!rec_is_object(classes))
		return;
	json_object_object_foreach(classes, class, stats) {
		snprintf(name, sizeof(name), "%s.%.60s", prefix, class);
		add_field(dv, f, rec_get(stats, f->key), name, -1);
	}
}

/* "orders": [ { "order": 9, key: ... } ] as PREFIX.order9.<diff> */
static void flatten_by_order(struct rec_flat *dv, const struct pts_field *f,
			     json_object *sec)
{
	json_object *orders = rec_get(sec, "orders"), *stats;
	char name[REC_NAME_LEN];
	double order;
	size_t i;

	if (!orders || !json_object_is_type(orders, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(orders); i++) {
		stats = json_object_array_get_idx(orders, i);
		if (!rec_get_num(stats, "order", &order) || order < 0 || order > 64)
			continue;
		snprintf(name, sizeof(name), "%s.order%u", f->section->diff,
			 (unsigned int)order);
		add_field(dv, f, rec_get(stats, f->key), name, (int)order);
	}
}

/* every result as PREFIX.<result>, and their sum as PREFIX.total */
static void flatten_by_result(struct rec_flat *dv, const struct pts_field *f,
			      json_object *sec)
{
	double total;

	dv->field = f;
	measure(dv, REC_SYSTEM, REC_UNIT_COUNT);
	total = add_numbers(dv, f->section->key, sec, f->section->diff);
	add(dv, f->section->key, total, "%s.total", f->section->diff);
	dv->field = NULL;
	measure(dv, REC_COUNT, REC_UNIT_COUNT);
}

/* the schema's rows, read back from the recording's "counters" */
static void flatten_fields(struct rec_flat *dv)
{
	const struct pts_field *f;
	json_object *sec;
	size_t i;

	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		sec = rec_get(dv->run->counters, f->section->key);
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
			add_field(dv, f, rec_get(sec, f->key), f->section->diff, -1);
			break;
		}
	}
}

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

/*
 * the value named @fmt with @part; its kind raises *@kind to the noisiest,
 * and *@unit is its unit
 */
static bool derived_value(const struct rec_flat *dv, const char *fmt,
			  const char *part, double *value, enum rec_kind *kind,
			  enum rec_unit *unit)
{
	const struct rec_value *v;
	char name[REC_NAME_LEN];

	derived_name(name, sizeof(name), fmt, part);
	v = rec_run_find(dv->run, name);
	if (!v)
		return false;
	*value = v->value;
	if (v->kind > *kind)
		*kind = v->kind;
	*unit = v->unit;
	return true;
}

static void add_derived_one(struct rec_flat *dv, const struct pts_derived *d,
			    const char *part)
{
	enum rec_unit num_unit, den_unit, unit;
	enum rec_kind kind = REC_COUNT;
	double num, den, plus = 0;
	char name[REC_NAME_LEN];

	if (!derived_value(dv, d->num, part, &num, &kind, &num_unit) ||
	    !derived_value(dv, d->den, part, &den, &kind, &den_unit) ||
	    (d->den_plus &&
	     !derived_value(dv, d->den_plus, part, &plus, &kind, &den_unit)))
		return;
	/* bytes per call, ns per PTE, calls per second, fallbacks per 100 */
	unit = num_unit;
	if (den_unit == REC_UNIT_SECONDS)
		unit = REC_UNIT_PER_SEC;
	else if (d->scale == 100)
		unit = REC_UNIT_PCT;
	derived_name(name, sizeof(name), d->name, part);
	measure(dv, kind, unit);
	add_ratio(dv, NULL, d->scale * num, den + plus, "%s", name);
	measure(dv, REC_COUNT, REC_UNIT_COUNT);
}

/* the schema's ratios, once per class or order the recording has */
static void flatten_derived(struct rec_flat *dv)
{
	const struct pts_derived *d;
	json_object *classes = rec_get(rec_get(dv->run->counters, "mremap"), "classes");
	char part[REC_NAME_LEN];
	size_t i;
	int order;

	for (i = 0; i < pts_nr_derived; i++) {
		d = &pts_derived[i];
		if (d->label == PTS_LABEL_NONE) {
			add_derived_one(dv, d, "");
		} else if (d->label == PTS_LABEL_CLASS && rec_is_object(classes)) {
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
static void flatten_kernel(struct rec_flat *dv)
{
	json_object *groups = dv->kernel_counters;
	char prefix[REC_NAME_LEN];

	if (!rec_is_object(groups))
		return;
	json_object_object_foreach(groups, group, counters) {
		snprintf(prefix, sizeof(prefix), "kernel.%.60s", group);
		measure(dv, REC_SYSTEM, REC_UNIT_COUNT);
		add_numbers(dv, NULL, counters, prefix);
		measure(dv, REC_COUNT, REC_UNIT_COUNT);
	}
}

/*
 * The mean of the reference's two timings around a run: 0 unless both
 * are there and valid (a version 2 recording has none)
 */
static double read_reference(json_object *obj)
{
	json_object *ref = rec_get(obj, "reference");
	double before, after;

	if (!rec_get_num(ref, "before_s", &before) ||
	    !rec_get_num(ref, "after_s", &after) || !(before > 0) ||
	    !(after > 0) || !isfinite(before + after))
		return 0;
	return (before + after) / 2;
}

/* one run: its counters, kernel counters, seconds and exit status */
static int flatten_run_values(struct rec_run *run, json_object *obj,
			      json_object *counters, json_object *kernel,
			      struct rec_flat *dv)
{
	const struct pts_field *calls = schema_find("mremap", "calls");
	double status = 0;

	memset(dv, 0, sizeof(*dv));
	run->counters = counters;
	rec_get_num(obj, "seconds", &run->seconds);
	rec_get_num(obj, "exit_status", &status);
	run->exit_status = (int)status;
	run->reference = read_reference(obj);
	dv->run = run;
	dv->kernel_counters = kernel;
	dv->mremap_calls = -1;
	dv->label = -1;
	rec_get_num(rec_get(counters, calls->section->key), calls->key,
		    &dv->mremap_calls);
	flatten_run(dv);
	flatten_fields(dv);
	flatten_derived(dv);
	flatten_kernel(dv);
	return dv->err;
}

/*
 * Does @run's recording say @v is 0 by leaving it out?  Results and folio
 * orders are written only when shown (schema_label_shown(): seen, or
 * always shown); order 0 and the rows bound to the fault functions only
 * where those are traced (the recording has such a row).
 */
bool rec_absent_means_zero(const struct rec_run *run, const struct rec_value *v)
{
	const struct pts_field *f = v->field;
	bool outcomes = run->found_needs & (PTS_CFG_FAULT_FUNCS | PTS_CFG_FAULT_TP);

	if (!f || v->ratio || f->kind == PTS_FIELD_HIST ||
	    !rec_get(run->counters, f->section->key))
		return false;
	if (f->label == PTS_LABEL_RESULT)
		return true;
	if (f->label != PTS_LABEL_ORDER || (f->needs_any && !outcomes))
		return false;
	return v->label != 0 || outcomes;
}

static void read_header(struct rec_header *h, json_object *rec)
{
	json_object *sys = rec_get(rec, "system"), *r = rec_get(rec, "run");
	const char *kernel = rec_get_str(sys, "kernel");
	const char *machine = rec_get_str(sys, "machine");
	const char *command = rec_get_str(r, "command");
	double status = 0;

	snprintf(h->kernel, sizeof(h->kernel), "%s", kernel ? kernel : "unknown");
	snprintf(h->machine, sizeof(h->machine), "%s",
		 machine ? machine : "unknown");
	snprintf(h->command, sizeof(h->command), "%s", command ? command : "?");
	rec_get_num(r, "seconds", &h->seconds);
	rec_get_num(r, "exit_status", &status);
	h->exit_status = (int)status;
	h->version = (int)json_object_get_int64(rec_get(rec, "ptscope_version"));
	rec_get_num(rec_get(rec, "reference"), "hash_rounds", &h->ref_hash_rounds);
	rec_get_num(rec_get(rec, "reference"), "getppid_calls", &h->ref_syscalls);
}

/* the runs to flatten: "runs", or the recording itself before them */
static size_t nr_runs(json_object *rec, int version)
{
	if (version < REC_RUNS_VERSION)
		return 1;
	return json_object_array_length(rec_get(rec, "runs"));
}

static json_object *run_object(json_object *rec, int version, size_t i)
{
	if (version < REC_RUNS_VERSION)
		return rec;
	return json_object_array_get_idx(rec_get(rec, "runs"), i);
}

int recording_flatten(json_object *rec, const char *label,
		      struct recording *out, char *err, size_t errlen)
{
	struct rec_flat dv;
	json_object *obj;
	size_t i, n;
	int ret;

	memset(out, 0, sizeof(*out));
	ret = recording_check(rec, label, err, errlen);
	if (ret)
		return ret;
	out->root = rec;
	read_header(&out->header, rec);
	n = nr_runs(rec, out->header.version);
	out->runs = calloc(n, sizeof(*out->runs));
	if (!out->runs)
		return -ENOMEM;
	out->nr_runs = n;
	for (i = 0; i < n; i++) {
		obj = run_object(rec, out->header.version, i);
		/* version 1: the seconds live in "run" */
		ret = flatten_run_values(&out->runs[i],
					 out->header.version < 2 ?
					 rec_get(rec, "run") : obj,
					 rec_get(obj, "counters"),
					 rec_get(obj, "kernel_counters"), &dv);
		if (ret == -EINVAL)
			snprintf(err, errlen, "%s is not a valid recording: %s is "
				 "%g, not a count from 0 to 2^64-1", label,
				 dv.bad_name, dv.bad_value);
		if (ret == -ENOMEM)
			snprintf(err, errlen, "out of memory");
		if (ret)
			return ret;
	}
	return 0;
}

void recording_free(struct recording *r)
{
	size_t i;

	for (i = 0; i < r->nr_runs; i++)
		free(r->runs[i].v);
	free(r->runs);
	memset(r, 0, sizeof(*r));
}

/* counters.processes of @counters as as many nulls */
static void slim_counters(json_object *counters)
{
	json_object *procs = rec_get(counters, "processes"), *nulls;
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

void recording_slim(json_object *rec)
{
	json_object *runs = rec_get(rec, "runs");
	size_t i;

	slim_counters(rec_get(rec, "counters"));
	if (!runs || !json_object_is_type(runs, json_type_array))
		return;
	for (i = 0; i < json_object_array_length(runs); i++)
		slim_counters(rec_get(json_object_array_get_idx(runs, i),
				      "counters"));
}
