// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the catalog (src/engine/catalog.c) against the BPF
 * objects it names: opened, never loaded, so no privilege is needed and a
 * misspelt program fails here instead of at a live attach.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "engine/catalog.h"
#include "engine/engine.h"
#include "engine/objects.h"

static struct pts_objects objs;

/* the objects as the engine opens them; libbpf keeps quiet */
static int open_objects(void **state)
{
	struct pts_config cfg = { 0 };

	libbpf_set_print(NULL);
	return objects_open(&objs, &cfg, false);
}

static int close_objects(void **state)
{
	objects_close(&objs);
	return 0;
}

static int nr_progs(const struct pts_candidate *c)
{
	int n = 0;

	while (n < PTS_MAX_PROGS && c->progs[n])
		n++;
	return n;
}

static bool names_prog(const struct pts_candidate *c, const char *prog)
{
	int i;

	for (i = 0; i < nr_progs(c); i++)
		if (!strcmp(c->progs[i], prog))
			return true;
	return false;
}

/*
 * The program type a candidate's kind loads (patched tracepoints through
 * tp_btf), or 0: stock tracepoints have several.
 */
static enum bpf_prog_type kind_prog_type(enum pts_path_kind kind)
{
	switch (kind) {
	case PTS_PATH_PATCHED:
	case PTS_PATH_FENTRY:
		return BPF_PROG_TYPE_TRACING;
	case PTS_PATH_KPROBE:
		return BPF_PROG_TYPE_KPROBE;
	default:
		return BPF_PROG_TYPE_UNSPEC;
	}
}

static void check_prog(const struct pts_metric *m,
		       const struct pts_candidate *c, const char *name)
{
	struct bpf_program *prog = objects_prog(&objs, c->obj, name);
	enum bpf_prog_type want = kind_prog_type(c->kind);

	if (!prog)
		print_error("%s: %s: no program %s in object %d\n", m->name,
			    c->label, name, c->obj);
	assert_non_null(prog);
	if (want && bpf_program__type(prog) != want)
		print_error("%s: %s: %s is not a %s program\n", m->name,
			    c->label, name, path_kind_name(c->kind));
	if (want)
		assert_int_equal(bpf_program__type(prog), want);
}

/* every program a candidate names is in its object, of its kind */
static void test_programs_exist(void **state)
{
	const struct pts_candidate *c;
	int i, j, k, nr_checked = 0;

	for (i = 0; i < pts_catalog_len; i++) {
		for (j = 0; j < pts_catalog[i].nr_cands; j++) {
			c = &pts_catalog[i].cands[j];
			for (k = 0; k < nr_progs(c); k++)
				check_prog(&pts_catalog[i], c, c->progs[k]);
			nr_checked += k;
		}
	}
	assert_true(nr_checked > 0);
}

/* a retarget moves a program of its own candidate */
static void test_retargets_name_own_programs(void **state)
{
	const struct pts_candidate *c;
	const char *prog;
	int i, j, k;

	for (i = 0; i < pts_catalog_len; i++) {
		for (j = 0; j < pts_catalog[i].nr_cands; j++) {
			c = &pts_catalog[i].cands[j];
			for (k = 0; k < PTS_MAX_RETARGETS; k++) {
				prog = c->retargets[k].prog;
				if (!prog)
					break;
				if (!names_prog(c, prog))
					print_error("%s: retarget of %s, not "
						    "one of its programs\n",
						    c->label, prog);
				assert_true(names_prog(c, prog));
				assert_non_null(c->retargets[k].funcs[0]);
			}
		}
	}
}

/* the metrics a candidate refers to are in the catalog */
static void test_metric_references(void **state)
{
	const struct pts_candidate *c;
	const struct pts_req *req;
	int i, j, k;

	for (i = 0; i < pts_catalog_len; i++) {
		for (j = 0; j < pts_catalog[i].nr_cands; j++) {
			c = &pts_catalog[i].cands[j];
			if (c->counted_by)
				assert_non_null(catalog_find(c->counted_by));
			for (k = 0; k < PTS_MAX_REQS && c->reqs[k].kind; k++) {
				req = &c->reqs[k];
				if (req->kind == PTS_REQ_METRIC ||
				    req->kind == PTS_REQ_METRIC_PATH ||
				    req->kind == PTS_REQ_METRIC_CFG)
					assert_non_null(catalog_find(req->name));
			}
		}
	}
}

/*
 * Does @sec hook a syscall tracepoint: a syscalls:* event, or
 * raw_syscalls:sys_enter/sys_exit (as tracepoint, raw_tp or tp_btf)?
 */
static bool sec_taxes_syscalls(const char *sec)
{
	static const char *const taxing[] = {
		"tracepoint/syscalls/", "tp/syscalls/",
		"tracepoint/raw_syscalls/", "tp/raw_syscalls/",
		"raw_tracepoint/sys_enter", "raw_tracepoint/sys_exit",
		"raw_tp/sys_enter", "raw_tp/sys_exit",
		"tp_btf/sys_enter", "tp_btf/sys_exit",
	};
	size_t i, n;

	for (i = 0; i < sizeof(taxing) / sizeof(taxing[0]); i++) {
		n = strlen(taxing[i]);
		/* "tp_btf/sys_enter" but not "tp_btf/sys_enter_foo" */
		if (!strncmp(sec, taxing[i], n) &&
		    (taxing[i][n - 1] == '/' || !sec[n]))
			return true;
	}
	return false;
}

/* does any program of @c hook a syscall tracepoint? */
static bool cand_hooks_syscalls(const struct pts_candidate *c)
{
	struct bpf_program *prog;
	int i;

	for (i = 0; i < nr_progs(c); i++) {
		prog = objects_prog(&objs, c->obj, c->progs[i]);
		if (prog && sec_taxes_syscalls(bpf_program__section_name(prog)))
			return true;
	}
	return false;
}

/*
 * taxes_syscalls is set exactly on the candidates with a program on a
 * syscall tracepoint, as their sections say, so the startup note cannot
 * drift from the BPF objects
 */
static void test_syscall_tax_flag(void **state)
{
	const struct pts_candidate *c;
	int i, j, nr_taxing = 0;
	bool hooks;

	for (i = 0; i < pts_catalog_len; i++) {
		for (j = 0; j < pts_catalog[i].nr_cands; j++) {
			c = &pts_catalog[i].cands[j];
			hooks = cand_hooks_syscalls(c);
			if (hooks != c->taxes_syscalls)
				print_error("%s: %s: taxes_syscalls is %d, "
					    "its programs %s a syscall "
					    "tracepoint\n", pts_catalog[i].name,
					    c->label, c->taxes_syscalls,
					    hooks ? "hook" : "do not hook");
			assert_int_equal(hooks, c->taxes_syscalls);
			nr_taxing += hooks;
		}
	}
	/* the witness: this catalog has such candidates */
	assert_true(nr_taxing > 0);
}

static void test_syscall_tax_sections(void **state)
{
	assert_true(sec_taxes_syscalls("tracepoint/syscalls/sys_enter_mremap"));
	assert_true(sec_taxes_syscalls("tp_btf/sys_exit"));
	assert_true(sec_taxes_syscalls("raw_tp/sys_enter"));
	assert_false(sec_taxes_syscalls("tp_btf/sys_enter_foo"));
	assert_false(sec_taxes_syscalls("tp_btf/mm_page_alloc"));
	assert_false(sec_taxes_syscalls("fentry/__x64_sys_mremap"));
	assert_false(sec_taxes_syscalls("tracepoint/sched/sched_process_exit"));
}

/*
 * What the engine keeps per metric and candidate is large enough, and its
 * link table holds the programs of every metric's largest candidate.
 */
static void test_counts_fit(void **state)
{
	int i, j, most, nr_links = 0;

	assert_true(pts_catalog_len <= PTS_MAX_METRICS);
	for (i = 0; i < pts_catalog_len; i++) {
		assert_true(pts_catalog[i].nr_cands > 0);
		assert_true(pts_catalog[i].nr_cands <= PTS_MAX_CANDS);
		most = 0;
		for (j = 0; j < pts_catalog[i].nr_cands; j++)
			if (nr_progs(&pts_catalog[i].cands[j]) > most)
				most = nr_progs(&pts_catalog[i].cands[j]);
		nr_links += most;
	}
	assert_true(nr_links <= PTS_MAX_LINKS);
}

/* the type of every per-thread state map of @o */
static void check_thread_maps(struct pts_objects *o, enum bpf_map_type want)
{
	static const char *const names[PTS_NR_THREAD_MAPS] = {
		"mremap_inflight", "mpt_inflight", "mpt_partial",
		"fault_inflight", "in_madvise",
	};
	struct bpf_map *map;
	int i, j;

	for (i = 0; i < PTS_NR_OBJS; i++) {
		for (j = 0; j < PTS_NR_THREAD_MAPS; j++) {
			map = bpf_object__find_map_by_name(o->obj[i], names[j]);
			assert_non_null(map);
			assert_int_equal(bpf_map__type(map), want);
		}
	}
}

/*
 * The fallback build opens through the same skeletons with every
 * program the catalog names, its thread state in tid-keyed hashes; the
 * primary build keeps task storage.
 */
static void test_fallback_build(void **state)
{
	struct pts_config cfg = { 0 };

	check_thread_maps(&objs, BPF_MAP_TYPE_TASK_STORAGE);
	objects_close(&objs);
	assert_int_equal(objects_open(&objs, &cfg, true), 0);
	check_thread_maps(&objs, BPF_MAP_TYPE_HASH);
	test_programs_exist(state);
	objects_close(&objs);
	assert_int_equal(objects_open(&objs, &cfg, false), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_programs_exist),
		cmocka_unit_test(test_retargets_name_own_programs),
		cmocka_unit_test(test_metric_references),
		cmocka_unit_test(test_counts_fit),
		cmocka_unit_test(test_syscall_tax_sections),
		cmocka_unit_test(test_syscall_tax_flag),
		cmocka_unit_test(test_fallback_build),
	};

	return cmocka_run_group_tests(tests, open_objects, close_objects);
}
