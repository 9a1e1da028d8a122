/* SPDX-License-Identifier: GPL-2.0 */
/* Recorded values in their units, for stat's per-run summary and diff. */
#ifndef PTSCOPE_VALUES_H
#define PTSCOPE_VALUES_H

#include <stddef.h>
#include "data/recording.h"
#include "data/stats.h"

/* "4.00 MiB", "167.0 us", "2.101 s", "38.3/s", "12.5%", "261,120" */
const char *fmt_value(char *buf, size_t len, double value, enum rec_unit unit);
/* "167.0 us ± 8.1%" over runs with a spread, else the mean alone */
const char *fmt_mean_sd(char *buf, size_t len, const struct stats_summary *s,
			enum rec_unit unit);
/* what diff --json's "base" and "new" are in: "ns", "bytes", "count", ... */
const char *rec_unit_name(enum rec_unit unit);

#endif
