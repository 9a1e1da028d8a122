/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus /metrics endpoint, served from the caller's thread off
 * the session's maps: ptscope export runs it alone, top --listen between
 * two refreshes.
 */
#ifndef PTSCOPE_EXPORTER_H
#define PTSCOPE_EXPORTER_H

#include "data/session.h"

struct pts_exporter;

/* Answer scrapes until CLOCK_MONOTONIC @deadline (0: none) or a stop
 * signal; 0, or 1 after saying why. */
int exporter_serve(struct pts_exporter *ex, double deadline);
void exporter_close(struct pts_exporter *ex);
/* Listen on opts->listen (when @serve; before attaching, so a taken port
 * fails fast), attach the session, start serving: how export and top
 * --listen begin.  The stop signals stay blocked outside exporter_serve()
 * until exporter_close().  0 with *@ex set (NULL without @serve), or the
 * exit code (2: bad address) after cleaning up and saying why. */
int exporter_session_start(struct pts_session *s,
			   const struct pts_options *opts, bool serve,
			   struct pts_exporter **ex);

#endif
