/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The Prometheus /metrics endpoint, served from the caller's thread off a
 * data source: ptscope export runs it alone, top --listen between two
 * refreshes.  It never starts the tracer; the views do, between
 * exporter_listen() and exporter_start().
 */
#ifndef PTSCOPE_EXPORTER_H
#define PTSCOPE_EXPORTER_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "data/collector.h"
#include "data/kcounters.h"
#include "tracer/tracer.h"	/* struct pts_prog_ref */
#include "engine/engine.h"
#include "engine/kfeatures.h"

/* what each scrape reads and how the page names it */
struct pts_export_source {
	/*
	 * counters, histograms and the per-cgroup rows if cgroup_labels
	 * (per-process rows are not served)
	 */
	int (*read)(void *ctx, struct pts_snapshot *snap);
	/* between scrapes, about once a second: upkeep of the maps */
	void (*tidy)(void *ctx);
	void *ctx;
	const struct pts_engine *eng;		/* attach paths of the metrics */
	const struct pts_kfeatures *kf;		/* khugepaged result names */
	uint64_t page_size;
	const struct pts_prog_ref *progs;	/* run-time statistics of these */
	size_t nr_progs;
	/* --cgroup-labels: cgroups labelled in ptscope_cgroup_*; 0: none */
	size_t cgroup_labels;
	/* PTS_PART_* the BPF programs leave out (--parts): not served */
	unsigned int parts_off;
	/* the kernel's hugepage counters before attaching; NULL: no self-check */
	const struct kcounters *kc_base;
};

struct pts_exporter;

/* Listen on @listen_arg (ADDR:PORT) before anything is attached, so a
 * taken port fails fast.  @bpf_stats: serve the programs' run time
 * (turns on the kernel's BPF run-time statistics for every program).
 * 0 with *@ex set, or -errno after saying why (-EINVAL: no ADDR:PORT,
 * -EADDRNOTAVAIL: no such address here). */
int exporter_listen(const char *listen_arg, bool verbose, bool bpf_stats,
		    struct pts_exporter **ex);
/* Serve @src (kept by reference) from now on; 0, or -errno after saying
 * why. */
int exporter_start(struct pts_exporter *ex, const struct pts_export_source *src);
/* Answer scrapes until CLOCK_MONOTONIC @deadline (0: none) or *@stop;
 * @wait_mask is the signal mask while waiting (the stop signals
 * unblocked, blocked otherwise, so none slips past the check).  0, or
 * -errno after saying why. */
int exporter_serve(struct pts_exporter *ex, double deadline,
		   const volatile sig_atomic_t *stop, const sigset_t *wait_mask);
void exporter_close(struct pts_exporter *ex);

#endif
