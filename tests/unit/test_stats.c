// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/data/stats.c and diff's verdict rule: reference
 * values for fixed samples (computed with SciPy 1.10's
 * scipy.stats.ttest_ind(equal_var=False) and t.ppf, written in here), the
 * Holm step, and a seeded simulation of the verdict's error rates.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "data/recording_compare.h"
#include "data/stats.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static void test_summary(void **state)
{
	const double v[] = { 10.1, 9.8, 10.4, 10.0, 9.7 };
	struct stats_summary s;

	stats_summarize(v, ARRAY_SIZE(v), &s);
	assert_int_equal(s.n, 5);
	assert_float_equal(s.mean, 10.0, 1e-12);
	assert_float_equal(s.sd, 0.27386127875258, 1e-12);
	assert_float_equal(s.min, 9.7, 0);
	assert_float_equal(s.max, 10.4, 0);
	assert_false(stats_constant(&s));
	stats_summarize(v, 1, &s);
	assert_float_equal(s.sd, 0, 0);
	assert_true(stats_constant(&s));
	stats_summarize(v, 0, &s);
	assert_int_equal(s.n, 0);
}

static void test_t_distribution(void **state)
{
	assert_float_equal(stats_t_cdf(2.0, 5), 0.9490302605850709, 1e-12);
	assert_float_equal(stats_t_cdf(-1.5, 3.7), 0.10679908460100665, 1e-12);
	assert_float_equal(stats_t_quantile(0.975, 4), 2.7764451051977987, 1e-10);
	assert_float_equal(stats_t_quantile(0.975, 30), 2.0422724563012373, 1e-10);
	assert_float_equal(stats_t_quantile(0.995, 7.5), 3.421422688124047, 1e-9);
}

static void welch(const double *b, size_t nb, const double *n, size_t nn,
		  struct stats_welch *w)
{
	struct stats_summary sb, sn;

	stats_summarize(b, nb, &sb);
	stats_summarize(n, nn, &sn);
	assert_int_equal(stats_welch(&sb, &sn, 0.95, w), 0);
}

/* a clear shift: t 6.62, df 8.98, p 9.8e-5 */
static void test_welch_shift(void **state)
{
	const double base[] = { 10.1, 9.8, 10.4, 10.0, 9.7 };
	const double new[] = { 11.2, 10.9, 11.5, 11.1, 11.6, 10.8 };
	struct stats_welch w;

	welch(base, ARRAY_SIZE(base), new, ARRAY_SIZE(new), &w);
	assert_float_equal(w.diff, 1.1833333333333353, 1e-12);
	assert_float_equal(w.t, 6.620784138506241, 1e-9);
	assert_float_equal(w.df, 8.97705674721694, 1e-9);
	assert_float_equal(w.p, 9.80814994356779e-05, 1e-12);
	assert_float_equal(w.ci_low, 0.778860212109137, 1e-9);
	assert_float_equal(w.ci_high, 1.5878064545575337, 1e-9);
}

/* overlapping samples of unequal size: t 0.357, df 6.33, p 0.733 */
static void test_welch_overlap(void **state)
{
	const double base[] = { 100, 120, 90, 110 };
	const double new[] = { 105, 95, 125, 115, 100 };
	struct stats_welch w;

	welch(base, ARRAY_SIZE(base), new, ARRAY_SIZE(new), &w);
	assert_float_equal(w.diff, 3.0, 1e-12);
	assert_float_equal(w.t, 0.3568732135731649, 1e-9);
	assert_float_equal(w.df, 6.32962080580234, 1e-9);
	assert_float_equal(w.p, 0.7327844560603236, 1e-9);
	assert_float_equal(w.ci_low, -17.31270185933844, 1e-8);
	assert_float_equal(w.ci_high, 23.31270185933844, 1e-8);
}

static void test_welch_refuses(void **state)
{
	const double one[] = { 5 }, same[] = { 7, 7, 7 }, two[] = { 1, 2 };
	struct stats_summary a, b, c;
	struct stats_welch w;

	stats_summarize(one, 1, &a);
	stats_summarize(same, 3, &b);
	stats_summarize(two, 2, &c);
	assert_int_equal(stats_welch(&a, &c, 0.95, &w), -EINVAL);	/* 1 run */
	assert_int_equal(stats_welch(&b, &b, 0.95, &w), -EINVAL);	/* no spread */
	assert_int_equal(stats_welch(&b, &c, 0.95, &w), 0);	/* one side spreads */
}

/* Holm 1979: sorted p times (n - rank), running maximum, at most 1 */
static void test_holm(void **state)
{
	double p[] = { 0.01, 0.04, 0.03, 0.005 }, adj[4];
	double big[] = { 0.5, 0.6 };

	assert_int_equal(stats_holm(p, 4, adj), 0);
	assert_float_equal(adj[0], 0.03, 1e-15);
	assert_float_equal(adj[1], 0.06, 1e-15);
	assert_float_equal(adj[2], 0.06, 1e-15);
	assert_float_equal(adj[3], 0.02, 1e-15);
	assert_int_equal(stats_holm(big, 2, big), 0);	/* in place */
	assert_float_equal(big[0], 1, 0);
	assert_float_equal(big[1], 1, 0);
	assert_int_equal(stats_holm(p, 0, adj), 0);
}

/* ---- the verdict rule on rows ---- */

static struct diff_params params = { .alpha = DIFF_ALPHA,
				     .min_effect_pct = DIFF_MIN_EFFECT_PCT };

static void test_exact_rows(void **state)
{
	const double calls[] = { 300, 300, 300 }, more[] = { 305, 305, 305 };
	const double most[] = { 307, 307, 307 };
	struct diff_params none = { .alpha = DIFF_ALPHA, .min_effect_pct = 0 };
	struct diff_row rows[3] = {};

	diff_test_row(&rows[0], calls, 3, calls, 3);
	diff_test_row(&rows[1], calls, 3, more, 3);
	diff_test_row(&rows[2], calls, 3, most, 3);
	assert_int_equal(diff_decide(rows, 3, &params), 0);
	assert_int_equal(rows[0].test, DIFF_TEST_EXACT);
	assert_false(rows[0].changed);
	/* +1.67%: exact, it differs, below the 2% minimum; +2.33% beyond */
	assert_int_equal(rows[1].test, DIFF_TEST_EXACT);
	assert_true(rows[1].differs);
	assert_false(rows[1].changed);
	assert_float_equal(rows[1].p_adjusted, 0, 0);
	assert_true(rows[2].changed);
	/* with no minimum effect, any count that moved changed */
	assert_int_equal(diff_decide(rows, 3, &none), 0);
	assert_true(rows[1].changed);
	assert_false(rows[0].changed);
}

/*
 * mremap.calls 199,939 -> 199,984 in every run: +0.023%, exact.  It
 * differs, but neither the default minimum effect nor --min-effect 50
 * calls it a change; 100,000 -> 160,000 (+60%) is one at 50, not at 70.
 */
static void test_exact_min_effect(void **state)
{
	const double base[] = { 199939, 199939, 199939, 199939, 199939 };
	const double near[] = { 199984, 199984, 199984, 199984, 199984 };
	const double few[] = { 100000, 100000, 100000 };
	const double more[] = { 160000, 160000, 160000 };
	struct diff_params p = params;
	struct diff_row row = {};

	diff_test_row(&row, base, 5, near, 5);
	assert_int_equal(row.test, DIFF_TEST_EXACT);
	assert_true(row.differs);
	assert_int_equal(diff_decide(&row, 1, &params), 0);
	assert_false(row.changed);
	p.min_effect_pct = 50;
	assert_int_equal(diff_decide(&row, 1, &p), 0);
	assert_false(row.changed);
	diff_test_row(&row, few, 3, more, 3);
	assert_int_equal(diff_decide(&row, 1, &p), 0);
	assert_true(row.changed);
	p.min_effect_pct = 70;
	assert_int_equal(diff_decide(&row, 1, &p), 0);
	assert_false(row.changed);
	/* appeared: infinite, a change at any minimum */
	diff_test_row(&row, (const double[]){ 0, 0, 0 }, 3, few, 3);
	assert_int_equal(diff_decide(&row, 1, &p), 0);
	assert_true(row.changed);
}

static void test_one_run(void **state)
{
	const double a[] = { 100 }, b[] = { 900 };
	struct diff_row row = {};

	diff_test_row(&row, a, 1, b, 1);
	assert_int_equal(diff_decide(&row, 1, &params), 0);
	assert_int_equal(row.test, DIFF_TEST_NONE);
	assert_false(row.changed);
	assert_true(row.differs);
	assert_float_equal(row.change_pct, 800, 1e-9);
}

/* significant but small: the minimum effect keeps it a non-change */
static void test_min_effect(void **state)
{
	const double base[] = { 1000, 1001, 999, 1000, 1000, 1001, 999, 1000 };
	const double new[] = { 1010, 1011, 1009, 1010, 1010, 1011, 1009, 1010 };
	struct diff_row row = {};

	diff_test_row(&row, base, 8, new, 8);
	assert_int_equal(diff_decide(&row, 1, &params), 0);
	assert_int_equal(row.test, DIFF_TEST_WELCH);
	assert_true(row.p_adjusted < 1e-6);
	assert_float_equal(row.change_pct, 1.0, 1e-9);
	assert_false(row.changed);
	assert_true(row.ci_low_pct > 0);
}

/* Holm over the tested rows: 0.02 alone is a change, among 4 it is not */
static void test_holm_rows(void **state)
{
	const double base[] = { 100, 110, 90, 105, 95 };
	const double shifted[] = { 114, 124, 104, 119, 109 };
	struct diff_row rows[4] = {};
	size_t i;

	diff_test_row(&rows[0], base, 5, shifted, 5);
	assert_int_equal(diff_decide(rows, 1, &params), 0);
	assert_true(rows[0].p < 0.05 && rows[0].p > 0.0125);
	assert_true(rows[0].changed);
	for (i = 1; i < 4; i++)
		diff_test_row(&rows[i], base, 5, base, 5);
	assert_int_equal(diff_decide(rows, 4, &params), 0);
	assert_false(rows[0].changed);
	assert_float_equal(rows[0].p_adjusted, 4 * rows[0].p, 1e-12);
}

/* ---- a seeded simulation of the verdict's error rates ---- */

#define SIM_PAIRS	1000
#define SIM_CV		0.05	/* per-run spread of a timing: 5% of its mean */

/* xorshift64*: the same stream on every machine, unlike rand() */
static uint64_t sim_state = 0x9e3779b97f4a7c15ull;

static double uniform(void)
{
	sim_state ^= sim_state >> 12;
	sim_state ^= sim_state << 25;
	sim_state ^= sim_state >> 27;
	return ((sim_state * 0x2545f4914f6cdd1dull) >> 11) * (1.0 / 9007199254740992.0);
}

/* Box-Muller: one normal deviate */
static double normal(double mean, double sd)
{
	double u = uniform(), v = uniform();

	if (u < 1e-300)
		u = 1e-300;
	return mean + sd * sqrt(-2 * log(u)) * cos(2 * M_PI * v);
}

/*
 * A recording pair of @rows timing rows, @runs runs a side, the new side
 * shifted by @shift (0.10: +10%); does the verdict call any row changed?
 */
static bool sim_pair(size_t rows, size_t runs, double shift)
{
	double base[32], new[32];
	struct diff_row row[8] = {};
	size_t r, i;
	bool changed = false;

	for (r = 0; r < rows; r++) {
		for (i = 0; i < runs; i++) {
			base[i] = normal(1000, 1000 * SIM_CV);
			new[i] = normal(1000 * (1 + shift), 1000 * SIM_CV);
		}
		diff_test_row(&row[r], base, runs, new, runs);
	}
	assert_int_equal(diff_decide(row, rows, &params), 0);
	for (r = 0; r < rows; r++)
		changed |= row[r].changed;
	return changed;
}

static double sim_rate(size_t rows, size_t runs, double shift)
{
	size_t pair, hits = 0;

	for (pair = 0; pair < SIM_PAIRS; pair++)
		hits += sim_pair(rows, runs, shift);
	return (double)hits / SIM_PAIRS;
}

/*
 * 1000 pairs from one distribution: a false "changed" at most 5% of the
 * time, for one row and for five rows (Holm holds the family at alpha)
 */
static void test_sim_false_positives(void **state)
{
	double one = sim_rate(1, 5, 0), five = sim_rate(5, 5, 0);

	print_message("# simulation: %d pairs, one distribution (normal, sd %.0f%% "
		      "of the mean), 5 runs a side: false 'changed' %.1f%% with "
		      "1 row, %.1f%% with 5 rows (alpha %.0f%%)\n", SIM_PAIRS,
		      SIM_CV * 100, one * 100, five * 100, DIFF_ALPHA * 100);
	assert_true(one <= 0.05);
	assert_true(five <= 0.05);
}

/* a 10% shift with 10 runs a side: detected at least 80% of the time */
static void test_sim_power(void **state)
{
	double one = sim_rate(1, 10, 0.10), five = sim_rate(5, 10, 0.10);
	double small = sim_rate(1, 10, 0.01);

	print_message("# simulation: %d pairs, +10%% shift, 10 runs a side: "
		      "detected %.1f%% with 1 row, %.1f%% with 5 rows; a +1%% "
		      "shift (below the 2%% minimum effect): %.1f%%\n", SIM_PAIRS,
		      one * 100, five * 100, small * 100);
	assert_true(one >= 0.80);
	assert_true(five >= 0.80);
	assert_true(small <= 0.05);
}

/* ---- the machine's reference: a drift simulation ---- */

#define SIM_REF_NS	10e6	/* the reference: 10 ms */
#define SIM_REF_CV	0.03	/* its per-run spread on a steady machine */

/*
 * One time row, 5 runs a side: each run's time is @work (1: the base
 * workload) times the machine's slowness (1: the base machine) times
 * noise; each run's reference is the machine's slowness times its own
 * noise.  Is the row called changed, relative to the reference?  *@raw:
 * would it have been, as measured alone?
 */
static bool sim_drift(double base_machine, double new_machine, double work,
		      bool *raw)
{
	double base[5], new[5], base_ref[5], new_ref[5];
	struct diff_row row = {};
	size_t i;

	for (i = 0; i < 5; i++) {
		base_ref[i] = normal(SIM_REF_NS, SIM_REF_NS * SIM_REF_CV) *
			      base_machine;
		new_ref[i] = normal(SIM_REF_NS, SIM_REF_NS * SIM_REF_CV) *
			     new_machine;
		base[i] = normal(1000, 1000 * SIM_CV) * base_machine;
		new[i] = normal(1000 * work, 1000 * work * SIM_CV) * new_machine;
	}
	diff_test_row(&row, base, 5, new, 5);
	row.unit = REC_UNIT_NS;
	assert_int_equal(diff_normalize_row(&row, base, base_ref, 5, new,
					    new_ref, 5), 0);
	assert_true(row.normalized);
	assert_int_equal(diff_decide(&row, 1, &params), 0);
	*raw = row.raw_changed;
	return row.changed;
}

static double drift_rate(double base_machine, double new_machine,
			 double work, double *raw_rate)
{
	size_t pair, hits = 0, raw_hits = 0;
	bool raw;

	for (pair = 0; pair < SIM_PAIRS; pair++) {
		hits += sim_drift(base_machine, new_machine, work, &raw);
		raw_hits += raw;
	}
	*raw_rate = (double)raw_hits / SIM_PAIRS;
	return (double)hits / SIM_PAIRS;
}

/*
 * The same workload on a machine 1.5x slower on the new side is not a
 * change (as measured alone it is, every time); the workload really
 * 1.5x slower on the same machine is; both at once are too.
 */
static void test_sim_drift(void **state)
{
	double raw_machine, raw_work, raw_both, raw_faster;
	double machine = drift_rate(1, 1.5, 1, &raw_machine);
	double work = drift_rate(1, 1, 1.5, &raw_work);
	double both = drift_rate(1, 1.5, 1.5, &raw_both);
	double faster = drift_rate(1.5, 1, 1, &raw_faster);

	print_message("# drift simulation: %d pairs, 5 runs a side, times sd "
		      "%.0f%%, reference sd %.0f%%: machine 1.5x slower, same "
		      "work: 'changed' %.1f%% (as measured alone %.1f%%); same "
		      "machine, work 1.5x slower: %.1f%%; both: %.1f%%; machine "
		      "1.5x faster in new: %.1f%%\n", SIM_PAIRS, SIM_CV * 100,
		      SIM_REF_CV * 100, machine * 100, raw_machine * 100,
		      work * 100, both * 100, faster * 100);
	assert_true(raw_machine >= 0.95 && raw_faster >= 0.95);
	assert_true(machine <= 0.05);
	assert_true(faster <= 0.05);
	assert_true(work >= 0.95);
	assert_true(both >= 0.95);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_summary),
		cmocka_unit_test(test_t_distribution),
		cmocka_unit_test(test_welch_shift),
		cmocka_unit_test(test_welch_overlap),
		cmocka_unit_test(test_welch_refuses),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_exact_rows),
		cmocka_unit_test(test_exact_min_effect),
		cmocka_unit_test(test_one_run),
		cmocka_unit_test(test_min_effect),
		cmocka_unit_test(test_holm_rows),
		cmocka_unit_test(test_sim_false_positives),
		cmocka_unit_test(test_sim_power),
		cmocka_unit_test(test_sim_drift),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
