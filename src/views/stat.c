// SPDX-License-Identifier: GPL-2.0
/* ptscope stat -- CMD: trace CMD and its children, summarize at exit. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "data/collector.h"
#include "data/format.h"
#include "data/kcounters.h"
#include "views/report.h"
#include "views/run_cmd.h"
#include "data/session.h"
#include "views/start.h"
#include "views/views.h"

static void cmdline(char *buf, size_t len, char **argv)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; argv[i] && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s", i ? " " : "",
				 argv[i]);
}

static int stat_json(struct pts_session *s, const struct pts_snapshot *snap,
		     const struct kcounters *kc, const char *cmd, int status,
		     double elapsed, const char *output)
{
	json_object *root = json_object_new_object();
	json_object *run = json_object_new_object();
	int err;

	json_object_object_add(root, "ptscope_version", json_object_new_int(1));
	json_object_object_add(run, "command", fmt_json_string(cmd));
	json_object_object_add(run, "exit_status", json_object_new_int(status));
	json_object_object_add(run, "seconds", json_object_new_double(elapsed));
	json_object_object_add(root, "run", run);
	json_object_object_add(root, "system", report_system_json(&s->rep));
	json_object_object_add(root, "metrics", report_metrics_json(&s->rep));
	json_object_object_add(root, "counters", report_snapshot_json(&s->rep, snap));
	json_object_object_add(root, "kernel_counters", kcounters_json(kc));
	err = report_write_json(root, output);
	json_object_put(root);
	return err;
}

static int stat_text(struct pts_session *s, struct pts_snapshot *snap,
		     const struct kcounters *kc, const char *cmd, int status,
		     double elapsed, const char *output)
{
	FILE *out = report_open(output);
	char safe[4 * 512], comm[FMT_COMM_LEN];
	size_t i;

	if (!out)
		return 1;
	fprintf(out, "\nptscope stat: '%s' exited %d after %.3f s (kernel %s)\n",
		fmt_escape(safe, sizeof(safe), cmd), status, elapsed,
		s->kf.release);
	report_metric_status(out, &s->rep);
	report_snapshot_text(out, &s->rep, snap, true);
	kcounters_text(out, kc);
	fprintf(out, "\nprocesses:\n  %7s %-16s %8s %10s\n", "PID", "COMM",
		"MREMAP", "HUGEFAULT");
	for (i = 0; i < snap->nr_procs; i++)
		fprintf(out, "  %7u %-16s %8llu %10llu\n", snap->procs[i].tgid,
			fmt_escape(comm, sizeof(comm), snap->procs[i].stats.comm),
			(unsigned long long)proc_total_mremap(&snap->procs[i].stats),
			(unsigned long long)proc_total_faults(&snap->procs[i].stats));
	report_cgroups_text(out, &s->rep, snap, (int)snap->nr_cgroups, false);
	return report_close(out, output);
}

int view_stat(const struct pts_options *opts)
{
	struct kcounters kc_before, kc_after, kc;
	struct pts_child child = { .go_fd = -1 };
	struct pts_snapshot snap;
	struct pts_session s;
	char cmd[512];
	double start;
	int ret, status, err;

	err = child_spawn(&child, opts->cmd_argv);
	if (err) {
		fprintf(stderr, "ptscope: cannot start the command: %s\n",
			strerror(-err));
		return 1;
	}
	ret = view_session_start(&s, opts, true);
	if (ret) {
		child_kill(&child);
		return ret;
	}
	err = session_trace_pid(&s, child.pid);
	if (err) {
		fprintf(stderr, "ptscope: cannot trace pid %d: %s\n", child.pid,
			strerror(-err));
		child_kill(&child);
		session_stop(&s);
		return 1;
	}
	/* ptscope sits in waitpid in between: the window is the command's */
	kcounters_read(&kc_before);
	start = mono_seconds();
	child_release(&child);
	status = child_wait(&child);
	kcounters_read(&kc_after);
	kcounters_delta(&kc_after, &kc_before, &kc);
	cmdline(cmd, sizeof(cmd), opts->cmd_argv);
	err = session_read(&s, &snap);
	if (err) {
		fprintf(stderr, "ptscope: reading BPF maps failed: %s\n",
			strerror(-err));
		session_stop(&s);
		return 1;
	}
	report_sort_cgroups(&snap, PTS_SORT_ACTIVITY);
	if (opts->json)
		ret = stat_json(&s, &snap, &kc, cmd, status, mono_seconds() - start,
				opts->output);
	else
		ret = stat_text(&s, &snap, &kc, cmd, status, mono_seconds() - start,
				opts->output);
	snapshot_free(&snap);
	session_stop(&s);
	/* the report is written: exit as the command did, like time(1) */
	return ret ? ret : status;
}
