// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include "data/cgroup.h"
#include "views/signals.h"
#include "views/start.h"

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

int view_session_start(struct pts_session *s, const struct pts_options *opts,
		       bool follow_fork)
{
	struct pts_cgroup_target cgroup = { .fd = -1 };
	struct pts_session_params p = {
		.pid = opts->pid,
		.comm = opts->comm,
		.mode = opts->mode,
		.opt_in = opts->opt_in,
		.nr_opt_in = opts->nr_opt_in,
		.follow_fork = follow_fork,
		.events = opts->cmd == PTS_CMD_SNOOP,
		.probe_only = opts->cmd == PTS_CMD_PROBE,
		.cgroup_rows = wants_cgroup_rows(opts),
	};
	int ret;

	/* probe and diff trace nothing: no filter to resolve */
	if (opts->cgroup && opts->cmd != PTS_CMD_PROBE) {
		ret = resolve_cgroup(opts->cgroup, &cgroup);
		if (ret)
			return ret;
		p.cgroup = &cgroup;
	}
	ret = session_start(s, &p);
	/* the BPF map holds the cgroup now */
	cgroup_target_close(&cgroup);
	return ret;
}

static int read_totals(void *ctx, struct pts_snapshot *snap)
{
	return session_read_totals(ctx, snap);
}

/* what the exporter serves of @s */
static void export_source(struct pts_session *s, struct pts_export_source *src,
			  const struct pts_options *opts)
{
	*src = (struct pts_export_source){
		.read = read_totals,
		.ctx = s,
		.eng = &s->eng,
		.kf = &s->kf,
		.page_size = s->rep.page_size,
		.cgroup_labels = (size_t)opts->cgroup_labels,
	};
	src->progs = session_programs(s, &src->nr_progs);
}

int view_serve_start(struct pts_session *s, struct pts_export_source *src,
		     const struct pts_options *opts, bool serve,
		     struct pts_exporter **ex)
{
	int ret;

	*ex = NULL;
	if (serve) {
		ret = exporter_listen(opts->listen, opts->verbose,
				      opts->bpf_stats, ex);
		if (ret)
			return ret;
	}
	ret = view_session_start(s, opts, false);
	if (ret) {
		exporter_close(*ex);
		*ex = NULL;
		return ret;
	}
	if (!*ex)
		return 0;
	export_source(s, src, opts);
	signals_hold();
	ret = exporter_start(*ex, src);
	if (ret) {
		view_serve_stop(s, *ex);
		*ex = NULL;
	}
	return ret;
}

void view_serve_stop(struct pts_session *s, struct pts_exporter *ex)
{
	exporter_close(ex);
	signals_release();
	session_stop(s);
}
