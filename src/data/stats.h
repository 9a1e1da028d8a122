/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The statistics of ptscope diff: summaries of repeated runs, Welch's
 * t-test with its confidence interval, and Holm's step-down adjustment
 * over the rows tested.  The t distribution comes from R's standalone
 * math library (libRmath).  Why Welch: docs/regressions.md.
 */
#ifndef PTSCOPE_STATS_H
#define PTSCOPE_STATS_H

#include <stdbool.h>
#include <stddef.h>

/* one metric over the runs of one recording */
struct stats_summary {
	size_t n;
	double mean;
	double sd;		/* sample standard deviation (n - 1); 0 for n < 2 */
	double min, max;
};

/* new - base, by Welch's unequal-variance t-test */
struct stats_welch {
	double diff;		/* mean(new) - mean(base) */
	double se;		/* its standard error */
	double df;		/* Welch-Satterthwaite degrees of freedom */
	double t;
	double p;		/* two-sided */
	double ci_low, ci_high;	/* confidence interval of diff */
};

void stats_summarize(const double *values, size_t n, struct stats_summary *s);

/* every run gave the same value */
static inline bool stats_constant(const struct stats_summary *s)
{
	return s->min == s->max;
}

/*
 * Welch's test of @new against @base at confidence @conf (0.95): 0, or
 * -EINVAL when a side has fewer than 2 runs or both have no spread (the
 * difference is then exact: compare the means).
 */
int stats_welch(const struct stats_summary *base,
		const struct stats_summary *new, double conf,
		struct stats_welch *w);

/*
 * Holm's step-down adjustment of @n p-values into @adjusted (may be
 * @p): the family-wise error rate of "adjusted < alpha" is at most alpha.
 * 0, or -ENOMEM.
 */
int stats_holm(const double *p, size_t n, double *adjusted);

/* Student's t distribution: P(T <= t) and its inverse */
double stats_t_cdf(double t, double df);
double stats_t_quantile(double prob, double df);

#endif
