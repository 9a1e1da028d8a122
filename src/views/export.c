// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope export: attach, then serve the maps as Prometheus text on
 * --listen ADDR:PORT until Ctrl-C or -d SECS.
 */
#include <string.h>
#include "data/collector.h"
#include "export/exporter.h"
#include "export/privdrop.h"
#include "tracer/tracer.h"
#include "views/signals.h"
#include "views/start.h"
#include "views/views.h"

/* the last line of a clean stop: what ended it (a runtime's SIGTERM) */
static void say_stopped(const struct pts_options *opts)
{
	if (pts_stop_requested)
		fprintf(stderr, "ptscope: %s, detaching; exit 0\n",
			strsignal(pts_last_signal));
	else
		fprintf(stderr, "ptscope: %g s over, detaching; exit 0\n",
			opts->duration_s);
}

int view_export(const struct pts_options *opts)
{
	struct pts_export_source src;
	struct pts_exporter *ex;
	struct pts_tracer t;
	double deadline = 0;
	int ret;

	ret = view_serve_start(&t, &src, opts, true, &ex);
	if (ret)
		return ret;
	/* attached and listening: serving needs none of root's powers */
	ret = privdrop_apply(&t);
	if (ret)
		goto out;
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop\n");
	if (opts->duration_s)
		deadline = mono_seconds() + opts->duration_s;
	if (exporter_serve(ex, deadline, &pts_stop_requested, signals_hold()))
		ret = 1;
	else
		say_stopped(opts);
out:
	view_serve_stop(&t, ex);
	return ret;
}
