// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope schema: every Prometheus family the exporter can serve, as
 * JSON, from the tables that make the page: the output schema
 * (data/schema.c), the page's own families (export/prom.c) and the
 * catalog.  Per family: its name, type, help and labels, the catalog
 * metric that owns it and which of that metric's candidates give it.
 * No BPF, no privilege: tests/check_dashboard.py reads it.
 */
#include <errno.h>
#include <string.h>
#include <json-c/json.h>
#include "data/format.h"
#include "data/schema.h"
#include "engine/catalog.h"
#include "export/prom.h"
#include "render/report.h"
#include "views/views.h"

static const char *cand_status(const struct pts_candidate *c)
{
	return c->exact ? "exact" : "inferred";
}

static json_object *candidate_json(const struct pts_candidate *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "path",
			       json_object_new_string(path_kind_name(c->kind)));
	json_object_object_add(o, "status",
			       json_object_new_string(cand_status(c)));
	json_object_object_add(o, "candidate", json_object_new_string(c->label));
	return o;
}

static json_object *metric_json(const struct pts_metric *m)
{
	json_object *o = json_object_new_object(), *cands;
	int i;

	json_object_object_add(o, "name", json_object_new_string(m->name));
	json_object_object_add(o, "desc", json_object_new_string(m->desc));
	json_object_object_add(o, "opt_in", json_object_new_boolean(m->opt_in));
	cands = json_object_new_array();
	for (i = 0; i < m->nr_cands; i++)
		json_object_array_add(cands, candidate_json(&m->cands[i]));
	json_object_object_add(o, "candidates", cands);
	return o;
}

/* the catalog's metrics, as ptscope_probe_attached{metric=...} names them */
static json_object *metrics_json(void)
{
	json_object *arr = json_object_new_array();
	int i;

	for (i = 0; i < pts_catalog_len; i++)
		if (!pts_catalog[i].internal)
			json_object_array_add(arr, metric_json(&pts_catalog[i]));
	return arr;
}

/*
 * The candidates of @f's metric that give @f (schema.h: needs_any,
 * excludes); null when every one does, so any attach path will.
 */
static json_object *needs_json(const struct pts_field *f)
{
	const struct pts_metric *m = catalog_find(schema_field_metric(f));
	json_object *arr;
	int i, nr = 0;

	for (i = 0; i < m->nr_cands; i++)
		nr += catalog_provides(&m->cands[i], f->needs_any, f->excludes);
	if (nr == m->nr_cands)
		return NULL;
	arr = json_object_new_array();
	for (i = 0; i < m->nr_cands; i++)
		if (catalog_provides(&m->cands[i], f->needs_any, f->excludes))
			json_object_array_add(arr, candidate_json(&m->cands[i]));
	return arr;
}

static json_object *strings_json(const char *const *words, int nr)
{
	json_object *arr = json_object_new_array();
	int i;

	for (i = 0; i < nr && words[i]; i++)
		json_object_array_add(arr, json_object_new_string(words[i]));
	return arr;
}

/* the label values every page has: fixed ones (level, reason), classes */
static json_object *label_values_json(const struct pts_field *f, size_t nr)
{
	json_object *o = json_object_new_object(), *arr;
	unsigned int i;
	size_t r;

	arr = json_object_new_array();
	if (f->label == PTS_LABEL_CLASS) {
		for (i = 0; i < schema_label_count(f); i++)
			json_object_array_add(arr,
				json_object_new_string(mremap_class_name(i)));
	}
	for (r = 0; r < nr && f[r].fixed_label; r++)
		json_object_array_add(arr,
				      json_object_new_string(f[r].fixed_value));
	if (json_object_array_length(arr))
		json_object_object_add(o, schema_label_name(f), arr);
	else
		json_object_put(arr);
	return o;
}

/* the keys every family has; NULL @metric and @needs: json null */
static json_object *family_json(const char *name, const char *type,
				const char *help, json_object *labels,
				const char *metric, json_object *needs)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "type", json_object_new_string(type));
	json_object_object_add(o, "help", json_object_new_string(help));
	json_object_object_add(o, "labels", labels);
	json_object_object_add(o, "metric",
			       metric ? json_object_new_string(metric) : NULL);
	json_object_object_add(o, "needs", needs);
	return o;
}

/* the family of the @nr schema rows from @f (consecutive, one family) */
static json_object *schema_family_json(const struct pts_field *f, size_t nr)
{
	const char *names[PROM_FIELD_LABELS];
	const char *metric = schema_field_metric(f);
	json_object *o;

	o = family_json(f->prom, f->kind == PTS_FIELD_HIST ? "histogram" :
			"counter", prom_family_help(f),
			strings_json(names, prom_field_label_names(f, names)),
			metric, metric ? needs_json(f) : NULL);
	json_object_object_add(o, "label_values", label_values_json(f, nr));
	return o;
}

/* ptscope_cgroup_F of the per-cgroup family F of @f (--cgroup-labels) */
static json_object *cgroup_family_json(const struct pts_field *f)
{
	const char *labels[PROM_CGROUP_LABELS + PROM_FIELD_LABELS];
	char name[128], help[PROM_HELP_MAX];
	const char *metric = schema_field_metric(f);
	json_object *o;
	int nr;

	memcpy(labels, prom_cgroup_labels, sizeof(prom_cgroup_labels));
	nr = PROM_CGROUP_LABELS +
	     prom_field_label_names(f, labels + PROM_CGROUP_LABELS);
	o = family_json(prom_cgroup_family(name, sizeof(name), f), "counter",
			prom_cgroup_help(help, sizeof(help), f,
					 PTS_DEFAULT_CGROUP_LABELS),
			strings_json(labels, nr), metric,
			metric ? needs_json(f) : NULL);
	json_object_object_add(o, "cgroup_of", json_object_new_string(f->prom));
	return o;
}

/* how many rows from @i are of the family of row @i */
static size_t family_rows(size_t i)
{
	size_t n = 1;

	while (i + n < pts_nr_fields &&
	       !strcmp(pts_fields[i + n].prom, pts_fields[i].prom))
		n++;
	return n;
}

static void add_schema_families(json_object *arr)
{
	size_t i, n;

	for (i = 0; i < pts_nr_fields; i += n) {
		n = family_rows(i);
		json_object_array_add(arr, schema_family_json(&pts_fields[i], n));
	}
	for (i = 0; i < pts_nr_fields; i += n) {
		n = family_rows(i);
		if (schema_field_per_cgroup(&pts_fields[i]))
			json_object_array_add(arr,
					      cgroup_family_json(&pts_fields[i]));
	}
}

/* the probe table's metric label names the catalog's metrics */
static json_object *probe_label_values(void)
{
	json_object *o = json_object_new_object(), *arr;
	int i;

	arr = json_object_new_array();
	for (i = 0; i < pts_catalog_len; i++)
		if (!pts_catalog[i].internal)
			json_object_array_add(arr,
				json_object_new_string(pts_catalog[i].name));
	json_object_object_add(o, "metric", arr);
	return o;
}

static void add_page_families(json_object *arr)
{
	const struct prom_family *p;
	json_object *o;
	int i;

	for (i = 0; i < PROM_NR_FAMILIES; i++) {
		p = &prom_families[i];
		o = family_json(p->name, p->type, p->help,
				strings_json(p->labels, PROM_FAMILY_LABELS),
				NULL, NULL);
		json_object_object_add(o, "label_values", i == PROM_FAM_PROBE ?
				       probe_label_values() :
				       json_object_new_object());
		json_object_array_add(arr, o);
	}
}

static json_object *schema_json(void)
{
	json_object *root = json_object_new_object(), *families;

	json_object_object_add(root, "metrics", metrics_json());
	families = json_object_new_array();
	add_schema_families(families);
	add_page_families(families);
	json_object_object_add(root, "families", families);
	return root;
}

int view_schema(const struct pts_options *opts)
{
	json_object *root = schema_json();
	int ret;

	if (!root) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	ret = report_write_json(root, opts->output);
	json_object_put(root);
	return ret;
}
