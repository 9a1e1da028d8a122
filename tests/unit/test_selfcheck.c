// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/data/selfcheck.c: a per-size fault count above the
 * kernel's counter of the same window is reported, naming both numbers
 * and the counter; counts at or below it, or without a kernel counter,
 * are not.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ptscope/ptscope.h>
#include "data/selfcheck.h"

#define PMD_ORDER	9	/* 4 KiB pages */

static struct pts_snapshot snap;
static struct kcounters kc;

static int setup(void **state)
{
	memset(&snap, 0, sizeof(snap));
	memset(&kc, 0, sizeof(kc));
	return 0;
}

static void kc_add(const char *group, const char *name, uint64_t value)
{
	struct kcounter *c = &kc.c[kc.nr++];

	snprintf(c->group, sizeof(c->group), "%s", group);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
}

/* the kernel's view of 16 faults in a 5 MiB memcg: 2 allocated, 14 refused */
static void kernel_saw_memcg_faults(void)
{
	kc_add("vmstat", "thp_fault_alloc", 2);
	kc_add("vmstat", "thp_fault_fallback", 14);
	kc_add("vmstat", "thp_fault_fallback_charge", 14);
	kc_add("hugepages-2048kB", "anon_fault_alloc", 2);
	kc_add("hugepages-2048kB", "anon_fault_fallback", 14);
	kc_add("hugepages-2048kB", "anon_fault_fallback_charge", 14);
	kc_add("hugepages-64kB", "anon_fault_alloc", 0);
}

static char *text_of(const struct selfcheck *sc)
{
	static char buf[4096];
	FILE *f = fmemopen(buf, sizeof(buf), "w");

	assert_non_null(f);
	selfcheck_text(f, sc);
	fclose(f);
	return buf;
}

/*
 * The check of snap against kernel_saw_memcg_faults() with 4 KiB pages:
 * 3 outcomes x (2M: mTHP and vmstat, 64K: alloc only) compared, @excess
 * above, @line in the text.
 */
static void check_memcg_case(struct selfcheck *sc, int excess, const char *line)
{
	kernel_saw_memcg_faults();
	selfcheck_run(sc, &snap, &kc, 4096);
	assert_int_equal(sc->compared, 7);
	assert_int_equal(sc->nr, excess);
	assert_non_null(strstr(text_of(sc), line));
}

/* the JSON object's status is @want */
static void assert_status(const struct selfcheck *sc, const char *want)
{
	json_object *o = selfcheck_json(sc);

	assert_string_equal(json_object_get_string(json_object_object_get(o, "status")),
			    want);
	json_object_put(o);
}

/* ptscope said 16 allocated, 0 fallbacks: both alloc counters object */
static void test_alloc_above_kernel(void **state)
{
	struct selfcheck sc;
	json_object *o, *above, *first;

	snap.counters.v[PTS_C_FAULT_ALLOC + PMD_ORDER] = 16;
	check_memcg_case(&sc, 2,
		"self-check FAILED: hugepage_faults.alloc[2M] = 16 is above the kernel's hugepages-2048kB/anon_fault_alloc +2 over the same window");
	assert_non_null(strstr(text_of(&sc),
		"hugepage_faults.alloc[2M] = 16 is above the kernel's vmstat/thp_fault_alloc +2"));
	assert_status(&sc, "above_kernel");
	/* the sizes compared, and the one disowned */
	assert_int_equal(sc.orders_compared, (1U << 4) | (1U << PMD_ORDER));
	assert_int_equal(sc.orders_above, 1U << PMD_ORDER);
	o = selfcheck_json(&sc);
	above = json_object_object_get(o, "above_kernel");
	assert_int_equal(json_object_array_length(above), 2);
	first = json_object_array_get_idx(above, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(first, "metric")),
			    "hugepage_faults.alloc");
	assert_string_equal(json_object_get_string(json_object_object_get(first, "size")),
			    "2M");
	assert_int_equal(json_object_get_uint64(json_object_object_get(first, "ptscope")), 16);
	assert_int_equal(json_object_get_uint64(json_object_object_get(first, "kernel")), 2);
	assert_string_equal(json_object_get_string(json_object_object_get(first, "counter")),
			    "hugepages-2048kB/anon_fault_alloc");
	json_object_put(o);
}

/* the right counts, and a traced subset of the box's: no complaint */
static void test_at_or_below_kernel(void **state)
{
	struct selfcheck sc;

	snap.counters.v[PTS_C_FAULT_ALLOC + PMD_ORDER] = 2;
	snap.counters.v[PTS_C_FAULT_FALLBACK + PMD_ORDER] = 14;
	snap.counters.v[PTS_C_FAULT_FALLBACK_CHARGE + PMD_ORDER] = 13;
	check_memcg_case(&sc, 0,
		"self-check: 7 hugepage fault counts, none above the kernel's");
	assert_status(&sc, "ok");
	assert_int_equal(sc.orders_above, 0);
}

/* a size the kernel has no counter for (before 6.8) is not compared */
static void test_no_kernel_counter(void **state)
{
	struct selfcheck sc;

	snap.counters.v[PTS_C_FAULT_ALLOC + 4] = 80;
	selfcheck_run(&sc, &snap, &kc, 4096);
	assert_int_equal(sc.compared, 0);
	assert_int_equal(sc.nr, 0);
	assert_non_null(strstr(text_of(&sc), "no kernel counter to compare with"));
	assert_status(&sc, "nothing_to_compare");
}

/* 16 KiB pages: the PMD order is 11 (32M), and 64K is order 2 */
static void test_16k_pages(void **state)
{
	struct selfcheck sc;

	kc_add("vmstat", "thp_fault_fallback_charge", 1);
	kc_add("hugepages-64kB", "anon_fault_fallback_charge", 0);
	snap.counters.v[PTS_C_FAULT_FALLBACK_CHARGE + 11] = 3;
	snap.counters.v[PTS_C_FAULT_FALLBACK_CHARGE + 2] = 1;
	selfcheck_run(&sc, &snap, &kc, 16384);
	assert_int_equal(sc.nr, 2);
	assert_string_equal(sc.ex[0].size, "64K");
	assert_string_equal(sc.ex[0].counter, "hugepages-64kB/anon_fault_fallback_charge");
	assert_string_equal(sc.ex[1].size, "32M");
	assert_string_equal(sc.ex[1].counter, "vmstat/thp_fault_fallback_charge");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_alloc_above_kernel, setup),
		cmocka_unit_test_setup(test_at_or_below_kernel, setup),
		cmocka_unit_test_setup(test_no_kernel_counter, setup),
		cmocka_unit_test_setup(test_16k_pages, setup),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
