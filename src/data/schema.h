/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output schema: one row per metric field, beside the attach catalog.
 * A row says where the value lives in a snapshot (counter or histogram
 * index), how it is labelled, its JSON key, its Prometheus family and
 * help, its diff name, and which catalog metric (and which of that
 * metric's attach paths) provides it.  The renderers (JSON, text,
 * Prometheus, diff, top) iterate these rows; none lists metrics of its own.
 */
#ifndef PTSCOPE_SCHEMA_H
#define PTSCOPE_SCHEMA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "data/collector.h"
#include "engine/engine.h"

enum pts_field_kind {
	PTS_FIELD_COUNTER = 0,
	PTS_FIELD_HIST,		/* log2 histogram, in nanoseconds unless unit says */
};

/* how one row expands into values */
enum pts_label_kind {
	PTS_LABEL_NONE = 0,	/* one value (maybe with a fixed label) */
	PTS_LABEL_CLASS,	/* one per mremap class: class="pud" */
	PTS_LABEL_ORDER,	/* one per folio order shown: size="64K",order="4" */
	PTS_LABEL_RESULT,	/* one per khugepaged result shown: result="..." */
};

enum pts_unit {
	PTS_UNIT_COUNT = 0,
	PTS_UNIT_BYTES,
	PTS_UNIT_NS,		/* histograms of durations: Prometheus seconds */
	PTS_UNIT_PTES,		/* histograms of PTE counts */
};

/* a group of rows: one JSON object under "counters", one text block */
struct pts_section {
	const char *key;	/* JSON key under "counters" */
	const char *metric;	/* catalog metric writing it; NULL: always */
	const char *title;	/* text heading */
	const char *diff;	/* diff name prefix */
};

struct pts_field {
	const struct pts_section *section;
	const char *key;	/* JSON key (in the section or per-label object) */
	enum pts_field_kind kind;
	enum pts_label_kind label;
	enum pts_unit unit;
	int index;		/* PTS_C_* or PTS_H_*, + label index */
	/*
	 * Provided when the section's metric is attached by a candidate
	 * whose cfg_flags contain one of @needs_any (0: any candidate) and
	 * none of @excludes.
	 */
	unsigned int needs_any;
	unsigned int excludes;
	/* the catalog metric giving it, when not the section's */
	const char *metric;
	/* Prometheus: rows of one family are consecutive */
	const char *prom;
	const char *prom_help;	/* on the family's first row */
	const char *fixed_label;	/* a constant label name ("level"), or NULL */
	const char *fixed_value;	/* ... and its value ("pud") */
	const char *title;	/* text: column header or line label */
	/* diff: NULL leaves the value out; histograms give their mean */
	const char *diff;
	const char *diff_sum;	/* histograms: also their sum, under this name */
	bool json_total;	/* CLASS: also the sum over classes in the section */
	bool per_mremap;	/* diff: also this value per mremap call */
	bool not_in_text;	/* JSON, Prometheus and diff only */
	/*
	 * JSON key in a process's object, for a counter kept per process
	 * (PTS_IN_PROC); NULL: not shown per process
	 */
	const char *proc_key;
};

/* a ratio diff computes from two flattened values (diff names) */
struct pts_derived {
	const char *name;
	const char *num;	/* "%s" is replaced by a label part, e.g. ".pmd" */
	const char *den;
	double scale;
	enum pts_label_kind label;	/* NONE: plain names */
	const char *den_plus;	/* added to the denominator, or NULL */
};

extern const struct pts_section pts_sections[];
extern const size_t pts_nr_sections;
extern const struct pts_field pts_fields[];
extern const size_t pts_nr_fields;
/*
 * Rows of counters kept only per cgroup or process, not in the totals:
 * shown at the top level of a cgroup's or a process's object.
 */
extern const struct pts_field pts_row_fields[];
extern const size_t pts_nr_row_fields;
extern const struct pts_derived pts_derived[];
extern const size_t pts_nr_derived;

/* khugepaged result name of @status (enum scan_result), NULL if unknown */
typedef const char *(*pts_result_name_fn)(const void *ctx, int status);

/* what every renderer needs beside the snapshot */
struct pts_schema_ctx {
	const struct pts_engine *eng;
	uint64_t page_size;
	pts_result_name_fn result_name;	/* NULL: "status_N" */
	const void *result_ctx;
	/* PTS_PART_* left out of the hot path (export --parts); 0: none */
	unsigned int parts_off;
};

bool schema_section_attached(const struct pts_schema_ctx *sc,
			     const struct pts_section *sec);
/* the catalog metric giving @f: its own, else its section's; NULL: always */
const char *schema_field_metric(const struct pts_field *f);
/* does the attach path chosen for the row's metric provide it? */
bool schema_field_present(const struct pts_schema_ctx *sc,
			  const struct pts_field *f);
/* number of label values of @f's kind (classes, orders, results) */
unsigned int schema_label_count(const struct pts_field *f);
/*
 * Is label value @i of @f shown in @snap?  Classes always; folio orders
 * when seen, the 64 KiB and PMD sizes always (from the page size), order
 * 0 when the fault path's functions are traced; results when seen,
 * SCAN_SUCCEED always so its rate is 0 rather than missing.
 */
bool schema_label_shown(const struct pts_schema_ctx *sc,
			const struct pts_field *f,
			const struct pts_snapshot *snap, unsigned int i);
/* label value @i of @f as text ("pud", "64K", "SCAN_SUCCEED") into @buf */
const char *schema_label_value(const struct pts_schema_ctx *sc,
			       const struct pts_field *f, unsigned int i,
			       char *buf, size_t len);
/* the Prometheus label name of @f's kind ("class", "size", "result") */
const char *schema_label_name(const struct pts_field *f);
uint64_t schema_counter(const struct pts_field *f,
			const struct pts_snapshot *snap, unsigned int i);
const struct pts_hist *schema_hist(const struct pts_field *f,
				   const struct pts_snapshot *snap,
				   unsigned int i);
/*
 * Is @f kept per cgroup (struct pts_cgroup)?  The counters declared with
 * PTS_IN_CGROUP (include/ptscope/counters.h); histograms are not.
 */
bool schema_field_per_cgroup(const struct pts_field *f);
/* value @i of @f in a process's row (schema_field_per_proc(f)) */
uint64_t schema_proc_counter(const struct pts_field *f,
			     const struct pts_proc *p, unsigned int i);
/* Is @f shown per process (a proc_key and kept in struct pts_proc)? */
bool schema_field_per_proc(const struct pts_field *f);
/* does a cgroup's row keep any field of @sec? */
bool schema_section_per_cgroup(const struct pts_section *sec);
/* value @i of @f in a cgroup's row (schema_field_per_cgroup(f)) */
uint64_t schema_cgroup_counter(const struct pts_field *f,
			       const struct pts_cgroup *c, unsigned int i);
/* the sum of a counter row over all its label values */
uint64_t schema_counter_total(const struct pts_field *f,
			      const struct pts_snapshot *snap);
const struct pts_field *schema_find(const char *section, const char *key);
/* the folio orders of a 64 KiB mTHP and of a PMD THP, from the page size */
unsigned int schema_order_64k(uint64_t page_size);
unsigned int schema_order_pmd(uint64_t page_size);

#endif
