// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope stat's report.  The JSON recording keeps the totals and every
 * run (format version 2), each with the machine's reference timed around
 * it (version 3); the text report gives the totals and, over
 * several runs, each value's mean ± stddev and range, read back from the
 * recording as diff reads it, so both name the same values.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/format.h"
#include "data/recording.h"
#include "data/reference.h"
#include "data/stats.h"
#include "render/kcounters_report.h"
#include "render/report.h"
#include "views/stat_report.h"
#include "render/values.h"

int stat_exit_status(const struct stat_state *st)
{
	size_t i;

	for (i = 0; i < st->nr_runs; i++)
		if (st->runs[i].exit_status)
			return st->runs[i].exit_status;
	return 0;
}

static double total_seconds(const struct stat_state *st)
{
	double sum = 0;
	size_t i;

	for (i = 0; i < st->nr_runs; i++)
		sum += st->runs[i].seconds;
	return sum;
}

/* the reference's two timings around @run, seconds */
static json_object *reference_run_json(const struct stat_run *run)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "before_s",
			       json_object_new_double(run->reference[0]));
	json_object_object_add(obj, "after_s",
			       json_object_new_double(run->reference[1]));
	return obj;
}

/* what the reference is, so that diff compares only the same work */
static json_object *reference_json(void)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "hash_rounds",
			       json_object_new_int(REF_HASH_ROUNDS));
	json_object_object_add(obj, "getppid_calls",
			       json_object_new_int(REF_SYSCALLS));
	return obj;
}

static json_object *run_json(struct pts_tracer *t, const struct stat_run *run)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "seconds", json_object_new_double(run->seconds));
	json_object_object_add(obj, "exit_status",
			       json_object_new_int(run->exit_status));
	json_object_object_add(obj, "counters",
			       report_snapshot_json(&t->rep, &run->delta));
	json_object_object_add(obj, "kernel_counters", kcounters_json(&run->kc));
	json_object_object_add(obj, "reference", reference_run_json(run));
	return obj;
}

static json_object *summary_json(const struct stat_state *st,
				 const struct pts_options *opts)
{
	json_object *run = json_object_new_object();

	json_object_object_add(run, "command", fmt_json_string(st->cmd));
	json_object_object_add(run, "target", json_object_new_string(
				       opts->cmd_argv ? "command" : "pid"));
	json_object_object_add(run, "exit_status",
			       json_object_new_int(stat_exit_status(st)));
	json_object_object_add(run, "seconds",
			       json_object_new_double(total_seconds(st)));
	json_object_object_add(run, "repeat",
			       json_object_new_int64((int64_t)st->nr_runs));
	/* Ctrl-C (or the pid's exit) ended it before the runs asked for */
	if (st->nr_runs < st->want_runs) {
		json_object_object_add(run, "partial",
				       json_object_new_boolean(true));
		json_object_object_add(run, "repeat_asked",
				       json_object_new_int64((int64_t)st->want_runs));
	}
	return run;
}

/* the recording: the totals as before, and every run in "runs" */
static json_object *recording_json(struct stat_state *st,
				   const struct pts_options *opts)
{
	json_object *root = json_object_new_object();
	json_object *runs = json_object_new_array();
	size_t i;

	json_object_object_add(root, "ptscope_version",
			       json_object_new_int(REC_FORMAT_VERSION));
	json_object_object_add(root, "run", summary_json(st, opts));
	json_object_object_add(root, "system", report_system_json(&st->t.rep));
	json_object_object_add(root, "reference", reference_json());
	json_object_object_add(root, "metrics", report_metrics_json(&st->t.rep));
	json_object_object_add(root, "counters",
			       report_snapshot_json(&st->t.rep, &st->totals));
	json_object_object_add(root, "kernel_counters",
			       kcounters_json(&st->kc_total));
	json_object_object_add(root, "self_check",
			       report_selfcheck_json(&st->t.rep, &st->totals,
						     &st->kc_total));
	for (i = 0; i < st->nr_runs; i++)
		json_object_array_add(runs, run_json(&st->t, &st->runs[i]));
	json_object_object_add(root, "runs", runs);
	return root;
}

/* ---- text ---- */

static void procs_text(FILE *out, const struct pts_snapshot *snap)
{
	char comm[FMT_COMM_LEN];
	size_t i;

	fprintf(out, "\nprocesses:\n  %7s %-16s %8s %10s\n", "PID", "COMM",
		"MREMAP", "HUGEFAULT");
	for (i = 0; i < snap->nr_procs; i++)
		fprintf(out, "  %7u %-16s %8llu %10llu\n", snap->procs[i].tgid,
			fmt_escape(comm, sizeof(comm), snap->procs[i].stats.comm),
			(unsigned long long)proc_total_mremap(&snap->procs[i].stats),
			(unsigned long long)proc_total_faults(&snap->procs[i].stats));
}

/* one value over the runs: "name  mean ± sd%  (min – max)" */
static void summary_line(FILE *out, const struct rec_value *v,
			 const double *values, size_t n)
{
	char mean[48], low[32], high[32];
	struct stats_summary s;

	stats_summarize(values, n, &s);
	if (s.max == 0)
		return;		/* zero in every run: nothing to tell */
	fmt_mean_sd(mean, sizeof(mean), &s, v->unit);
	if (stats_constant(&s))
		fprintf(out, "  %-44s %20s  (every run)\n", v->name, mean);
	else
		fprintf(out, "  %-44s %20s  (%s – %s)\n", v->name, mean,
			fmt_value(low, sizeof(low), s.min, v->unit),
			fmt_value(high, sizeof(high), s.max, v->unit));
}

/* the machine's reference around each run, as diff compares it first */
static void reference_line(FILE *out, const struct recording *rec,
			   double *values)
{
	const struct rec_value v = {
		.name = "reference_ns (the machine's own speed)",
		.unit = REC_UNIT_NS,
	};
	size_t r;

	for (r = 0; r < rec->nr_runs; r++)
		values[r] = rec->runs[r].reference * 1e9;
	summary_line(out, &v, values, rec->nr_runs);
}

/*
 * perf stat -r's summary: per value of the recording, as diff will read
 * it, the mean ± stddev (as % of the mean) and the range over the runs
 */
static int runs_text(FILE *out, json_object *root, size_t nr_runs,
		     const char *unit)
{
	const struct rec_run *first;
	const struct rec_value *v;
	struct recording rec;
	char err[256];
	double *values;
	size_t i, r, n;
	int ret;

	values = calloc(nr_runs, sizeof(*values));
	if (!values)
		return -ENOMEM;
	ret = recording_flatten(root, "this recording", &rec, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "ptscope: the per-run summary: %s\n", err);
		goto out;
	}
	fprintf(out, "\nover %zu %ss (mean ± stddev as %% of it, min – max):\n",
		rec.nr_runs, unit);
	first = &rec.runs[0];
	for (i = 0; i < first->nr; i++) {
		v = &first->v[i];
		for (r = n = 0; r < rec.nr_runs; r++) {
			const struct rec_value *found = rec_run_find(&rec.runs[r],
								     v->name);

			if (found)
				values[n++] = found->value;
		}
		summary_line(out, v, values, n);
	}
	reference_line(out, &rec, values);
out:
	recording_free(&rec);
	free(values);
	return ret;
}

/* "ptscope stat: CMD exited 0 after 1.2 s", "..., 5 runs, exit 0, ..." */
static void stat_title(FILE *out, struct stat_state *st,
		       const struct pts_options *opts)
{
	const char *unit = opts->cmd_argv ? "run" : "window";
	char safe[FMT_ESCAPED_LEN(sizeof(st->cmd))];

	/* the command is shell-quoted already (stat.c), pid N (comm) too */
	fprintf(out, "ptscope stat: %s", fmt_escape(safe, sizeof(safe), st->cmd));
	if (opts->cmd_argv && st->nr_runs == 1)
		fprintf(out, " exited %d after %.3f s", st->runs[0].exit_status,
			st->runs[0].seconds);
	else if (st->nr_runs == 1)
		fprintf(out, ", a window of %.3f s", st->runs[0].seconds);
	else
		fprintf(out, ", %zu %ss, exit %d, %.3f s in all", st->nr_runs,
			unit, stat_exit_status(st), total_seconds(st));
	fprintf(out, " (kernel %s)\n", st->t.kf.release);
}

static void stat_text(FILE *out, struct stat_state *st, json_object *root,
		      const struct pts_options *opts)
{
	struct pts_tracer *t = &st->t;

	stat_title(out, st, opts);
	report_metric_status(out, &t->rep);
	report_snapshot_text(out, &t->rep, &st->totals, true);
	kcounters_text(out, &st->kc_total);
	report_selfcheck_text(out, &t->rep, &st->totals, &st->kc_total);
	procs_text(out, &st->totals);
	report_cgroups_text(out, &t->rep, &st->totals, (int)st->totals.nr_cgroups,
			    false, 0);
	if (st->nr_runs > 1 &&
	    runs_text(out, root, st->nr_runs,
		      opts->cmd_argv ? "run" : "window") == -ENOMEM)
		fprintf(stderr, "ptscope: the per-run summary: out of memory\n");
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), m = strlen(suffix);

	return n >= m && !strcmp(s + n - m, suffix);
}

/* the report to @out, opened for @path (NULL: stderr); 0 or 1 */
static int stat_write(FILE *out, const char *path, struct stat_state *st,
		      json_object *root, const struct pts_options *opts)
{
	if (opts->json || (opts->output && ends_with(opts->output, ".json")))
		return report_write_json_to(root, out, path);
	stat_text(out, st, root, opts);
	return report_close(out, path);
}

int stat_report(struct stat_state *st, const struct pts_options *opts)
{
	json_object *root;
	FILE *out;
	int ret;

	report_sort_cgroups(&st->totals, PTS_SORT_ACTIVITY);
	root = recording_json(st, opts);
	out = report_open_or(opts->output, stderr);
	ret = out ? stat_write(out, opts->output, st, root, opts) : 1;
	/* -o was writable at the start: the run's results are not lost now */
	if (ret && opts->output) {
		fprintf(stderr, "ptscope: the report follows on standard error "
			"instead\n");
		stat_write(stderr, NULL, st, root, opts);
	}
	json_object_put(root);
	return ret;
}
