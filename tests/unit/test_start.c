// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for what src/views/start.c says at startup: the note on
 * attach paths that slow every syscall on the box, over the real catalog.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "engine/catalog.h"
#include "engine/engine.h"
#include "views/start.h"
#include "fake_engine.h"

#define NOTE_LEN	1024

static struct pts_engine eng;
static char note[NOTE_LEN];

/* attach @metric through its first candidate of @kind */
static void choose_kind(const char *metric, enum pts_path_kind kind)
{
	struct pts_choice *ch = fake_choice(&eng, metric);
	int i;

	for (i = 0; i < ch->metric->nr_cands; i++) {
		if (ch->metric->cands[i].kind == kind) {
			ch->chosen = i;
			return;
		}
	}
	fail_msg("%s has no %s candidate", metric, path_kind_name(kind));
}

static void assert_starts_with(const char *s, const char *prefix)
{
	if (strncmp(s, prefix, strlen(prefix)))
		fail_msg("'%s' does not start with '%s'", s, prefix);
}

static void assert_contains(const char *s, const char *part)
{
	if (!strstr(s, part))
		fail_msg("'%s' lacks '%s'", s, part);
}

/* fentry for mremap.calls, nothing on syscall tracepoints: no note */
static void test_fentry_no_note(void **state)
{
	engine_init(&eng, PTS_MODE_AUTO, false);
	choose_kind("mremap.calls", PTS_PATH_FENTRY);
	choose_kind("thp.fault_alloc", PTS_PATH_FENTRY);
	choose_kind("thp.collapse", PTS_PATH_TRACEPOINT);
	strcpy(note, "stale");
	assert_int_equal(view_syscall_tax_note(&eng, note, sizeof(note)), 0);
	assert_string_equal(note, "");
	assert_false(view_taxes_syscalls(fake_choice(&eng, "mremap.calls")));
}

/* an unavailable metric is on no path at all */
static void test_unavailable_not_named(void **state)
{
	engine_init(&eng, PTS_MODE_AUTO, false);
	assert_false(view_taxes_syscalls(fake_choice(&eng, "mremap.calls")));
	assert_int_equal(view_syscall_tax_note(&eng, note, sizeof(note)), 0);
}

/* auto fell back to the tracepoints: one metric, fentry not available */
static void test_one_metric_auto(void **state)
{
	char want[200];

	engine_init(&eng, PTS_MODE_AUTO, false);
	choose_kind("mremap.calls", PTS_PATH_TRACEPOINT);
	choose_kind("thp.collapse", PTS_PATH_TRACEPOINT);
	assert_true(view_taxes_syscalls(fake_choice(&eng, "mremap.calls")));
	assert_false(view_taxes_syscalls(fake_choice(&eng, "thp.collapse")));
	assert_int_equal(view_syscall_tax_note(&eng, note, sizeof(note)), 1);
	snprintf(want, sizeof(want), "mremap.calls is on syscall tracepoints, "
		 "which slow every syscall on this box while ptscope runs "
		 "(about +%d ns each ", PTS_SYSCALL_TAX_NS);
	assert_starts_with(note, want);
	assert_contains(note, "where make bench-overhead measured it");
	assert_contains(note, "fentry would avoid that but is not available here");
	assert_null(strchr(note, '\n'));
}

/* the raw_syscalls candidate counts too */
static void test_raw_syscalls(void **state)
{
	struct pts_choice *ch;

	engine_init(&eng, PTS_MODE_AUTO, false);
	ch = fake_choice(&eng, "mremap.calls");
	while (++ch->chosen < ch->metric->nr_cands)
		if (strstr(ch->metric->cands[ch->chosen].label, "raw_syscalls"))
			break;
	assert_true(ch->chosen < ch->metric->nr_cands);
	assert_int_equal(view_syscall_tax_note(&eng, note, sizeof(note)), 1);
	assert_starts_with(note, "mremap.calls is on ");
}

/* --mode tracepoint: both metrics listed, fentry never tried */
static void test_two_metrics_mode_tracepoint(void **state)
{
	engine_init(&eng, PTS_PATH_TRACEPOINT, false);
	choose_kind("mremap.calls", PTS_PATH_TRACEPOINT);
	choose_kind("thp.fault_alloc", PTS_PATH_TRACEPOINT);
	choose_kind("thp.collapse", PTS_PATH_TRACEPOINT);
	assert_int_equal(view_syscall_tax_note(&eng, note, sizeof(note)), 2);
	assert_starts_with(note, "mremap.calls, thp.fault_alloc are on "
			   "syscall tracepoints, ");
	assert_contains(note, "where fentry loads, --mode auto or fentry "
			"avoids that");
	assert_null(strstr(note, "not available here"));
}

/* a short buffer: cut, terminated, the count still right */
static void test_short_buffer(void **state)
{
	char small[16];

	engine_init(&eng, PTS_MODE_AUTO, false);
	choose_kind("mremap.calls", PTS_PATH_TRACEPOINT);
	choose_kind("thp.fault_alloc", PTS_PATH_TRACEPOINT);
	memset(small, 'x', sizeof(small));
	assert_int_equal(view_syscall_tax_note(&eng, small, sizeof(small)), 2);
	assert_int_equal(strlen(small), sizeof(small) - 1);
	assert_starts_with(small, "mremap.calls, t");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fentry_no_note),
		cmocka_unit_test(test_unavailable_not_named),
		cmocka_unit_test(test_one_metric_auto),
		cmocka_unit_test(test_raw_syscalls),
		cmocka_unit_test(test_two_metrics_mode_tracepoint),
		cmocka_unit_test(test_short_buffer),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
