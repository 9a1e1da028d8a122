// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope export: attach, then serve the maps as Prometheus text on
 * --listen ADDR:PORT until Ctrl-C or -d SECS.
 */
#include "data/collector.h"
#include "export/exporter.h"
#include "export/privdrop.h"
#include "data/session.h"
#include "views/views.h"

int view_export(const struct pts_options *opts)
{
	struct pts_exporter *ex;
	struct pts_session s;
	double deadline = 0;
	int ret;

	ret = exporter_session_start(&s, opts, true, &ex);
	if (ret)
		return ret;
	/* attached and listening: serving needs none of root's powers */
	ret = privdrop_apply(s.eng.objs.counters_fd);
	if (ret)
		goto out;
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop\n");
	if (opts->duration_s)
		deadline = mono_seconds() + opts->duration_s;
	ret = exporter_serve(ex, deadline);
out:
	exporter_close(ex);
	session_stop(&s);
	return ret;
}
