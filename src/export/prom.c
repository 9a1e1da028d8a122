// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics page of "ptscope export" in the Prometheus text format
 * 0.0.4.  Counters are the cumulative values of the BPF maps (never
 * reset); a metric that is not attached on this kernel is left out
 * entirely, never exported as 0.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/cgroup_names.h"
#include "data/cgroup_rank.h"
#include "data/format.h"
#include "data/hist.h"
#include "export/prom.h"
#include "data/schema.h"

#define NS_PER_SEC 1000000000ULL
#define PROM_XSTR(x)	#x
#define PROM_STR(x)	PROM_XSTR(x)

const struct prom_family prom_families[PROM_NR_FAMILIES] = {
	[PROM_FAM_CGROUP_LIMIT] = { "ptscope_cgroup_labels_limit", "gauge",
		"Cgroups that get a cgroup label of their own in the "
		"ptscope_cgroup_* families (--cgroup-labels)." },
	[PROM_FAM_CGROUP_FOLDED] = { "ptscope_cgroup_labels_folded", "gauge",
		"Cgroups summed into cgroup=\"other\" at this scrape." },
	[PROM_FAM_CGROUP_ROWS] = { "ptscope_cgroup_rows", "gauge",
		"Rows of counts in the BPF map (live cgroups and the removed "
		"ones' sum); at " PROM_STR(PTS_MAX_CGROUPS) ", what new cgroups "
		"do is dropped (reason cgroup_map_full)." },
	[PROM_FAM_PROBE] = { "ptscope_probe_attached", "gauge",
		"1 if the metric is attached, 0 if this kernel does not offer "
		"it ('ptscope probe' says why).  path: how it is traced; "
		"status: exact or inferred.", { "metric", "path", "status" } },
	[PROM_FAM_PROG_SECS] = { "ptscope_bpf_program_run_seconds_total",
		"counter", "Time spent running each ptscope BPF program since "
		"export started (kernel BPF run-time statistics).",
		{ "program" } },
	[PROM_FAM_PROG_RUNS] = { "ptscope_bpf_program_runs_total", "counter",
		"Runs of each ptscope BPF program since export started.",
		{ "program" } },
	[PROM_FAM_SELFCHECK] = { "ptscope_hugepage_fault_selfcheck", "gauge",
		"1 while ptscope's hugepage fault counts of a size since export "
		"started are at most the kernel's own (hugepages-*kB/stats, "
		"/proc/vmstat thp_fault_*) over the same time; 0 once one is "
		"above: ptscope miscounted that size, and its fault counts "
		"are not to be trusted.", { "size", "order" } },
};

const char *const prom_cgroup_labels[PROM_CGROUP_LABELS] = {
	"cgroup", "namespace", "pod", "container",
};

struct prom_label {
	const char *name;
	const char *value;
};

static void put_escaped(FILE *out, const char *s, bool quotes)
{
	for (; *s; s++) {
		if (*s == '\\')
			fputs("\\\\", out);
		else if (*s == '\n')
			fputs("\\n", out);
		else if (*s == '"' && quotes)
			fputs("\\\"", out);
		else
			fputc(*s, out);
	}
}

void prom_put_label_value(FILE *out, const char *value)
{
	put_escaped(out, value, true);
}

void prom_put_help_text(FILE *out, const char *text)
{
	put_escaped(out, text, false);
}

/* exact decimal, trailing zeros dropped: 2047 -> "0.000002047", 1e9 -> "1" */
static const char *fmt_seconds(char *buf, size_t len, uint64_t ns)
{
	size_t end;

	snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / NS_PER_SEC),
		 (unsigned long long)(ns % NS_PER_SEC));
	end = strlen(buf);
	while (buf[end - 1] == '0')
		buf[--end] = '\0';
	if (buf[end - 1] == '.')
		buf[end - 1] = '\0';
	return buf;
}

void prom_put_seconds(FILE *out, uint64_t ns)
{
	char s[32];

	fputs(fmt_seconds(s, sizeof(s), ns), out);
}

static void put_family(FILE *out, const char *name, const char *type,
		       const char *help)
{
	fprintf(out, "# HELP %s ", name);
	prom_put_help_text(out, help);
	fprintf(out, "\n# TYPE %s %s\n", name, type);
}

/* name+suffix{labels,le="..."} without the value */
static void put_series(FILE *out, const char *name, const char *suffix,
		       const struct prom_label *labels, int nr, const char *le)
{
	int i;

	fprintf(out, "%s%s", name, suffix);
	if (!nr && !le)
		return;
	fputc('{', out);
	for (i = 0; i < nr; i++) {
		fprintf(out, "%s%s=\"", i ? "," : "", labels[i].name);
		prom_put_label_value(out, labels[i].value);
		fputc('"', out);
	}
	if (le)
		fprintf(out, "%sle=\"%s\"", nr ? "," : "", le);
	fputc('}', out);
}

static void put_u64(FILE *out, const char *name,
		    const struct prom_label *labels, int nr, uint64_t value)
{
	put_series(out, name, "", labels, nr, NULL);
	fprintf(out, " %llu\n", (unsigned long long)value);
}

static void put_seconds_sample(FILE *out, const char *name, const char *suffix,
			       const struct prom_label *labels, int nr,
			       uint64_t ns)
{
	put_series(out, name, suffix, labels, nr, NULL);
	fputc(' ', out);
	prom_put_seconds(out, ns);
	fputc('\n', out);
}

/* a bucket's "le": seconds for durations, the count itself otherwise */
static const char *fmt_le(char *buf, size_t len, uint64_t high, bool seconds)
{
	if (seconds)
		return fmt_seconds(buf, len, high);
	snprintf(buf, len, "%llu", (unsigned long long)high);
	return buf;
}

/*
 * Cumulative buckets from the log2 slots.  "+Inf" and _count are the sum
 * of the slots, so they agree even if a BPF program was halfway through
 * an update when the map was read.
 */
static void put_histogram(FILE *out, const char *name,
			  const struct prom_label *labels, int nr,
			  const struct pts_hist *h, bool seconds)
{
	int first = seconds ? PROM_HIST_FIRST_SLOT : 0;
	int last = seconds ? PROM_HIST_LAST_SLOT : PROM_COUNT_LAST_SLOT;
	uint64_t cumulative = 0, total = 0;
	char le[32];
	int i;

	for (i = 0; i < PTS_HIST_SLOTS; i++)
		total += h->slots[i];
	for (i = 0; i <= last; i++) {
		cumulative += h->slots[i];
		if (i < first)
			continue;
		put_series(out, name, "_bucket", labels, nr,
			   fmt_le(le, sizeof(le), hist_slot_high(i), seconds));
		fprintf(out, " %llu\n", (unsigned long long)cumulative);
	}
	put_series(out, name, "_bucket", labels, nr, "+Inf");
	fprintf(out, " %llu\n", (unsigned long long)total);
	if (seconds)
		put_seconds_sample(out, name, "_sum", labels, nr, h->sum);
	else {
		put_series(out, name, "_sum", labels, nr, NULL);
		fprintf(out, " %llu\n", (unsigned long long)h->sum);
	}
	put_series(out, name, "_count", labels, nr, NULL);
	fprintf(out, " %llu\n", (unsigned long long)total);
}

const char *prom_family_help(const struct pts_field *f)
{
	size_t i;

	for (i = 0; i < pts_nr_fields; i++)
		if (!strcmp(pts_fields[i].prom, f->prom) && pts_fields[i].prom_help)
			return pts_fields[i].prom_help;
	return "";
}

int prom_field_label_names(const struct pts_field *f,
			   const char *names[PROM_FIELD_LABELS])
{
	if (f->label == PTS_LABEL_NONE && !f->fixed_label)
		return 0;
	names[0] = schema_label_name(f);
	if (f->label != PTS_LABEL_ORDER)
		return 1;
	names[1] = "order";
	return 2;
}

/* the labels of value @i of @f: its label kind's, or its fixed one */
static int field_labels(const struct pts_schema_ctx *sc,
			const struct pts_field *f, unsigned int i,
			struct prom_label *l, char *value, size_t len,
			char *order, size_t order_len)
{
	const char *names[PROM_FIELD_LABELS];
	int nr = prom_field_label_names(f, names);

	if (!nr)
		return 0;
	l[0].name = names[0];
	l[0].value = schema_label_value(sc, f, i, value, len);
	if (nr == 1)
		return 1;
	snprintf(order, order_len, "%u", i);
	l[1].name = names[1];
	l[1].value = order;
	return 2;
}

static void render_field(const struct prom_input *in,
			 const struct pts_schema_ctx *sc,
			 const struct pts_field *f, FILE *out)
{
	unsigned int i, n = schema_label_count(f);
	char value[32], order[12];
	struct prom_label l[PROM_FIELD_LABELS];
	int nr;

	for (i = 0; i < n; i++) {
		if (f->label != PTS_LABEL_NONE &&
		    !schema_label_shown(sc, f, in->snap, i))
			continue;
		nr = field_labels(sc, f, i, l, value, sizeof(value), order,
				  sizeof(order));
		if (f->kind == PTS_FIELD_HIST)
			put_histogram(out, f->prom, l, nr,
				      schema_hist(f, in->snap, i),
				      f->unit == PTS_UNIT_NS);
		else
			put_u64(out, f->prom, l, nr,
				schema_counter(f, in->snap, i));
	}
}

static void schema_ctx(const struct prom_input *in, struct pts_schema_ctx *sc)
{
	*sc = (struct pts_schema_ctx){
		.eng = in->eng,
		.page_size = in->page_size,
		.result_name = in->collapse_name,
		.result_ctx = in->name_ctx,
		.parts_off = in->parts_off,
	};
}

/* is @f on the page: its metric attached by a path that provides it */
static bool field_exported(const struct pts_schema_ctx *sc,
			   const struct pts_field *f)
{
	return schema_section_attached(sc, f->section) &&
	       schema_field_present(sc, f);
}

/* every schema field this attach path provides, in schema order */
static void render_fields(const struct prom_input *in, FILE *out)
{
	const char *family = NULL;
	struct pts_schema_ctx sc;
	const struct pts_field *f;
	size_t i;

	schema_ctx(in, &sc);
	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		if (!field_exported(&sc, f))
			continue;
		if (!family || strcmp(family, f->prom))
			put_family(out, f->prom, f->kind == PTS_FIELD_HIST ?
				   "histogram" : "counter", prom_family_help(f));
		family = f->prom;
		render_field(in, &sc, f, out);
	}
}

const char *prom_cgroup_family(char *buf, size_t len,
			       const struct pts_field *f)
{
	snprintf(buf, len, "ptscope_cgroup_%s", f->prom + strlen("ptscope_"));
	return buf;
}

const char *prom_cgroup_help(char *buf, size_t len, const struct pts_field *f,
			     size_t limit)
{
	snprintf(buf, len, "Per cgroup v2 (the %zu busiest by mremap calls "
		 "and hugepage faults, the others summed as cgroup=\"other\", "
		 "removed cgroups as cgroup=\"removed\"; namespace, pod and "
		 "container name a pod's cgroups): %s", limit,
		 prom_family_help(f));
	return buf;
}

static void put_cgroup_family(FILE *out, const char *name,
			      const struct pts_field *f, size_t limit)
{
	char help[PROM_HELP_MAX];

	put_family(out, name, "counter",
		   prom_cgroup_help(help, sizeof(help), f, limit));
}

#define CGROUP_LABELS	PROM_CGROUP_LABELS

/* the labels of a sum of rows: cgroup=@what, no pod */
static void sum_labels(const char *what, struct prom_label *l)
{
	int i;

	for (i = 0; i < CGROUP_LABELS; i++)
		l[i] = (struct prom_label){ prom_cgroup_labels[i], "" };
	l[0].value = what;
}

/* the labels of a cgroup's row: its path, and its pod's names if any */
static void row_labels(const struct pts_cgroup_entry *e, char *id, size_t len,
		       struct prom_label *l)
{
	const struct pts_kube_names *n = e->kube ? &e->kube->names : NULL;

	sum_labels(cgroup_label(id, len, e->path, e->id), l);
	if (!n)
		return;
	l[1].value = n->ns;
	l[2].value = n->pod;
	l[3].value = n->container;
}


/* value @i of @f in @row, labelled by @who first */
static void put_cgroup_value(const struct pts_schema_ctx *sc,
			     const struct pts_field *f, unsigned int i,
			     const struct prom_label *who,
			     const struct pts_cgroup *row, const char *name,
			     FILE *out)
{
	struct prom_label l[CGROUP_LABELS + PROM_FIELD_LABELS];
	char value[32], order[12];
	int nr;

	memcpy(l, who, CGROUP_LABELS * sizeof(*l));
	nr = field_labels(sc, f, i, l + CGROUP_LABELS, value, sizeof(value),
			  order, sizeof(order));
	put_u64(out, name, l, nr + CGROUP_LABELS,
		schema_cgroup_counter(f, row, i));
}

/* the values of @f the unlabelled family shows, per cgroup, other, removed */
static void render_cgroup_field(const struct prom_input *in,
				const struct pts_schema_ctx *sc,
				const struct pts_field *f,
				const struct pts_cgroup_fold *fold,
				const char *name, FILE *out)
{
	unsigned int i, n = schema_label_count(f);
	struct prom_label who[CGROUP_LABELS];
	char id[32];
	size_t c;

	for (i = 0; i < n; i++) {
		if (f->label != PTS_LABEL_NONE &&
		    !schema_label_shown(sc, f, in->snap, i))
			continue;
		for (c = 0; c < fold->nr_top; c++) {
			row_labels(fold->top[c], id, sizeof(id), who);
			put_cgroup_value(sc, f, i, who, &fold->top[c]->stats,
					 name, out);
		}
		sum_labels("other", who);
		put_cgroup_value(sc, f, i, who, &fold->other, name, out);
		if (!fold->has_removed)
			continue;
		sum_labels("removed", who);
		put_cgroup_value(sc, f, i, who, &fold->removed, name, out);
	}
}

/* the header of prom_families[@fam] */
static const char *put_fixed_family(FILE *out, int fam)
{
	const struct prom_family *p = &prom_families[fam];

	put_family(out, p->name, p->type, p->help);
	return p->name;
}

static void put_gauge(FILE *out, int fam, uint64_t value)
{
	put_u64(out, put_fixed_family(out, fam), NULL, 0, value);
}

/* how the cgroup label is bounded, so a dashboard can tell what it sees */
static void render_cgroup_limits(const struct prom_input *in,
				 const struct pts_cgroup_fold *fold, FILE *out)
{
	put_gauge(out, PROM_FAM_CGROUP_LIMIT, in->cgroup_limit);
	put_gauge(out, PROM_FAM_CGROUP_FOLDED, fold->folded);
	put_gauge(out, PROM_FAM_CGROUP_ROWS, in->snap->nr_cgroups);
}

/*
 * The per-cgroup families, in schema order: nothing without
 * --cgroup-labels, or when the snapshot holds no per-cgroup rows.
 */
static int render_cgroups(const struct prom_input *in, FILE *out)
{
	const char *family = NULL;
	struct pts_cgroup_fold fold;
	struct pts_schema_ctx sc;
	const struct pts_field *f;
	char name[128];
	size_t i;

	if (!in->cgroup_limit || !in->snap->has_cgroups)
		return 0;
	if (cgroup_fold(in->snap, in->cgroup_limit, &fold))
		return -ENOMEM;
	if (in->carry && cgroup_carry_apply(in->carry, in->snap, &fold)) {
		cgroup_fold_free(&fold);
		return -ENOMEM;
	}
	schema_ctx(in, &sc);
	for (i = 0; i < pts_nr_fields; i++) {
		f = &pts_fields[i];
		if (!schema_field_per_cgroup(f) || !field_exported(&sc, f))
			continue;
		prom_cgroup_family(name, sizeof(name), f);
		if (!family || strcmp(family, f->prom))
			put_cgroup_family(out, name, f, in->cgroup_limit);
		family = f->prom;
		render_cgroup_field(in, &sc, f, &fold, name, out);
	}
	render_cgroup_limits(in, &fold, out);
	cgroup_fold_free(&fold);
	return 0;
}

static void render_probes(const struct prom_input *in, FILE *out)
{
	const char *const *names = prom_families[PROM_FAM_PROBE].labels;
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	struct prom_label l[3] = {
		{ names[0], NULL }, { names[1], NULL }, { names[2], NULL },
	};
	const char *name;
	int i;

	name = put_fixed_family(out, PROM_FAM_PROBE);
	for (i = 0; i < in->eng->nr_choices; i++) {
		ch = &in->eng->choices[i];
		if (ch->metric->internal)
			continue;
		c = ch->chosen >= 0 ? &ch->metric->cands[ch->chosen] : NULL;
		l[0].value = ch->metric->name;
		l[1].value = c ? path_kind_name(c->kind) : "none";
		l[2].value = !c ? "unavailable" : c->exact ? "exact" : "inferred";
		put_u64(out, name, l, 3, c ? 1 : 0);
	}
}

static void render_progs(const struct prom_input *in, FILE *out)
{
	const char *secs = prom_families[PROM_FAM_PROG_SECS].name;
	const char *runs = prom_families[PROM_FAM_PROG_RUNS].name;
	struct prom_label l = { prom_families[PROM_FAM_PROG_SECS].labels[0], NULL };
	size_t i;

	if (!in->progs) {
		/* absent, not zero: a comment says why */
		if (in->progs_off)
			fprintf(out, "# %s and %s left out: %s\n", secs, runs,
				in->progs_off);
		return;
	}
	put_fixed_family(out, PROM_FAM_PROG_SECS);
	for (i = 0; i < in->nr_progs; i++) {
		l.value = in->progs[i].name;
		put_seconds_sample(out, secs, "", &l, 1, in->progs[i].run_time_ns);
	}
	put_fixed_family(out, PROM_FAM_PROG_RUNS);
	for (i = 0; i < in->nr_progs; i++) {
		l.value = in->progs[i].name;
		put_u64(out, runs, &l, 1, in->progs[i].run_cnt);
	}
}

/* one series per folio size the kernel counts: 1 agrees, 0 disowned */
static void render_selfcheck(const struct prom_input *in, FILE *out)
{
	const struct prom_family *p = &prom_families[PROM_FAM_SELFCHECK];
	const struct selfcheck *sc = in->selfcheck;
	struct prom_label l[2] = { { p->labels[0], NULL }, { p->labels[1], NULL } };
	char size[16], order[8];
	unsigned int o;

	if (!sc) {
		/* absent, not "agrees": a comment says why */
		if (in->selfcheck_off)
			fprintf(out, "# %s left out: %s\n", p->name,
				in->selfcheck_off);
		return;
	}
	put_fixed_family(out, PROM_FAM_SELFCHECK);
	for (o = 0; o < PTS_MAX_ORDER; o++) {
		if (!(sc->orders_compared & (1U << o)))
			continue;
		l[0].value = fmt_order_size(size, sizeof(size), o, in->page_size);
		snprintf(order, sizeof(order), "%u", o);
		l[1].value = order;
		put_u64(out, p->name, l, 2, !(sc->orders_above & (1U << o)));
	}
}

int prom_render(const struct prom_input *in, FILE *out)
{
	int err;

	render_fields(in, out);
	err = render_cgroups(in, out);
	if (err)
		return err;
	render_probes(in, out);
	render_progs(in, out);
	render_selfcheck(in, out);
	if (fflush(out) || ferror(out))
		return errno ? -errno : -EIO;
	return 0;
}
