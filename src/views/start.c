// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <stdlib.h>
#include "data/cgroup.h"
#include "data/format.h"
#include "engine/bpf_features.h"
#include "views/signals.h"
#include "views/start.h"
#include "views/term.h"

/* --cgroup PATH: 0 with @t open, or 2 after saying what is wrong */
static int resolve_cgroup(const char *arg, struct pts_cgroup_target *t)
{
	struct pts_cgroup_fs fs;
	char err[2 * PATH_MAX + 200];

	cgroup_fs_find(&fs);	/* not mounted: cgroup_resolve() says so */
	if (!cgroup_resolve(&fs, arg, t, err, sizeof(err)))
		return 0;
	fprintf(stderr, "ptscope: %s\n", err);
	return 2;
}

/* which commands count per cgroup: those that show or serve it */
static bool wants_cgroup_rows(const struct pts_options *opts)
{
	switch (opts->cmd) {
	case PTS_CMD_TOP:
	case PTS_CMD_STAT:
		return true;
	case PTS_CMD_EXPORT:
		return opts->cgroup_labels > 0;
	default:
		return false;
	}
}

/*
 * What the BPF programs keep: what the command shows (top and stat show
 * processes and cgroups, export serves cgroups with --cgroup-labels), or
 * export --parts.
 */
static unsigned int view_parts(const struct pts_options *opts)
{
	unsigned int parts = PTS_PART_COUNTS | PTS_PART_HISTS |
			     PTS_PART_PTE_MARKER;

	if (opts->parts_arg)
		return opts->parts;
	if (opts->cmd == PTS_CMD_TOP || opts->cmd == PTS_CMD_STAT)
		parts |= PTS_PART_PROC_ROWS;
	if (wants_cgroup_rows(opts))
		parts |= PTS_PART_CGROUP_ROWS;
	return parts;
}

/* -p PID: 0 when it exists, else 1 after saying so */
static int check_pid(pid_t pid)
{
	/* signal 0: existence and permission only; EPERM means it exists */
	if (kill(pid, 0) && errno == ESRCH) {
		fprintf(stderr, "ptscope: no process with pid %d; it may have "
			"exited ('ps -e' lists the running ones)\n", (int)pid);
		return 1;
	}
	return 0;
}

/*
 * The reason a candidate of path @kind gave, skipping those written for
 * another kernel's prototype: what --mode KIND ran into.  NULL if none.
 */
static const char *kind_reason(const struct pts_choice *ch, int kind)
{
	int i;

	for (i = 0; i < ch->metric->nr_cands; i++)
		if ((int)ch->metric->cands[i].kind == kind &&
		    !ch->other_kernel[i] && ch->why[i][0])
			return ch->why[i];
	return NULL;
}

/* --mode or --metric asked for @ch, and it is unavailable: say why */
static void warn_unavailable(const struct pts_choice *ch,
			     const struct pts_options *opts)
{
	char reason[1024];
	const char *why = NULL;

	if (!ch->opted_in)
		why = kind_reason(ch, opts->mode);
	if (!why) {
		engine_unavailable_reason(ch, reason, sizeof(reason));
		why = reason;
	}
	if (ch->opted_in)
		fprintf(stderr, "ptscope: warning: --metric %s unavailable "
			"(%s)\n", ch->metric->name, why);
	else
		fprintf(stderr, "ptscope: warning: --mode %s: %s unavailable "
			"(%s)\n", path_kind_name(opts->mode), ch->metric->name,
			why);
}

/* the metrics an explicit --mode or --metric left without a path */
static void warn_requested(const struct pts_engine *eng,
			   const struct pts_options *opts)
{
	const struct pts_choice *ch;
	int i;

	for (i = 0; i < eng->nr_choices; i++) {
		ch = &eng->choices[i];
		if (ch->chosen >= 0 || ch->metric->internal)
			continue;
		if (ch->opted_in ||
		    (opts->mode != PTS_MODE_AUTO && !ch->metric->opt_in))
			warn_unavailable(ch, opts);
	}
}

/* -v: one line per candidate the kernel turned down, with its reason */
static void report_refusals(const struct pts_engine *eng)
{
	const struct pts_choice *ch;
	int i, j;

	for (i = 0; i < eng->nr_choices; i++) {
		ch = &eng->choices[i];
		for (j = 0; j < ch->metric->nr_cands; j++)
			if (engine_kernel_refused(ch, j))
				fprintf(stderr, "ptscope: refused: %s via %s: "
					"%s\n", ch->metric->name,
					ch->metric->cands[j].label,
					ch->why[j]);
	}
}

#define LOCKDOWN_FILE	"/sys/kernel/security/lockdown"
#define CAP_BIT(c)	(1ull << (c))
/* CAP_PERFMON (38) and CAP_BPF (39), linux/capability.h */
#define BPF_TRACE_CAPS	(CAP_BIT(38) | CAP_BIT(39))

/* this process's effective capabilities, from /proc/self/status; 0 unknown */
static unsigned long long effective_caps(void)
{
	unsigned long long caps = 0;
	char line[128];
	FILE *f = fopen("/proc/self/status", "r");

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "CapEff: %llx", &caps) == 1)
			break;
	fclose(f);
	return caps;
}

/* the lockdown line, where the kernel has the file, with its setting */
static void eperm_lockdown(void)
{
	char mode[128];
	FILE *f = fopen(LOCKDOWN_FILE, "r");

	if (!f)
		return;		/* no lockdown LSM here: not the cause */
	if (!fgets(mode, sizeof(mode), f))
		mode[0] = '\0';
	fclose(f);
	mode[strcspn(mode, "\n")] = '\0';
	fprintf(stderr, "  kernel lockdown: %s says %s ([none] allows BPF "
		"tracing)\n", LOCKDOWN_FILE, mode);
}

static bool attached_any(const struct pts_engine *eng)
{
	int i;

	for (i = 0; i < eng->nr_choices; i++)
		if (eng->choices[i].chosen >= 0)
			return true;
	return false;
}

/*
 * Once per run, however many programs it hit: EPERM from bpf() is a
 * policy, not a bug in the program, and the policy has a few homes; only
 * those that can be the cause here are listed.  Where other paths took
 * the metrics it is a note, not an alarm.
 */
static void explain_eperm(const struct pts_engine *eng)
{
	unsigned int kinds = engine_refused_kinds(eng, -EPERM);
	bool fell_back = attached_any(eng);
	int k, n = 0;

	if (!kinds)
		return;
	fprintf(stderr, "ptscope: %sthe kernel refused BPF programs (",
		fell_back ? "note: " : "");
	for (k = 0; k < PTS_PATH_KINDS; k++)
		if (kinds & (1u << k))
			fprintf(stderr, "%s%s", n++ ? ", " : "", path_kind_name(k));
	fprintf(stderr, ") with EPERM%s\n", fell_back ?
		"; each\n  metric took its next path (the table says which). "
		"What can refuse them:" : ". Check:");
	eperm_lockdown();
	if ((effective_caps() & BPF_TRACE_CAPS) != BPF_TRACE_CAPS)
		fprintf(stderr, "  privileges: root, or CAP_BPF and CAP_PERFMON "
			"(and CAP_SYS_ADMIN for tracefs); this process lacks "
			"some\n");
	fprintf(stderr, "  a sandbox, container seccomp profile or LSM (SELinux, "
		"AppArmor, BPF LSM) denying bpf()\n");
	if (geteuid() != 0)
		fprintf(stderr, "  sysctl kernel.unprivileged_bpf_disabled when "
			"not root\n");
}

bool view_taxes_syscalls(const struct pts_choice *ch)
{
	return ch->chosen >= 0 && ch->metric->cands[ch->chosen].taxes_syscalls;
}

/* the metrics on syscall tracepoints, ", " between them; how many */
static int taxed_metrics(const struct pts_engine *eng, char *buf, size_t len)
{
	size_t at = 0;
	int i, w, n = 0;

	buf[0] = '\0';
	for (i = 0; i < eng->nr_choices; i++) {
		if (!view_taxes_syscalls(&eng->choices[i]))
			continue;
		w = snprintf(buf + at, len - at, "%s%s", n ? ", " : "",
			     eng->choices[i].metric->name);
		n++;
		if (w < 0 || (size_t)w >= len - at)
			break;	/* cut short, still terminated */
		at += w;
	}
	return n;
}

int view_syscall_tax_note(const struct pts_engine *eng, char *buf, size_t len)
{
	char names[PTS_MAX_METRICS * 32];
	int n = taxed_metrics(eng, names, sizeof(names));

	buf[0] = '\0';
	if (!n)
		return 0;
	/*
	 * only --mode auto tried fentry first: a metric lands on these
	 * tracepoints there only after its fentry candidate failed
	 */
	snprintf(buf, len, "%s %s on syscall tracepoints, which slow every "
		 "syscall on this box while ptscope runs (about +%d ns each "
		 "where make bench-overhead measured it); %s", names,
		 n == 1 ? "is" : "are", PTS_SYSCALL_TAX_NS,
		 eng->mode != PTS_MODE_AUTO ?
		 "where fentry loads, --mode auto or fentry avoids that" :
		 "fentry would avoid that but is not available here");
	return n;
}

/*
 * top and export run for long: say that the box pays for them (probe
 * reports it, stat runs one command, snoop is a short look)
 */
void view_syscall_tax_say(const struct pts_engine *eng)
{
	char note[1024];
	int col;

	if (!view_syscall_tax_note(eng, note, sizeof(note)))
		return;
	col = fprintf(stderr, "ptscope: note:");
	/* one line for logs; on a terminal, lines that fit its window */
	if (isatty(STDERR_FILENO))
		fmt_wrap(stderr, col, 2, term_columns(STDERR_FILENO), note);
	else
		fprintf(stderr, " %s", note);
	fputc('\n', stderr);
}

/*
 * What the user asked for and did not get, said once, after attaching.
 * EPERM is explained where it matters: probe, -v, an explicit --mode, or
 * a start that failed; in auto mode a refused path falls back quietly
 * (the status header names it), or every run on a box that refuses
 * fentry would open with the same five lines.
 */
static void report_start(const struct pts_tracer *t,
			 const struct pts_options *opts, int ret)
{
	if (opts->verbose)
		report_refusals(&t->eng);
	if (opts->verbose || ret || opts->cmd == PTS_CMD_PROBE ||
	    opts->mode != PTS_MODE_AUTO)
		explain_eperm(&t->eng);
	if (opts->cmd != PTS_CMD_PROBE)	/* probe's report is this */
		warn_requested(&t->eng, opts);
	if (opts->parts_arg)
		fprintf(stderr, "ptscope: warning: --parts %s: the BPF "
			"programs keep only that; what the other parts count "
			"is not served (for measuring overhead)\n",
			opts->parts_arg);
	if (!ret && (opts->cmd == PTS_CMD_TOP || opts->cmd == PTS_CMD_EXPORT))
		view_syscall_tax_say(&t->eng);
}

void view_warn_comm_unmatched(const struct pts_options *opts,
			      const struct pts_snapshot *snap)
{
	if (opts->comm[0] && !snap->nr_procs)
		fprintf(stderr, "ptscope: warning: -c %s matched no process "
			"(no task with that comm mremapped or faulted a "
			"hugepage; 'ps -eo comm' lists the names)\n",
			opts->comm);
}

static void explain_attach_failure(int err)
{
	if (err == -ENOENT)
		fprintf(stderr, "ptscope: no metric can be attached on this "
			"kernel; 'ptscope probe' shows why for each one\n");
	else
		fprintf(stderr, "ptscope: loading BPF programs failed: %s; rerun "
			"with -v for what was refused, --libbpf-debug for "
			"libbpf's log, or try --mode tracepoint\n",
			strerror(-err));
}

/* PTSCOPE_BPF_FALLBACK is input too: a name it does not know is bad usage */
static int check_fallback_env(void)
{
	struct pts_bpf_features bf;
	char why[PTS_WHY_LEN];

	memset(&bf, 0, sizeof(bf));
	if (!bpf_features_force(&bf, getenv(PTS_BPF_FALLBACK_ENV), why,
				sizeof(why)))
		return 0;
	fprintf(stderr, "ptscope: %s\n", why);
	return 2;
}

/*
 * tracer_start() for a command: 0, or exit code 1 after saying what to do
 * (2 for a bad PTSCOPE_BPF_FALLBACK)
 */
static int start_tracer(struct pts_tracer *t,
			const struct pts_tracer_params *p)
{
	int err;

	err = check_fallback_env();
	if (err) {
		memset(t, 0, sizeof(*t));	/* nothing chosen to report */
		return err;
	}
	if (geteuid() != 0) {
		fprintf(stderr, "ptscope: needs root (CAP_BPF, CAP_PERFMON and "
			"CAP_SYS_ADMIN for tracefs); run it with sudo\n");
		memset(t, 0, sizeof(*t));	/* nothing chosen to report */
		return 1;
	}
	err = tracer_start(t, p);
	if (t->attach_err)
		explain_attach_failure(t->attach_err);
	return err ? 1 : 0;
}

int view_tracer_start(struct pts_tracer *t, const struct pts_options *opts,
		      bool follow_fork)
{
	struct pts_cgroup_target cgroup = { .fd = -1 };
	struct pts_tracer_params p = {
		/* following a process tree: the traced map, not one tgid */
		.pid = follow_fork ? 0 : opts->pid,
		.comm = opts->comm,
		.mode = opts->mode,
		.opt_in = opts->opt_in,
		.nr_opt_in = opts->nr_opt_in,
		.follow_fork = follow_fork,
		.events = opts->cmd == PTS_CMD_SNOOP,
		.probe_only = opts->cmd == PTS_CMD_PROBE,
		.parts = view_parts(opts),
		/* the long runs; stat keeps every run's rows to the end */
		.prune_cgroups = opts->cmd == PTS_CMD_TOP ||
				 opts->cmd == PTS_CMD_EXPORT,
		.kube_logs = opts->kube_logs,
	};
	int ret;

	/* probe and diff trace nothing: no filter to resolve */
	if (opts->pid && opts->cmd != PTS_CMD_PROBE && check_pid(opts->pid))
		return 1;
	if (opts->cgroup && opts->cmd != PTS_CMD_PROBE) {
		ret = resolve_cgroup(opts->cgroup, &cgroup);
		if (ret)
			return ret;
		p.cgroup = &cgroup;
	}
	ret = start_tracer(t, &p);
	/* the BPF map holds the cgroup now */
	cgroup_target_close(&cgroup);
	if (t->eng.nr_choices)	/* 0: it stopped before choosing */
		report_start(t, opts, ret);
	return ret;
}

static int read_totals(void *ctx, struct pts_snapshot *snap)
{
	return tracer_read_totals(ctx, snap);
}

static void tidy(void *ctx)
{
	tracer_tidy(ctx);
}

/* what the exporter serves of @t */
static void export_source(struct pts_tracer *t, struct pts_export_source *src,
			  const struct pts_options *opts)
{
	*src = (struct pts_export_source){
		.read = read_totals,
		.tidy = tidy,
		.ctx = t,
		.eng = &t->eng,
		.kf = &t->kf,
		.page_size = t->rep.page_size,
		.cgroup_labels = (t->cfg.parts & PTS_PART_CGROUP_ROWS) ?
				 (size_t)opts->cgroup_labels : 0,
		.parts_off = PTS_PARTS_ALL & ~t->cfg.parts,
		.kc_base = &t->kc_base,
	};
	src->progs = tracer_programs(t, &src->nr_progs);
}

int view_serve_start(struct pts_tracer *t, struct pts_export_source *src,
		     const struct pts_options *opts, bool serve,
		     struct pts_exporter **ex)
{
	int ret;

	*ex = NULL;
	if (serve) {
		ret = exporter_listen(opts->listen, opts->verbose,
				      opts->bpf_stats, ex);
		/* an address that is no address, or none of this host's */
		if (ret == -EINVAL || ret == -EADDRNOTAVAIL)
			return 2;
		if (ret)
			return 1;
	}
	ret = view_tracer_start(t, opts, false);
	if (ret) {
		exporter_close(*ex);
		*ex = NULL;
		return ret;
	}
	if (!*ex)
		return 0;
	export_source(t, src, opts);
	signals_hold();
	if (exporter_start(*ex, src)) {
		view_serve_stop(t, *ex);
		*ex = NULL;
		return 1;
	}
	return 0;
}

void view_serve_stop(struct pts_tracer *t, struct pts_exporter *ex)
{
	exporter_close(ex);
	signals_release();
	tracer_stop(t);
}
