// SPDX-License-Identifier: GPL-2.0
/* ptscope probe: what this kernel offers and which path each metric uses. */
#include <stdio.h>
#include "engine/batch_check.h"
#include "engine/catalog.h"
#include "render/report.h"
#include "tracer/tracer.h"
#include "views/start.h"
#include "views/views.h"

#define CAND_WHY_COL	22	/* where "-> reason" text starts */

/* a candidate's reason: a number of the status list, else its text */
static void candidate_why(FILE *out, const struct pts_report_input *rep,
			  const char *why)
{
	int nr = report_reason_number(rep, why);

	fprintf(out, "%*s-> ", CAND_WHY_COL - 3, "");
	if (nr)
		fprintf(out, "[%d] above", nr);
	else
		report_wrap(out, CAND_WHY_COL, CAND_WHY_COL, why);
	fputc('\n', out);
}

static void candidates_text(FILE *out, const struct pts_report_input *rep,
			    const struct pts_choice *ch)
{
	const struct pts_candidate *c;
	int i, col;

	for (i = 0; i < ch->metric->nr_cands; i++) {
		c = &ch->metric->cands[i];
		col = fprintf(out, "      %s %-10s ", i == ch->chosen ? "*" : " ",
			      path_kind_name(c->kind));
		report_wrap(out, col, col, c->label);
		fputc('\n', out);
		if (i != ch->chosen && ch->why[i][0])
			candidate_why(out, rep, ch->why[i]);
	}
}

/* under the status table: the metrics whose path slows every syscall */
static void syscall_tax_text(FILE *out, const struct pts_engine *eng)
{
	char note[1024];
	int col;

	if (!view_syscall_tax_note(eng, note, sizeof(note)))
		return;
	col = fprintf(out, "\nnote: ") - 1;
	report_wrap(out, col, col, note);
	fputc('\n', out);
}

/* under the status table: the start-up check of the inferred batches */
static void batch_check_text(FILE *out, const struct pts_engine *eng)
{
	char summary[2048];
	int col;

	batch_check_summary(&eng->batch_check, summary, sizeof(summary));
	col = fprintf(out, "\nstart-up check of %s:", PTS_BATCH_CHECK_METRIC);
	report_wrap(out, col, 6, summary);
	fputc('\n', out);
}

/* which build of the BPF objects loaded, feature by feature */
static void bpf_build_text(FILE *out, const struct pts_bpf_features *bf)
{
	char impl[PTS_WHY_LEN];
	int f;

	fprintf(out, "\nBPF build: %s\n", bf->fallback ? "fallback" : "primary");
	for (f = 0; f < PTS_BPF_NR_FEATURES; f++) {
		bpf_feature_impl(bf, f, impl, sizeof(impl));
		fprintf(out, "  %-11s %s\n", bpf_feature_name(f), impl);
	}
}

static json_object *bpf_build_json(const struct pts_bpf_features *bf)
{
	json_object *root = json_object_new_object(), *feats, *one;
	char impl[PTS_WHY_LEN];
	int f;

	json_object_object_add(root, "build", json_object_new_string(
			bf->fallback ? "fallback" : "primary"));
	feats = json_object_new_object();
	for (f = 0; f < PTS_BPF_NR_FEATURES; f++) {
		one = json_object_new_object();
		json_object_object_add(one, "offered",
				       json_object_new_boolean(bf->offered[f]));
		json_object_object_add(one, "forced",
				       json_object_new_boolean(bf->forced[f]));
		bpf_feature_impl(bf, f, impl, sizeof(impl));
		json_object_object_add(one, "implementation",
				       json_object_new_string(impl));
		json_object_object_add(feats, bpf_feature_name(f), one);
	}
	json_object_object_add(root, "features", feats);
	return root;
}

static void probe_text(FILE *out, struct pts_tracer *s)
{
	struct pts_hook hooks[PTS_MAX_LINKS];
	const struct pts_choice *ch;
	size_t h, nr_hooks;
	int i, col;

	fprintf(out, "kernel %s %s, page size %llu, tracefs %s, kprobes %s\n",
		s->kf.release, s->kf.machine,
		(unsigned long long)s->rep.page_size,
		s->kf.tracefs[0] ? s->kf.tracefs : "(none)",
		s->kf.kprobe_pmu ? "yes" : "no");
	bpf_build_text(out, &s->eng.bpf);
	fprintf(out, "\nmetric                   status    path\n");
	report_metric_status(out, &s->rep);
	batch_check_text(out, &s->eng);
	syscall_tax_text(out, &s->eng);
	fprintf(out, "\ncandidates, best first (* = attached):\n");
	for (i = 0; i < s->eng.nr_choices; i++) {
		ch = &s->eng.choices[i];
		col = fprintf(out, "  %s:", ch->metric->name);
		report_wrap(out, col, 4, ch->metric->desc);
		fputc('\n', out);
		candidates_text(out, &s->rep, ch);
	}
	nr_hooks = tracer_hooks(s, hooks, PTS_MAX_LINKS);
	fprintf(out, "\nattached hooks:\n");
	for (h = 0; h < nr_hooks; h++)
		fprintf(out, "  %-22s %-10s %s\n", hooks[h].metric,
			hooks[h].type, hooks[h].target);
}

/*
 * the attached programs' hooks, for bench/ptscope-floor, with what the
 * verifier went through for each (tests/vm/checkers/check_matrix.py)
 */
static json_object *hooks_json(struct pts_tracer *s)
{
	struct pts_hook hooks[PTS_MAX_LINKS];
	json_object *arr = json_object_new_array(), *h;
	size_t i, n;

	n = tracer_hooks(s, hooks, PTS_MAX_LINKS);
	for (i = 0; i < n; i++) {
		h = json_object_new_object();
		json_object_object_add(h, "metric",
				       json_object_new_string(hooks[i].metric));
		json_object_object_add(h, "type",
				       json_object_new_string(hooks[i].type));
		json_object_object_add(h, "target",
				       json_object_new_string(hooks[i].target));
		json_object_object_add(h, "program",
				       json_object_new_string(hooks[i].prog));
		json_object_object_add(h, "verified_insns",
				       json_object_new_int64(hooks[i].verified_insns));
		json_object_array_add(arr, h);
	}
	return arr;
}

/* the metrics on syscall tracepoints, and what that costs each syscall */
static json_object *syscall_tax_json(const struct pts_engine *eng)
{
	json_object *tax = json_object_new_object();
	json_object *names = json_object_new_array();
	int i;

	for (i = 0; i < eng->nr_choices; i++)
		if (view_taxes_syscalls(&eng->choices[i]))
			json_object_array_add(names, json_object_new_string(
					eng->choices[i].metric->name));
	json_object_object_add(tax, "metrics", names);
	json_object_object_add(tax, "ns_per_syscall",
			       json_object_new_int(PTS_SYSCALL_TAX_NS));
	return tax;
}

int view_probe(const struct pts_options *opts)
{
	struct pts_tracer s;
	json_object *root;
	FILE *out;
	int ret;

	ret = view_tracer_start(&s, opts, false);
	if (ret)
		return ret;
	if (opts->json) {
		root = json_object_new_object();
		json_object_object_add(root, "system", report_system_json(&s.rep));
		json_object_object_add(root, "metrics", report_metrics_json(&s.rep));
		json_object_object_add(root, "hooks", hooks_json(&s));
		json_object_object_add(root, "bpf", bpf_build_json(&s.eng.bpf));
		json_object_object_add(root, "syscall_tax",
				       syscall_tax_json(&s.eng));
		ret = report_write_json(root, opts->output);
		json_object_put(root);
	} else {
		out = report_open(opts->output);
		if (!out) {
			ret = 1;
		} else {
			probe_text(out, &s);
			ret = report_close(out, opts->output);
		}
	}
	tracer_stop(&s);
	return ret;
}
