// SPDX-License-Identifier: GPL-2.0
#include "views/signals.h"
#include "views/start.h"

int view_session_start(struct pts_session *s, const struct pts_options *opts,
		       bool follow_fork)
{
	struct pts_session_params p = {
		.pid = opts->pid,
		.comm = opts->comm,
		.mode = opts->mode,
		.opt_in = opts->opt_in,
		.nr_opt_in = opts->nr_opt_in,
		.follow_fork = follow_fork,
		.events = opts->cmd == PTS_CMD_SNOOP,
		.probe_only = opts->cmd == PTS_CMD_PROBE,
	};

	return session_start(s, &p);
}

static int read_totals(void *ctx, struct pts_snapshot *snap)
{
	return session_read_totals(ctx, snap);
}

/* what the exporter serves of @s */
static void export_source(struct pts_session *s, struct pts_export_source *src)
{
	*src = (struct pts_export_source){
		.read = read_totals,
		.ctx = s,
		.eng = &s->eng,
		.kf = &s->kf,
		.page_size = s->rep.page_size,
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
	export_source(s, src);
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
