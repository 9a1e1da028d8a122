// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope maps -p PID | -c COMM: what the processes have mapped now, per
 * folio size (src/maps/mapscan.c), once or every -i seconds.  No BPF: it
 * reads /proc/PID/smaps, /proc/PID/pagemap and /proc/kpageflags, which
 * give frames and folios to root only.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/utsname.h>
#include "data/procfind.h"
#include "render/maps_report.h"
#include "views/signals.h"
#include "views/views.h"

#define KPAGEFLAGS	"/proc/kpageflags"

/* kernel and page size for the header and the JSON "system" object */
static void maps_report_init(struct pts_report_input *rep,
			     struct pts_kfeatures *kf)
{
	struct utsname u;

	memset(kf, 0, sizeof(*kf));
	if (!uname(&u)) {
		snprintf(kf->release, sizeof(kf->release), "%s", u.release);
		snprintf(kf->machine, sizeof(kf->machine), "%s", u.machine);
	}
	memset(rep, 0, sizeof(*rep));
	rep->kf = kf;
	rep->page_size = (uint64_t)sysconf(_SC_PAGESIZE);
}

/* 0 and the fd, or 1 (the exit code) after saying what to do */
static int open_kpageflags(int *fd)
{
	*fd = open(KPAGEFLAGS, O_RDONLY | O_CLOEXEC);
	if (*fd >= 0)
		return 0;
	if (errno == ENOENT)
		fprintf(stderr, "ptscope: this kernel has no %s "
			"(CONFIG_PROC_PAGE_MONITOR is off): maps cannot tell "
			"folios apart here\n", KPAGEFLAGS);
	else
		fprintf(stderr, "ptscope: cannot read %s: %s; the folio of "
			"each page is for root (CAP_SYS_ADMIN) only: run "
			"ptscope maps as root\n", KPAGEFLAGS, strerror(errno));
	return 1;
}

/* the pids asked for: -p, or every process named -c */
static int find_targets(const struct pts_options *opts, pid_t **pids,
			size_t *nr)
{
	if (opts->comm[0])
		return proc_find_comm(PROC_ROOT, opts->comm, pids, nr);
	*pids = malloc(sizeof(**pids));
	if (!*pids)
		return -ENOMEM;
	(*pids)[0] = opts->pid;
	*nr = 1;
	return 0;
}

/* a failed scan of @pid: what happened and what to do, exit code 1 */
static int scan_failed(pid_t pid, int err)
{
	if (err == -EPERM)
		fprintf(stderr, "ptscope: /proc/%d/pagemap shows no page frames: "
			"they are for CAP_SYS_ADMIN only; run ptscope maps as "
			"root\n", (int)pid);
	else if (err == -EACCES && geteuid() != 0)
		fprintf(stderr, "ptscope: cannot open /proc/%d/smaps or pagemap: "
			"%s; run ptscope maps as root, with ptrace access to the "
			"process (kernel.yama.ptrace_scope)\n", (int)pid,
			strerror(-err));
	else if (err == -EACCES)
		fprintf(stderr, "ptscope: cannot open /proc/%d/smaps or pagemap: "
			"%s, even as root: the kernel refuses ptrace read access "
			"to that process (kernel.yama.ptrace_scope 3, an LSM, or a "
			"sandbox or container that owns it); run ptscope where it "
			"may read the process, or pick another\n", (int)pid,
			strerror(-err));
	else if (err == -EINVAL)
		fprintf(stderr, "ptscope: /proc/%d/smaps is not laid out as "
			"ptscope knows it: please report this with the kernel "
			"version\n", (int)pid);
	else
		fprintf(stderr, "ptscope: reading the memory of pid %d failed: "
			"%s\n", (int)pid, strerror(-err));
	return 1;
}

/* scan @pid into the next row; a process that is gone is left out */
static int scan_row(struct maps_frame *f, pid_t pid, int kpf_fd)
{
	struct maps_row *row = &f->rows[f->nr_rows];
	int err;

	row->pid = pid;
	if (proc_comm(PROC_ROOT, pid, row->comm, sizeof(row->comm)))
		return 0;
	mapscan_init(&row->counts, f->rep->page_size);
	err = mapscan_pid(pid, kpf_fd, &row->counts);
	if (err == -ESRCH)
		return 0;
	if (err)
		return scan_failed(pid, err);
	mapscan_add(&f->total, &row->counts);
	f->nr_rows++;
	return 0;
}

/* one frame of every target; 0 or the exit code */
static int frame_scan(struct maps_frame *f, const struct pts_options *opts,
		      int kpf_fd)
{
	struct timespec now;
	pid_t *pids = NULL;
	size_t nr = 0, i;
	int err;

	clock_gettime(CLOCK_REALTIME, &now);
	f->nr_rows = 0;
	f->time = (double)now.tv_sec + now.tv_nsec / 1e9;
	mapscan_init(&f->total, f->rep->page_size);
	err = find_targets(opts, &pids, &nr);
	if (err) {
		fprintf(stderr, "ptscope: listing processes failed: %s\n",
			strerror(-err));
		return 1;
	}
	free(f->rows);
	f->rows = calloc(nr ? nr : 1, sizeof(*f->rows));
	if (!f->rows) {
		fprintf(stderr, "ptscope: out of memory\n");
		free(pids);
		return 1;
	}
	for (i = 0; i < nr && !err; i++)
		err = scan_row(f, pids[i], kpf_fd);
	free(pids);
	return err;
}

/* no process to report on: exit 2 (the argument names nothing) */
static int no_target(const struct pts_options *opts)
{
	if (opts->comm[0])
		fprintf(stderr, "ptscope: no process is named '%s' (the name "
			"is the kernel's comm, as in ps -o comm)\n", opts->comm);
	else
		fprintf(stderr, "ptscope: no process has pid %d\n",
			(int)opts->pid);
	return 2;
}

static int render(FILE *out, const struct maps_frame *f, bool json, bool tty)
{
	json_object *root;
	int err = 0;

	if (json) {
		root = maps_frame_json(f);
		if (fprintf(out, "%s\n", json_object_to_json_string_ext(root,
				JSON_C_TO_STRING_PLAIN |
				JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
			err = errno;
		json_object_put(root);
	} else {
		if (tty)
			fputs("\033[H\033[J", out);	/* home, clear */
		maps_frame_text(out, f);
		fputc('\n', out);
	}
	if (!err && (fflush(out) || ferror(out)))
		err = errno ? errno : EIO;
	return err;
}

/* until @deadline (CLOCK_MONOTONIC) or a stop signal */
static void wait_until(const struct timespec *deadline)
{
	while (!pts_stop_requested &&
	       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, deadline,
			       NULL) == EINTR)
		;
}

static void add_seconds(struct timespec *t, double secs)
{
	long long ns = (long long)(secs * 1e9) + t->tv_nsec;

	t->tv_sec += ns / 1000000000;
	t->tv_nsec = ns % 1000000000;
}

/* @werr: a failed write's errno; a reader that went away ends maps */
static int maps_close(FILE *out, const char *path, int werr)
{
	if (werr != EPIPE)
		return report_close_err(out, path, werr);
	if (out != stdout)
		fclose(out);
	return 0;
}

/* -i: a frame every interval until Ctrl-C, -d, or -p's process exits */
static int maps_loop(FILE *out, struct maps_frame *f,
		     const struct pts_options *opts, int kpf_fd)
{
	bool tty = isatty(fileno(out));
	struct timespec next, end;
	int ret, werr;

	clock_gettime(CLOCK_MONOTONIC, &next);
	end = next;
	add_seconds(&end, opts->duration_s);
	for (;;) {
		werr = render(out, f, opts->json, tty);
		if (werr)
			return maps_close(out, opts->output, werr);
		add_seconds(&next, opts->interval_s);
		if (opts->duration_s && (next.tv_sec > end.tv_sec ||
		    (next.tv_sec == end.tv_sec && next.tv_nsec > end.tv_nsec)))
			break;
		wait_until(&next);
		if (pts_stop_requested)
			break;
		ret = frame_scan(f, opts, kpf_fd);
		if (ret) {
			maps_close(out, opts->output, 0);
			return ret;
		}
		if (!opts->comm[0] && !f->nr_rows) {
			fprintf(stderr, "ptscope: pid %d exited\n", (int)opts->pid);
			break;
		}
	}
	return maps_close(out, opts->output, 0);
}

static int maps_once(const struct maps_frame *f, const struct pts_options *opts)
{
	json_object *root;
	FILE *out;
	int ret;

	if (opts->json) {
		root = maps_frame_json(f);
		ret = report_write_json(root, opts->output);
		json_object_put(root);
		return ret;
	}
	out = report_open(opts->output);
	if (!out)
		return 1;
	maps_frame_text(out, f);
	return report_close(out, opts->output);
}

int view_maps(const struct pts_options *opts)
{
	struct maps_frame f = { 0 };
	struct pts_kfeatures kf;
	struct pts_report_input rep;
	bool refresh = opts->interval_set || opts->duration_s;
	int kpf_fd, ret;
	FILE *out;

	maps_report_init(&rep, &kf);
	f.rep = &rep;
	f.comm = opts->comm[0] ? opts->comm : NULL;
	ret = open_kpageflags(&kpf_fd);
	if (ret)
		return ret;
	ret = frame_scan(&f, opts, kpf_fd);
	if (!ret && !f.nr_rows && (!refresh || !f.comm))
		ret = no_target(opts);
	if (ret)
		goto out;
	if (!refresh) {
		ret = maps_once(&f, opts);
		goto out;
	}
	out = report_open(opts->output);
	ret = out ? maps_loop(out, &f, opts, kpf_fd) : 1;
out:
	free(f.rows);
	close(kpf_fd);
	return ret;
}
