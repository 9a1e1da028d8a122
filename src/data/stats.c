// SPDX-License-Identifier: GPL-2.0
/* Summaries, Welch's t-test and Holm's adjustment for ptscope diff. */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#define MATHLIB_STANDALONE
#include <Rmath.h>
#include "data/stats.h"

void stats_summarize(const double *values, size_t n, struct stats_summary *s)
{
	double sum = 0, squares = 0;
	size_t i;

	s->n = n;
	s->mean = s->sd = s->min = s->max = 0;
	if (!n)
		return;
	s->min = s->max = values[0];
	for (i = 0; i < n; i++) {
		sum += values[i];
		if (values[i] < s->min)
			s->min = values[i];
		if (values[i] > s->max)
			s->max = values[i];
	}
	s->mean = sum / n;
	if (n < 2)
		return;
	/* two passes: the deviations, not sum(x^2) - n*mean^2, keep precision */
	for (i = 0; i < n; i++)
		squares += (values[i] - s->mean) * (values[i] - s->mean);
	s->sd = sqrt(squares / (n - 1));
}

double stats_t_cdf(double t, double df)
{
	return pt(t, df, 1, 0);
}

double stats_t_quantile(double prob, double df)
{
	return qt(prob, df, 1, 0);
}

int stats_welch(const struct stats_summary *base,
		const struct stats_summary *new, double conf,
		struct stats_welch *w)
{
	double vb, vn, half;

	if (base->n < 2 || new->n < 2)
		return -EINVAL;
	vb = base->sd * base->sd / base->n;
	vn = new->sd * new->sd / new->n;
	if (!(vb + vn > 0))
		return -EINVAL;
	w->diff = new->mean - base->mean;
	w->se = sqrt(vb + vn);
	/* Welch-Satterthwaite; a side without spread adds no freedom */
	w->df = (vb + vn) * (vb + vn) /
		(vb * vb / (base->n - 1) + vn * vn / (new->n - 1));
	w->t = w->diff / w->se;
	w->p = 2 * pt(-fabs(w->t), w->df, 1, 0);
	half = qt(1 - (1 - conf) / 2, w->df, 1, 0) * w->se;
	w->ci_low = w->diff - half;
	w->ci_high = w->diff + half;
	return 0;
}

/* one p-value and the row it belongs to */
struct holm_entry {
	double p;
	size_t row;
};

static int holm_cmp(const void *a, const void *b)
{
	const struct holm_entry *ea = a, *eb = b;

	return ea->p < eb->p ? -1 : ea->p > eb->p;
}

/*
 * Sorted ascending, p(i) gets min(1, max over j <= i of (n - j) p(j)):
 * the running maximum keeps the adjusted values in the order of the raw.
 */
int stats_holm(const double *p, size_t n, double *adjusted)
{
	struct holm_entry *sorted;
	double running = 0, scaled;
	size_t i;

	if (!n)
		return 0;
	sorted = calloc(n, sizeof(*sorted));
	if (!sorted)
		return -ENOMEM;
	for (i = 0; i < n; i++) {
		sorted[i].p = p[i];
		sorted[i].row = i;
	}
	qsort(sorted, n, sizeof(*sorted), holm_cmp);
	for (i = 0; i < n; i++) {
		scaled = (n - i) * sorted[i].p;
		if (scaled > running)
			running = scaled;
		adjusted[sorted[i].row] = running < 1 ? running : 1;
	}
	free(sorted);
	return 0;
}
