/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A "ptscope stat --json" recording, as diff reads it: checked, then each
 * run flattened into named values (raw counters and per-operation ratios
 * such as mremap.pte.latency_mean).  Version 1 recordings hold one run
 * (their totals); version 2 keeps every run of --repeat in "runs";
 * version 3 times the machine's reference around each of them.  Pure
 * functions over json-c objects.
 */
#ifndef PTSCOPE_RECORDING_H
#define PTSCOPE_RECORDING_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>
#include "data/schema.h"

#define REC_FORMAT_VERSION	3	/* what stat writes */
#define REC_OLDEST_VERSION	1	/* the oldest diff reads */
#define REC_RUNS_VERSION	2	/* the first with "runs" */
#define REC_REFERENCE_VERSION	3	/* the first with the machine's reference */
#define REC_NAME_LEN		96
#define REC_MAX_RUNS		1000	/* stat --repeat's bound */

/* what kind of quantity a value is: how much two runs may differ by */
enum rec_kind {
	REC_COUNT = 0,	/* events of the traced command: exact when repeatable */
	REC_TIME,	/* a duration or a rate per second: always noisy */
	REC_SYSTEM,	/* a system-wide counter (vmstat, khugepaged): noisy */
};

/* what a value is measured in, for printing */
enum rec_unit {
	REC_UNIT_COUNT = 0,
	REC_UNIT_BYTES,
	REC_UNIT_NS,
	REC_UNIT_SECONDS,
	REC_UNIT_PER_SEC,
	REC_UNIT_PCT,
};

/* one named value of one run */
struct rec_value {
	char name[REC_NAME_LEN];
	double value;
	const char *section;	/* counters section it needs; NULL: always written */
	bool ratio;		/* left out where its denominator is 0 */
	bool events_only;	/* left out where nothing was traced: unknown */
	const struct pts_field *field;	/* the schema row it came from, or NULL */
	int label;		/* its label value (order), -1: none */
	enum rec_kind kind;
	enum rec_unit unit;
};

/* one run, flattened */
struct rec_run {
	json_object *counters;	/* the run's "counters" (borrowed) */
	struct rec_value *v;
	size_t nr, cap;
	double seconds;
	int exit_status;
	unsigned int found_needs;	/* needs_any of the path-bound rows found */
	/* the machine's reference around the run (the mean of its two
	 * timings), seconds; 0 where the recording has none */
	double reference;
};

/* what the header of a comparison says about a recording */
struct rec_header {
	char kernel[128];
	char machine[64];
	char command[512];
	double seconds;		/* all runs */
	int exit_status;	/* the first nonzero one of any run */
	int version;
	/* the reference's work ("reference" of version 3): 0 when absent */
	double ref_hash_rounds, ref_syscalls;
};

struct recording {
	json_object *root;	/* borrowed */
	struct rec_header header;
	struct rec_run *runs;
	size_t nr_runs;
};

/* @obj.@key, or NULL when @obj is not an object or has no @key */
json_object *rec_get(json_object *obj, const char *key);
bool rec_is_object(json_object *obj);
/* @obj.@key as a string or number: NULL / false when absent or not one */
const char *rec_get_str(json_object *obj, const char *key);
/* an int or a double */
bool rec_is_number(json_object *obj);
bool rec_get_num(json_object *obj, const char *key, double *val);

/* the message into @err; -EINVAL */
__attribute__((format(printf, 3, 4)))
int rec_fail(char *err, size_t errlen, const char *fmt, ...);

/*
 * Is @rec a stat recording diff understands?  0, or -EINVAL with the
 * reason in @err, which starts with @label (the file name).
 */
int recording_check(json_object *rec, const char *label, char *err,
		    size_t errlen);

/*
 * Check @rec and flatten every run into @out (recording_free() it, also on
 * error).  0; -EINVAL with the reason in @err; -ENOMEM.
 */
int recording_flatten(json_object *rec, const char *label,
		      struct recording *out, char *err, size_t errlen);
void recording_free(struct recording *r);

const struct rec_value *rec_run_find(const struct rec_run *run,
				     const char *name);
/* does @run's recording say @v is 0 by leaving it out? */
bool rec_absent_means_zero(const struct rec_run *run,
			   const struct rec_value *v);

/*
 * Free what diff will not read: of each run's counters.processes only the
 * length counts, so its objects (most of a large recording) become as
 * many nulls.  Called on each recording as it is loaded, it keeps one
 * whole parsed recording in memory at a time, not two.
 */
void recording_slim(json_object *rec);

/*
 * Read, parse and slim the recording at @path into *@rec (json_object_put
 * it).  0; -ENOMEM, or -EINVAL when it cannot be read or is not one JSON
 * value; the message is on stderr, naming @path.
 */
int recording_load(const char *path, json_object **rec);

#endif
