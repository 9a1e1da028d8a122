// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include "data/format.h"
#include "render/values.h"

/* a count: with thousands separators ("%'" of the locale: LC_NUMERIC) */
static const char *fmt_count(char *buf, size_t len, double value)
{
	if (value == floor(value) && fabs(value) < 1e15)
		snprintf(buf, len, "%'.0f", value);
	else if (fabs(value) >= 100)
		snprintf(buf, len, "%'.1f", value);
	else
		snprintf(buf, len, "%.3g", value);
	return buf;
}

/* @value as bytes: casting 2^64 or more (a mean of huge sums) is undefined */
static uint64_t bytes_of(double value)
{
	if (!(value > 0))
		return 0;
	if (value >= 18446744073709551615.0)
		return UINT64_MAX;
	return (uint64_t)value;
}

static const char *const unit_names[] = {
	[REC_UNIT_COUNT] = "count",
	[REC_UNIT_BYTES] = "bytes",
	[REC_UNIT_NS] = "ns",
	[REC_UNIT_SECONDS] = "s",
	[REC_UNIT_PER_SEC] = "per_s",
	[REC_UNIT_PCT] = "pct",
};

const char *rec_unit_name(enum rec_unit unit)
{
	if ((size_t)unit < sizeof(unit_names) / sizeof(unit_names[0]))
		return unit_names[unit];
	return "count";
}

const char *fmt_value(char *buf, size_t len, double value, enum rec_unit unit)
{
	switch (unit) {
	case REC_UNIT_BYTES:
		return fmt_bytes(buf, len, bytes_of(value));
	case REC_UNIT_NS:
		return fmt_ns(buf, len, value);
	case REC_UNIT_SECONDS:
		snprintf(buf, len, "%.3f s", value);
		return buf;
	case REC_UNIT_PER_SEC:
		snprintf(buf, len, "%.1f/s", value);
		return buf;
	case REC_UNIT_PCT:
		snprintf(buf, len, "%.1f%%", value);
		return buf;
	default:
		return fmt_count(buf, len, value);
	}
}

const char *fmt_mean_sd(char *buf, size_t len, const struct stats_summary *s,
			enum rec_unit unit)
{
	char value[32];

	fmt_value(value, sizeof(value), s->mean, unit);
	if (s->n < 2 || s->sd == 0 || s->mean == 0)
		snprintf(buf, len, "%s", value);
	else
		snprintf(buf, len, "%s ± %.1f%%", value,
			 s->sd / fabs(s->mean) * 100);
	return buf;
}
