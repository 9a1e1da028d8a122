// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope stat -- CMD: trace CMD and its children, summarize at exit;
 * --repeat N runs it N times under one attach, reading the counters
 * between runs.  ptscope stat -p PID -d S: one window (or N) of a process
 * that is already running and of its children, those it has and those it
 * forks, as stat -- CMD follows its command's.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "data/collector.h"
#include "data/kcounters.h"
#include "data/procfind.h"
#include "data/reference.h"
#include "tracer/tracer.h"
#include "views/run_cmd.h"
#include "views/signals.h"
#include "views/start.h"
#include "views/stat_report.h"
#include "views/views.h"

/* the characters a shell word can have unquoted */
#define SHELL_PLAIN	"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" \
			"0123456789_@%+=:,./-"

/*
 * @arg as a shell reads it back: as it is, or in '' with ' as '"'"' (no
 * backslash, which the report's escaping would double)
 */
static void shell_word(FILE *f, const char *arg)
{
	const char *p;

	if (*arg && strspn(arg, SHELL_PLAIN) == strlen(arg)) {
		fputs(arg, f);
		return;
	}
	fputc('\'', f);
	for (p = arg; *p; p++)
		if (*p == '\'')
			fputs("'\"'\"'", f);
		else
			fputc(*p, f);
	fputc('\'', f);
}

/* the command line as one could type it again: sh -c 'kill -9 $$' */
static void cmdline(char *buf, size_t len, char **argv)
{
	FILE *f = fmemopen(buf, len, "w");
	int i;

	buf[0] = '\0';
	if (!f)
		return;
	for (i = 0; argv[i]; i++) {
		if (i)
			fputc(' ', f);
		shell_word(f, argv[i]);
	}
	fclose(f);
	buf[len - 1] = '\0';	/* cut short: fmemopen left no room for it */
}

/* "pid 123 (stress-ng) and its children": what a window of -p watched */
static void pid_name(char *buf, size_t len, pid_t pid)
{
	char comm[64];

	if (proc_comm(PROC_ROOT, pid, comm, sizeof(comm)) || !comm[0])
		snprintf(comm, sizeof(comm), "?");
	snprintf(buf, len, "pid %d (%s) and its children", pid, comm);
}

/*
 * -p PID: the process and its children, as for a command: those forked
 * from now on by the BPF fork hook, those it has already from /proc,
 * read after the hook follows PID so that none falls in between
 */
static int stat_follow_pid(struct pts_tracer *t, pid_t pid)
{
	pid_t *pids;
	size_t nr, i;
	int err;

	err = tracer_trace_pid(t, pid);
	if (!err)
		err = proc_find_descendants(PROC_ROOT, pid, &pids, &nr);
	if (err)
		goto fail;
	for (i = 0; !err && i < nr; i++)
		err = tracer_trace_pid(t, pids[i]);
	free(pids);
	if (!err)
		return 0;
fail:
	fprintf(stderr, "ptscope: cannot trace pid %d and its children: %s\n",
		pid, strerror(-err));
	return 1;
}

static bool had_tgid(const struct pts_snapshot *snap, __u32 tgid)
{
	size_t i;

	for (i = 0; i < snap->nr_procs; i++)
		if (snap->procs[i].tgid == tgid)
			return true;
	return false;
}

/*
 * A run's processes: those that started in it or did something in it, not
 * every process of the earlier runs with a delta of zero
 */
static void keep_run_procs(struct pts_snapshot *delta,
			   const struct pts_snapshot *prev)
{
	const struct pts_proc_entry *p;
	size_t i, kept = 0;

	for (i = 0; i < delta->nr_procs; i++) {
		p = &delta->procs[i];
		if (had_tgid(prev, p->tgid) && !proc_total_mremap(&p->stats) &&
		    !proc_total_faults(&p->stats))
			continue;
		delta->procs[kept++] = *p;
	}
	delta->nr_procs = kept;
}

/*
 * The counters since the previous run into @run, and @prev moved on to
 * now.  0, or 1 after saying what failed.
 */
static int stat_read_run(struct pts_tracer *t, struct pts_snapshot *prev,
			 struct stat_run *run)
{
	struct pts_snapshot now;
	int err;

	err = tracer_read(t, &now);
	if (!err)
		err = snapshot_delta(&now, prev, &run->delta);
	if (err) {
		fprintf(stderr, "ptscope: reading BPF maps failed: %s\n",
			strerror(err < 0 ? -err : errno));
		snapshot_free(&now);
		return 1;
	}
	keep_run_procs(&run->delta, prev);
	snapshot_free(prev);
	*prev = now;
	return 0;
}

/* one run of the command, traced from its exec; 0 or 1 */
static int stat_run_cmd(struct pts_tracer *t, const struct pts_options *opts,
			struct pts_snapshot *prev, struct stat_run *run)
{
	struct pts_child child = { .go_fd = -1 };
	struct kcounters before, after;
	double start;
	int err;

	err = child_spawn(&child, opts->cmd_argv);
	if (err) {
		fprintf(stderr, "ptscope: cannot start the command: %s\n",
			strerror(-err));
		return 1;
	}
	err = tracer_trace_pid(t, child.pid);
	if (err) {
		fprintf(stderr, "ptscope: cannot trace pid %d: %s\n", child.pid,
			strerror(-err));
		child_kill(&child);
		return 1;
	}
	/* the machine's speed, outside the run's window */
	run->reference[0] = reference_seconds();
	/* ptscope sits in waitpid in between: the window is the command's */
	kcounters_read(&before);
	start = mono_seconds();
	child_release(&child);
	run->exit_status = child_wait(&child);
	run->seconds = mono_seconds() - start;
	/* Ctrl-C went to the command: this run counts, no more of them */
	if (child.interrupted)
		pts_stop_requested = 1;
	kcounters_read(&after);
	kcounters_delta(&after, &before, &run->kc);
	run->reference[1] = reference_seconds();
	return stat_read_run(t, prev, run);
}

static bool process_alive(pid_t pid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", pid);
	return access(path, F_OK) == 0;
}

/* a look every 200 ms whether the process is still there */
#define WINDOW_POLL_S	0.2

/*
 * Sleep until @deadline (CLOCK_MONOTONIC s; 0: none), until @pid is gone,
 * or until Ctrl-C
 */
static void sleep_until(double deadline, pid_t pid)
{
	struct timespec ts;
	double left;

	while (!pts_stop_requested && process_alive(pid)) {
		left = deadline ? deadline - mono_seconds() : WINDOW_POLL_S;
		if (left <= 0)
			break;
		if (left > WINDOW_POLL_S)
			left = WINDOW_POLL_S;
		ts.tv_sec = (time_t)left;
		ts.tv_nsec = (long)((left - ts.tv_sec) * 1e9);
		nanosleep(&ts, NULL);	/* a signal ends it early */
	}
}

/* one window of -p PID (-d S; without -d until Ctrl-C); 0 or 1 */
static int stat_run_window(struct pts_tracer *t, const struct pts_options *opts,
			   struct pts_snapshot *prev, struct stat_run *run)
{
	struct kcounters before, after;
	double start;

	run->reference[0] = reference_seconds();
	kcounters_read(&before);
	start = mono_seconds();
	sleep_until(opts->duration_s ? start + opts->duration_s : 0, opts->pid);
	run->seconds = mono_seconds() - start;
	kcounters_read(&after);
	kcounters_delta(&after, &before, &run->kc);
	run->reference[1] = reference_seconds();
	return stat_read_run(t, prev, run);
}

/* every run (or window) of @st; a Ctrl-C ends them after the current one */
static int stat_runs(struct stat_state *st, const struct pts_options *opts)
{
	struct pts_snapshot prev;
	char window[32];
	int ret = 0;

	snprintf(window, sizeof(window), "%g s", opts->duration_s);
	if (tracer_read(&st->t, &prev)) {
		fprintf(stderr, "ptscope: reading BPF maps failed: %s\n",
			strerror(errno));
		return 1;
	}
	if (!opts->cmd_argv)
		fprintf(stderr, "ptscope: tracing %s, %zu window%s of %s, "
			"Ctrl-C to stop\n", st->cmd, st->want_runs,
			st->want_runs == 1 ? "" : "s",
			opts->duration_s ? window : "until it exits");
	while (st->nr_runs < st->want_runs && !pts_stop_requested) {
		struct stat_run *run = &st->runs[st->nr_runs];

		if (opts->cmd_argv)
			ret = stat_run_cmd(&st->t, opts, &prev, run);
		else
			ret = stat_run_window(&st->t, opts, &prev, run);
		if (ret)
			break;
		kcounters_add(&st->kc_total, &run->kc);
		st->nr_runs++;
		if (!opts->cmd_argv && !process_alive(opts->pid)) {
			fprintf(stderr, "ptscope: pid %d exited during window %zu\n",
				opts->pid, st->nr_runs);
			break;
		}
	}
	st->totals = prev;
	return ret;
}

static void stat_free(struct stat_state *st)
{
	size_t i;

	for (i = 0; i < st->nr_runs; i++)
		snapshot_free(&st->runs[i].delta);
	free(st->runs);
	snapshot_free(&st->totals);
}

int view_stat(const struct pts_options *opts)
{
	struct stat_state st = { .want_runs = opts->repeat > 0 ? opts->repeat : 1 };
	int ret, status;

	st.runs = calloc(st.want_runs, sizeof(*st.runs));
	if (!st.runs) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	if (opts->cmd_argv)
		cmdline(st.cmd, sizeof(st.cmd), opts->cmd_argv);
	else
		pid_name(st.cmd, sizeof(st.cmd), opts->pid);
	ret = view_tracer_start(&st.t, opts, true);
	if (ret) {
		free(st.runs);
		return ret;
	}
	if (!opts->cmd_argv && stat_follow_pid(&st.t, opts->pid)) {
		tracer_stop(&st.t);
		free(st.runs);
		return 1;
	}
	ret = stat_runs(&st, opts);
	if (!ret && st.nr_runs < st.want_runs)
		fprintf(stderr, "ptscope: stopped after %zu of %zu runs\n",
			st.nr_runs, st.want_runs);
	if (!ret && st.nr_runs) {
		view_warn_comm_unmatched(opts, &st.totals);
		ret = stat_report(&st, opts);
	}
	status = stat_exit_status(&st);
	stat_free(&st);
	tracer_stop(&st.t);
	/* the report is written: exit as the command did, like time(1) */
	return ret ? ret : status;
}
