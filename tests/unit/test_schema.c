// SPDX-License-Identifier: GPL-2.0
/*
 * One snapshot through every renderer (JSON, Prometheus, diff, text): each
 * must expose the same metric fields with the same values, and leave out
 * the same ones, for several attach paths and page sizes.  The expected
 * set comes from the snapshot and the schema; each renderer's output is
 * parsed back on its own terms.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/cgroup_names.h"
#include "data/counters.h"
#include "data/recording_compare.h"
#include "data/schema.h"
#include "export/prom.h"
#include "render/report.h"
#include "fake_engine.h"

#define NAME_LEN	160
#define MAX_VALUES	2048

/* "mremap_levels.pud_moved", "mremap.calls[pmd]", "...latency_ns[2M].sum" */
struct value {
	char name[NAME_LEN];
	double v;
};

struct value_set {
	struct value v[MAX_VALUES];
	size_t nr;
};

static struct pts_engine eng;
static struct pts_snapshot snap;
static uint64_t page_size;
static struct value_set want, got;

static void set_add(struct value_set *set, double v, const char *fmt, ...)
{
	va_list ap;

	assert_true(set->nr < MAX_VALUES);
	va_start(ap, fmt);
	vsnprintf(set->v[set->nr].name, NAME_LEN, fmt, ap);
	va_end(ap);
	set->v[set->nr++].v = v;
}

static const struct value *set_find(const struct value_set *set,
				    const char *name)
{
	size_t i;

	for (i = 0; i < set->nr; i++)
		if (!strcmp(set->v[i].name, name))
			return &set->v[i];
	return NULL;
}

/* every value of @a is in @b with the same number, and the other way */
static void assert_same_set(const struct value_set *a, const char *a_name,
			    const struct value_set *b, const char *b_name)
{
	const struct value *match;
	size_t i;

	for (i = 0; i < a->nr; i++) {
		match = set_find(b, a->v[i].name);
		if (!match)
			fail_msg("%s has %s, %s does not", a_name, a->v[i].name,
				 b_name);
		if (fabs(match->v - a->v[i].v) > 1e-6 * fabs(a->v[i].v))
			fail_msg("%s: %s says %.0f, %s says %.0f", a->v[i].name,
				 a_name, a->v[i].v, b_name, match->v);
	}
	for (i = 0; i < b->nr; i++)
		if (!set_find(a, b->v[i].name))
			fail_msg("%s has %s, %s does not", b_name, b->v[i].name,
				 a_name);
}

static const char *result_name(const void *ctx, int status)
{
	return status == 1 ? "SCAN_SUCCEED" : status == 3 ? "SCAN_PMD_NULL" :
	       NULL;
}

static struct pts_schema_ctx schema_ctx(void)
{
	struct pts_schema_ctx sc = {
		.eng = &eng,
		.page_size = page_size,
		.result_name = result_name,
	};

	return sc;
}

/* distinct values everywhere, some zero, so nothing matches by accident */
static void fill_snapshot(void)
{
	struct pts_hist *h;
	int i, s;

	memset(&snap, 0, sizeof(snap));
	for (i = 0; i < PTS_NR_COUNTERS; i++)
		snap.counters.v[i] = i % 11 == 5 ? 0 : 1000003 + 7919ULL * i;
	for (i = 0; i < PTS_NR_HISTS; i++) {
		h = &snap.hists.h[i];
		for (s = 2 + i % 5; s < 12 + i % 7; s++) {
			h->slots[s] = 3 + i + s;
			h->count += h->slots[s];
			h->sum += h->slots[s] * ((1ULL << s) + (uint64_t)i);
		}
	}
	snap.mono_s = 5;
}

/*
 * What every renderer must show: the schema's present fields, by label;
 * with @cg, its per-cgroup ones, named "CGROUP|section.key[label]".
 */
static void add_expected(struct value_set *set, const struct pts_cgroup_entry *cg)
{
	const struct pts_schema_ctx sc = schema_ctx();
	const struct pts_field *f;
	const struct pts_hist *h;
	char buf[32], prefix[40] = "", id[32];
	const char *label;
	unsigned int i;
	size_t r;

	if (cg)
		snprintf(prefix, sizeof(prefix), "%s|",
			 cgroup_label(id, sizeof(id), cg->path, cg->id));
	for (r = 0; r < pts_nr_fields; r++) {
		f = &pts_fields[r];
		if (!schema_section_attached(&sc, f->section) ||
		    !schema_field_present(&sc, f) ||
		    (cg && !schema_field_per_cgroup(f)))
			continue;
		for (i = 0; i < schema_label_count(f); i++) {
			if (f->label != PTS_LABEL_NONE &&
			    !schema_label_shown(&sc, f, &snap, i))
				continue;
			label = f->label == PTS_LABEL_NONE ? "" :
				schema_label_value(&sc, f, i, buf, sizeof(buf));
			if (f->kind == PTS_FIELD_COUNTER) {
				set_add(set, cg ? schema_cgroup_counter(f,
						&cg->stats, i) :
					schema_counter(f, &snap, i),
					"%s%s.%s[%s]", prefix, f->section->key,
					f->key, label);
				continue;
			}
			h = schema_hist(f, &snap, i);
			set_add(set, h->count, "%s.%s[%s].count",
				f->section->key, f->key, label);
			set_add(set, h->sum, "%s.%s[%s].sum", f->section->key,
				f->key, label);
		}
	}
}

static void expected(struct value_set *set)
{
	set->nr = 0;
	add_expected(set, NULL);
}

/* ---- JSON ---- */

static void json_value(struct value_set *set, json_object *val,
		       const char *sec, const char *key, const char *label)
{
	json_object *n;

	if (json_object_is_type(val, json_type_object)) {
		assert_true(json_object_object_get_ex(val, "count", &n));
		set_add(set, json_object_get_double(n), "%s.%s[%s].count", sec,
			key, label);
		assert_true(json_object_object_get_ex(val, "sum", &n));
		set_add(set, json_object_get_double(n), "%s.%s[%s].sum", sec,
			key, label);
		return;
	}
	set_add(set, json_object_get_double(val), "%s.%s[%s]", sec, key, label);
}

/* the collapse sections hold results, not named fields */
static bool result_section(const char *sec)
{
	return !strcmp(sec, "khugepaged_collapse") ||
	       !strcmp(sec, "madv_collapse");
}

static void json_section(struct value_set *set, const char *sec,
			 json_object *obj, struct value_set *totals)
{
	json_object *size;
	size_t i;

	json_object_object_foreach(obj, key, val) {
		if (!strcmp(key, "classes")) {
			json_object_object_foreach(val, class, fields) {
				json_object_object_foreach(fields, k, v)
					json_value(set, v, sec, k, class);
			}
		} else if (!strcmp(key, "orders")) {
			for (i = 0; i < json_object_array_length(val); i++) {
				json_object *o = json_object_array_get_idx(val, i);

				assert_true(json_object_object_get_ex(o, "size",
								      &size));
				json_object_object_foreach(o, k, v)
					if (strcmp(k, "size") && strcmp(k, "order"))
						json_value(set, v, sec, k,
							   json_object_get_string(size));
			}
		} else if (result_section(sec)) {
			json_value(set, val, sec, "", key);
		} else if (schema_find(sec, key) && schema_find(sec, key)->json_total) {
			json_value(totals, val, sec, key, "");	/* a class total */
		} else {
			json_value(set, val, sec, key, "");
		}
	}
}

static void from_json(struct value_set *set, struct value_set *totals)
{
	const struct pts_kfeatures kf = {};
	struct pts_report_input rep = { .eng = &eng, .kf = &kf,
					.page_size = page_size,
					.result_name = result_name };
	json_object *root = report_snapshot_json(&rep, &snap);

	set->nr = totals->nr = 0;
	json_object_object_foreach(root, sec, obj) {
		if (!strcmp(sec, "seconds") || !strcmp(sec, "processes") ||
		    !strcmp(sec, "cgroups"))
			continue;
		json_section(set, sec, obj, totals);
	}
	json_object_put(root);
}

/* ---- Prometheus ---- */

/* the schema row of series @family with @labels, and its label value */
static const struct pts_field *prom_row(const char *family, const char *labels,
					char *value, size_t len)
{
	const struct pts_field *f;
	char want_label[96];
	const char *at;
	size_t r;

	for (r = 0; r < pts_nr_fields; r++) {
		f = &pts_fields[r];
		if (strcmp(f->prom, family))
			continue;
		if (f->fixed_label) {
			snprintf(want_label, sizeof(want_label), "%s=\"%s\"",
				 f->fixed_label, f->fixed_value);
			if (!strstr(labels, want_label))
				continue;
			value[0] = '\0';
			return f;
		}
		if (f->label == PTS_LABEL_NONE) {
			value[0] = '\0';
			return f;
		}
		snprintf(want_label, sizeof(want_label), "%s=\"",
			 schema_label_name(f));
		at = strstr(labels, want_label);
		assert_non_null(at);
		at += strlen(want_label);
		snprintf(value, len, "%.*s", (int)strcspn(at, "\""), at);
		return f;
	}
	return NULL;
}

static void prom_line(struct value_set *set, char *line)
{
	char family[128], labels[256] = "", value[64];
	const struct pts_field *f;
	const char *suffix = "";
	char *brace, *space;
	double v;
	size_t n;

	space = strrchr(line, ' ');
	assert_non_null(space);
	*space = '\0';
	v = strtod(space + 1, NULL);
	brace = strchr(line, '{');
	if (brace) {
		snprintf(labels, sizeof(labels), "%s", brace);
		*brace = '\0';
	}
	snprintf(family, sizeof(family), "%s", line);
	n = strlen(family);
	if (n > 7 && !strcmp(family + n - 7, "_bucket"))
		return;
	if (n > 6 && !strcmp(family + n - 6, "_count") &&
	    !prom_row(family, labels, value, sizeof(value))) {
		family[n - 6] = '\0';
		suffix = ".count";
	} else if (n > 4 && !strcmp(family + n - 4, "_sum") &&
		   !prom_row(family, labels, value, sizeof(value))) {
		family[n - 4] = '\0';
		suffix = ".sum";
	}
	f = prom_row(family, labels, value, sizeof(value));
	if (!f)
		return;		/* probes and program statistics: not fields */
	if (f->unit == PTS_UNIT_NS && !strcmp(suffix, ".sum"))
		v = round(v * 1e9);
	set_add(set, v, "%s.%s[%s]%s", f->section->key, f->key, value, suffix);
}

static void from_prom(struct value_set *set)
{
	struct prom_input in = {
		.eng = &eng,
		.snap = &snap,
		.page_size = page_size,
		.collapse_name = result_name,
	};
	char *page = NULL, *line, *save;
	size_t len = 0;
	FILE *out = open_memstream(&page, &len);

	assert_non_null(out);
	assert_int_equal(prom_render(&in, out), 0);
	assert_int_equal(fclose(out), 0);
	set->nr = 0;
	for (line = strtok_r(page, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (line[0] != '#')
			prom_line(set, line);
	free(page);
}

/* ---- diff: base is the snapshot, new is twice the snapshot ---- */

static json_object *recording(int times)
{
	const struct pts_kfeatures kf = {};
	struct pts_report_input rep = { .eng = &eng, .kf = &kf,
					.page_size = page_size,
					.result_name = result_name };
	struct pts_snapshot twice = snap;
	json_object *rec = json_object_new_object(), *o;
	int i, s;

	for (i = 0; i < PTS_NR_COUNTERS; i++)
		twice.counters.v[i] *= times;
	for (i = 0; i < PTS_NR_HISTS; i++) {
		for (s = 0; s < PTS_HIST_SLOTS; s++)
			twice.hists.h[i].slots[s] *= times;
		twice.hists.h[i].count *= times;
		twice.hists.h[i].sum *= times;
	}
	json_object_object_add(rec, "ptscope_version", json_object_new_int(1));
	o = json_object_new_object();
	json_object_object_add(o, "seconds", json_object_new_double(5));
	json_object_object_add(o, "command", json_object_new_string("x"));
	json_object_object_add(o, "exit_status", json_object_new_int(0));
	json_object_object_add(rec, "run", o);
	o = json_object_new_object();
	json_object_object_add(o, "page_size", json_object_new_int64(page_size));
	json_object_object_add(rec, "system", o);
	json_object_object_add(rec, "metrics", report_metrics_json(&rep));
	json_object_object_add(rec, "counters", report_snapshot_json(&rep, &twice));
	return rec;
}

/* the diff name of value @i of @f ("faults.order9.alloc") */
static void diff_name(char *buf, size_t len, const struct pts_field *f,
		      unsigned int i, const char *stem)
{
	const struct pts_schema_ctx sc = schema_ctx();
	char label[32];

	if (f->label == PTS_LABEL_NONE)
		snprintf(buf, len, "%s.%s", f->section->diff, stem);
	else if (f->label == PTS_LABEL_ORDER)
		snprintf(buf, len, "%s.order%u.%s", f->section->diff, i, stem);
	else if (f->label == PTS_LABEL_RESULT)
		snprintf(buf, len, "%s.%s", f->section->diff,
			 schema_label_value(&sc, f, i, label, sizeof(label)));
	else
		snprintf(buf, len, "%s.%s.%s", f->section->diff,
			 schema_label_value(&sc, f, i, label, sizeof(label)),
			 stem);
}

/* every present counter as a diff row (base v, new 2v); means unchanged */
static void check_diff(void)
{
	const char *const labels[DIFF_SIDES] = { "base", "new" };
	const struct pts_schema_ctx sc = schema_ctx();
	json_object *base = recording(1), *new = recording(2);
	struct diff_params params;
	struct diff_result res;
	const struct pts_field *f;
	const struct pts_hist *h;
	char name[DIFF_NAME_LEN], err[256];
	unsigned int i;
	size_t r, k;
	bool found;

	diff_default_params(&params);
	assert_int_equal(diff_compare(base, new, labels, &params, &res, err,
				      sizeof(err)), 0);
	for (r = 0; r < pts_nr_fields; r++) {
		f = &pts_fields[r];
		if (!f->diff || !schema_section_attached(&sc, f->section) ||
		    !schema_field_present(&sc, f))
			continue;
		for (i = 0; i < schema_label_count(f); i++) {
			if (f->label != PTS_LABEL_NONE &&
			    !schema_label_shown(&sc, f, &snap, i))
				continue;
			diff_name(name, sizeof(name), f, i, f->diff);
			h = f->kind == PTS_FIELD_HIST ? schema_hist(f, &snap, i) :
				NULL;
			if (h ? !h->count : !schema_counter(f, &snap, i))
				continue;	/* 0 in both: no row */
			for (k = 0, found = false; k < res.nr_rows && !found; k++) {
				if (strcmp(res.rows[k].name, name))
					continue;
				found = true;
				if (h) {
					assert_float_equal(res.rows[k].val[DIFF_BASE],
						(double)h->sum / h->count, 1e-6);
					assert_float_equal(res.rows[k].change_pct, 0, 1e-9);
				} else {
					assert_float_equal(res.rows[k].val[DIFF_BASE],
						schema_counter(f, &snap, i), 0.5);
					assert_float_equal(res.rows[k].val[DIFF_NEW],
						2.0 * schema_counter(f, &snap, i), 0.5);
				}
			}
			if (!found)
				fail_msg("diff has no row %s", name);
		}
	}
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- text: every present count is printed, every absent field named ---- */

static void check_text(void)
{
	const struct pts_schema_ctx sc = schema_ctx();
	const struct pts_kfeatures kf = {};
	struct pts_report_input rep = { .eng = &eng, .kf = &kf,
					.page_size = page_size,
					.result_name = result_name };
	const struct pts_field *f;
	char *text = NULL, num[32], *missing;
	size_t len = 0, r;
	unsigned int i;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	report_snapshot_text(out, &rep, &snap, false);
	assert_int_equal(fclose(out), 0);
	missing = strstr(text, "not measured on this attach path");
	for (r = 0; r < pts_nr_fields; r++) {
		f = &pts_fields[r];
		if (!schema_section_attached(&sc, f->section))
			continue;
		if (!schema_field_present(&sc, f)) {
			if (!missing || !strstr(missing, f->title))
				fail_msg("text does not say %s is not measured",
					 f->title);
			continue;
		}
		if (f->kind != PTS_FIELD_COUNTER || f->unit != PTS_UNIT_COUNT)
			continue;
		for (i = 0; i < schema_label_count(f); i++) {
			if (f->label != PTS_LABEL_NONE &&
			    !schema_label_shown(&sc, f, &snap, i))
				continue;
			snprintf(num, sizeof(num), "%llu",
				 (unsigned long long)schema_counter(f, &snap, i));
			if (!strstr(text, num))
				fail_msg("text lacks %s.%s = %s", f->section->key,
					 f->key, num);
		}
	}
	free(text);
}

/* JSON's class totals are the sums of the classes */
static void check_totals(const struct value_set *totals)
{
	const struct pts_field *f;
	unsigned int c;
	double sum;
	size_t i;

	for (i = 0; i < totals->nr; i++) {
		char sec[64], key[64];

		assert_int_equal(sscanf(totals->v[i].name, "%63[^.].%63[^[]",
					sec, key), 2);
		f = schema_find(sec, key);
		assert_non_null(f);
		assert_true(f->json_total);
		if (f->kind == PTS_FIELD_HIST)
			continue;
		for (c = 0, sum = 0; c < schema_label_count(f); c++)
			sum += schema_counter(f, &snap, c);
		assert_float_equal(totals->v[i].v, sum, 0.5);
	}
}

/* ---- per cgroup: JSON's "cgroups" and Prometheus' ptscope_cgroup_* ---- */

static struct pts_cgroup_entry cgroups[2] = {
	{ .id = 4242, .path = "/a" },
	{ .id = 77, .path = NULL },	/* unknown: "id:77" */
};

/* two rows that add up to the totals, so every order seen is seen in both */
static void fill_cgroups(void)
{
	int i, at;

	memset(&cgroups[0].stats, 0, sizeof(cgroups[0].stats));
	memset(&cgroups[1].stats, 0, sizeof(cgroups[1].stats));
	for (i = 0; i < PTS_NR_COUNTERS; i++) {
		at = counter_cgroup_index(i);
		if (at < 0)
			continue;
		cgroups[0].stats.v[at] = snap.counters.v[i] / 3;
		cgroups[1].stats.v[at] = snap.counters.v[i] - snap.counters.v[i] / 3;
	}
	snap.cgroups = cgroups;
	snap.nr_cgroups = 2;
	snap.has_cgroups = true;
}

/* "CGROUP|section.key[label]" of each per-cgroup field of both rows */
static void expected_cgroups(struct value_set *set)
{
	set->nr = 0;
	add_expected(set, &cgroups[0]);
	add_expected(set, &cgroups[1]);
}

static void json_cgroups(struct value_set *set)
{
	const struct pts_kfeatures kf = {};
	struct pts_report_input rep = { .eng = &eng, .kf = &kf,
					.page_size = page_size,
					.result_name = result_name };
	json_object *root = report_snapshot_json(&rep, &snap), *arr, *n;
	static struct value_set one, totals;
	const char *path;
	char id[32];
	size_t i, k;

	set->nr = 0;
	assert_true(json_object_object_get_ex(root, "cgroups", &arr));
	for (i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i);

		assert_true(json_object_object_get_ex(o, "id", &n));
		assert_true(json_object_object_get_ex(o, "path", &n));
		path = n ? json_object_get_string(n) : NULL;
		one.nr = 0;
		json_object_object_foreach(o, sec, obj)
			if (json_object_is_type(obj, json_type_object))
				json_section(&one, sec, obj, &totals);
		json_object_object_get_ex(o, "id", &n);
		cgroup_label(id, sizeof(id), path, json_object_get_int64(n));
		for (k = 0; k < one.nr; k++)
			set_add(set, one.v[k].v, "%s|%s", path ? path : id,
				one.v[k].name);
	}
	json_object_put(root);
}

/* the ptscope_cgroup_* samples of a page, and each family's sum */
static void prom_cgroups(struct value_set *set, const char *page,
			 struct value_set *sums)
{
	char *copy = strdup(page), *line, *save, family[160], *at, *end;
	char cgroup[64], rest[256];
	static struct value_set one;
	const struct value *have;
	size_t n;

	set->nr = sums->nr = 0;
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (strncmp(line, "ptscope_cgroup_", 15) || !strchr(line, '{'))
			continue;
		at = strstr(line, "cgroup=\"");
		assert_non_null(at);
		end = strchr(at + 8, '"');
		snprintf(cgroup, sizeof(cgroup), "%.*s", (int)(end - at - 8),
			 at + 8);
		/* the same line without the cgroup label, as its family's */
		n = (size_t)(strchr(line, '{') - line);
		snprintf(family, sizeof(family), "ptscope_%.*s", (int)(n - 15),
			 line + 15);
		snprintf(rest, sizeof(rest), "%s{%s", family,
			 end[1] == ',' ? end + 2 : end + 1);
		if (!strncmp(rest + strlen(family), "{}", 2))
			snprintf(rest, sizeof(rest), "%s%s", family,
				 strchr(end, ' '));
		one.nr = 0;
		prom_line(&one, rest);
		assert_int_equal(one.nr, 1);
		if (strcmp(cgroup, "other"))
			set_add(set, one.v[0].v, "%s|%s", cgroup, one.v[0].name);
		have = set_find(sums, one.v[0].name);
		if (have)
			((struct value *)have)->v += one.v[0].v;
		else
			set_add(sums, one.v[0].v, "%s", one.v[0].name);
	}
	free(copy);
}

static char *render_page(size_t limit)
{
	struct prom_input in = {
		.eng = &eng,
		.snap = &snap,
		.page_size = page_size,
		.collapse_name = result_name,
		.cgroup_limit = limit,
	};
	char *page = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&page, &len);

	assert_non_null(out);
	assert_int_equal(prom_render(&in, out), 0);
	assert_int_equal(fclose(out), 0);
	return page;
}

/*
 * Per cgroup, JSON and Prometheus show the schema's per-cgroup fields
 * with the same values; over the cgroup label (busiest, then "other")
 * each series adds up to its unlabelled family, whatever the limit.
 */
static void check_cgroups(void)
{
	static struct value_set cg_want, cg_got, sums, totals;
	const struct value *family;
	size_t limit, i;
	char *page;

	fill_cgroups();
	expected_cgroups(&cg_want);
	json_cgroups(&cg_got);
	assert_same_set(&cg_want, "schema per cgroup", &cg_got, "JSON cgroups");
	for (limit = 0; limit <= 3; limit++) {
		page = render_page(limit);
		prom_cgroups(&cg_got, page, &sums);
		if (!limit) {
			assert_null(strstr(page, "ptscope_cgroup_"));
		} else if (limit >= 2) {
			assert_same_set(&cg_want, "schema per cgroup", &cg_got,
					"Prometheus per cgroup");
		}
		free(page);
		if (!limit)
			continue;
		/* the unlabelled families, restricted to per-cgroup fields */
		from_prom(&totals);
		assert_true(sums.nr > 0);
		for (i = 0; i < sums.nr; i++) {
			family = set_find(&totals, sums.v[i].name);
			if (!family || fabs(family->v - sums.v[i].v) > 0.5)
				fail_msg("limit %zu: %s adds up to %.0f over "
					 "cgroups, the family says %.0f", limit,
					 sums.v[i].name, sums.v[i].v,
					 family ? family->v : -1.0);
		}
	}
	snap.cgroups = NULL;
	snap.nr_cgroups = 0;
	snap.has_cgroups = false;
}

static void check_all_renderers(void)
{
	static struct value_set totals;

	fill_snapshot();
	expected(&want);
	assert_true(want.nr > 0);
	from_json(&got, &totals);
	assert_same_set(&want, "schema", &got, "JSON");
	check_totals(&totals);
	from_prom(&got);
	assert_same_set(&want, "schema", &got, "Prometheus");
	check_diff();
	check_text();
	check_cgroups();
}

static void setup_engine(uint64_t page)
{
	engine_init(&eng, PTS_MODE_AUTO, false);
	page_size = page;
}

static void test_tracepoint_path(void **state)
{
	setup_engine(4096);
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, false);
	fake_attach(&eng, "thp.collapse", 0, false);
	check_all_renderers();
}

static void test_function_path(void **state)
{
	setup_engine(4096);
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "mremap.move_page_tables", 0, false);
	fake_attach(&eng, "mremap.levels", PTS_CFG_LEVEL_TPS, false);
	fake_attach(&eng, "mremap.folio_lookups", 0, false);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, true);
	fake_attach(&eng, "thp.collapse", 0, false);
	check_all_renderers();
}

static void test_patched_path(void **state)
{
	setup_engine(4096);
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "mremap.move_page_tables", 0, false);
	fake_attach(&eng, "mremap.levels", PTS_CFG_LEVEL_TPS, true);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_TP, true);
	check_all_renderers();
}

/* 16 KiB pages: 64 KiB is order 2, the PMD size 32 MiB order 11 */
static void test_16k_pages(void **state)
{
	const struct pts_field *alloc = schema_find("hugepage_faults", "alloc");
	struct pts_schema_ctx sc;

	setup_engine(16384);
	sc = schema_ctx();
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, true);
	check_all_renderers();
	assert_int_equal(schema_order_64k(16384), 2);
	assert_int_equal(schema_order_pmd(16384), 11);
	assert_int_equal(schema_order_64k(4096), 4);
	assert_int_equal(schema_order_pmd(4096), 9);
	assert_int_equal(schema_order_64k(65536), 0);
	assert_int_equal(schema_order_pmd(65536), 13);
	memset(&snap, 0, sizeof(snap));
	assert_true(schema_label_shown(&sc, alloc, &snap, 2));
	assert_true(schema_label_shown(&sc, alloc, &snap, 11));
	assert_false(schema_label_shown(&sc, alloc, &snap, 4));
}

/* the schema itself: rows of a family are consecutive and agree */
static void test_families(void **state)
{
	const struct pts_field *f, *g;
	size_t i, j;

	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		assert_non_null(f->prom);
		assert_non_null(f->title);
		assert_true(i == 0 || !strcmp(pts_fields[i - 1].prom, f->prom) ||
			    f->prom_help);
		for (j = i + 1; j < pts_nr_fields; j++) {
			g = &pts_fields[j];
			if (f->section == g->section)
				assert_string_not_equal(f->key, g->key);
			if (strcmp(f->prom, g->prom))
				continue;
			assert_true(j == i + 1 || !strcmp(pts_fields[j - 1].prom,
							 f->prom));
			assert_int_equal(f->kind, g->kind);
			assert_int_equal(f->label, g->label);
		}
		if (f->kind == PTS_FIELD_COUNTER)
			assert_true(strlen(f->prom) > 6 &&
				    !strcmp(f->prom + strlen(f->prom) - 6, "_total"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_families),
		cmocka_unit_test(test_tracepoint_path),
		cmocka_unit_test(test_function_path),
		cmocka_unit_test(test_patched_path),
		cmocka_unit_test(test_16k_pages),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
