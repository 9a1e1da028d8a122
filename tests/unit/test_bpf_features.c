// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the choice of BPF build (src/engine/bpf_features.c):
 * what PTSCOPE_BPF_FALLBACK forces, when the fallback build loads, and
 * what probe says for each feature.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "engine/bpf_features.h"

static char why[200], impl[200];

/* a kernel that offers every feature (7.3), nothing forced */
static struct pts_bpf_features newest(void)
{
	struct pts_bpf_features bf = { .probed = true };
	int f;

	for (f = 0; f < PTS_BPF_NR_FEATURES; f++)
		bf.offered[f] = true;
	return bf;
}

static void test_primary_where_all_offered(void **state)
{
	struct pts_bpf_features bf = newest();

	assert_int_equal(bpf_features_force(&bf, NULL, why, sizeof(why)), 0);
	assert_int_equal(bpf_features_force(&bf, "", why, sizeof(why)), 0);
	bpf_features_decide(&bf);
	assert_false(bf.fallback);
	bpf_feature_impl(&bf, PTS_BPF_TASK_STORAGE, impl, sizeof(impl));
	assert_string_equal(impl, "task-local storage");
	bpf_feature_impl(&bf, PTS_BPF_LOOP, impl, sizeof(impl));
	assert_string_equal(impl, "bpf_loop()");
}

/* 5.10: no task storage, no BTF task helper, no bpf_loop() */
static void test_fallback_on_5_10(void **state)
{
	struct pts_bpf_features bf = { .probed = true };

	bpf_features_decide(&bf);
	assert_true(bf.fallback);
	bpf_feature_impl(&bf, PTS_BPF_TASK_STORAGE, impl, sizeof(impl));
	assert_string_equal(impl, "tid-keyed hash, freed at thread exit "
			    "(fallback: the kernel has no task-local storage "
			    "(5.11))");
	bpf_feature_impl(&bf, PTS_BPF_TASK_BTF, impl, sizeof(impl));
	assert_non_null(strstr(impl, "bpf_get_current_task() and CO-RE reads"));
	bpf_feature_impl(&bf, PTS_BPF_LOOP, impl, sizeof(impl));
	assert_string_equal(impl, "bounded loops (fallback: the kernel has "
			    "no bpf_loop() (5.17))");
}

/* 5.15: task storage, no bpf_loop(): one build holds both fallbacks */
static void test_fallback_for_one_feature(void **state)
{
	struct pts_bpf_features bf = newest();

	bf.offered[PTS_BPF_LOOP] = false;
	bpf_features_decide(&bf);
	assert_true(bf.fallback);
	bpf_feature_impl(&bf, PTS_BPF_TASK_STORAGE, impl, sizeof(impl));
	assert_string_equal(impl, "tid-keyed hash, freed at thread exit "
			    "(fallback: it comes with the one for loop)");
}

static void test_forced(void **state)
{
	struct pts_bpf_features bf = newest();

	assert_int_equal(bpf_features_force(&bf, "thread-map,loop", why,
					    sizeof(why)), 0);
	assert_true(bf.forced[PTS_BPF_TASK_STORAGE]);
	assert_false(bf.forced[PTS_BPF_TASK_BTF]);
	assert_true(bf.forced[PTS_BPF_LOOP]);
	bpf_features_decide(&bf);
	assert_true(bf.fallback);
	bpf_feature_impl(&bf, PTS_BPF_LOOP, impl, sizeof(impl));
	assert_string_equal(impl, "bounded loops (fallback: forced by "
			    "PTSCOPE_BPF_FALLBACK)");
	bpf_feature_impl(&bf, PTS_BPF_TASK_BTF, impl, sizeof(impl));
	assert_non_null(strstr(impl, "comes with the one for thread-map"));
}

static void test_forced_all(void **state)
{
	struct pts_bpf_features bf = newest();
	int f;

	assert_int_equal(bpf_features_force(&bf, "all", why, sizeof(why)), 0);
	for (f = 0; f < PTS_BPF_NR_FEATURES; f++)
		assert_true(bf.forced[f]);
}

static void test_forced_unknown(void **state)
{
	struct pts_bpf_features bf = newest();

	assert_int_equal(bpf_features_force(&bf, "loop,loops", why,
					    sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "unknown fallback \"loops\""));
	assert_non_null(strstr(why, "thread-map, task-btf, loop or all"));
	assert_int_equal(bpf_features_force(&bf, "al", why, sizeof(why)),
			 -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_primary_where_all_offered),
		cmocka_unit_test(test_fallback_on_5_10),
		cmocka_unit_test(test_fallback_for_one_feature),
		cmocka_unit_test(test_forced),
		cmocka_unit_test(test_forced_all),
		cmocka_unit_test(test_forced_unknown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
