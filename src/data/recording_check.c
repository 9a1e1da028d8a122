// SPDX-License-Identifier: GPL-2.0
/*
 * Is it a stat recording diff can read: its format version and its runs,
 * each with the fields every run has, checked before anything is
 * flattened (recording.c).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "data/recording.h"

int rec_fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
	return -EINVAL;
}

/* a JSON object with an integer ptscope_version diff reads */
static int check_version(json_object *rec, const char *label, char *err,
			 size_t errlen)
{
	json_object *version = rec_get(rec, "ptscope_version");
	int64_t v;

	if (!rec_is_object(rec))
		return rec_fail(err, errlen, "%s is not a ptscope recording "
			    "(its JSON is not an object)", label);
	if (!version)
		return rec_fail(err, errlen, "%s has no ptscope_version (not a "
			    "'ptscope stat --json' recording)", label);
	if (!json_object_is_type(version, json_type_int))
		return rec_fail(err, errlen, "%s: ptscope_version is not an integer",
			    label);
	v = json_object_get_int64(version);
	if (v < REC_OLDEST_VERSION || v > REC_FORMAT_VERSION)
		return rec_fail(err, errlen, "%s is ptscope_version %lld; this ptscope "
			    "reads versions %d to %d", label, (long long)v,
			    REC_OLDEST_VERSION, REC_FORMAT_VERSION);
	return 0;
}

/* the sections a stat recording has and diff reads */
static const struct {
	const char *parent;
	const char *key;
	bool object;		/* else a number */
} stat_fields[] = {
	{ NULL, "run", true },
	{ "run", "seconds", false },
	{ NULL, "system", true },
	{ "system", "page_size", false },
	{ NULL, "metrics", true },
	{ NULL, "counters", true },
};

/* version 2: "runs", an array of 1 to REC_MAX_RUNS runs with counters */
static int check_runs(json_object *rec, const char *label, char *err,
		      size_t errlen)
{
	json_object *runs = rec_get(rec, "runs"), *run;
	size_t i, n;

	if (!runs || !json_object_is_type(runs, json_type_array))
		return rec_fail(err, errlen, "%s is not a 'ptscope stat --json' "
			    "recording: no runs array", label);
	n = json_object_array_length(runs);
	if (n < 1 || n > REC_MAX_RUNS)
		return rec_fail(err, errlen, "%s has %zu runs, not 1 to %d", label,
			    n, REC_MAX_RUNS);
	for (i = 0; i < n; i++) {
		run = json_object_array_get_idx(runs, i);
		if (!rec_is_object(rec_get(run, "counters")) ||
		    !rec_is_number(rec_get(run, "seconds")))
			return rec_fail(err, errlen, "%s: run %zu has no counters "
				    "or seconds", label, i + 1);
	}
	return 0;
}

int recording_check(json_object *rec, const char *label, char *err,
		    size_t errlen)
{
	json_object *parent, *field;
	size_t i;
	int ret;

	ret = check_version(rec, label, err, errlen);
	if (ret)
		return ret;
	for (i = 0; i < sizeof(stat_fields) / sizeof(stat_fields[0]); i++) {
		parent = stat_fields[i].parent ?
			rec_get(rec, stat_fields[i].parent) : rec;
		field = rec_get(parent, stat_fields[i].key);
		if (stat_fields[i].object ? rec_is_object(field) : rec_is_number(field))
			continue;
		return rec_fail(err, errlen, "%s is not a 'ptscope stat --json' "
			    "recording: no %s%s%s", label,
			    stat_fields[i].parent ? stat_fields[i].parent : "",
			    stat_fields[i].parent ? "." : "", stat_fields[i].key);
	}
	if (json_object_get_int64(rec_get(rec, "ptscope_version")) >=
	    REC_RUNS_VERSION)
		return check_runs(rec, label, err, errlen);
	return 0;
}
