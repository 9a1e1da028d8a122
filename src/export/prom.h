/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Prometheus text exposition format 0.0.4 for "ptscope export".  Pure
 * functions: a snapshot and the engine's choices in, text out, so the
 * unit tests can check them without BPF or HTTP.
 *
 * Histograms come from the log2 slots: slot i holds [2^i, 2^(i+1)) ns
 * (slot 0 also 0), so with integer nanoseconds its inclusive upper bound
 * 2^(i+1)-1 ns is an exact "le".  A fixed range of slots is exported
 * (PROM_HIST_FIRST_SLOT..PROM_HIST_LAST_SLOT) so the bucket set never
 * changes between scrapes; the first bucket also counts the slots below
 * it and "+Inf" the slots above.
 */
#ifndef PTSCOPE_PROM_H
#define PTSCOPE_PROM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "data/cgroup_carry.h"
#include "data/collector.h"
#include "data/schema.h"
#include "data/selfcheck.h"
#include "engine/engine.h"

#define PROM_CONTENT_TYPE	"text/plain; version=0.0.4; charset=utf-8"
#define PROM_HIST_FIRST_SLOT	6	/* le 127 ns */
#define PROM_HIST_LAST_SLOT	35	/* le 68.719476735 s */
/* histograms of counts (PTEs): le 1 .. le 16383 */
#define PROM_COUNT_LAST_SLOT	13
#define PROM_PROG_NAME_LEN	64

/* run-time statistics of one loaded BPF program */
struct prom_prog {
	char name[PROM_PROG_NAME_LEN];
	uint64_t run_time_ns;
	uint64_t run_cnt;
};

struct prom_input {
	const struct pts_engine *eng;
	const struct pts_snapshot *snap;
	uint64_t page_size;
	pts_result_name_fn collapse_name;	/* NULL: "status_N" */
	const void *name_ctx;
	const struct prom_prog *progs;	/* NULL: run-time stats are off */
	size_t nr_progs;
	const char *progs_off;		/* why they are off, or NULL */
	unsigned int parts_off;		/* PTS_PART_* left out (--parts) */
	/*
	 * --cgroup-labels: the busiest cgroups of snap->cgroups that get a
	 * cgroup label in the ptscope_cgroup_* families; 0: no such families
	 */
	size_t cgroup_limit;
	/*
	 * what the last page showed per cgroup, so that a removed cgroup's
	 * counts are shown once (cgroup_carry.h); NULL: shown as the rows are
	 */
	struct pts_cgroup_carry *carry;
	/*
	 * the fault counts since export started against the kernel's
	 * (selfcheck_since()); NULL: not served, for selfcheck_off's reason
	 */
	const struct selfcheck *selfcheck;
	const char *selfcheck_off;
};

/*
 * The families of the page that are not the schema's (data/schema.h):
 * the cgroup label's bounds, the probe table, the program statistics.
 * "ptscope schema" lists them with the schema's.
 */
enum prom_family_id {
	PROM_FAM_CGROUP_LIMIT = 0,
	PROM_FAM_CGROUP_FOLDED,
	PROM_FAM_CGROUP_ROWS,
	PROM_FAM_PROBE,
	PROM_FAM_PROG_SECS,
	PROM_FAM_PROG_RUNS,
	PROM_FAM_SELFCHECK,
	PROM_NR_FAMILIES,
};

#define PROM_FAMILY_LABELS	3

struct prom_family {
	const char *name;
	const char *type;	/* "counter" or "gauge" */
	const char *help;
	const char *labels[PROM_FAMILY_LABELS];	/* NULL after the last */
};

extern const struct prom_family prom_families[PROM_NR_FAMILIES];

/* the labels of a ptscope_cgroup_* family, before its field's own */
#define PROM_CGROUP_LABELS	4
extern const char *const prom_cgroup_labels[PROM_CGROUP_LABELS];
/* a field's own labels: its kind's (and "order" for a size) or a fixed one */
#define PROM_FIELD_LABELS	2
/* room for the HELP of any family (prom_cgroup_help) */
#define PROM_HELP_MAX		1024

/* the HELP of the schema family of @f (on the family's first row) */
const char *prom_family_help(const struct pts_field *f);
/* the names of @f's labels into @names; how many (0 to 2) */
int prom_field_label_names(const struct pts_field *f,
			   const char *names[PROM_FIELD_LABELS]);
/* ptscope_cgroup_F, F being @f's family without "ptscope_", into @buf */
const char *prom_cgroup_family(char *buf, size_t len,
			       const struct pts_field *f);
/* its HELP (not escaped) when the @limit busiest cgroups are labelled */
const char *prom_cgroup_help(char *buf, size_t len, const struct pts_field *f,
			     size_t limit);

/* label values: backslash, double quote and newline are escaped */
void prom_put_label_value(FILE *out, const char *value);
/* HELP text: backslash and newline are escaped */
void prom_put_help_text(FILE *out, const char *text);
/* @ns nanoseconds as exact decimal seconds, "0.000002047" */
void prom_put_seconds(FILE *out, uint64_t ns);

/*
 * The whole /metrics page: every output schema field the chosen attach
 * paths provide, the per-cgroup families (cgroup_limit), then the probe
 * table and the program statistics.  0, or -errno when writing to @out
 * failed (open_memstream: -ENOMEM).
 *
 * Per cgroup, each family F of the schema's per-cgroup fields is
 * exported again as ptscope_cgroup_F (F without "ptscope_") with the
 * labels cgroup, namespace, pod and container: cgroup is the cgroup v2
 * path of the cgroup_limit busiest, "other" for the sum of the rest and
 * "removed" for the row of removed cgroups (less what earlier pages
 * showed of them: in->carry); the other three name a pod's
 * cgroup (kube.h), empty for the rest.  F itself keeps its meaning (all of
 * what was traced), so the sum of ptscope_cgroup_F over its cgroup label
 * is F, less the events of ptscope_events_dropped_total{reason=
 * "cgroup_map_full"} (and what happened between the reads of the rows
 * and of the totals, which are read last).
 */
int prom_render(const struct prom_input *in, FILE *out);

#endif
