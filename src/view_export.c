// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope export: attach, then serve the maps as Prometheus text on
 * --listen ADDR:PORT until Ctrl-C or -d SECS.
 */
#include "collector.h"
#include "exporter.h"
#include "session.h"
#include "views.h"

int view_export(const struct pts_options *opts)
{
	struct pts_exporter *ex;
	struct pts_session s;
	double deadline = 0;
	int ret;

	ret = exporter_session_start(&s, opts, true, &ex);
	if (ret)
		return ret;
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop\n");
	if (opts->duration_s)
		deadline = mono_seconds() + opts->duration_s;
	ret = exporter_serve(ex, deadline);
	exporter_close(ex);
	session_stop(&s);
	return ret;
}
