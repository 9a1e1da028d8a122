// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus endpoint of export and top --listen.  GET /metrics reads
 * the BPF maps (collector_read) on each scrape and renders them with
 * prom_render(); the counters are cumulative and never reset, so any
 * number of scrapers can share one exporter.  The HTTP side (httpd.c)
 * runs on the caller's thread until a deadline or Ctrl-C.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "data/collector.h"
#include "export/exporter.h"
#include "export/httpd.h"
#include "export/listen.h"
#include "export/prom.h"

#define EXPORT_BACKLOG		128

struct pts_exporter {
	struct pts_session *s;
	struct prom_prog *progs;	/* names and run-time statistics */
	int *prog_fds;
	size_t nr_progs;
	int stats_fd;		/* keeps BPF run-time statistics on, or -1 */
	const char *collapse_names[PTS_COLLAPSE_STATUSES];	/* from BTF */
	int listen_fd;		/* until the server owns it */
	struct pts_httpd *httpd;
	bool started;		/* the server runs, the stop signals are blocked */
	sigset_t old_mask;	/* the signal mask before exporter_start() */
	const char *listen_arg;	/* the option's ADDR:PORT */
};

static void explain_listen_failure(const char *listen_arg, int err)
{
	const char *hint;

	switch (err) {
	case EADDRINUSE:
		hint = "address already in use (another exporter?); pick a "
		       "free port with --listen ADDR:PORT";
		break;
	case EACCES:
		hint = "permission denied; ports below 1024 need root";
		break;
	case EADDRNOTAVAIL:
		hint = "no such address on this host; use one of its "
		       "addresses, e.g. 127.0.0.1";
		break;
	default:
		hint = strerror(err);
		break;
	}
	fprintf(stderr, "ptscope: cannot listen on %s: %s\n", listen_arg, hint);
}

/* 0 with a listening socket in @fd_out, or the exit code after saying why */
static int open_listener(const char *listen_arg, int *fd_out)
{
	struct sockaddr_storage addr;
	socklen_t addrlen = 0;
	char err[256];
	int fd, one = 1, saved;

	if (listen_parse(listen_arg, &addr, &addrlen, err, sizeof(err))) {
		fprintf(stderr, "ptscope: %s\n", err);
		return 2;
	}
	fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		fprintf(stderr, "ptscope: cannot create a socket: %s\n",
			strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, addrlen) ||
	    listen(fd, EXPORT_BACKLOG)) {
		saved = errno;
		close(fd);
		explain_listen_failure(listen_arg, saved);
		return saved == EADDRNOTAVAIL ? 2 : 1;
	}
	*fd_out = fd;
	return 0;
}

static size_t count_loaded_programs(const struct pts_objects *objs)
{
	struct bpf_program *prog;
	size_t n = 0;
	int i;

	for (i = 0; i < PTS_NR_OBJS; i++) {
		if (!objs->obj[i])
			continue;
		bpf_object__for_each_program(prog, objs->obj[i])
			if (bpf_program__fd(prog) >= 0)
				n++;
	}
	return n;
}

/* the engine's loaded programs: their names now, their statistics later */
static int collect_programs(struct pts_exporter *ex)
{
	const struct pts_objects *objs = &ex->s->eng.objs;
	struct bpf_program *prog;
	size_t n = count_loaded_programs(objs), k = 0;
	int i;

	ex->progs = calloc(n ? n : 1, sizeof(*ex->progs));
	ex->prog_fds = calloc(n ? n : 1, sizeof(*ex->prog_fds));
	if (!ex->progs || !ex->prog_fds)
		return -ENOMEM;
	for (i = 0; i < PTS_NR_OBJS; i++) {
		if (!objs->obj[i])
			continue;
		bpf_object__for_each_program(prog, objs->obj[i]) {
			if (bpf_program__fd(prog) < 0 || k == n)
				continue;
			snprintf(ex->progs[k].name, sizeof(ex->progs[k].name),
				 "%s", bpf_program__name(prog));
			ex->prog_fds[k++] = bpf_program__fd(prog);
		}
	}
	ex->nr_progs = k;
	return 0;
}

/* run_time_ns and run_cnt only grow while someone holds this fd open */
static void enable_run_stats(struct pts_exporter *ex)
{
	ex->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (ex->stats_fd < 0)
		fprintf(stderr, "ptscope: BPF run-time statistics unavailable "
			"(%s); ptscope_bpf_program_* metrics left out\n",
			strerror(errno));
}

/* libbpf 1.1 (Debian 12) has no bpf_prog_get_info_by_fd() yet */
static void read_program_stats(struct pts_exporter *ex)
{
	struct bpf_prog_info info;
	__u32 len;
	size_t i;

	for (i = 0; i < ex->nr_progs; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(ex->prog_fds[i], &info, &len))
			continue;	/* keep the last values */
		ex->progs[i].run_time_ns = info.run_time_ns;
		ex->progs[i].run_cnt = info.run_cnt;
	}
}

/* BTF lookups scan every type: done once here, not on each scrape */
static void cache_collapse_names(struct pts_exporter *ex)
{
	int st;

	for (st = 0; st < PTS_COLLAPSE_STATUSES; st++)
		ex->collapse_names[st] = kfeatures_enum_name(&ex->s->kf,
							"scan_result", st);
}

static const char *collapse_name(const void *ctx, int status)
{
	const struct pts_exporter *ex = ctx;

	return ex->collapse_names[status];
}

/* the page, or NULL after logging why */
static char *render_page(void *ctx, size_t *len)
{
	struct pts_exporter *ex = ctx;
	struct pts_objects objs = ex->s->eng.objs;
	struct pts_snapshot snap;
	struct prom_buf buf;
	struct prom_input in = {
		.eng = &ex->s->eng,
		.snap = &snap,
		.page_size = ex->s->rep.page_size,
		.collapse_name = collapse_name,
		.name_ctx = ex,
		.progs = ex->stats_fd >= 0 ? ex->progs : NULL,
		.nr_progs = ex->nr_progs,
	};
	int err;

	objs.procs_fd = -1;	/* no per-process series: skip that map */
	err = collector_read(&objs, &snap);
	if (err) {
		fprintf(stderr, "ptscope: reading BPF maps failed: %s\n",
			strerror(-err));
		snapshot_free(&snap);
		return NULL;
	}
	if (in.progs)
		read_program_stats(ex);
	prom_buf_init(&buf);
	err = prom_render(&in, &buf);
	snapshot_free(&snap);
	if (err) {
		fprintf(stderr, "ptscope: rendering metrics: %s\n",
			strerror(-err));
		prom_buf_free(&buf);
		return NULL;
	}
	*len = buf.len;
	return buf.data;
}

/* blocked outside ppoll(), so a Ctrl-C can never slip past the check */
static void block_stop_signals(sigset_t *old)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, old);
	signal(SIGPIPE, SIG_IGN);	/* a scraper hanging up is no error */
}

/* listen before attaching, so a taken port fails fast; 0 or the exit code */
static int exporter_listen(struct pts_exporter **exp, const char *listen_arg)
{
	struct pts_exporter *ex;
	int ret;

	ex = calloc(1, sizeof(*ex));
	if (!ex) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	ex->listen_arg = listen_arg;
	ex->stats_fd = -1;
	ex->listen_fd = -1;
	ret = open_listener(listen_arg, &ex->listen_fd);
	if (ret) {
		exporter_close(ex);
		return ret;
	}
	*exp = ex;
	return 0;
}

/* serve @s's maps; blocks the stop signals until exporter_close() */
static int exporter_start(struct pts_exporter *ex, struct pts_session *s,
			  bool verbose)
{
	ex->s = s;
	if (collect_programs(ex)) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	if (ex->nr_progs)
		enable_run_stats(ex);
	cache_collapse_names(ex);
	block_stop_signals(&ex->old_mask);
	ex->started = true;
	ex->httpd = httpd_start(ex->listen_fd, render_page, ex,
				PROM_CONTENT_TYPE, verbose);
	if (!ex->httpd)
		return 1;
	ex->listen_fd = -1;	/* the server's now */
	fprintf(stderr, "ptscope: serving http://%s/metrics\n", ex->listen_arg);
	return 0;
}

/*
 * Answer on the caller's thread until @deadline or Ctrl-C: the stop
 * signals are unblocked only while waiting, so they can never be missed.
 */
int exporter_serve(struct pts_exporter *ex, double deadline)
{
	long ms = 1000;
	int err;

	while (!pts_stop_requested) {
		if (deadline > 0) {
			ms = (long)((deadline - mono_seconds()) * 1000) + 1;
			if (ms <= 0)
				break;
		}
		err = httpd_step(ex->httpd, ms, &ex->old_mask);
		if (err && err != -EINTR) {
			fprintf(stderr, "ptscope: waiting for connections "
				"failed: %s\n", strerror(-err));
			return 1;
		}
	}
	return 0;
}

void exporter_close(struct pts_exporter *ex)
{
	if (!ex)
		return;
	httpd_stop(ex->httpd);
	if (ex->listen_fd >= 0)
		close(ex->listen_fd);
	if (ex->started)
		sigprocmask(SIG_SETMASK, &ex->old_mask, NULL);
	if (ex->stats_fd >= 0)
		close(ex->stats_fd);
	free(ex->progs);
	free(ex->prog_fds);
	free(ex);
}

int exporter_session_start(struct pts_session *s,
			   const struct pts_options *opts, bool serve,
			   struct pts_exporter **exp)
{
	struct pts_exporter *ex = NULL;
	int ret;

	*exp = NULL;
	if (serve) {
		ret = exporter_listen(&ex, opts->listen);
		if (ret)
			return ret;
	}
	ret = session_start(s, opts, false);
	if (ret) {
		exporter_close(ex);
		return ret;
	}
	if (ex) {
		ret = exporter_start(ex, s, opts->verbose);
		if (ret) {
			exporter_close(ex);
			session_stop(s);
			return ret;
		}
	}
	*exp = ex;
	return 0;
}
