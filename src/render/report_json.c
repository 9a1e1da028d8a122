// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "data/cgroup_rank.h"
#include "data/format.h"
#include "data/hist.h"
#include "data/selfcheck.h"
#include "engine/batch_check.h"
#include "render/report.h"

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

static json_object *json_u64(uint64_t v)
{
	return json_object_new_uint64(v);
}

/* "always [madvise] never" -> "madvise" */
static int read_bracketed(const char *path, char *buf, size_t len)
{
	char line[256], *open, *close;
	FILE *f = fopen(path, "r");

	if (!f)
		return -errno;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return -EIO;
	}
	fclose(f);
	open = strchr(line, '[');
	close = open ? strchr(open, ']') : NULL;
	if (!open || !close)
		return -EINVAL;
	*close = '\0';
	snprintf(buf, len, "%s", open + 1);
	return 0;
}

static json_object *thp_settings_json(void)
{
	json_object *thp = json_object_new_object();
	json_object *sizes = json_object_new_object();
	char val[64], path[256];
	glob_t g;
	size_t i;

	if (!read_bracketed(THP_SYSFS "/enabled", val, sizeof(val)))
		json_object_object_add(thp, "enabled", json_object_new_string(val));
	if (!read_bracketed(THP_SYSFS "/defrag", val, sizeof(val)))
		json_object_object_add(thp, "defrag", json_object_new_string(val));
	if (!glob(THP_SYSFS "/hugepages-*kB", 0, NULL, &g)) {
		for (i = 0; i < g.gl_pathc; i++) {
			snprintf(path, sizeof(path), "%s/enabled", g.gl_pathv[i]);
			if (read_bracketed(path, val, sizeof(val)))
				continue;	/* hugepages-8kB: shmem only */
			json_object_object_add(sizes,
					       strrchr(g.gl_pathv[i], '/') + 1,
					       json_object_new_string(val));
		}
		globfree(&g);
	}
	json_object_object_add(thp, "sizes", sizes);
	return thp;
}

json_object *report_system_json(const struct pts_report_input *rep)
{
	json_object *sys = json_object_new_object();

	json_object_object_add(sys, "kernel",
			       fmt_json_string(rep->kf->release));
	json_object_object_add(sys, "machine",
			       fmt_json_string(rep->kf->machine));
	json_object_object_add(sys, "page_size", json_u64(rep->page_size));
	json_object_object_add(sys, "thp", thp_settings_json());
	return sys;
}

static json_object *check_counts_json(const struct pts_check_counts *c)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "extents", json_u64(c->extents));
	json_object_object_add(o, "ptes", json_u64(c->ptes));
	json_object_object_add(o, "batches", json_u64(c->batches));
	json_object_object_add(o, "lookups", json_u64(c->lookups));
	json_object_object_add(o, "kernel_lookups", json_u64(c->vnf_calls));
	return o;
}

/* one shape of the start-up check: what each rule's model counted */
static json_object *check_shape_json(const struct pts_check_shape *sh)
{
	json_object *o = json_object_new_object(), *rules;
	int rule;

	json_object_object_add(o, "shape", json_object_new_string(sh->name));
	json_object_object_add(o, "ran", json_object_new_boolean(sh->ran));
	json_object_object_add(o, "note", json_object_new_string(sh->note));
	if (!sh->ran)
		return o;
	json_object_object_add(o, "ptes_expected", json_u64(sh->ptes_expected));
	rules = json_object_new_object();
	for (rule = 0; rule < PTS_LOOKUP_RULES; rule++)
		json_object_object_add(rules, batch_rule_name(rule),
				       check_counts_json(&sh->seen[rule]));
	json_object_object_add(o, "rules", rules);
	return o;
}

/* the start-up check of the batch model: what ran, what it saw, the rule */
static json_object *batch_check_json(const struct pts_batch_check *bc)
{
	json_object *o = json_object_new_object();
	json_object *shapes = json_object_new_array();
	int i;

	json_object_object_add(o, "ran", json_object_new_boolean(bc->ran));
	json_object_object_add(o, "rule", json_object_new_string(
				       batch_rule_name(bc->rule)));
	json_object_object_add(o, "rule_means", json_object_new_string(
				       batch_rule_desc(bc->rule)));
	json_object_object_add(o, "note", json_object_new_string(bc->note));
	json_object_object_add(o, "ms", json_object_new_double(bc->ms));
	for (i = 0; i < bc->nr_shapes; i++)
		json_object_array_add(shapes, check_shape_json(&bc->shapes[i]));
	json_object_object_add(o, "shapes", shapes);
	return o;
}

static json_object *metric_json(const struct pts_choice *ch)
{
	json_object *m = json_object_new_object();
	json_object *cands = json_object_new_array();
	const struct pts_candidate *c;
	char reason[1024];
	int i;

	if (ch->chosen >= 0) {
		c = &ch->metric->cands[ch->chosen];
		json_object_object_add(m, "status", json_object_new_string(
					       c->exact ? "exact" : "inferred"));
		json_object_object_add(m, "path",
				       json_object_new_string(path_kind_name(c->kind)));
		json_object_object_add(m, "probe", json_object_new_string(c->label));
		if (!c->exact)
			json_object_object_add(m, "inferred_from",
					       json_object_new_string(c->inferred_from));
	} else {
		engine_unavailable_reason(ch, reason, sizeof(reason));
		json_object_object_add(m, "status",
				       json_object_new_string("unavailable"));
		json_object_object_add(m, "reason", json_object_new_string(reason));
	}
	for (i = 0; i < ch->metric->nr_cands; i++) {
		json_object *cj = json_object_new_object();

		c = &ch->metric->cands[i];
		json_object_object_add(cj, "path",
				       json_object_new_string(path_kind_name(c->kind)));
		json_object_object_add(cj, "probe", json_object_new_string(c->label));
		json_object_object_add(cj, "chosen",
				       json_object_new_boolean(i == ch->chosen));
		if (ch->why[i][0])
			json_object_object_add(cj, "why_not",
					       json_object_new_string(ch->why[i]));
		json_object_array_add(cands, cj);
	}
	json_object_object_add(m, "candidates", cands);
	return m;
}

json_object *report_metrics_json(const struct pts_report_input *rep)
{
	json_object *metrics = json_object_new_object();
	int i;

	for (i = 0; i < rep->eng->nr_choices; i++)
		json_object_object_add(metrics, rep->eng->choices[i].metric->name,
				       metric_json(&rep->eng->choices[i]));
	json_object_object_add(json_object_object_get(metrics,
						      PTS_BATCH_CHECK_METRIC),
			       "start_check",
			       batch_check_json(&rep->eng->batch_check));
	return metrics;
}

static json_object *hist_json(const struct pts_hist *h)
{
	json_object *o = json_object_new_object();
	json_object *buckets = json_object_new_array();
	int i, top = hist_highest_slot(h);

	json_object_object_add(o, "count", json_u64(h->count));
	json_object_object_add(o, "sum", json_u64(h->sum));
	for (i = 0; i <= top; i++) {
		json_object *b;

		if (!h->slots[i])
			continue;
		b = json_object_new_object();
		json_object_object_add(b, "low", json_u64(hist_slot_low(i)));
		json_object_object_add(b, "high", json_u64(hist_slot_high(i)));
		json_object_object_add(b, "count", json_u64(h->slots[i]));
		json_object_array_add(buckets, b);
	}
	json_object_object_add(o, "buckets", buckets);
	return o;
}

/* a field's value @i: a number, or a histogram object */
static json_object *value_json(const struct pts_field *f,
			       const struct pts_snapshot *s, unsigned int i)
{
	if (f->kind == PTS_FIELD_HIST)
		return hist_json(schema_hist(f, s, i));
	return json_u64(schema_counter(f, s, i));
}

/* the sum over all label values: a number, or the merged histogram */
static json_object *total_json(const struct pts_field *f,
			       const struct pts_snapshot *s)
{
	struct pts_hist total = {};
	unsigned int i;

	if (f->kind == PTS_FIELD_COUNTER)
		return json_u64(schema_counter_total(f, s));
	for (i = 0; i < schema_label_count(f); i++)
		hist_merge(&total, schema_hist(f, s, i));
	return hist_json(&total);
}

/* @parent[@key], made with @make if missing */
static json_object *child(json_object *parent, const char *key,
			  json_object *(*make)(void))
{
	json_object *o;

	if (json_object_object_get_ex(parent, key, &o))
		return o;
	o = make();
	json_object_object_add(parent, key, o);
	return o;
}

/* "classes": { "pud": { "calls": ..., ... }, ... } */
static void add_by_class(json_object *sec, const struct pts_field *f,
			 const struct pts_snapshot *s)
{
	json_object *classes = child(sec, "classes", json_object_new_object);
	unsigned int c;

	for (c = 0; c < schema_label_count(f); c++)
		json_object_object_add(child(classes, mremap_class_name(c),
					     json_object_new_object),
				       f->key, value_json(f, s, c));
	if (f->json_total)
		json_object_object_add(sec, f->key, total_json(f, s));
}

/* one object per order in "orders", made by the section's first row */
struct order_objs {
	json_object *o[PTS_MAX_ORDER];
};

static void add_by_order(const struct pts_schema_ctx *sc, json_object *sec,
			 const struct pts_field *f, const struct pts_snapshot *s,
			 struct order_objs *objs)
{
	json_object *orders = child(sec, "orders", json_object_new_array);
	char size[16];
	unsigned int order;

	for (order = 0; order < PTS_MAX_ORDER; order++) {
		if (!schema_label_shown(sc, f, s, order))
			continue;
		if (!objs->o[order]) {
			objs->o[order] = json_object_new_object();
			json_object_object_add(objs->o[order], "order",
					       json_object_new_int((int)order));
			json_object_object_add(objs->o[order], "size",
				json_object_new_string(fmt_order_size(size,
					sizeof(size), order, sc->page_size)));
			json_object_array_add(orders, objs->o[order]);
		}
		json_object_object_add(objs->o[order], f->key,
				       value_json(f, s, order));
	}
}

/* "SCAN_SUCCEED": n, ... for the results shown */
static void add_by_result(const struct pts_schema_ctx *sc, json_object *sec,
			  const struct pts_field *f,
			  const struct pts_snapshot *s)
{
	char buf[32];
	unsigned int st;

	for (st = 0; st < schema_label_count(f); st++)
		if (schema_label_shown(sc, f, s, st))
			json_object_object_add(sec, schema_label_value(sc, f, st,
						buf, sizeof(buf)),
					       value_json(f, s, st));
}

/* @sec's fields in @s; @per_cgroup: only those cgroup rows keep */
static json_object *section_json(const struct pts_schema_ctx *sc,
				 const struct pts_section *sec,
				 const struct pts_snapshot *s, bool per_cgroup)
{
	json_object *o = json_object_new_object();
	struct order_objs objs = {};
	const struct pts_field *f;
	size_t i;

	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		if (f->section != sec || !schema_field_present(sc, f) ||
		    (per_cgroup && !schema_field_per_cgroup(f)))
			continue;
		switch (f->label) {
		case PTS_LABEL_CLASS:
			add_by_class(o, f, s);
			break;
		case PTS_LABEL_ORDER:
			add_by_order(sc, o, f, s, &objs);
			break;
		case PTS_LABEL_RESULT:
			add_by_result(sc, o, f, s);
			break;
		default:
			json_object_object_add(o, f->key, value_json(f, s, 0));
			break;
		}
	}
	return o;
}

static const char *collapse_name(const void *ctx, int status)
{
	return kfeatures_scan_result(ctx, status);
}

void report_schema_ctx(const struct pts_report_input *rep,
		       struct pts_schema_ctx *sc)
{
	memset(sc, 0, sizeof(*sc));
	sc->eng = rep->eng;
	sc->page_size = rep->page_size;
	if (rep->result_name) {
		sc->result_name = rep->result_name;
		sc->result_ctx = rep->result_ctx;
	} else if (rep->kf && (rep->kf->btf || rep->kf->released)) {
		sc->result_name = collapse_name;
		sc->result_ctx = rep->kf;
	}
}

/*
 * A process's value of @f: a number, or an object by label value where
 * orders and results appear only when not 0 (classes always do)
 */
static json_object *proc_value_json(const struct pts_schema_ctx *sc,
				    const struct pts_field *f,
				    const struct pts_proc *p)
{
	json_object *o;
	unsigned int i;
	char buf[32];
	uint64_t v;

	if (f->label == PTS_LABEL_NONE)
		return json_u64(schema_proc_counter(f, p, 0));
	o = json_object_new_object();
	for (i = 0; i < schema_label_count(f); i++) {
		v = schema_proc_counter(f, p, i);
		if (!v && f->label != PTS_LABEL_CLASS)
			continue;
		json_object_object_add(o, schema_label_value(sc, f, i, buf,
							     sizeof(buf)),
				       json_u64(v));
	}
	return o;
}

/* @sec's fields kept per process, then its rows kept only per row */
static void proc_section_json(json_object *o, const struct pts_schema_ctx *sc,
			      const struct pts_section *sec,
			      const struct pts_proc *p)
{
	const struct pts_field *f;
	size_t i;

	for (i = 0; i < pts_nr_fields + pts_nr_row_fields; i++) {
		f = i < pts_nr_fields ? &pts_fields[i] :
			&pts_row_fields[i - pts_nr_fields];
		if (f->section == sec && schema_field_per_proc(f))
			json_object_object_add(o, f->proc_key,
					       proc_value_json(sc, f, p));
	}
}

static json_object *procs_json(const struct pts_report_input *rep,
			       const struct pts_snapshot *s)
{
	json_object *arr = json_object_new_array();
	const struct pts_proc *p;
	struct pts_schema_ctx sc;
	json_object *o;
	size_t i, sec;

	report_schema_ctx(rep, &sc);
	for (i = 0; i < s->nr_procs; i++) {
		p = &s->procs[i].stats;
		o = json_object_new_object();
		json_object_object_add(o, "pid", json_object_new_int(s->procs[i].tgid));
		json_object_object_add(o, "comm", fmt_json_string(p->comm));
		for (sec = 0; sec < pts_nr_sections; sec++)
			proc_section_json(o, &sc, &pts_sections[sec], p);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* a string field, null when @v is empty */
static json_object *json_string_or_null(const char *v)
{
	return v && v[0] ? fmt_json_string(v) : NULL;
}

/*
 * A pod's cgroup: namespace, pod, container as Prometheus labels them
 * (without log entries: no namespace, the pod's UID, the container's id),
 * whether the log directories named them, the UID, the id and the QoS
 * class; for any other cgroup all null.
 */
static void kube_json(json_object *o, const struct pts_kube_id *k)
{
	const struct pts_kube_names *n = k ? &k->names : NULL;

	json_object_object_add(o, "namespace", json_string_or_null(
				       n ? n->ns : NULL));
	json_object_object_add(o, "pod", json_string_or_null(n ? n->pod : NULL));
	json_object_object_add(o, "container", json_string_or_null(
				       n ? n->container : NULL));
	json_object_object_add(o, "named", k ? json_object_new_boolean(
				       k->named) : NULL);
	json_object_object_add(o, "pod_uid", json_string_or_null(
				       k ? k->ref.pod_uid : NULL));
	json_object_object_add(o, "container_id", json_string_or_null(
				       k ? k->ref.container_id : NULL));
	json_object_object_add(o, "qos", k ? json_object_new_string(
				       kube_qos_name(k->ref.qos)) : NULL);
}

/*
 * One cgroup: its id and path, and the schema sections kept per cgroup
 * with the fields the rows hold, read through @view (a snapshot of the
 * row's counters).
 */
static json_object *cgroup_json(const struct pts_schema_ctx *sc,
				const struct pts_cgroup_entry *e,
				struct pts_snapshot *view)
{
	json_object *o = json_object_new_object();
	size_t i;

	json_object_object_add(o, "id", json_u64(e->id));
	json_object_object_add(o, "path", e->path ? fmt_json_string(e->path) :
				NULL);
	json_object_object_add(o, "removed", json_object_new_boolean(
				       e->id == PTS_CGROUP_REMOVED_ID));
	kube_json(o, e->kube);
	cgroup_snapshot(view, &e->stats);
	for (i = 0; i < pts_nr_sections; i++)
		if (schema_section_per_cgroup(&pts_sections[i]) &&
		    schema_section_attached(sc, &pts_sections[i]))
			json_object_object_add(o, pts_sections[i].key,
					       section_json(sc, &pts_sections[i],
							    view, true));
	for (i = 0; i < pts_nr_row_fields; i++)
		if (schema_field_per_cgroup(&pts_row_fields[i]))
			json_object_object_add(o, pts_row_fields[i].key,
					       json_u64(schema_cgroup_counter(
							&pts_row_fields[i],
							&e->stats, 0)));
	return o;
}

/* "cgroups": one object per cgroup, in the snapshot's order */
static json_object *cgroups_json(const struct pts_schema_ctx *sc,
				 const struct pts_snapshot *s)
{
	json_object *arr = json_object_new_array();
	struct pts_snapshot *view = calloc(1, sizeof(*view));
	size_t i;

	for (i = 0; view && i < s->nr_cgroups; i++)
		if (s->cgroups[i].id != PTS_CGROUP_REMOVED_ID ||
		    cgroup_activity(&s->cgroups[i].stats))
			json_object_array_add(arr, cgroup_json(sc, &s->cgroups[i],
							       view));
	free(view);
	return arr;
}

/* A metric's values appear only when it is attached; never as zeros. */
json_object *report_snapshot_json(const struct pts_report_input *rep,
				  const struct pts_snapshot *snap)
{
	json_object *root = json_object_new_object();
	struct pts_schema_ctx sc;
	size_t i;

	report_schema_ctx(rep, &sc);
	json_object_object_add(root, "seconds", json_object_new_double(snap->mono_s));
	for (i = 0; i < pts_nr_sections; i++)
		if (schema_section_attached(&sc, &pts_sections[i]))
			json_object_object_add(root, pts_sections[i].key,
					       section_json(&sc, &pts_sections[i],
							    snap, false));
	json_object_object_add(root, "processes", procs_json(rep, snap));
	if (snap->has_cgroups)
		json_object_object_add(root, "cgroups", cgroups_json(&sc, snap));
	return root;
}

/*
 * -o @path can be written: opened (created if need be, not truncated)
 * and closed again; a file this made is removed, the report makes it
 * at the end.  0, or -errno.
 */
int report_check_output(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	bool made = fd >= 0;

	if (!made && errno == EEXIST)
		fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	if (made)
		unlink(path);
	return 0;
}

FILE *report_open(const char *path)
{
	return report_open_or(path, stdout);
}

FILE *report_open_or(const char *path, FILE *fallback)
{
	FILE *out;

	if (!path)
		return fallback;
	out = fopen(path, "w");
	if (!out)
		fprintf(stderr, "ptscope: -o %s: %s\n", path, strerror(errno));
	return out;
}

/*
 * stdio keeps the first write error in the stream but not its errno: a
 * failed flush sets errno again (the buffer is still there, ENOSPC on a
 * full disk), else @err, the errno of a failed write the caller saw, or EIO.
 */
int report_close_err(FILE *out, const char *path, int err)
{
	errno = 0;
	if ((fflush(out) || ferror(out)) && !err)
		err = errno ? errno : EIO;
	if (out != stdout && out != stderr && fclose(out) && !err)
		err = errno;
	if (!err)
		return 0;
	fprintf(stderr, "ptscope: writing %s: %s\n",
		path ? path : out == stderr ? "standard error" :
		"standard output", strerror(err));
	return 1;
}

int report_close(FILE *out, const char *path)
{
	return report_close_err(out, path, 0);
}

int report_write_json(json_object *root, const char *path)
{
	FILE *out = report_open(path);

	if (!out)
		return 1;
	return report_write_json_to(root, out, path);
}

int report_write_json_to(json_object *root, FILE *out, const char *path)
{
	const char *text = json_object_to_json_string_ext(root,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);

	if (!text) {
		fprintf(stderr, "ptscope: out of memory\n");
		report_close(out, path);
		return 1;
	}
	/* a text larger than the buffer is written at once, unbuffered */
	if (fputs(text, out) == EOF || fputc('\n', out) == EOF)
		return report_close_err(out, path, errno);
	return report_close(out, path);
}

json_object *report_selfcheck_json(const struct pts_report_input *rep,
				   const struct pts_snapshot *snap,
				   const struct kcounters *kc)
{
	struct selfcheck sc;

	selfcheck_run(&sc, snap, kc, rep->page_size);
	return selfcheck_json(&sc);
}
