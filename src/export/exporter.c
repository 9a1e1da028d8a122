// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus endpoint of export and top --listen.  GET /metrics reads
 * the data source on each scrape and renders it with prom_render(); the
 * counters are cumulative and never reset, so any number of scrapers can
 * share one exporter.  The HTTP side (httpd.c) runs on the caller's
 * thread until a deadline or a stop signal.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include "export/exporter.h"
#include "export/httpd.h"
#include "export/listen.h"
#include "export/prom.h"

#define EXPORT_BACKLOG		128

struct pts_exporter {
	const struct pts_export_source *src;
	struct prom_prog *progs;	/* names and run-time statistics */
	bool bpf_stats;		/* --bpf-stats */
	int stats_fd;		/* keeps BPF run-time statistics on, or -1 */
	char stats_off[160];	/* why ptscope_bpf_program_* are left out */
	const char *collapse_names[PTS_COLLAPSE_STATUSES];	/* from BTF */
	int listen_fd;		/* until the server owns it */
	struct pts_httpd *httpd;
	const char *listen_arg;	/* the option's ADDR:PORT */
	bool verbose;		/* libmicrohttpd's log */
	struct pts_cgroup_carry carry;	/* per cgroup: what the last page showed */
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

/* 0 with a listening socket in @fd_out, or -errno after saying why */
static int open_listener(const char *listen_arg, int *fd_out)
{
	struct sockaddr_storage addr;
	socklen_t addrlen = 0;
	char err[256];
	int fd, one = 1, saved;

	if (listen_parse(listen_arg, &addr, &addrlen, err, sizeof(err))) {
		fprintf(stderr, "ptscope: %s\n", err);
		return -EINVAL;
	}
	fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		saved = errno;
		fprintf(stderr, "ptscope: cannot create a socket: %s\n",
			strerror(saved));
		return -saved;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, addrlen) ||
	    listen(fd, EXPORT_BACKLOG)) {
		saved = errno;
		close(fd);
		explain_listen_failure(listen_arg, saved);
		return -saved;
	}
	*fd_out = fd;
	return 0;
}

/* the source's programs: their names now, their statistics later */
static int collect_programs(struct pts_exporter *ex)
{
	size_t i, n = ex->src->nr_progs;

	ex->progs = calloc(n ? n : 1, sizeof(*ex->progs));
	if (!ex->progs)
		return -ENOMEM;
	for (i = 0; i < n; i++)
		snprintf(ex->progs[i].name, sizeof(ex->progs[i].name), "%s",
			 ex->src->progs[i].name);
	return 0;
}

/*
 * run_time_ns and run_cnt only grow while someone holds this fd open.
 * Only with --bpf-stats: it times every BPF program on the box.
 */
static void enable_run_stats(struct pts_exporter *ex)
{
	if (!ex->bpf_stats) {
		snprintf(ex->stats_off, sizeof(ex->stats_off), "off; "
			 "--bpf-stats turns on the kernel's BPF run-time "
			 "statistics, which time every BPF program on the box");
		return;
	}
	ex->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (ex->stats_fd < 0) {
		snprintf(ex->stats_off, sizeof(ex->stats_off), "BPF run-time "
			 "statistics unavailable (%s)", strerror(errno));
		fprintf(stderr, "ptscope: %s; ptscope_bpf_program_* metrics "
			"left out\n", ex->stats_off);
	}
}

/* libbpf 1.1 (Debian 12) has no bpf_prog_get_info_by_fd() yet */
static void read_program_stats(struct pts_exporter *ex)
{
	struct bpf_prog_info info;
	__u32 len;
	size_t i;

	for (i = 0; i < ex->src->nr_progs; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(ex->src->progs[i].fd, &info, &len))
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
		ex->collapse_names[st] = kfeatures_scan_result(ex->src->kf, st);
}

static const char *collapse_name(const void *ctx, int status)
{
	const struct pts_exporter *ex = ctx;

	return ex->collapse_names[status];
}

/*
 * The self-check of this scrape into @sc, or NULL with the reason it is
 * not served in *@off.
 */
static const struct selfcheck *scrape_selfcheck(const struct pts_exporter *ex,
						const struct pts_snapshot *snap,
						struct selfcheck *sc,
						const char **off)
{
	const struct pts_export_source *src = ex->src;

	*off = NULL;
	if (!src->kc_base)
		return NULL;
	*off = selfcheck_live_off(src->eng, src->parts_off);
	if (*off)
		return NULL;
	selfcheck_since(sc, snap, src->kc_base, src->page_size);
	if (!sc->compared) {
		*off = "the kernel has no hugepage fault counters to compare with";
		return NULL;
	}
	return sc;
}

/* @snap rendered into a malloc()ed page; 0 or -errno */
static int build_page(struct pts_exporter *ex, const struct pts_snapshot *snap,
		      char **page, size_t *len)
{
	struct selfcheck sc;
	struct prom_input in = {
		.eng = ex->src->eng,
		.snap = snap,
		.page_size = ex->src->page_size,
		.collapse_name = collapse_name,
		.name_ctx = ex,
		.progs = ex->stats_fd >= 0 ? ex->progs : NULL,
		.nr_progs = ex->src->nr_progs,
		.progs_off = ex->stats_off[0] ? ex->stats_off : NULL,
		.cgroup_limit = ex->src->cgroup_labels,
		.parts_off = ex->src->parts_off,
		.carry = &ex->carry,
	};
	FILE *f;
	int err;

	in.selfcheck = scrape_selfcheck(ex, snap, &sc, &in.selfcheck_off);
	f = open_memstream(page, len);
	if (!f)
		return -errno;
	if (in.progs)
		read_program_stats(ex);
	err = prom_render(&in, f);
	/* the buffer and its length are valid after fclose() */
	if (fclose(f) && !err)
		err = -errno;
	if (err) {
		free(*page);
		*page = NULL;
	}
	return err;
}

/* the page, or NULL after logging why */
static char *render_page(void *ctx, size_t *len)
{
	struct pts_exporter *ex = ctx;
	struct pts_snapshot snap;
	char *page = NULL;
	int err;

	err = ex->src->read(ex->src->ctx, &snap);
	if (err) {
		fprintf(stderr, "ptscope: reading BPF maps failed: %s\n",
			strerror(-err));
		snapshot_free(&snap);
		return NULL;
	}
	err = build_page(ex, &snap, &page, len);
	snapshot_free(&snap);
	if (err)
		fprintf(stderr, "ptscope: rendering metrics: %s\n",
			strerror(-err));
	return page;
}

int exporter_listen(const char *listen_arg, bool verbose, bool bpf_stats,
		    struct pts_exporter **exp)
{
	struct pts_exporter *ex;
	int ret;

	*exp = NULL;
	ex = calloc(1, sizeof(*ex));
	if (!ex) {
		fprintf(stderr, "ptscope: out of memory\n");
		return -ENOMEM;
	}
	ex->listen_arg = listen_arg;
	ex->verbose = verbose;
	ex->bpf_stats = bpf_stats;
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

int exporter_start(struct pts_exporter *ex, const struct pts_export_source *src)
{
	ex->src = src;
	if (collect_programs(ex)) {
		fprintf(stderr, "ptscope: out of memory\n");
		return -ENOMEM;
	}
	if (src->nr_progs)
		enable_run_stats(ex);
	cache_collapse_names(ex);
	ex->httpd = httpd_start(ex->listen_fd, render_page, ex,
				PROM_CONTENT_TYPE, ex->verbose);
	if (!ex->httpd)
		return -EIO;
	ex->listen_fd = -1;	/* the server's now */
	fprintf(stderr, "ptscope: serving http://%s/metrics\n", ex->listen_arg);
	return 0;
}

/*
 * Answer on the caller's thread until @deadline or *@stop: the stop
 * signals are unblocked only while waiting, so they can never be missed.
 */
int exporter_serve(struct pts_exporter *ex, double deadline,
		   const volatile sig_atomic_t *stop, const sigset_t *wait_mask)
{
	long ms = 1000;
	int err;

	while (!*stop) {
		if (deadline > 0) {
			ms = (long)((deadline - mono_seconds()) * 1000) + 1;
			if (ms <= 0)
				break;
			ms = ms < 1000 ? ms : 1000;
		}
		if (ex->src->tidy)
			ex->src->tidy(ex->src->ctx);
		err = httpd_step(ex->httpd, ms, wait_mask);
		if (err && err != -EINTR) {
			fprintf(stderr, "ptscope: waiting for connections "
				"failed: %s\n", strerror(-err));
			return err;
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
	if (ex->stats_fd >= 0)
		close(ex->stats_fd);
	free(ex->progs);
	cgroup_carry_free(&ex->carry);
	free(ex);
}
