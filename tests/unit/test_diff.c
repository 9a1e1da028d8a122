// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/data/recording_compare.c: recordings built here, compared. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "data/recording_compare.h"
#include "render/diff_format.h"
#include "render/values.h"

static const char *const labels[DIFF_SIDES] = { "base.json", "new.json" };
static const struct diff_params params = { .alpha = DIFF_ALPHA,
					   .min_effect_pct = DIFF_MIN_EFFECT_PCT };

/* set PATH ("a/b/c") in @root to @val, making the objects on the way */
static void put(json_object *root, const char *path, json_object *val)
{
	json_object *obj = root, *next;
	char buf[256], *key, *slash;

	snprintf(buf, sizeof(buf), "%s", path);
	key = buf;
	while ((slash = strchr(key, '/'))) {
		*slash = '\0';
		if (!json_object_object_get_ex(obj, key, &next)) {
			next = json_object_new_object();
			json_object_object_add(obj, key, next);
		}
		obj = next;
		key = slash + 1;
	}
	json_object_object_add(obj, key, val);
}

static void put_num(json_object *root, const char *path, double val)
{
	if (val == floor(val))
		put(root, path, json_object_new_int64((int64_t)val));
	else
		put(root, path, json_object_new_double(val));
}

static void put_str(json_object *root, const char *path, const char *val)
{
	put(root, path, json_object_new_string(val));
}

static void del(json_object *root, const char *parent, const char *key)
{
	json_object *obj = root;

	if (parent)
		assert_true(json_object_object_get_ex(root, parent, &obj));
	json_object_object_del(obj, key);
}

static void attach(json_object *rec, const char *metric, const char *status,
		   const char *probe)
{
	char path[128];

	snprintf(path, sizeof(path), "metrics/%s/status", metric);
	put_str(rec, path, status);
	snprintf(path, sizeof(path), "metrics/%s/probe", metric);
	put_str(rec, path, probe);
}

static void unavailable(json_object *rec, const char *metric,
			const char *reason)
{
	char path[128];

	snprintf(path, sizeof(path), "metrics/%s", metric);
	put(rec, path, json_object_new_object());
	snprintf(path, sizeof(path), "metrics/%s/status", metric);
	put_str(rec, path, "unavailable");
	snprintf(path, sizeof(path), "metrics/%s/reason", metric);
	put_str(rec, path, reason);
}

/* a mremap class and the totals it makes on its own */
static void set_class(json_object *rec, const char *class, double calls,
		      double bytes, double lat_sum)
{
	char path[128];

	snprintf(path, sizeof(path), "counters/mremap/classes/%s/calls", class);
	put_num(rec, path, calls);
	snprintf(path, sizeof(path), "counters/mremap/classes/%s/old_bytes", class);
	put_num(rec, path, bytes);
	snprintf(path, sizeof(path), "counters/mremap/classes/%s/new_bytes", class);
	put_num(rec, path, bytes);
	snprintf(path, sizeof(path),
		 "counters/mremap/classes/%s/latency_ns/count", class);
	put_num(rec, path, calls);
	snprintf(path, sizeof(path),
		 "counters/mremap/classes/%s/latency_ns/sum", class);
	put_num(rec, path, lat_sum);
}

static void set_mremap_total(json_object *rec, double calls, double lat_sum)
{
	put_num(rec, "counters/mremap/calls", calls);
	put_num(rec, "counters/mremap/latency_ns/count", calls);
	put_num(rec, "counters/mremap/latency_ns/sum", lat_sum);
}

/* a stat recording with mremap.calls attached and nothing counted */
static json_object *recording(const char *kernel, double seconds)
{
	json_object *rec = json_object_new_object();

	put_num(rec, "ptscope_version", 1);
	put_str(rec, "run/command", "ptscope-bench grow");
	put_num(rec, "run/exit_status", 0);
	put(rec, "run/seconds", json_object_new_double(seconds));
	put_str(rec, "system/kernel", kernel);
	put_str(rec, "system/machine", "x86_64");
	put_num(rec, "system/page_size", 4096);
	put_str(rec, "system/thp/enabled", "madvise");
	put_str(rec, "system/thp/defrag", "madvise");
	put_str(rec, "system/thp/sizes/hugepages-2048kB", "inherit");
	attach(rec, "mremap.calls", "exact", "tracepoint syscalls:sys_enter_mremap");
	put(rec, "counters/seconds", json_object_new_double(3480.5));
	set_mremap_total(rec, 0, 0);
	set_class(rec, "pte", 0, 0, 0);
	set_class(rec, "in_place", 0, 0, 0);
	set_class(rec, "failed", 0, 0, 0);
	put_num(rec, "counters/drops/inflight_map_full", 0);
	put(rec, "counters/processes", json_object_new_array());
	put_num(rec, "kernel_counters/vmstat/thp_fault_alloc", 0);
	return rec;
}

/* move_page_tables and levels attached, with PTE counts */
static void with_levels(json_object *rec, double mpt_calls, double mpt_ns,
			double extents, double ptes)
{
	attach(rec, "mremap.move_page_tables", "exact", "fentry move_page_tables");
	attach(rec, "mremap.levels", "exact", "fentry markers");
	put_num(rec, "counters/move_page_tables/calls", mpt_calls);
	put_num(rec, "counters/move_page_tables/bytes_moved", mpt_calls * 4096);
	put_num(rec, "counters/move_page_tables/latency_ns/count", mpt_calls);
	put_num(rec, "counters/move_page_tables/latency_ns/sum", mpt_ns);
	put_num(rec, "counters/mremap_levels/pmd_moved", 0);
	put_num(rec, "counters/mremap_levels/pte_extents", extents);
	put_num(rec, "counters/mremap_levels/ptes", ptes);
}

static json_object *fault_order(int order, double alloc, double fallback)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "order", json_object_new_int(order));
	json_object_object_add(obj, "alloc", json_object_new_int64((int64_t)alloc));
	json_object_object_add(obj, "fallback",
			       json_object_new_int64((int64_t)fallback));
	return obj;
}

/* the fault path traced from functions: charge fallbacks and latency */
static json_object *fault_order_funcs(int order, double alloc, double fallback,
				      double charge, double lat_sum)
{
	json_object *obj = fault_order(order, alloc, fallback);

	put_num(obj, "fallback_charge", charge);
	put_num(obj, "latency_ns/count", alloc);
	put_num(obj, "latency_ns/sum", lat_sum);
	return obj;
}

static void with_faults(json_object *rec, bool funcs, json_object *orders)
{
	attach(rec, "thp.fault_alloc", funcs ? "exact" : "inferred",
	       funcs ? "fentry handle_mm_fault" : "tp_btf kmem:mm_page_alloc");
	put(rec, "counters/hugepage_faults/orders", orders);
	if (funcs)
		put_num(rec, "counters/hugepage_faults/huge_zero_page", 0);
}

static void with_collapse(json_object *rec)
{
	attach(rec, "thp.collapse", "exact", "tp_btf mm_collapse_huge_page");
	put(rec, "counters/khugepaged_collapse", json_object_new_object());
}

static void compare_ok(json_object *base, json_object *new,
		       struct diff_result *res)
{
	char err[512] = "";
	int ret = diff_compare(base, new, labels, &params, res, err,
			       sizeof(err));

	if (ret)
		print_error("diff_compare: %d %s\n", ret, err);
	assert_int_equal(ret, 0);
}

static const struct diff_row *find_row(const struct diff_result *res,
				       const char *name)
{
	size_t i;

	for (i = 0; i < res->nr_rows; i++)
		if (!strcmp(res->rows[i].name, name))
			return &res->rows[i];
	return NULL;
}

static const struct diff_row *row(const struct diff_result *res,
				  const char *name)
{
	const struct diff_row *r = find_row(res, name);

	if (!r)
		print_error("no row %s\n", name);
	assert_non_null(r);
	return r;
}

static const struct diff_only *find_only(const struct diff_result *res,
					 const char *name)
{
	size_t i;

	for (i = 0; i < res->nr_only; i++)
		if (!strcmp(res->only[i].name, name))
			return &res->only[i];
	return NULL;
}

static bool any_row_starts(const struct diff_result *res, const char *prefix)
{
	size_t i;

	for (i = 0; i < res->nr_rows; i++)
		if (!strncmp(res->rows[i].name, prefix, strlen(prefix)))
			return true;
	return false;
}

static void assert_row(const struct diff_result *res, const char *name,
		       double base, double new, double pct)
{
	const struct diff_row *r = row(res, name);

	assert_float_equal(r->val[DIFF_BASE], base, 1e-9);
	assert_float_equal(r->val[DIFF_NEW], new, 1e-9);
	assert_int_equal(r->change, DIFF_CHANGED);
	assert_float_equal(r->change_pct, pct, 1e-9);
}

static void assert_substr(const char *text, const char *needle)
{
	if (!strstr(text, needle))
		print_error("'%s' not in '%s'\n", needle, text);
	assert_non_null(strstr(text, needle));
}

/* ---- ratios ---- */

static void test_mremap_ratios(void **state)
{
	json_object *base = recording("6.1.0", 2.0);
	json_object *new = recording("6.1.0", 4.0);
	struct diff_result res;

	set_class(base, "pte", 4, 4 * 8192, 4000);
	set_class(base, "in_place", 6, 6 * 65536, 600);
	set_mremap_total(base, 10, 4600);
	set_class(new, "pte", 8, 8 * 8192, 24000);
	set_class(new, "in_place", 32, 32 * 65536, 6400);
	set_mremap_total(new, 40, 30400);
	compare_ok(base, new, &res);
	assert_row(&res, "mremap.calls", 10, 40, 300);
	assert_row(&res, "mremap.calls_per_sec", 5, 10, 100);
	assert_row(&res, "mremap.latency_mean", 460, 760, 300.0 / 460 * 100);
	assert_row(&res, "mremap.pte.latency_mean", 1000, 3000, 200);
	assert_row(&res, "mremap.in_place.latency_mean", 100, 200, 100);
	assert_row(&res, "mremap.pte.bytes_per_call", 8192, 8192, 0);
	assert_row(&res, "mremap.in_place.old_bytes", 6 * 65536, 32 * 65536,
		   (32.0 - 6) / 6 * 100);
	assert_row(&res, "run.seconds", 2, 4, 100);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

static void test_level_ratios(void **state)
{
	json_object *base = recording("6.12.0", 1.0);
	json_object *new = recording("6.18.0", 1.0);
	struct diff_result res;

	set_class(base, "pte", 4, 4 << 20, 4000);
	set_mremap_total(base, 4, 4000);
	with_levels(base, 4, 10000, 2, 100);
	set_class(new, "pte", 4, 4 << 20, 4000);
	set_mremap_total(new, 4, 4000);
	with_levels(new, 8, 30000, 8, 100);
	compare_ok(base, new, &res);
	assert_row(&res, "levels.time_per_pte", 100, 300, 200);
	assert_row(&res, "levels.pte_extents_per_mremap", 0.5, 2, 300);
	assert_row(&res, "levels.ptes_per_mremap", 25, 25, 0);
	assert_row(&res, "levels.ptes_per_extent", 50, 12.5, -75);
	assert_row(&res, "move_page_tables.calls_per_mremap", 1, 2, 100);
	assert_row(&res, "move_page_tables.latency_mean", 2500, 3750, 50);
	diff_result_free(&res);
	/* the regression's signature: a lookup per PTE, against one per batch */
	attach(base, "mremap.pte_batches", "exact", "tp_btf mmap:mm_mremap_move_ptes");
	attach(new, "mremap.pte_batches", "exact", "tp_btf mmap:mm_mremap_move_ptes");
	put_num(base, "counters/mremap_levels/pte_batches", 100);
	put_num(base, "counters/mremap_levels/folio_lookups", 98);
	put_num(new, "counters/mremap_levels/pte_batches", 10);
	put_num(new, "counters/mremap_levels/folio_lookups", 10);
	compare_ok(base, new, &res);
	assert_row(&res, "levels.folio_lookups_per_pte", 0.98, 0.1,
		   (0.1 - 0.98) / 0.98 * 100);
	assert_row(&res, "levels.folio_lookups_per_batch", 0.98, 1,
		   (1 - 0.98) / 0.98 * 100);
	assert_row(&res, "levels.ptes_per_batch", 1, 10, 900);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

static void test_fault_ratios(void **state)
{
	json_object *base = recording("6.12.0", 1.0);
	json_object *new = recording("6.12.0", 1.0);
	json_object *base_orders = json_object_new_array();
	json_object *new_orders = json_object_new_array();
	struct diff_result res;

	json_object_array_add(base_orders, fault_order_funcs(9, 3, 1, 1, 300));
	json_object_array_add(new_orders, fault_order_funcs(9, 1, 3, 2, 500));
	with_faults(base, true, base_orders);
	with_faults(new, true, new_orders);
	compare_ok(base, new, &res);
	assert_row(&res, "faults.order9.alloc", 3, 1, -200.0 / 3);
	assert_row(&res, "faults.order9.fallback", 1, 3, 200);
	assert_row(&res, "faults.order9.fallback_pct", 25, 75, 200);
	assert_row(&res, "faults.order9.fallback_charge", 1, 2, 100);
	assert_row(&res, "faults.order9.latency_mean", 100, 500, 400);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- order ---- */

static struct diff_row make_row(const char *name, enum diff_change change,
				double pct)
{
	struct diff_row r = { .change = change, .change_pct = pct };

	snprintf(r.name, sizeof(r.name), "%s", name);
	return r;
}

static void test_sort_order(void **state)
{
	struct diff_row rows[] = {
		make_row("a.small", DIFF_CHANGED, 5),
		make_row("b.halved", DIFF_CHANGED, -50),
		make_row("z.gone", DIFF_GONE, NAN),
		make_row("d.up", DIFF_CHANGED, 20),
		make_row("c.new", DIFF_APPEARED, NAN),
		make_row("f.small", DIFF_CHANGED, -5),
		make_row("e.tripled", DIFF_CHANGED, 200),
	};
	static const char *const want[] = {
		"c.new", "z.gone", "e.tripled", "b.halved", "d.up", "a.small",
		"f.small",
	};
	size_t i;

	diff_sort_rows(rows, sizeof(rows) / sizeof(rows[0]));
	for (i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		assert_string_equal(rows[i].name, want[i]);
	diff_sort_rows(rows, 0);
}

/* the rows of a real comparison come out most significant first */
static void test_compare_sorted(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.1);
	struct diff_result res;
	double prev = INFINITY, cur;
	size_t i;

	set_class(base, "pte", 10, 10 * 4096, 10000);
	set_class(base, "in_place", 100, 100 * 4096, 20000);
	set_mremap_total(base, 110, 30000);
	set_class(new, "pte", 10, 10 * 4096, 50000);
	set_class(new, "in_place", 150, 150 * 4096, 21000);
	set_class(new, "failed", 1, 4096, 50);
	set_mremap_total(new, 161, 71050);
	compare_ok(base, new, &res);
	assert_string_equal(res.rows[0].name, "mremap.failed.calls");
	assert_int_equal(res.rows[0].change, DIFF_APPEARED);
	for (i = 0; i < res.nr_rows; i++) {
		cur = res.rows[i].change == DIFF_CHANGED ?
		      fabs(res.rows[i].change_pct) : INFINITY;
		assert_true(cur <= prev);
		prev = cur;
	}
	/* the first changed row: pte latency went 1000 -> 5000 ns */
	for (i = 0; res.rows[i].change != DIFF_CHANGED; i++)
		;
	assert_string_equal(res.rows[i].name, "mremap.pte.latency_mean");
	assert_float_equal(res.rows[i].change_pct, 400, 1e-9);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- zeros ---- */

static void test_zero_handling(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	struct diff_result res;
	const struct diff_row *r;
	char buf[32];

	set_class(base, "pte", 2, 8192, 2000);
	set_mremap_total(base, 2, 2000);
	set_class(new, "in_place", 3, 3 * 4096, 300);
	set_mremap_total(new, 3, 300);
	compare_ok(base, new, &res);
	/* zero in both: no row */
	assert_null(find_row(&res, "mremap.failed.calls"));
	assert_null(find_row(&res, "kernel.vmstat.thp_fault_alloc"));
	/* zero on one side: "new" / "gone", no percentage */
	r = row(&res, "mremap.in_place.calls");
	assert_int_equal(r->change, DIFF_APPEARED);
	assert_true(isnan(r->change_pct));
	assert_string_equal(diff_fmt_change(buf, sizeof(buf), r), "new");
	/* one run a side: it differs, but is not called a change */
	assert_true(r->differs);
	assert_false(r->changed);
	assert_int_equal(r->test, DIFF_TEST_NONE);
	assert_int_equal(res.verdict, DIFF_NOT_ENOUGH_RUNS);
	r = row(&res, "mremap.pte.calls");
	assert_int_equal(r->change, DIFF_GONE);
	assert_float_equal(r->val[DIFF_BASE], 2, 0);
	assert_float_equal(r->val[DIFF_NEW], 0, 0);
	assert_string_equal(diff_fmt_change(buf, sizeof(buf), r), "gone");
	/* a mean over no calls is not a zero: no row, no "only in" either */
	assert_null(find_row(&res, "mremap.pte.latency_mean"));
	assert_null(find_row(&res, "mremap.in_place.latency_mean"));
	assert_null(find_row(&res, "mremap.pte.bytes_per_call"));
	assert_null(find_only(&res, "mremap.pte.latency_mean"));
	assert_int_equal(res.nr_only, 0);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

static void test_identical(void **state)
{
	json_object *rec = recording("6.1.0", 1.5);
	struct diff_result res;
	size_t i;

	set_class(rec, "pte", 6, 6 << 20, 6000);
	set_class(rec, "in_place", 194, 194 << 20, 19400);
	set_mremap_total(rec, 200, 25400);
	compare_ok(rec, rec, &res);
	assert_true(res.nr_rows >= 10);
	for (i = 0; i < res.nr_rows; i++) {
		assert_int_equal(res.rows[i].change, DIFF_CHANGED);
		assert_float_equal(res.rows[i].change_pct, 0, 0);
		assert_false(res.rows[i].differs);
		assert_false(res.rows[i].changed);
	}
	assert_int_equal(res.nr_only, 0);
	assert_int_equal(res.nr_notes, 0);
	assert_false(diff_kernels_differ(&res));
	/* same significance: by name */
	for (i = 1; i < res.nr_rows; i++)
		assert_true(strcmp(res.rows[i - 1].name, res.rows[i].name) < 0);
	diff_result_free(&res);
	json_object_put(rec);
}

static void test_unavailable_metric(void **state)
{
	json_object *base = recording("6.12.0", 1.0);
	json_object *new = recording("6.18.0", 1.0);
	struct diff_result res;
	const struct diff_only *only;

	set_class(base, "pte", 4, 4 << 20, 4000);
	set_mremap_total(base, 4, 4000);
	with_levels(base, 4, 10000, 2, 100);
	set_class(new, "pte", 4, 4 << 20, 8000);
	set_mremap_total(new, 4, 8000);
	unavailable(new, "mremap.move_page_tables",
		    "fentry: load refused, EPERM (Operation not permitted)");
	unavailable(new, "mremap.levels", "move_pgt_entry: inlined, no symbol");
	compare_ok(base, new, &res);
	only = find_only(&res, "mremap.move_page_tables");
	assert_non_null(only);
	assert_int_equal(only->side, DIFF_BASE);
	assert_false(only->has_value);
	assert_string_equal(only->reason, "unavailable in new: fentry: load "
			    "refused, EPERM (Operation not permitted)");
	only = find_only(&res, "mremap.levels");
	assert_non_null(only);
	assert_string_equal(only->reason, "unavailable in new: move_pgt_entry: "
			    "inlined, no symbol");
	/* never a zero, never one line per value */
	assert_false(any_row_starts(&res, "move_page_tables."));
	assert_false(any_row_starts(&res, "levels."));
	assert_int_equal(res.nr_only, 2);
	assert_true(diff_kernels_differ(&res));
	/* the rest still compares */
	assert_row(&res, "mremap.pte.latency_mean", 1000, 2000, 100);
	diff_result_free(&res);

	/* the other way round: only in new */
	compare_ok(new, base, &res);
	only = find_only(&res, "mremap.move_page_tables");
	assert_non_null(only);
	assert_int_equal(only->side, DIFF_NEW);
	assert_substr(only->reason, "unavailable in base: fentry: load refused");
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

static void test_metric_not_in_catalog(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	struct diff_result res;
	const struct diff_only *only;

	attach(new, "task.follow_fork", "exact", "tp_btf sched_process_fork");
	compare_ok(base, new, &res);
	only = find_only(&res, "task.follow_fork");
	assert_non_null(only);
	assert_int_equal(only->side, DIFF_NEW);
	assert_string_equal(only->reason, "not in base's metric catalog");
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* values one side leaves out: zero when its format says so, else "only" */
static void test_missing_values(void **state)
{
	json_object *base = recording("6.12.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	json_object *base_orders = json_object_new_array();
	json_object *new_orders = json_object_new_array();
	struct diff_result res;
	const struct diff_only *only;

	set_class(base, "pte", 4, 4 << 20, 4000);
	set_mremap_total(base, 4, 4000);
	with_levels(base, 4, 10000, 2, 100);
	set_class(new, "pte", 4, 4 << 20, 4000);
	set_mremap_total(new, 4, 4000);
	with_levels(new, 4, 10000, 2, 100);
	/* before 6.5: no PTE-table marker, no PTE count */
	del(new, "counters", "mremap_levels");
	put_num(new, "counters/mremap_levels/pte_extents", 2);
	put_num(new, "counters/mremap_levels/pmd_moved", 0);
	/* base traced faults from functions (order 0 too), new from a tracepoint */
	json_object_array_add(base_orders, fault_order_funcs(0, 500, 0, 0, 1e6));
	json_object_array_add(base_orders, fault_order_funcs(4, 0, 0, 0, 0));
	json_object_array_add(base_orders, fault_order_funcs(5, 2, 0, 3, 400));
	json_object_array_add(base_orders, fault_order_funcs(9, 0, 0, 0, 0));
	json_object_array_add(new_orders, fault_order(4, 0, 0));
	json_object_array_add(new_orders, fault_order(9, 7, 0));
	with_faults(base, true, base_orders);
	with_faults(new, false, new_orders);
	with_collapse(base);
	with_collapse(new);
	put_num(base, "counters/khugepaged_collapse/SCAN_SUCCEED", 3);
	put_num(new, "counters/khugepaged_collapse/SCAN_PAGE_RO", 2);
	/* per-size kernel counters exist from 6.8 only */
	put_num(base, "kernel_counters/hugepages-64kB/anon_fault_alloc", 9);
	put_num(base, "kernel_counters/hugepages-64kB/anon_fault_fallback", 0);
	compare_ok(base, new, &res);

	only = find_only(&res, "levels.ptes");
	assert_non_null(only);
	assert_int_equal(only->side, DIFF_BASE);
	assert_true(only->has_value);
	assert_float_equal(only->value, 100, 0);
	assert_string_equal(only->reason, "not recorded in new");
	assert_null(find_row(&res, "levels.ptes"));
	assert_null(find_row(&res, "levels.time_per_pte"));
	assert_null(find_only(&res, "levels.time_per_pte"));
	assert_row(&res, "levels.pte_extents", 2, 2, 0);
	/* an order left out of the list is zero on either path */
	assert_int_equal(row(&res, "faults.order5.alloc")->change, DIFF_GONE);
	assert_int_equal(row(&res, "faults.order9.alloc")->change, DIFF_APPEARED);
	/* order 0 and charge fallbacks: only the function path sees them */
	only = find_only(&res, "faults.order0.alloc");
	assert_non_null(only);
	assert_string_equal(only->reason, "not recorded in new");
	assert_null(find_row(&res, "faults.order0.alloc"));
	assert_non_null(find_only(&res, "faults.order5.fallback_charge"));
	assert_null(find_row(&res, "faults.order5.fallback_charge"));
	/* collapse results are written only when nonzero */
	assert_int_equal(row(&res, "khugepaged.SCAN_SUCCEED")->change, DIFF_GONE);
	assert_int_equal(row(&res, "khugepaged.SCAN_PAGE_RO")->change,
			 DIFF_APPEARED);
	assert_row(&res, "khugepaged.total", 3, 2, -100.0 / 3);
	/* kernel counters: nonzero ones the other kernel lacks */
	only = find_only(&res, "kernel.hugepages-64kB.anon_fault_alloc");
	assert_non_null(only);
	assert_string_equal(only->reason, "not recorded in new");
	assert_null(find_only(&res, "kernel.hugepages-64kB.anon_fault_fallback"));
	/* measured differently: a note, not a missing metric */
	assert_null(find_only(&res, "thp.fault_alloc"));
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- setup differences ---- */

static bool has_note(const struct diff_result *res, const char *needle)
{
	size_t i;

	for (i = 0; i < res->nr_notes; i++)
		if (strstr(res->notes[i], needle))
			return true;
	return false;
}

static void test_notes(void **state)
{
	json_object *base = recording("6.1.0-28-amd64", 1.0);
	json_object *new = recording("6.12.9-amd64", 1.0);
	struct diff_result res;

	put_str(new, "system/machine", "aarch64");
	put_str(new, "system/thp/enabled", "always");
	put_str(new, "system/thp/sizes/hugepages-64kB", "inherit");
	put_str(new, "system/thp/sizes/hugepages-128kB", "never");
	put_num(new, "run/exit_status", 3);
	attach(base, "thp.fault_alloc", "exact", "fentry handle_mm_fault");
	attach(new, "thp.fault_alloc", "inferred", "tp_btf kmem:mm_page_alloc");
	compare_ok(base, new, &res);
	assert_true(diff_kernels_differ(&res));
	assert_string_equal(res.run[DIFF_BASE].kernel, "6.1.0-28-amd64");
	assert_string_equal(res.run[DIFF_NEW].kernel, "6.12.9-amd64");
	assert_string_equal(res.run[DIFF_BASE].command, "ptscope-bench grow");
	assert_int_equal(res.run[DIFF_NEW].exit_status, 3);
	assert_true(has_note(&res, "machines differ: base x86_64, new aarch64"));
	assert_true(has_note(&res, "THP enabled: base madvise, new always"));
	assert_true(has_note(&res, "THP hugepages-64kB: base (no such setting), "
			     "new inherit"));
	/* a size the old kernel lacks is as good as "never" */
	assert_false(has_note(&res, "hugepages-128kB"));
	assert_false(has_note(&res, "defrag"));
	assert_true(has_note(&res, "the new command exited 3"));
	assert_true(has_note(&res, "thp.fault_alloc measured differently: base "
			     "exact (fentry handle_mm_fault), new inferred "
			     "(tp_btf kmem:mm_page_alloc)"));
	assert_false(has_note(&res, "mremap.calls"));
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- inputs that do not compare ---- */

static void assert_incompatible(json_object *base, json_object *new,
				const char *needle)
{
	struct diff_result res;
	char err[512] = "";

	assert_int_equal(diff_compare(base, new, labels, &params, &res, err,
				      sizeof(err)),
			 -EINVAL);
	assert_substr(err, needle);
	assert_int_equal(res.nr_rows, 0);
	diff_result_free(&res);
}

static void test_incompatible(void **state)
{
	json_object *good = recording("6.1.0", 1.0);
	json_object *bad = recording("6.1.0", 1.0);
	json_object *array = json_object_new_array();
	json_object *probe = json_object_new_object();

	assert_incompatible(good, array, "new.json is not a ptscope recording");
	put_str(probe, "system/kernel", "6.1.0");
	put(probe, "metrics", json_object_new_object());
	assert_incompatible(probe, good, "base.json has no ptscope_version");

	put_str(bad, "ptscope_version", "1");
	assert_incompatible(good, bad, "new.json: ptscope_version is not an integer");
	put_num(bad, "ptscope_version", 2);
	assert_incompatible(good, bad, "new.json is not a 'ptscope stat --json' "
			    "recording: no runs array");
	put_num(bad, "ptscope_version", 4);
	assert_incompatible(bad, good, "base.json is ptscope_version 4; this "
			    "ptscope reads versions 1 to 3");
	put_num(bad, "ptscope_version", 1);

	put_num(bad, "system/page_size", 65536);
	assert_incompatible(good, bad, "base.json has 4096-byte pages, new.json "
			    "has 65536-byte pages");
	put_num(bad, "system/page_size", 4096);

	del(bad, NULL, "run");
	assert_incompatible(good, bad, "new.json is not a 'ptscope stat --json' "
			    "recording: no run");
	put_str(bad, "run/seconds", "fast");
	assert_incompatible(bad, good, "base.json is not a 'ptscope stat --json' "
			    "recording: no run.seconds");
	put_num(bad, "run/seconds", 1);
	del(bad, NULL, "counters");
	assert_incompatible(good, bad, "recording: no counters");
	put(bad, "counters", json_object_new_object());
	del(bad, NULL, "metrics");
	assert_incompatible(good, bad, "recording: no metrics");
	put(bad, "metrics", json_object_new_object());

	/* the repaired one compares again */
	{
		char err[512];

		assert_int_equal(recording_check(bad, "x", err, sizeof(err)), 0);
	}
	json_object_put(good);
	json_object_put(bad);
	json_object_put(array);
	json_object_put(probe);
}

/* @path set to @val in the new recording makes the pair invalid: -EINVAL */
static void assert_invalid_value(const char *path, json_object *val,
				 const char *want)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	struct diff_result res;
	char err[512] = "";

	put(new, path, val);
	assert_int_equal(diff_compare(base, new, labels, &params, &res, err,
				      sizeof(err)),
			 -EINVAL);
	if (!strstr(err, want))
		fail_msg("error '%s' lacks '%s'", err, want);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* counters are u64: negative or absurd ones name the key, not a row */
static void test_invalid_counters(void **state)
{
	assert_invalid_value("counters/mremap/classes/pte/calls",
			     json_object_new_int64(-5),
			     "new.json is not a valid recording: mremap.pte.calls is -5");
	assert_invalid_value("counters/mremap/classes/pte/old_bytes",
			     json_object_new_double(1e300),
			     "mremap.pte.old_bytes is 1e+300");
	assert_invalid_value("counters/mremap/latency_ns/sum",
			     json_object_new_int64(-1),
			     "mremap.latency_ns.sum is -1");
	assert_invalid_value("counters/drops/inflight_map_full",
			     json_object_new_double(-0.5),
			     "drops.inflight_map_full is -0.5");
	assert_invalid_value("kernel_counters/vmstat/thp_fault_alloc",
			     json_object_new_double(2e19),
			     "kernel.vmstat.thp_fault_alloc is 2e+19");
	assert_invalid_value("run/seconds", json_object_new_double(-1),
			     "run.seconds is -1");
}

/* the largest u64 is a count still */
static void test_largest_counter_valid(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	struct diff_result res;
	char err[512] = "";

	put(new, "counters/drops/inflight_map_full",
	    json_object_new_uint64(UINT64_MAX));
	assert_int_equal(diff_compare(base, new, labels, &params, &res, err,
				      sizeof(err)), 0);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* slimming drops the process objects, keeps their number for run.processes */
static void test_slim_recording(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	json_object *procs = json_object_new_array(), *slim;
	struct diff_result res;
	char err[512] = "";
	size_t i;
	int pid;

	for (pid = 1; pid <= 3; pid++) {
		json_object *p = json_object_new_object();

		json_object_object_add(p, "pid", json_object_new_int(pid));
		json_object_array_add(procs, p);
	}
	put(new, "counters/processes", procs);
	put(base, "counters/processes", json_object_new_array());
	json_object_array_add(json_object_object_get(json_object_object_get(
		base, "counters"), "processes"), json_object_new_object());
	recording_slim(new);
	recording_slim(base);
	assert_true(json_object_object_get_ex(json_object_object_get(new, "counters"),
					      "processes", &slim));
	assert_int_equal(json_object_array_length(slim), 3);
	for (i = 0; i < 3; i++)
		assert_null(json_object_array_get_idx(slim, i));
	assert_int_equal(diff_compare(base, new, labels, &params, &res, err,
				      sizeof(err)), 0);
	for (i = 0; i < res.nr_rows; i++)
		if (!strcmp(res.rows[i].name, "run.processes"))
			break;
	assert_true(i < res.nr_rows);
	assert_true(res.rows[i].val[DIFF_BASE] == 1);
	assert_true(res.rows[i].val[DIFF_NEW] == 3);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- formatting and JSON ---- */

static void assert_change(double pct, const char *want)
{
	struct diff_row r = make_row("x", DIFF_CHANGED, pct);
	char buf[32];

	assert_string_equal(diff_fmt_change(buf, sizeof(buf), &r), want);
}

static void test_format(void **state)
{
	char buf[32];

	assert_change(300, "+300.0%");
	assert_change(-37.21, "-37.2%");
	assert_change(0.04, "0.0%");
	assert_change(-0.04, "0.0%");
	assert_change(0.06, "+0.1%");
	/* a mean of byte sums at 2^64 or above, or not a number: no cast UB */
	assert_string_equal(fmt_value(buf, sizeof(buf), 2e19, REC_UNIT_BYTES),
			    "16777216 TiB");
	assert_string_equal(fmt_value(buf, sizeof(buf), NAN, REC_UNIT_BYTES),
			    "0 B");
	assert_string_equal(fmt_value(buf, sizeof(buf), 65536, REC_UNIT_BYTES),
			    "64.0 KiB");
}

static json_object *json_field(json_object *obj, const char *key)
{
	json_object *val = NULL;

	assert_true(json_object_object_get_ex(obj, key, &val));
	return val;
}

static void test_json(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.12.0", 1.0);
	json_object *out, *rows, *first, *only;
	struct diff_result res;
	size_t i;

	set_class(base, "in_place", 100, 100 * 4096, 100000);
	set_mremap_total(base, 100, 100000);
	set_class(new, "in_place", 400, 400 * 4096, 400000);
	set_class(new, "pte", 2, 8192, 300);
	set_mremap_total(new, 402, 400300);
	unavailable(new, "mremap.calls2", "test reason");
	attach(base, "mremap.calls2", "exact", "x");
	compare_ok(base, new, &res);
	out = diff_result_json(&res, labels);
	assert_non_null(out);
	assert_true(json_object_get_boolean(json_field(out, "kernels_differ")));
	assert_string_equal(json_object_get_string(json_field(out, "verdict")),
			    "not enough runs");
	assert_int_equal(json_object_array_length(json_field(out, "changed")), 0);
	assert_string_equal(json_object_get_string(
		json_field(json_field(out, "base"), "file")), "base.json");
	assert_string_equal(json_object_get_string(
		json_field(json_field(out, "new"), "kernel")), "6.12.0");
	rows = json_field(out, "rows");
	assert_int_equal(json_object_array_length(rows), res.nr_rows);
	first = json_object_array_get_idx(rows, 0);
	assert_string_equal(json_object_get_string(json_field(first, "name")),
			    res.rows[0].name);
	/* appeared: base 0, change_pct null */
	assert_string_equal(json_object_get_string(json_field(first, "change")),
			    "new");
	assert_null(json_field(first, "change_pct"));
	for (i = 0; i < json_object_array_length(rows); i++) {
		json_object *r = json_object_array_get_idx(rows, i);

		if (strcmp(json_object_get_string(json_field(r, "name")),
			   "mremap.in_place.calls"))
			continue;
		assert_int_equal(json_object_get_int64(json_field(r, "base")), 100);
		assert_int_equal(json_object_get_int64(json_field(r, "new")), 400);
		assert_float_equal(json_object_get_double(json_field(r, "change_pct")),
				   300, 1e-9);
		assert_true(json_object_get_boolean(json_field(r, "differs")));
		assert_false(json_object_get_boolean(json_field(r, "changed")));
		assert_string_equal(json_object_get_string(json_field(r, "test")),
				    "none");
		break;
	}
	assert_true(i < json_object_array_length(rows));
	only = json_object_array_get_idx(json_field(out, "only"), 0);
	assert_non_null(only);
	assert_string_equal(json_object_get_string(json_field(only, "only_in")),
			    "base");
	assert_string_equal(json_object_get_string(json_field(only, "reason")),
			    "unavailable in new: test reason");
	json_object_put(out);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- repeated runs (format version 2) ---- */

/*
 * @rec as a version 2 recording of @n runs: each run a copy of its
 * counters, the pte class's latency sum of run i set to @lat_sum[i]
 */
static void with_runs(json_object *rec, size_t n, const double *lat_sum)
{
	json_object *runs = json_object_new_array(), *counters, *run;
	size_t i;

	put_num(rec, "ptscope_version", 2);
	for (i = 0; i < n; i++) {
		run = json_object_new_object();
		counters = NULL;
		assert_int_equal(json_object_deep_copy(json_object_object_get(
			rec, "counters"), &counters, NULL), 0);
		json_object_object_add(run, "counters", counters);
		put_num(run, "counters/mremap/classes/pte/latency_ns/sum",
			lat_sum[i]);
		put_num(run, "counters/mremap/latency_ns/sum", lat_sum[i]);
		put(run, "seconds", json_object_new_double(1.0 + 0.01 * i));
		put_num(run, "exit_status", 0);
		json_object_array_add(runs, run);
	}
	put(rec, "runs", runs);
}

static const double steady[] = { 10000, 10400, 9700, 10100, 9800 };
static const double steady2[] = { 10200, 9900, 10300, 9600, 10050 };
static const double slower[] = { 14100, 14600, 13800, 14400, 14000 };

/* 10 PTE-class calls a run, 5 runs with the latency sums @lat_sum */
static json_object *pte_runs(const double *lat_sum)
{
	json_object *rec = recording("6.1.0", 5.0);

	set_class(rec, "pte", 10, 10 * 4096, 0);
	set_mremap_total(rec, 10, 0);
	with_runs(rec, 5, lat_sum);
	return rec;
}

/* the same work, the same spread: no significant change, every row tested */
static void test_repeat_no_change(void **state)
{
	json_object *base = pte_runs(steady), *new = pte_runs(steady2);
	struct diff_result res;
	const struct diff_row *r;

	compare_ok(base, new, &res);
	assert_int_equal(res.verdict, DIFF_NO_CHANGE);
	assert_int_equal(res.nr_runs[DIFF_BASE], 5);
	assert_int_equal(res.nr_changed, 0);
	r = row(&res, "mremap.pte.calls");
	assert_int_equal(r->test, DIFF_TEST_EXACT);
	r = row(&res, "mremap.pte.latency_mean");
	assert_int_equal(r->test, DIFF_TEST_WELCH);
	assert_int_equal(r->side[DIFF_BASE].n, 5);
	assert_float_equal(r->val[DIFF_BASE], 1000, 1e-9);	/* per call */
	assert_true(r->ci_low_pct < 0 && r->ci_high_pct > 0);
	assert_true(r->p > 0.5);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* +41% per call and a count that moved with it: both changed */
static void test_repeat_changed(void **state)
{
	json_object *base = pte_runs(steady), *new = recording("6.1.0", 5.0);
	struct diff_result res;
	const struct diff_row *r;

	/* the same PTE moves, slower, and 3 in-place calls besides */
	set_class(new, "pte", 10, 10 * 4096, 0);
	set_class(new, "in_place", 3, 3 * 4096, 0);
	set_mremap_total(new, 13, 0);
	with_runs(new, 5, slower);
	compare_ok(base, new, &res);
	assert_int_equal(res.verdict, DIFF_VERDICT_CHANGED);
	/* exact first: the counts that differ in every run */
	assert_true(res.rows[0].changed);
	assert_int_equal(res.rows[0].test, DIFF_TEST_EXACT);
	r = row(&res, "mremap.in_place.calls");
	assert_true(r->changed);
	assert_int_equal(r->change, DIFF_APPEARED);
	r = row(&res, "mremap.pte.latency_mean");
	assert_int_equal(r->test, DIFF_TEST_WELCH);
	assert_int_equal(r->kind, REC_TIME);
	assert_true(r->changed);
	assert_float_equal(r->change_pct, (14180.0 - 10000.0) / 10000.0 * 100,
			   1e-9);
	assert_true(r->ci_low_pct > DIFF_MIN_EFFECT_PCT && r->ci_high_pct < 50);
	assert_true(r->p_adjusted < DIFF_ALPHA && r->p_adjusted >= r->p);
	r = row(&res, "mremap.pte.calls");
	assert_false(r->changed);
	assert_int_equal(r->kind, REC_COUNT);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* a version 1 recording is one run: against five, not enough runs */
static void test_repeat_against_one(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 5.0);
	struct diff_result res;
	const struct diff_row *r;

	set_class(base, "pte", 10, 10 * 4096, 30000);
	set_mremap_total(base, 10, 30000);
	set_class(new, "pte", 10, 10 * 4096, 0);
	set_mremap_total(new, 10, 0);
	with_runs(new, 5, steady);
	compare_ok(base, new, &res);
	assert_int_equal(res.verdict, DIFF_NOT_ENOUGH_RUNS);
	assert_int_equal(res.nr_runs[DIFF_BASE], 1);
	assert_int_equal(res.nr_runs[DIFF_NEW], 5);
	r = row(&res, "mremap.pte.latency_mean");
	assert_int_equal(r->test, DIFF_TEST_NONE);
	assert_true(r->differs);
	assert_false(r->changed);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* a "runs" array that is not one: named, exit 2 in the view */
static void test_bad_runs(void **state)
{
	json_object *good = recording("6.1.0", 1.0);
	json_object *bad = recording("6.1.0", 1.0);

	with_runs(bad, 2, steady);
	put(json_object_array_get_idx(json_object_object_get(bad, "runs"), 1),
	    "seconds", json_object_new_string("soon"));
	assert_incompatible(good, bad, "new.json: run 2 has no counters or "
			    "seconds");
	put(bad, "runs", json_object_new_array());
	assert_incompatible(good, bad, "new.json has 0 runs, not 1 to 1000");
	json_object_put(good);
	json_object_put(bad);
}

/*
 * The same single process on both sides, but base traced no event: its
 * processes were not counted.  run.processes is no "0 -> 1 new" row (a
 * change, with --fail-on-change exit 1), but one "only in new" line
 * saying why; the events themselves still appear.
 */
static void test_processes_untraced(void **state)
{
	json_object *base = recording("6.1.0", 1.0);
	json_object *new = recording("6.1.0", 1.0);
	json_object *procs = json_object_new_array();
	struct diff_result res;
	const struct diff_only *only;

	json_object_array_add(procs, json_object_new_object());
	put(new, "counters/processes", procs);
	set_class(new, "pte", 5, 5 * 4096, 5000);
	set_mremap_total(new, 5, 5000);
	with_runs(base, 3, steady);
	with_runs(new, 3, steady);
	compare_ok(base, new, &res);
	assert_null(find_row(&res, "run.processes"));
	only = find_only(&res, "run.processes");
	assert_non_null(only);
	assert_int_equal(only->side, DIFF_NEW);
	assert_float_equal(only->value, 1, 0);
	assert_string_equal(only->reason, "base traced no events: its processes "
			    "were not counted, not 0");
	assert_int_equal(row(&res, "mremap.pte.calls")->change, DIFF_APPEARED);
	assert_true(row(&res, "mremap.pte.calls")->changed);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* a diff's text report, into @buf */
static void report_text(const struct diff_result *res, char *buf, size_t len)
{
	FILE *f = fmemopen(buf, len, "w");

	assert_non_null(f);
	diff_print_text(f, res, labels, false);
	fclose(f);
}

/* 5 runs of @calls PTE-class mremaps each */
static json_object *calls_runs(double calls)
{
	json_object *rec = recording("6.1.0", 5.0);

	set_class(rec, "pte", calls, calls * 4096, 0);
	set_mremap_total(rec, calls, 0);
	with_runs(rec, 5, steady);
	return rec;
}

/*
 * mremap.calls 199,939 -> 199,984 in every run (+0.023%): exact, and it
 * differs, but no change at the default minimum effect nor at 50%, so
 * --fail-on-change would exit 0; the text names it apart.  At 0 it is a
 * change.
 */
static void test_exact_below_min_effect(void **state)
{
	json_object *base = calls_runs(199939), *new = calls_runs(199984);
	struct diff_params p = params;
	struct diff_result res;
	const struct diff_row *r;
	char err[512], text[8192];

	compare_ok(base, new, &res);
	r = row(&res, "mremap.calls");
	assert_int_equal(r->test, DIFF_TEST_EXACT);
	assert_true(r->differs);
	assert_false(r->changed);
	assert_int_equal(res.nr_changed, 0);
	assert_int_equal(res.verdict, DIFF_NO_CHANGE);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "\ncounts that differ by less than ±2% (not called a "
		      "change):\n  ");
	assert_substr(text, "  mremap.calls 199939 -> 199984 (+0.023%), ");
	diff_result_free(&res);
	p.min_effect_pct = 50;
	assert_int_equal(diff_compare(base, new, labels, &p, &res, err,
				      sizeof(err)), 0);
	assert_int_equal(res.verdict, DIFF_NO_CHANGE);
	diff_result_free(&res);
	p.min_effect_pct = 0;
	assert_int_equal(diff_compare(base, new, labels, &p, &res, err,
				      sizeof(err)), 0);
	assert_int_equal(res.verdict, DIFF_VERDICT_CHANGED);
	assert_true(row(&res, "mremap.calls")->changed);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* ---- the machine's reference (format version 3) ---- */

/*
 * @rec's 5 runs made version 3: run i took @seconds[i] and the reference
 * around it @ref_ms[i] (before and after alike)
 */
static void with_machine(json_object *rec, const double *seconds,
			 const double *ref_ms)
{
	json_object *runs = json_object_object_get(rec, "runs"), *run;
	size_t i;

	put_num(rec, "ptscope_version", 3);
	put_num(rec, "reference/hash_rounds", 3600000);
	put_num(rec, "reference/getppid_calls", 4000);
	for (i = 0; i < json_object_array_length(runs); i++) {
		run = json_object_array_get_idx(runs, i);
		put(run, "seconds", json_object_new_double(seconds[i]));
		put(run, "reference/before_s", json_object_new_double(ref_ms[i] / 1e3));
		put(run, "reference/after_s", json_object_new_double(ref_ms[i] / 1e3));
	}
}

/* @v times @factor, 5 of them */
static const double *scaled(double *out, const double *v, double factor)
{
	size_t i;

	for (i = 0; i < 5; i++)
		out[i] = v[i] * factor;
	return out;
}

static const double run_s[] = { 1.00, 1.03, 0.98, 1.01, 0.99 };
static const double ref_ms[] = { 10.0, 10.2, 9.9, 10.1, 9.8 };
static const double ref_ms2[] = { 10.1, 9.8, 10.0, 10.2, 9.9 };

/* a 5-run recording: latency sums @lat, run times @secs, references @ref */
static json_object *machine_runs(const double *lat, const double *secs,
				 const double *ref)
{
	json_object *rec = pte_runs(lat);

	with_machine(rec, secs, ref);
	return rec;
}


/* diff --json of test_machine_slower: the reference and a relative time */
static void assert_machine_json(const struct diff_result *res)
{
	json_object *out = diff_result_json(res, labels), *ref, *rows, *r;
	size_t i;

	ref = json_field(out, "reference");
	assert_string_equal(json_object_get_string(json_field(ref, "state")),
			    "used");
	assert_true(json_object_get_boolean(json_field(ref, "times_relative")));
	assert_float_equal(json_object_get_double(json_field(ref, "factor")),
			   res->ref.factor, 1e-9);
	rows = json_field(out, "rows");
	for (i = 0; i < json_object_array_length(rows); i++) {
		r = json_object_array_get_idx(rows, i);
		if (strcmp(json_object_get_string(json_field(r, "name")),
			   "run.seconds"))
			continue;
		assert_true(json_object_get_boolean(json_field(r,
						    "relative_to_machine")));
		assert_true(json_object_get_boolean(json_field(r, "raw_changed")));
		assert_false(json_object_get_boolean(json_field(r,
						     "relative_changed")));
		assert_false(json_object_get_boolean(json_field(r, "changed")));
		assert_true(json_object_get_double(json_field(r,
						   "raw_change_pct")) > 40);
		break;
	}
	assert_true(i < json_object_array_length(rows));
	json_object_put(out);
}

/*
 * The same work on a machine 1.5x slower in new: every time 1.5x, and
 * the reference with it.  As measured the times changed; relative to the
 * machine they did not: no change, and the text says why.
 */
static void test_machine_slower(void **state)
{
	double lat[5], secs[5], ref[5];
	json_object *base = machine_runs(steady, run_s, ref_ms);
	json_object *new = machine_runs(scaled(lat, steady2, 1.5),
					scaled(secs, run_s, 1.5),
					scaled(ref, ref_ms2, 1.5));
	struct diff_result res;
	const struct diff_row *r;
	char text[8192];

	compare_ok(base, new, &res);
	assert_int_equal(res.ref.state, DIFF_REF_USED);
	assert_true(res.ref.row.changed);
	assert_float_equal(res.ref.factor, 1.5, 0.01);
	assert_int_equal(res.verdict, DIFF_NO_CHANGE);
	r = row(&res, "mremap.pte.latency_mean");
	assert_true(r->normalized);
	assert_true(r->raw_changed);
	assert_false(r->rel_changed);
	assert_false(r->changed);
	assert_float_equal(r->raw_change_pct, 50, 5);
	assert_true(fabs(r->change_pct) < 5);
	r = row(&res, "run.seconds");
	assert_true(r->raw_changed && !r->changed);
	r = row(&res, "mremap.calls_per_sec");
	assert_true(r->raw_changed && !r->changed);
	assert_true(r->raw_change_pct < -30 && fabs(r->change_pct) < 5);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "ptscope diff: no significant change\n");
	assert_substr(text, "the machine was slower in new\n");
	assert_substr(text, "times that changed as measured or relative to the "
		      "machine, not both (not a change of the workload):\n");
	assert_substr(text, "  mremap.pte.latency_mean +5");
	assert_substr(text, "it moved with the machine\n");
	assert_machine_json(&res);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* the work really 1.5x slower on the same machine: changed */
static void test_machine_same_work_slower(void **state)
{
	double lat[5], secs[5];
	json_object *base = machine_runs(steady, run_s, ref_ms);
	json_object *new = machine_runs(scaled(lat, steady2, 1.5),
					scaled(secs, run_s, 1.5), ref_ms2);
	struct diff_result res;
	const struct diff_row *r;
	char text[8192];

	compare_ok(base, new, &res);
	assert_int_equal(res.ref.state, DIFF_REF_USED);
	assert_false(res.ref.row.changed);
	assert_int_equal(res.verdict, DIFF_VERDICT_CHANGED);
	r = row(&res, "mremap.pte.latency_mean");
	assert_true(r->normalized && r->raw_changed && r->rel_changed);
	assert_true(r->changed);
	assert_float_equal(r->change_pct, 50, 5);
	assert_true(row(&res, "run.seconds")->changed);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "  with them: no count of the traced work changed: the "
		      "same work took a different time, more than the "
		      "machine's own speed accounts for");
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/*
 * A machine 3x slower (beyond 2x), or a reference that spreads over
 * half its mean: the times are not compared, the counts still are
 */
static void test_machine_unreliable(void **state)
{
	static const double noisy[] = { 10, 30, 9, 25, 11 };
	double lat[5], secs[5], ref[5];
	json_object *base = machine_runs(steady, run_s, ref_ms);
	json_object *moved = machine_runs(scaled(lat, steady2, 3),
					  scaled(secs, run_s, 3),
					  scaled(ref, ref_ms2, 3));
	json_object *spread = machine_runs(steady2, run_s, noisy);
	struct diff_result res;
	const struct diff_row *r;
	char text[8192];

	compare_ok(base, moved, &res);
	assert_int_equal(res.ref.state, DIFF_REF_MOVED);
	assert_int_equal(res.verdict, DIFF_UNRELIABLE);
	r = row(&res, "mremap.pte.latency_mean");
	assert_true(r->unreliable && r->differs && !r->changed);
	assert_int_equal(row(&res, "mremap.pte.calls")->test, DIFF_TEST_EXACT);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "ptscope diff: no count changed, and the times cannot "
		      "be compared: the machine itself was 3.00x slower in new");
	assert_substr(text, "times not compared (the machine's reference is "
		      "unreliable), as measured:\n");
	diff_result_free(&res);

	compare_ok(base, spread, &res);
	assert_int_equal(res.ref.state, DIFF_REF_NOISY);
	assert_int_equal(res.verdict, DIFF_UNRELIABLE);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "the machine's own speed varied by 57% between the "
		      "runs of new (more than 50%)");
	diff_result_free(&res);

	/* a count that moved is still a change */
	set_class(spread, "in_place", 3, 3 * 4096, 0);
	set_mremap_total(spread, 13, 0);
	with_runs(spread, 5, steady2);
	with_machine(spread, run_s, noisy);
	compare_ok(base, spread, &res);
	assert_int_equal(res.verdict, DIFF_VERDICT_CHANGED);
	assert_true(row(&res, "mremap.in_place.calls")->changed);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(moved);
	json_object_put(spread);
}

/* version 2 against 3: the reference is missing, times as measured */
static void test_machine_missing(void **state)
{
	json_object *base = pte_runs(steady);
	json_object *new = machine_runs(steady2, run_s, ref_ms);
	struct diff_result res;
	char text[8192];
	json_object *out, *ref;

	compare_ok(base, new, &res);
	assert_int_equal(res.ref.state, DIFF_REF_MISSING);
	assert_false(res.ref.present[DIFF_BASE]);
	assert_true(res.ref.present[DIFF_NEW]);
	assert_false(row(&res, "mremap.pte.latency_mean")->normalized);
	assert_int_equal(res.verdict, DIFF_NO_CHANGE);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "  machine: no reference in base (recorded by an "
		      "older ptscope): times are compared as measured");
	out = diff_result_json(&res, labels);
	ref = json_object_object_get(out, "reference");
	assert_string_equal(json_object_get_string(json_object_object_get(ref,
			    "state")), "missing");
	assert_false(json_object_get_boolean(json_object_object_get(ref,
			    "base_present")));
	json_object_put(out);
	diff_result_free(&res);
	/* another ptscope's reference work: not compared either */
	with_runs(base, 5, steady);
	with_machine(base, run_s, ref_ms);
	put_num(base, "reference/hash_rounds", 1000);
	compare_ok(base, new, &res);
	assert_int_equal(res.ref.state, DIFF_REF_OTHER_WORK);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/*
 * Run time +164% while the mean mremap latency rose 9.6%: the mremaps
 * added under a microsecond a run to 1.6 s.  why: says what share that
 * is, and that the cause lies elsewhere.
 */
static void test_share_small(void **state)
{
	double lat[5], secs[5];
	json_object *base = machine_runs(steady, run_s, ref_ms);
	json_object *new = machine_runs(scaled(lat, steady2, 1.096),
					scaled(secs, run_s, 2.64), ref_ms2);
	struct diff_result res;
	char text[8192];

	compare_ok(base, new, &res);
	assert_true(row(&res, "run.seconds")->changed);
	assert_true(res.share.have);
	assert_float_equal(res.share.run.diff, 1.64 * 1.002, 0.001);
	assert_true(res.share.run.low > 1 && res.share.run.high < 2.5);
	/* 10 calls x (1096 - 1000 ns), with the two latency samples' noise */
	assert_float_equal(res.share.traced.diff, 10 * 96e-9, 0.2e-6);
	assert_true(res.share.share_high < 1e-5);
	assert_true(res.share.elsewhere);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "  traced work: mremap time (calls x mean latency) +");
	assert_substr(text, " of the run time's +1.6");
	assert_substr(text, "the traced mremaps account for at most 0% of the run "
		      "time added: the cause lies elsewhere\n");
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/*
 * 5 runs of 10 PTE moves (latency sums @lat) and of hugepage faults
 * traced from their functions, 1.0e9 * @fault_s ns of them a run
 */
static json_object *fault_runs(const double *lat, double fault_s,
			       const double *secs, const double *ref)
{
	json_object *rec = recording("6.1.0", 5.0);
	json_object *orders = json_object_new_array();

	set_class(rec, "pte", 10, 10 * 4096, 0);
	set_mremap_total(rec, 10, 0);
	json_object_array_add(orders, fault_order_funcs(9, 100, 0, 0,
							fault_s * 1e9));
	with_faults(rec, true, orders);
	with_runs(rec, 5, lat);
	with_machine(rec, secs, ref);
	return rec;
}

/* the run time added is the fault time added: the faults are in the share */
static void test_share_faults(void **state)
{
	double secs[5];
	json_object *base = fault_runs(steady, 0.2, run_s, ref_ms);
	json_object *new = fault_runs(steady2, 1.2, scaled(secs, run_s, 2),
				      ref_ms2);
	struct diff_result res;
	char text[8192];

	compare_ok(base, new, &res);
	assert_true(row(&res, "run.seconds")->changed);
	assert_true(res.share.have);
	assert_true(res.share.faults);
	assert_float_equal(res.share.traced.diff, 1.0, 1e-6);
	assert_float_equal(res.share.share, 1.0, 0.05);
	assert_false(res.share.elsewhere);
	report_text(&res, text, sizeof(text));
	assert_substr(text, "  traced work: mremap time (calls x mean latency) "
		      "with hugepage fault time +1.00 s a run ");
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

/* the run time added is the mremap time added: its share is about all */
static void test_share_large(void **state)
{
	double bl[5], nl[5], secs[5];
	json_object *base = machine_runs(scaled(bl, steady, 5e4), run_s, ref_ms);
	json_object *new = machine_runs(scaled(nl, steady2, 1.5e5),
					scaled(secs, run_s, 2), ref_ms2);
	struct diff_result res;
	json_object *out, *share;

	compare_ok(base, new, &res);
	assert_true(res.share.have);
	assert_float_equal(res.share.traced.diff, 1.0, 0.02);
	assert_float_equal(res.share.run.diff, 1.0, 0.02);
	assert_float_equal(res.share.share, 1.0, 0.05);
	assert_true(res.share.share_low < res.share.share &&
		    res.share.share < res.share.share_high);
	assert_false(res.share.elsewhere);
	out = diff_result_json(&res, labels);
	share = json_object_object_get(out, "traced_share");
	assert_non_null(share);
	assert_float_equal(json_object_get_double(json_object_object_get(share,
			   "share")), res.share.share, 1e-9);
	assert_false(json_object_get_boolean(json_object_object_get(share,
			    "cause_elsewhere")));
	json_object_put(out);
	diff_result_free(&res);
	/* no run time changed: no share */
	compare_ok(base, base, &res);
	assert_false(res.share.have);
	diff_result_free(&res);
	json_object_put(base);
	json_object_put(new);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mremap_ratios),
		cmocka_unit_test(test_level_ratios),
		cmocka_unit_test(test_fault_ratios),
		cmocka_unit_test(test_sort_order),
		cmocka_unit_test(test_compare_sorted),
		cmocka_unit_test(test_zero_handling),
		cmocka_unit_test(test_identical),
		cmocka_unit_test(test_unavailable_metric),
		cmocka_unit_test(test_metric_not_in_catalog),
		cmocka_unit_test(test_missing_values),
		cmocka_unit_test(test_notes),
		cmocka_unit_test(test_incompatible),
		cmocka_unit_test(test_invalid_counters),
		cmocka_unit_test(test_largest_counter_valid),
		cmocka_unit_test(test_slim_recording),
		cmocka_unit_test(test_processes_untraced),
		cmocka_unit_test(test_format),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_repeat_no_change),
		cmocka_unit_test(test_repeat_changed),
		cmocka_unit_test(test_repeat_against_one),
		cmocka_unit_test(test_bad_runs),
		cmocka_unit_test(test_exact_below_min_effect),
		cmocka_unit_test(test_machine_slower),
		cmocka_unit_test(test_machine_same_work_slower),
		cmocka_unit_test(test_machine_unreliable),
		cmocka_unit_test(test_machine_missing),
		cmocka_unit_test(test_share_small),
		cmocka_unit_test(test_share_large),
		cmocka_unit_test(test_share_faults),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
