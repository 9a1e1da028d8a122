// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the candidate choice in src/engine.c, over the real
 * catalog (src/engine/catalog.c) and a fake kernel instead of src/kf.c.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "engine/catalog.h"
#include "engine/engine.h"

#define REQ_BIT(kind)	(1u << (kind))
#define MAX_CHECKS	256
#define REASON_LEN	2048

#define MPT		"mremap.move_page_tables"
#define PMC		"pagetable_move_control"
#define NOT_NEEDED	"not needed: an earlier candidate works"
/* the candidates of mremap.calls */
#define CALLS_FENTRY	0
#define CALLS_TRACEFS	1
#define CALLS_BTF	2
#define FENTRY_REFUSED	"fentry: load refused, EPERM"
#define KPROBE_REFUSED	"kprobe: attach refused, EOPNOTSUPP"
#define NOT_PMC		"move_page_tables does not take struct " PMC \
			" * (prototype differs)"

/* the answers a kernel gives to the requirements of the catalog */
struct fake_kernel {
	unsigned int failing;		/* REQ_BIT()s of kinds that fail */
	const char *arg0_struct;	/* struct behind every FUNC's arg 0 */
	int nargs;			/* argument count of every FUNC */
	const char *missing;		/* a function inlined on this kernel */
	const char *missing2;		/* and another one */
	int minor;			/* 6.<minor>; 0: 6.15 */
	bool patched;			/* has the kernel/patches tracepoints */
	int nr_checks;
	const struct pts_req *checked[MAX_CHECKS];
};

static struct pts_engine eng;

static struct fake_kernel kernel_6_15(unsigned int failing)
{
	return (struct fake_kernel){ .failing = failing, .arg0_struct = PMC,
				     .nargs = 1 };
}

static struct fake_kernel kernel_6_7(unsigned int failing)
{
	return (struct fake_kernel){ .failing = failing,
				     .arg0_struct = "vm_area_struct",
				     .nargs = 7 };
}

static struct fake_kernel kernel_6_1(unsigned int failing)
{
	return (struct fake_kernel){ .failing = failing,
				     .arg0_struct = "vm_area_struct",
				     .nargs = 6 };
}

static int check_arg0(const struct fake_kernel *k, const struct pts_req *req,
		      char *why, size_t len)
{
	if (k->arg0_struct && !strcmp(k->arg0_struct, req->arg))
		return 0;
	snprintf(why, len, "%s does not take struct %s * (prototype differs)",
		 req->name, req->arg);
	return -EINVAL;
}

static int check_nargs(const struct fake_kernel *k, const struct pts_req *req,
		       char *why, size_t len)
{
	if (k->nargs == req->nargs)
		return 0;
	snprintf(why, len, "%s takes %d arguments here, not %d", req->name,
		 k->nargs, req->nargs);
	return -EINVAL;
}

/* the tracepoints only kernels with kernel/patches have */
static bool patched_tracepoint(const struct pts_req *req)
{
	static const char *const names[] = {
		"mm_mremap_move_pud", "mm_mremap_move_pmd",
		"mm_mremap_move_huge_pmd", "mm_mremap_move_ptes",
		"mm_mremap_move_back", "mm_anon_fault_alloc",
	};
	size_t i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (req->kind == PTS_REQ_BTF_TRACE && !strcmp(req->name, names[i]))
			return true;
	return false;
}

static int check_simple(const struct fake_kernel *k, const struct pts_req *req,
			char *why, size_t len)
{
	if (!k->patched && patched_tracepoint(req)) {
		snprintf(why, len, "BTF: no btf_trace_%s", req->name);
		return -ENOENT;
	}
	if (req->name && ((k->missing && !strcmp(req->name, k->missing)) ||
			  (k->missing2 && !strcmp(req->name, k->missing2)))) {
		snprintf(why, len, "%s: inlined, no symbol", req->name);
		return -ENOENT;
	}
	if (req->kind == PTS_REQ_KERNEL_MIN &&
	    (k->minor ? k->minor : 15) < atoi(req->arg + 2)) {
		snprintf(why, len, "kernel 6.%d predates %s",
			 k->minor ? k->minor : 15, req->arg);
		return -ENOENT;
	}
	if (!(k->failing & REQ_BIT(req->kind)))
		return 0;
	switch (req->kind) {
	case PTS_REQ_FENTRY:
		snprintf(why, len, FENTRY_REFUSED);
		return -EPERM;
	case PTS_REQ_KPROBE:
		snprintf(why, len, KPROBE_REFUSED);
		return -EOPNOTSUPP;
	case PTS_REQ_TRACEFS_EVENT:
		snprintf(why, len, "tracefs: no events/%s", req->name);
		return -ENOENT;
	case PTS_REQ_BTF_TRACE:
		snprintf(why, len, "BTF: no btf_trace_%s", req->name);
		return -ENOENT;
	default:
		snprintf(why, len, "kernel: no %s", req->name);
		return -ENOENT;
	}
}

/* a pts_check_fn */
static int fake_check(void *ctx, const struct pts_req *req, char *why,
		      size_t len)
{
	struct fake_kernel *k = ctx;

	if (k->nr_checks < MAX_CHECKS)
		k->checked[k->nr_checks++] = req;
	switch (req->kind) {
	case PTS_REQ_ARG0_STRUCT:
		return check_arg0(k, req, why, len);
	case PTS_REQ_NARGS:
		return check_nargs(k, req, why, len);
	default:
		return check_simple(k, req, why, len);
	}
}

static bool was_checked(const struct fake_kernel *k, const struct pts_req *req)
{
	int i;

	for (i = 0; i < k->nr_checks; i++)
		if (k->checked[i] == req)
			return true;
	return false;
}

static void choose(int mode, bool follow_fork, struct fake_kernel *k)
{
	engine_init(&eng, mode, follow_fork);
	engine_choose(&eng, fake_check, k);
}

static const struct pts_choice *choice_of(const char *metric)
{
	const struct pts_choice *ch = engine_choice(&eng, metric);

	if (!ch)
		print_error("no choice for %s\n", metric);
	assert_non_null(ch);
	return ch;
}

static const struct pts_candidate *chosen_cand(const char *metric)
{
	const struct pts_choice *ch = choice_of(metric);

	assert_true(ch->chosen >= 0);
	return &ch->metric->cands[ch->chosen];
}

static void assert_chosen(const char *metric, int want)
{
	const struct pts_choice *ch = choice_of(metric);

	if (ch->chosen != want)
		print_error("%s: chosen %d, want %d\n", metric, ch->chosen,
			    want);
	assert_int_equal(ch->chosen, want);
	assert_int_equal(engine_available(&eng, metric), want >= 0);
}

static void assert_why(const char *metric, int cand, const char *want)
{
	assert_string_equal(choice_of(metric)->why[cand], want);
}

static void assert_why_has(const char *metric, int cand, const char *needle)
{
	const char *why = choice_of(metric)->why[cand];

	if (!strstr(why, needle))
		print_error("%s[%d]: '%s' not in '%s'\n", metric, cand, needle,
			    why);
	assert_non_null(strstr(why, needle));
}

static void test_init(void **state)
{
	int i, nr_stat_only = 0;

	for (i = 0; i < pts_catalog_len; i++)
		nr_stat_only += pts_catalog[i].stat_only;
	assert_int_equal(nr_stat_only, 1);

	engine_init(&eng, PTS_PATH_KPROBE, false);
	assert_int_equal(eng.mode, PTS_PATH_KPROBE);
	assert_false(eng.follow_fork);
	assert_int_equal(eng.nr_choices, pts_catalog_len - nr_stat_only);
	assert_int_equal(eng.nr_links, 0);
	for (i = 0; i < eng.nr_choices; i++) {
		assert_ptr_equal(eng.choices[i].metric, &pts_catalog[i]);
		assert_int_equal(eng.choices[i].chosen, -1);
		assert_false(eng.choices[i].refused[0]);
		assert_string_equal(eng.choices[i].why[0], "");
	}
}

/* (a) a trampoline on the syscall function beats the syscall tracepoints */
static void test_all_pass_calls_use_fentry(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.calls", CALLS_FENTRY);
	assert_int_equal(chosen_cand("mremap.calls")->kind, PTS_PATH_FENTRY);
	assert_string_equal(chosen_cand("mremap.calls")->progs[0],
			    "mremap_fentry_enter");
	assert_string_equal(choice_of("mremap.calls")->targets[0],
			    "__x64_sys_mremap");
	assert_why("mremap.calls", CALLS_FENTRY, "");
	assert_why("mremap.calls", CALLS_TRACEFS, NOT_NEEDED);
	assert_why("mremap.calls", CALLS_BTF, NOT_NEEDED);
	assert_chosen("thp.collapse", 0);
}

/* the arm64 name of the syscall function when there is no x86 one */
static void test_calls_fentry_arm64_name(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	k.missing = "__x64_sys_mremap";
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.calls", CALLS_FENTRY);
	assert_string_equal(choice_of("mremap.calls")->targets[0],
			    "__arm64_sys_mremap");
	assert_string_equal(choice_of("mremap.calls")->targets[1],
			    "__arm64_sys_mremap");

	/* x86 refuses fentry: that, not the absent arm64 name, is why */
	k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY));
	k.missing = "__arm64_sys_mremap";
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.calls", CALLS_TRACEFS);
	assert_why("mremap.calls", CALLS_FENTRY, FENTRY_REFUSED);
}

/* fentry refused: the stock syscall tracepoints, through tracefs first */
static void test_fentry_refused_calls_use_tracefs(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY));

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.calls", CALLS_TRACEFS);
	assert_string_equal(chosen_cand("mremap.calls")->label,
			    "tracepoint syscalls:sys_{enter,exit}_mremap");
	assert_why("mremap.calls", CALLS_FENTRY, FENTRY_REFUSED);
	assert_why("mremap.calls", CALLS_TRACEFS, "");
	assert_why("mremap.calls", CALLS_BTF, NOT_NEEDED);
}

static void test_all_pass_mpt_pmc(void **state)
{
	struct fake_kernel k = kernel_6_15(0);
	int i;

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 0);
	assert_string_equal(chosen_cand(MPT)->label,
			    "fentry/fexit move_page_tables(pmc) [6.15+]");
	assert_int_equal(chosen_cand(MPT)->kind, PTS_PATH_FENTRY);
	assert_why(MPT, 0, "");
	for (i = 1; i < 5; i++)
		assert_why(MPT, i, NOT_NEEDED);
}

static void test_all_pass_mpt_7args(void **state)
{
	struct fake_kernel k = kernel_6_7(0);

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 1);
	assert_string_equal(chosen_cand(MPT)->label,
			    "fentry/fexit move_page_tables(7 args) [6.7-6.14]");
	assert_why(MPT, 0, NOT_PMC);
	assert_why(MPT, 1, "");
	assert_why(MPT, 2, NOT_NEEDED);
	assert_why(MPT, 4, NOT_NEEDED);
}

static void test_all_pass_mpt_6args(void **state)
{
	struct fake_kernel k = kernel_6_1(0);

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 2);
	assert_string_equal(chosen_cand(MPT)->progs[0], "mpt_fentry_scalar");
	assert_why(MPT, 1, "move_page_tables takes 6 arguments here, not 7");
	assert_why(MPT, 3, NOT_NEEDED);
}

/* (b) */
static void test_fentry_fails_pmc_uses_kprobe(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY));

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 3);
	assert_int_equal(chosen_cand(MPT)->kind, PTS_PATH_KPROBE);
	assert_string_equal(chosen_cand(MPT)->progs[0], "mpt_kprobe_pmc");
	assert_why(MPT, 0, FENTRY_REFUSED);
	assert_why(MPT, 1, "move_page_tables takes 1 arguments here, not 7");
	assert_why(MPT, 2, "move_page_tables takes 1 arguments here, not 6");
	assert_why(MPT, 3, "");
	assert_why(MPT, 4, NOT_NEEDED);
}

static void test_fentry_fails_scalar_uses_kprobe(void **state)
{
	struct fake_kernel k = kernel_6_7(REQ_BIT(PTS_REQ_FENTRY));

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 4);
	assert_string_equal(chosen_cand(MPT)->progs[0], "mpt_kprobe_scalar7");
	assert_why(MPT, 1, FENTRY_REFUSED);
	assert_why(MPT, 3, NOT_PMC);
}

/* (c) */
static void test_tracepoints_only(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_KPROBE));
	char reason[REASON_LEN];

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, -1);
	engine_unavailable_reason(choice_of(MPT), reason, sizeof(reason));
	assert_non_null(strstr(reason, FENTRY_REFUSED));
	assert_non_null(strstr(reason, KPROBE_REFUSED));
	/* candidates for other prototypes (-EINVAL) are left out */
	assert_string_equal(reason, FENTRY_REFUSED "; " KPROBE_REFUSED);
	/* what tracepoints give still works */
	assert_chosen("mremap.calls", CALLS_TRACEFS);
	assert_chosen("thp.fault_alloc", 3);
	assert_chosen("thp.collapse", 0);
	assert_why("thp.fault_alloc", 1, FENTRY_REFUSED);
	assert_why("thp.fault_alloc", 2, KPROBE_REFUSED);
}

/*
 * No exceptions:page_fault_user (arm64): the fault path without fault
 * boundaries, which counts mTHP frees it cannot place as ambiguous
 */
static void test_tracepoints_without_fault_boundaries(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_KPROBE));
	const struct pts_metric *m = catalog_find("thp.fault_alloc");

	k.missing = "page_fault_user";
	choose(PTS_MODE_AUTO, false, &k);
	assert_non_null(m);
	assert_chosen("thp.fault_alloc", 4);
	assert_why_has("thp.fault_alloc", 3, "page_fault_user");
	assert_true(m->cands[3].cfg_flags & PTS_CFG_FAULT_BOUNDS);
	assert_false(m->cands[4].cfg_flags & PTS_CFG_FAULT_BOUNDS);
	assert_true(m->cands[4].cfg_flags & PTS_CFG_FAULT_CHARGE_FREE);
}

/* a requirement that fails stops the candidate: later ones are not asked */
static void test_first_failing_requirement_stops(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_TRACEFS_EVENT));
	const struct pts_metric *calls = catalog_find("mremap.calls");

	choose(PTS_MODE_AUTO, false, &k);
	assert_non_null(calls);
	assert_true(was_checked(&k, &calls->cands[CALLS_TRACEFS].reqs[0]));
	assert_false(was_checked(&k, &calls->cands[CALLS_TRACEFS].reqs[1]));
}

/* -EINVAL from the checker: written for another kernel's prototype */
static void test_other_kernel_flags(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_KPROBE));
	const struct pts_choice *ch;

	choose(PTS_MODE_AUTO, false, &k);
	ch = choice_of(MPT);
	assert_false(ch->other_kernel[0]);
	assert_true(ch->other_kernel[1]);
	assert_true(ch->other_kernel[2]);
	assert_false(ch->other_kernel[3]);
	assert_true(ch->other_kernel[4]);
	assert_true(ch->other_kernel[5]);
	assert_why(MPT, 5, "move_page_tables takes 1 arguments here, not 6");

	/* a later round clears the flag of a candidate that now works */
	k = kernel_6_7(0);
	engine_choose(&eng, fake_check, &k);
	assert_chosen(MPT, 1);
	assert_true(ch->other_kernel[0]);
	assert_false(ch->other_kernel[1]);
	assert_false(ch->other_kernel[4]);
}

/* (d) */
static void test_no_tracefs_uses_btf_tracepoints(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_TRACEFS_EVENT));

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.calls", CALLS_BTF);
	assert_string_equal(chosen_cand("mremap.calls")->progs[0],
			    "mremap_btf_enter");
	assert_why("mremap.calls", CALLS_TRACEFS,
		   "tracefs: no events/syscalls/sys_enter_mremap");
	assert_why("mremap.calls", CALLS_BTF, "");
	assert_chosen(MPT, 3);
}

static void test_no_tracepoints_at_all(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_TRACEFS_EVENT) |
					   REQ_BIT(PTS_REQ_BTF_TRACE));
	char reason[REASON_LEN];

	choose(PTS_MODE_AUTO, true, &k);
	assert_chosen("mremap.calls", -1);
	assert_chosen("thp.collapse", -1);
	assert_chosen("task.follow_fork", -1);
	assert_chosen(MPT, 3);
	engine_unavailable_reason(choice_of("mremap.calls"), reason,
				  sizeof(reason));
	assert_string_equal(reason, FENTRY_REFUSED "; "
		"tracefs: no events/syscalls/sys_enter_mremap; "
		"BTF: no btf_trace_sys_enter");

	/* with fentry, mremap calls need no tracepoint */
	k.failing &= ~REQ_BIT(PTS_REQ_FENTRY);
	choose(PTS_MODE_AUTO, true, &k);
	assert_chosen("mremap.calls", CALLS_FENTRY);
	assert_chosen(MPT, 0);
}

/* (e) a forced kind only filters metrics that have a candidate of it */
static void test_mode_tracepoint(void **state)
{
	struct fake_kernel k = kernel_6_15(0);
	int i;

	choose(PTS_PATH_TRACEPOINT, false, &k);
	/* move_page_tables has no tracepoint candidate: auto rules */
	assert_chosen(MPT, 0);
	assert_why(MPT, 0, "");
	for (i = 1; i < 5; i++)
		assert_why(MPT, i, NOT_NEEDED);
	/* mremap.calls has one: the syscall function is not selected */
	assert_chosen("mremap.calls", CALLS_TRACEFS);
	assert_why("mremap.calls", CALLS_FENTRY, "not selected: --mode tracepoint");
	/* thp.fault_alloc has one: the others are not selected */
	assert_chosen("thp.fault_alloc", 3);
	assert_why("thp.fault_alloc", 1, "not selected: --mode tracepoint");
	assert_why("thp.fault_alloc", 2, "not selected: --mode tracepoint");
	assert_why("thp.fault_alloc", 3, "");
}

/* (f) */
static void test_mode_kprobe(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	choose(PTS_PATH_KPROBE, false, &k);
	assert_chosen(MPT, 3);
	assert_int_equal(chosen_cand(MPT)->kind, PTS_PATH_KPROBE);
	assert_why(MPT, 0, "not selected: --mode kprobe");
	assert_why(MPT, 1, "not selected: --mode kprobe");
	assert_why(MPT, 2, "not selected: --mode kprobe");
	assert_why(MPT, 3, "");
	assert_why(MPT, 4, NOT_NEEDED);
	/* no kprobe candidate for mremap.calls: auto rules, fentry first */
	assert_chosen("mremap.calls", CALLS_FENTRY);
	assert_why("mremap.calls", CALLS_TRACEFS, NOT_NEEDED);
}

static void test_mode_kprobe_scalar(void **state)
{
	struct fake_kernel k = kernel_6_1(0);

	choose(PTS_PATH_KPROBE, false, &k);
	assert_chosen(MPT, 5);
	assert_why(MPT, 2, "not selected: --mode kprobe");
	assert_why(MPT, 3, NOT_PMC);
	assert_why(MPT, 4, "move_page_tables takes 6 arguments here, not 7");
}

/*
 * thp.fault_alloc has a kprobe candidate, but without programs: forcing
 * kprobe leaves the metric unavailable although its tracepoint works.
 */
/* --mode kprobe moves the fault path to its kprobe candidate */
static void test_mode_kprobe_fault_alloc(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	choose(PTS_PATH_KPROBE, false, &k);
	assert_chosen("thp.fault_alloc", 2);
	assert_why("thp.fault_alloc", 1, "not selected: --mode kprobe");
	assert_why("thp.fault_alloc", 3, NOT_NEEDED);
}

/* a forced kind does not fall back to other kinds */
static void test_mode_fentry_refused(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY));

	choose(PTS_PATH_FENTRY, false, &k);
	assert_chosen(MPT, -1);
	assert_why(MPT, 0, FENTRY_REFUSED);
	assert_why(MPT, 3, "not selected: --mode fentry");
	assert_why(MPT, 4, "not selected: --mode fentry");
	assert_false(was_checked(&k, &catalog_find(MPT)->cands[3].reqs[0]));
	/* mremap.calls has a fentry candidate too: no tracepoint fallback */
	assert_chosen("mremap.calls", -1);
	assert_why("mremap.calls", CALLS_FENTRY, FENTRY_REFUSED);
	assert_why("mremap.calls", CALLS_TRACEFS, "not selected: --mode fentry");
}

/* (g) */
static void test_refused_candidate_skipped(void **state)
{
	struct fake_kernel k = kernel_6_15(0);
	const struct pts_metric *mpt = catalog_find(MPT);
	struct pts_choice *ch;
	const char *refusal = "fentry: attach of mpt_fentry_pmc failed, "
			      "Device or resource busy";

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 0);
	ch = (struct pts_choice *)choice_of(MPT);
	ch->refused[0] = true;
	snprintf(ch->why[0], PTS_WHY_LEN, "%s", refusal);

	k.nr_checks = 0;
	engine_choose(&eng, fake_check, &k);
	assert_chosen(MPT, 3);
	assert_why(MPT, 0, refusal);
	assert_true(ch->refused[0]);
	assert_false(was_checked(&k, &mpt->cands[0].reqs[0]));
	assert_false(was_checked(&k, &mpt->cands[0].reqs[1]));
	assert_true(was_checked(&k, &mpt->cands[3].reqs[0]));

	/* stable on the next round too */
	engine_choose(&eng, fake_check, &k);
	assert_chosen(MPT, 3);
	assert_why(MPT, 0, refusal);
}

static void test_all_refused(void **state)
{
	struct fake_kernel k = kernel_6_15(0);
	struct pts_choice *ch;
	char reason[REASON_LEN];
	int i;

	choose(PTS_MODE_AUTO, false, &k);
	ch = (struct pts_choice *)choice_of("mremap.calls");
	for (i = 0; i < 3; i++) {
		ch->refused[i] = true;
		snprintf(ch->why[i], PTS_WHY_LEN, "refused %d", i);
	}
	engine_choose(&eng, fake_check, &k);
	assert_chosen("mremap.calls", -1);
	engine_unavailable_reason(ch, reason, sizeof(reason));
	assert_string_equal(reason, "refused 0; refused 1; refused 2");
}

/* a new round forgets the reasons of the previous one */
static void test_rechoose_refreshes_reasons(void **state)
{
	struct fake_kernel all = kernel_6_15(0);
	struct fake_kernel no_fentry = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY));

	choose(PTS_MODE_AUTO, false, &no_fentry);
	assert_chosen(MPT, 3);
	engine_choose(&eng, fake_check, &all);
	assert_chosen(MPT, 0);
	assert_why(MPT, 0, "");
	assert_why(MPT, 3, NOT_NEEDED);
}

/* (h) */
static void test_levels_not_implemented(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	choose(PTS_MODE_AUTO, false, &k);
	assert_why_has("mremap.levels", 0, "no btf_trace_mm_mremap_move_pud");
	assert_why_has("mremap.levels", 1, "not implemented yet (");
	assert_chosen("mremap.levels", 2);
}

/* a kernel with kernel/patches: its tracepoints come first */
static void test_patched_kernel(void **state)
{
	struct fake_kernel k = kernel_6_7(0);

	k.patched = true;
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", 0);
	assert_true(chosen_cand("mremap.levels")->cfg_flags & PTS_CFG_LEVEL_TPS);
	assert_chosen("thp.fault_alloc", 0);
	assert_true(chosen_cand("thp.fault_alloc")->cfg_flags & PTS_CFG_FAULT_TP);
	/* timing every vm_normal_folio() call is opt-in */
	assert_chosen("mremap.folio_lookups", -1);
	assert_why_has("mremap.folio_lookups", 0, "opt-in, ask with --metric");
	assert_int_equal(engine_opt_in(&eng, "mremap.folio_lookups"), 0);
	assert_int_equal(engine_opt_in(&eng, "mremap.levels"), -ENOENT);
	engine_choose(&eng, fake_check, &k);
	assert_chosen("mremap.folio_lookups", 0);

	/* the level tracepoints count inside mremap calls only */
	k.failing = REQ_BIT(PTS_REQ_FENTRY) | REQ_BIT(PTS_REQ_TRACEFS_EVENT) |
		    REQ_BIT(PTS_REQ_BTF_TRACE);
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.calls", -1);
	assert_why_has("mremap.levels", 0, "needs mremap.calls, which is unavailable");
}

/* the level markers run inside move_page_tables' own probes */
/*
 * 7.3 has pte_offset_map_lock() out of line instead of
 * __pte_offset_map_lock(); batches are inferred from the PTE table the
 * marker reads, from 6.17 on, and counted by the patched tracepoint.
 */
static void test_pte_batches(void **state)
{
	struct fake_kernel k = kernel_6_15(0);
	const struct pts_choice *levels;

	k.minor = 17;
	k.missing = "__pte_offset_map_lock";
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", 2);
	levels = choice_of("mremap.levels");
	assert_string_equal(engine_retarget_of(levels,
					       chosen_cand("mremap.levels"),
					       "lv_fexit_pte_lock"),
			    "pte_offset_map_lock");
	assert_chosen("mremap.pte_batches", 1);
	assert_false(chosen_cand("mremap.pte_batches")->exact);
	assert_true(chosen_cand("mremap.pte_batches")->cfg_flags &
		    PTS_CFG_BATCH_INFER);

	/* kprobes only: the kprobe marker infers them */
	k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY));
	k.minor = 18;
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.pte_batches", 2);

	/* before 6.17 there is nothing to batch */
	k = kernel_6_15(0);
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.pte_batches", -1);
	assert_why("mremap.pte_batches", 1, "kernel 6.15 predates 6.17");

	/* without the PTE-table marker there is nothing to infer from */
	k = kernel_6_15(0);
	k.minor = 17;
	k.missing = "__pte_offset_map_lock";
	k.missing2 = "pte_offset_map_lock";
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.pte_batches", -1);
	assert_why_has("mremap.pte_batches", 1, "which does not give it");

	/* the patched tracepoint counts them on any version */
	k = kernel_6_15(0);
	k.patched = true;
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", 0);
	assert_chosen("mremap.pte_batches", 0);
	assert_true(chosen_cand("mremap.pte_batches")->exact);
}

static void test_levels_follow_move_page_tables(void **state)
{
	struct fake_kernel k = kernel_6_15(0);
	char reason[REASON_LEN];

	/* 6.5+: the PTE-table marker exists */
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", 2);
	assert_true(chosen_cand("mremap.levels")->cfg_flags & PTS_CFG_PTE_MARKER);
	assert_false(chosen_cand("mremap.levels")->exact == false);

	/* 6.1: no __pte_offset_map_lock, inferred levels */
	k = kernel_6_1(0);
	k.missing = "__pte_offset_map_lock";
	k.missing2 = "pte_offset_map_lock";
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", 3);
	assert_false(chosen_cand("mremap.levels")->exact);
	assert_false(chosen_cand("mremap.levels")->cfg_flags & PTS_CFG_PTE_MARKER);

	/* no trampolines (arm64 6.1): kprobes for both */
	k = kernel_6_1(REQ_BIT(PTS_REQ_FENTRY));
	k.missing = "__pte_offset_map_lock";
	k.missing2 = "pte_offset_map_lock";
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen(MPT, 5);
	assert_chosen("mremap.levels", 5);

	/* nothing: the reason names the missing move_page_tables path */
	k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) | REQ_BIT(PTS_REQ_KPROBE));
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", -1);
	assert_why("mremap.levels", 2, "needs mremap.move_page_tables through "
		   "fentry, which is unavailable");
	engine_unavailable_reason(choice_of("mremap.levels"), reason,
				  sizeof(reason));
	assert_non_null(strstr(reason, "through kprobe, which is unavailable"));
}

/*
 * 64 KiB pages: a PTE table (8192 entries) does not fit the PTE marker's
 * buffer, so the levels come from the markers without PTE counts
 */
static void test_levels_pte_table_too_large(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_PTE_TABLE));

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("mremap.levels", 3);
	assert_false(chosen_cand("mremap.levels")->exact);
	assert_false(chosen_cand("mremap.levels")->cfg_flags & PTS_CFG_PTE_MARKER);
	assert_true(chosen_cand("mremap.levels")->cfg_flags & PTS_CFG_PMD_READ);
	assert_why_has("mremap.levels", 2, "kernel: no");
}

/* renamed functions: the first name the kernel has is the target */
static void test_fault_alloc_retargets(void **state)
{
	struct fake_kernel k = kernel_6_1(0);
	const struct pts_choice *ch;

	k.missing = "vma_alloc_folio_noprof";
	choose(PTS_MODE_AUTO, false, &k);
	ch = choice_of("thp.fault_alloc");
	assert_chosen("thp.fault_alloc", 1);
	assert_string_equal(chosen_cand("thp.fault_alloc")->retargets[0].prog,
			    "thp_fexit_alloc");
	assert_string_equal(ch->targets[0], "vma_alloc_folio");
	assert_string_equal(ch->targets[1], "mm_get_huge_zero_folio");

	k = kernel_6_15(0);
	k.missing = "mm_get_huge_zero_folio";
	choose(PTS_MODE_AUTO, false, &k);
	ch = choice_of("thp.fault_alloc");
	assert_string_equal(ch->targets[0], "vma_alloc_folio_noprof");
	assert_string_equal(ch->targets[1], "mm_get_huge_zero_page");
}

/* no fentry, no kprobes: the tracepoint inference, marked inferred */
static void test_fault_alloc_tracepoint_fallback(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_KPROBE));

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("thp.fault_alloc", 3);
	assert_false(chosen_cand("thp.fault_alloc")->exact);
	assert_why("thp.fault_alloc", 1, FENTRY_REFUSED);
	assert_why("thp.fault_alloc", 2, KPROBE_REFUSED);
}

static void test_reason_truncated(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_KPROBE));
	char buf[64];

	choose(PTS_MODE_AUTO, false, &k);
	memset(buf, '#', sizeof(buf));
	engine_unavailable_reason(choice_of(MPT), buf, 32);
	assert_int_equal(strlen(buf), 31);
	assert_memory_equal(buf, FENTRY_REFUSED "; " KPROBE_REFUSED, 31);
	assert_int_equal(buf[32], '#');
}

/* (i) */
static void test_follow_fork(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	choose(PTS_MODE_AUTO, false, &k);
	assert_null(engine_choice(&eng, "task.follow_fork"));
	assert_false(engine_available(&eng, "task.follow_fork"));

	choose(PTS_MODE_AUTO, true, &k);
	assert_true(eng.follow_fork);
	assert_int_equal(eng.nr_choices, pts_catalog_len);
	assert_chosen("task.follow_fork", 0);
	assert_string_equal(chosen_cand("task.follow_fork")->progs[0],
			    "task_fork");
}

/* every tracer forgets exited processes, stat or not */
static void test_task_exit(void **state)
{
	struct fake_kernel k = kernel_6_15(0);

	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("task.exit", 0);
	assert_string_equal(chosen_cand("task.exit")->progs[0],
			    "task_exit_btf");

	k = kernel_6_15(REQ_BIT(PTS_REQ_BTF_TRACE));
	choose(PTS_MODE_AUTO, false, &k);
	assert_chosen("task.exit", 1);
	assert_string_equal(chosen_cand("task.exit")->progs[0],
			    "task_exit_tp");
}

/* (j) */
static void test_lookups(void **state)
{
	struct fake_kernel k = kernel_6_15(REQ_BIT(PTS_REQ_FENTRY) |
					   REQ_BIT(PTS_REQ_KPROBE));
	const struct pts_choice *ch;

	engine_init(&eng, PTS_MODE_AUTO, false);
	assert_false(engine_available(&eng, "mremap.calls"));
	engine_choose(&eng, fake_check, &k);

	ch = engine_choice(&eng, "mremap.calls");
	assert_non_null(ch);
	assert_ptr_equal(ch->metric, catalog_find("mremap.calls"));
	assert_ptr_equal(engine_choice(&eng, MPT)->metric, catalog_find(MPT));
	assert_true(engine_available(&eng, "mremap.calls"));
	assert_true(engine_available(&eng, "thp.collapse"));
	assert_false(engine_available(&eng, MPT));
	assert_false(engine_available(&eng, "mremap.levels"));
	assert_null(engine_choice(&eng, "nope"));
	assert_null(engine_choice(&eng, "mremap"));
	assert_null(engine_choice(&eng, ""));
	assert_false(engine_available(&eng, "nope"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init),
		cmocka_unit_test(test_all_pass_calls_use_fentry),
		cmocka_unit_test(test_calls_fentry_arm64_name),
		cmocka_unit_test(test_fentry_refused_calls_use_tracefs),
		cmocka_unit_test(test_all_pass_mpt_pmc),
		cmocka_unit_test(test_all_pass_mpt_7args),
		cmocka_unit_test(test_all_pass_mpt_6args),
		cmocka_unit_test(test_fentry_fails_pmc_uses_kprobe),
		cmocka_unit_test(test_fentry_fails_scalar_uses_kprobe),
		cmocka_unit_test(test_tracepoints_only),
		cmocka_unit_test(test_tracepoints_without_fault_boundaries),
		cmocka_unit_test(test_first_failing_requirement_stops),
		cmocka_unit_test(test_other_kernel_flags),
		cmocka_unit_test(test_no_tracefs_uses_btf_tracepoints),
		cmocka_unit_test(test_no_tracepoints_at_all),
		cmocka_unit_test(test_mode_tracepoint),
		cmocka_unit_test(test_mode_kprobe),
		cmocka_unit_test(test_mode_kprobe_scalar),
		cmocka_unit_test(test_mode_kprobe_fault_alloc),
		cmocka_unit_test(test_mode_fentry_refused),
		cmocka_unit_test(test_refused_candidate_skipped),
		cmocka_unit_test(test_all_refused),
		cmocka_unit_test(test_rechoose_refreshes_reasons),
		cmocka_unit_test(test_levels_not_implemented),
		cmocka_unit_test(test_patched_kernel),
		cmocka_unit_test(test_levels_follow_move_page_tables),
		cmocka_unit_test(test_pte_batches),
		cmocka_unit_test(test_levels_pte_table_too_large),
		cmocka_unit_test(test_fault_alloc_retargets),
		cmocka_unit_test(test_fault_alloc_tracepoint_fallback),
		cmocka_unit_test(test_reason_truncated),
		cmocka_unit_test(test_follow_fork),
		cmocka_unit_test(test_task_exit),
		cmocka_unit_test(test_lookups),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
