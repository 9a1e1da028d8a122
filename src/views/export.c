// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope export: attach, then serve the maps as Prometheus text on
 * --listen ADDR:PORT until Ctrl-C or -d SECS.
 */
#include "data/collector.h"
#include "export/exporter.h"
#include "export/privdrop.h"
#include "tracer/tracer.h"
#include "views/signals.h"
#include "views/start.h"
#include "views/views.h"

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
out:
	view_serve_stop(&t, ex);
	return ret;
}
