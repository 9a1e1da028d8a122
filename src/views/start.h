/* SPDX-License-Identifier: GPL-2.0 */
/* How views start the tracer, and the serving ones an exporter on it. */
#ifndef PTSCOPE_START_H
#define PTSCOPE_START_H

#include <stdbool.h>
#include "tracer/tracer.h"
#include "export/exporter.h"
#include "views/options.h"

/* tracer_start() with what @opts asks for; 0 or the exit code */
int view_tracer_start(struct pts_tracer *t, const struct pts_options *opts,
		      bool follow_fork);
/*
 * export and top --listen: with @serve, listen on --listen before
 * attaching (a taken port fails fast: exit 1; a bad value: exit 2), then
 * start the tracer and serve it through @src, with the stop signals held
 * outside the waits until view_serve_stop().  0 with *@ex set (NULL
 * without @serve), or the exit code after cleaning up and saying why.
 */
int view_serve_start(struct pts_tracer *t, struct pts_export_source *src,
		     const struct pts_options *opts, bool serve,
		     struct pts_exporter **ex);
/* is @ch attached through a candidate on syscall tracepoints? */
bool view_taxes_syscalls(const struct pts_choice *ch);
/*
 * Which metrics of @eng are on syscall tracepoints, which slow every
 * syscall on the box, and what avoids that, as one sentence in @buf (""
 * if none); top and export print it at startup.  The number named.
 */
int view_syscall_tax_note(const struct pts_engine *eng, char *buf,
			  size_t len);
/* that note on stderr, "ptscope: note: ...", if any (top says it again) */
void view_syscall_tax_say(const struct pts_engine *eng);
/*
 * At the end of a run with -c: warn on stderr when @snap (the whole run's
 * totals) has no process row, so the name matched nothing.
 */
void view_warn_comm_unmatched(const struct pts_options *opts,
			      const struct pts_snapshot *snap);
void view_serve_stop(struct pts_tracer *t, struct pts_exporter *ex);

#endif
