// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include "data/format.h"
#include "data/hist.h"
#include "views/report.h"

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

static bool chosen_has_flag(const struct pts_report *rep, const char *metric,
			    unsigned int flag)
{
	const struct pts_choice *ch = engine_choice(rep->eng, metric);

	return ch && ch->chosen >= 0 &&
	       (ch->metric->cands[ch->chosen].cfg_flags & flag);
}

bool report_has_pte_counts(const struct pts_report *rep)
{
	return chosen_has_flag(rep, "mremap.levels", PTS_CFG_PTE_MARKER);
}

/* batches and folio lookups: only the patched move_ptes tracepoint */
bool report_has_level_tps(const struct pts_report *rep)
{
	return chosen_has_flag(rep, "mremap.levels", PTS_CFG_LEVEL_TPS);
}

/* every outcome: order 0, charge fallbacks, the huge zero page */
bool report_has_fault_funcs(const struct pts_report *rep)
{
	return chosen_has_flag(rep, "thp.fault_alloc",
			       PTS_CFG_FAULT_FUNCS | PTS_CFG_FAULT_TP);
}

bool report_has_fault_latency(const struct pts_report *rep)
{
	return chosen_has_flag(rep, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS);
}

json_object *report_system_json(const struct pts_report *rep)
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

json_object *report_metrics_json(const struct pts_report *rep)
{
	json_object *metrics = json_object_new_object();
	int i;

	for (i = 0; i < rep->eng->nr_choices; i++)
		json_object_object_add(metrics, rep->eng->choices[i].metric->name,
				       metric_json(&rep->eng->choices[i]));
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

static const __u64 *counter(const struct pts_snapshot *s, int idx)
{
	return &s->counters.v[idx];
}

static json_object *mremap_json(const struct pts_snapshot *s)
{
	json_object *classes = json_object_new_object();
	struct pts_hist total_h = {};
	uint64_t calls = 0;
	int c;

	for (c = 0; c < PTS_MREMAP_CLASSES; c++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "calls",
				       json_u64(*counter(s, PTS_C_MREMAP_CALLS + c)));
		json_object_object_add(o, "old_bytes",
				       json_u64(*counter(s, PTS_C_MREMAP_OLD_BYTES + c)));
		json_object_object_add(o, "new_bytes",
				       json_u64(*counter(s, PTS_C_MREMAP_NEW_BYTES + c)));
		json_object_object_add(o, "latency_ns",
				       hist_json(&s->hists.h[PTS_H_MREMAP_NS + c]));
		json_object_object_add(classes, mremap_class_name(c), o);
		calls += *counter(s, PTS_C_MREMAP_CALLS + c);
		hist_merge(&total_h, &s->hists.h[PTS_H_MREMAP_NS + c]);
	}
	{
		json_object *o = json_object_new_object();

		json_object_object_add(o, "classes", classes);
		json_object_object_add(o, "calls", json_u64(calls));
		json_object_object_add(o, "latency_ns", hist_json(&total_h));
		return o;
	}
}

static json_object *mpt_json(const struct pts_snapshot *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "calls", json_u64(*counter(s, PTS_C_MPT_CALLS)));
	json_object_object_add(o, "bytes_requested",
			       json_u64(*counter(s, PTS_C_MPT_BYTES_REQUESTED)));
	json_object_object_add(o, "bytes_moved",
			       json_u64(*counter(s, PTS_C_MPT_BYTES_MOVED)));
	json_object_object_add(o, "partial", json_u64(*counter(s, PTS_C_MPT_PARTIAL)));
	json_object_object_add(o, "stack_moves", json_u64(*counter(s, PTS_C_MPT_STACK)));
	json_object_object_add(o, "reverse_moves", json_u64(*counter(s, PTS_C_MPT_REVERSE)));
	json_object_object_add(o, "latency_ns", hist_json(&s->hists.h[PTS_H_MPT_NS]));
	return o;
}

/* PTE counts need the PTE-level marker; without it they are absent */
static json_object *levels_json(const struct pts_report *rep,
				const struct pts_snapshot *s)
{
	static const struct {
		const char *key;
		int counter;
	} fields[] = {
		{ "pud_moved", PTS_C_LV_PUD_MOVED },
		{ "pud_fallback", PTS_C_LV_PUD_FALLBACK },
		{ "pmd_moved", PTS_C_LV_PMD_MOVED },
		{ "pmd_fallback", PTS_C_LV_PMD_FALLBACK },
		{ "huge_pmd_moved", PTS_C_LV_HPMD_MOVED },
		{ "huge_pmd_fallback", PTS_C_LV_HPMD_FALLBACK },
		{ "pte_extents", PTS_C_LV_PTE_EXTENTS },
		{ "pte_extent_bytes", PTS_C_LV_PTE_BYTES },
		{ "empty_extents", PTS_C_LV_EMPTY },
		{ "thp_splits", PTS_C_LV_SPLITS },
	};
	json_object *o = json_object_new_object();
	bool tps = report_has_level_tps(rep);
	size_t i;

	for (i = 0; i < sizeof(fields) / sizeof(fields[0]); i++) {
		/* no tracepoint sees empty extents or THP splits */
		if (tps && (fields[i].counter == PTS_C_LV_EMPTY ||
			    fields[i].counter == PTS_C_LV_SPLITS))
			continue;
		json_object_object_add(o, fields[i].key,
				       json_u64(*counter(s, fields[i].counter)));
	}
	if (report_has_pte_counts(rep))
		json_object_object_add(o, "ptes", json_u64(*counter(s, PTS_C_LV_PTES)));
	if (tps) {
		json_object_object_add(o, "pte_batches",
				       json_u64(*counter(s, PTS_C_LV_PTE_BATCHES)));
		json_object_object_add(o, "folio_lookups",
				       json_u64(*counter(s, PTS_C_LV_FOLIO_LOOKUPS)));
		json_object_object_add(o, "pte_max_batch",
				       hist_json(&s->hists.h[PTS_H_PTE_MAX_BATCH]));
	}
	return o;
}

/* vm_normal_folio() inside move_page_tables(), timed by fentry/fexit */
static json_object *folio_lookups_json(const struct pts_snapshot *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "calls", json_u64(*counter(s, PTS_C_VNF_CALLS)));
	json_object_object_add(o, "latency_ns",
			       hist_json(&s->hists.h[PTS_H_VNF_NS]));
	return o;
}

/*
 * One entry per order seen (64 KB and 2 MB always).  Charge fallbacks
 * and latency exist only on the function path; order 0 only there too.
 */
static json_object *faults_json(const struct pts_report *rep,
				const struct pts_snapshot *s)
{
	json_object *orders = json_object_new_array();
	bool funcs = report_has_fault_funcs(rep);
	const struct pts_hist *lat;
	char size[16];
	unsigned int order;

	for (order = 0; order < PTS_MAX_ORDER; order++) {
		uint64_t alloc = *counter(s, PTS_C_FAULT_ALLOC + order);
		uint64_t fallback = *counter(s, PTS_C_FAULT_FALLBACK + order);
		json_object *o;

		if (!alloc && !fallback && order != 4 && order != 9 &&
		    !(funcs && order == 0))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "order", json_object_new_int(order));
		json_object_object_add(o, "size", json_object_new_string(
			fmt_order_size(size, sizeof(size), order, rep->page_size)));
		json_object_object_add(o, "alloc", json_u64(alloc));
		json_object_object_add(o, "fallback", json_u64(fallback));
		if (funcs)
			json_object_object_add(o, "fallback_charge", json_u64(
				*counter(s, PTS_C_FAULT_FALLBACK_CHARGE + order)));
		if (report_has_fault_latency(rep)) {
			lat = &s->hists.h[PTS_H_FAULT_NS + order];
			json_object_object_add(o, "latency_ns", hist_json(lat));
		}
		json_object_array_add(orders, o);
	}
	return orders;
}

static json_object *faults_obj_json(const struct pts_report *rep,
				    const struct pts_snapshot *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "orders", faults_json(rep, s));
	if (report_has_fault_funcs(rep))
		json_object_object_add(o, "huge_zero_page",
				       json_u64(*counter(s, PTS_C_FAULT_ZERO_PAGE)));
	return o;
}

static const char *collapse_name(const struct pts_report *rep, int status,
				 char *buf, size_t len)
{
	const char *name = kfeatures_enum_name(rep->kf, "scan_result", status);

	if (name)
		return name;
	snprintf(buf, len, "status_%d", status);
	return buf;
}

static json_object *collapse_json(const struct pts_report *rep,
				  const struct pts_snapshot *s)
{
	json_object *o = json_object_new_object();
	char buf[32];
	int st;

	for (st = 0; st < PTS_COLLAPSE_STATUSES; st++) {
		uint64_t n = *counter(s, PTS_C_COLLAPSE + st);

		if (n)
			json_object_object_add(o, collapse_name(rep, st, buf,
								 sizeof(buf)),
					       json_u64(n));
	}
	return o;
}

static json_object *drops_json(const struct pts_snapshot *s)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "inflight_map_full",
			       json_u64(*counter(s, PTS_C_DROP_START_MAP)));
	json_object_object_add(o, "process_map_full",
			       json_u64(*counter(s, PTS_C_DROP_PROC_MAP)));
	json_object_object_add(o, "traced_map_full",
			       json_u64(*counter(s, PTS_C_DROP_TRACED_MAP)));
	return o;
}

static json_object *procs_json(const struct pts_report *rep,
			       const struct pts_snapshot *s)
{
	json_object *arr = json_object_new_array();
	char size[16];
	size_t i;
	int c;
	unsigned int order;

	for (i = 0; i < s->nr_procs; i++) {
		const struct pts_proc *p = &s->procs[i].stats;
		json_object *o = json_object_new_object();
		json_object *calls = json_object_new_object();
		json_object *alloc = json_object_new_object();
		json_object *fallback = json_object_new_object();
		json_object *charge = json_object_new_object();

		json_object_object_add(o, "pid", json_object_new_int(s->procs[i].tgid));
		json_object_object_add(o, "comm", fmt_json_string(p->comm));
		for (c = 0; c < PTS_MREMAP_CLASSES; c++)
			json_object_object_add(calls, mremap_class_name(c),
					       json_u64(p->mremap_calls[c]));
		json_object_object_add(o, "mremap_calls", calls);
		json_object_object_add(o, "mremap_ns", json_u64(p->mremap_ns));
		for (order = 0; order < PTS_MAX_ORDER; order++) {
			fmt_order_size(size, sizeof(size), order, rep->page_size);
			if (p->fault_alloc[order])
				json_object_object_add(alloc, size,
						       json_u64(p->fault_alloc[order]));
			if (p->fault_fallback[order])
				json_object_object_add(fallback, size,
						       json_u64(p->fault_fallback[order]));
			if (p->fault_fallback_charge[order])
				json_object_object_add(charge, size,
						       json_u64(p->fault_fallback_charge[order]));
		}
		json_object_object_add(o, "fault_alloc", alloc);
		json_object_object_add(o, "fault_fallback", fallback);
		json_object_object_add(o, "fault_fallback_charge", charge);
		json_object_array_add(arr, o);
	}
	return arr;
}

/* A metric's values appear only when it is attached; never as zeros. */
static void add_if_available(const struct pts_report *rep, json_object *root,
			     const char *key, const char *metric,
			     json_object *values)
{
	if (engine_available(rep->eng, metric))
		json_object_object_add(root, key, values);
	else
		json_object_put(values);
}

json_object *report_snapshot_json(const struct pts_report *rep,
				  const struct pts_snapshot *snap)
{
	json_object *root = json_object_new_object();

	json_object_object_add(root, "seconds", json_object_new_double(snap->mono_s));
	add_if_available(rep, root, "mremap", "mremap.calls", mremap_json(snap));
	add_if_available(rep, root, "move_page_tables", "mremap.move_page_tables",
			 mpt_json(snap));
	add_if_available(rep, root, "mremap_levels", "mremap.levels",
			 levels_json(rep, snap));
	add_if_available(rep, root, "folio_lookups", "mremap.folio_lookups",
			 folio_lookups_json(snap));
	add_if_available(rep, root, "hugepage_faults", "thp.fault_alloc",
			 faults_obj_json(rep, snap));
	add_if_available(rep, root, "khugepaged_collapse", "thp.collapse",
			 collapse_json(rep, snap));
	json_object_object_add(root, "drops", drops_json(snap));
	json_object_object_add(root, "processes", procs_json(rep, snap));
	return root;
}

FILE *report_open(const char *path)
{
	FILE *out;

	if (!path)
		return stdout;
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
	if (out != stdout && fclose(out) && !err)
		err = errno;
	if (!err)
		return 0;
	fprintf(stderr, "ptscope: writing %s: %s\n",
		path ? path : "standard output", strerror(err));
	return 1;
}

int report_close(FILE *out, const char *path)
{
	return report_close_err(out, path, 0);
}

int report_write_json(json_object *root, const char *path)
{
	const char *text = json_object_to_json_string_ext(root,
				JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE);
	FILE *out = report_open(path);

	if (!out)
		return 1;
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
