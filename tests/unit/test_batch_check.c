// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/engine/batch_check.c: the start-up check takes the
 * one lookup rule whose model gave the kernel's folio lookups and the
 * geometry's PTEs on every move that ran, and none (with the reason) when
 * no rule or more than one does; moves that did not run do not count.
 * The counts are those of Debian's 7.3.4 amd64 kernel (hinted) and the
 * lab's regression kernel (every-present) under qemu.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <string.h>
#include "engine/batch_check.h"

static struct pts_batch_check bc;

/* a move that ran: the model's lookups under each rule, the kernel's */
static void add_move(__u64 ptes, __u64 hinted, __u64 every, __u64 kernel)
{
	struct pts_check_shape *sh = &bc.shapes[bc.nr_shapes++];

	sh->name = "move";
	sh->ran = true;
	sh->ptes_expected = ptes;
	sh->seen[PTS_LOOKUP_HINTED] = (struct pts_check_counts){
		.ptes = ptes, .lookups = hinted, .vnf_calls = kernel };
	sh->seen[PTS_LOOKUP_EVERY_PRESENT] = (struct pts_check_counts){
		.ptes = ptes, .lookups = every, .vnf_calls = kernel };
}

static int setup(void **state)
{
	memset(&bc, 0, sizeof(bc));
	bc.ran = true;
	return 0;
}

static void test_fixed_kernel_is_hinted(void **state)
{
	add_move(256, 0, 253, 0);
	add_move(512, 0, 1, 0);
	add_move(256, 0, 8, 0);
	assert_int_equal(batch_check_choose(&bc), PTS_LOOKUP_HINTED);
	assert_string_equal(batch_rule_name(bc.rule), "hinted");
}

static void test_regression_is_every_present(void **state)
{
	add_move(256, 0, 253, 253);
	add_move(512, 0, 1, 1);
	assert_int_equal(batch_check_choose(&bc), PTS_LOOKUP_EVERY_PRESENT);
}

/* a kernel whose lookups neither model gives: withdrawn, with the reason */
static void test_no_rule_fits(void **state)
{
	add_move(256, 0, 253, 0);
	add_move(512, 0, 1, 4);
	assert_int_equal(batch_check_choose(&bc), -1);
	assert_int_equal(bc.rule, -1);
	assert_non_null(strstr(bc.note, "no known lookup rule"));
}

/* the model must also see the geometry's PTEs */
static void test_wrong_ptes_fit_nothing(void **state)
{
	add_move(256, 0, 253, 0);
	bc.shapes[0].seen[PTS_LOOKUP_HINTED].ptes = 255;
	assert_int_equal(batch_check_choose(&bc), -1);
}

/* where every move gives both the same count, the rule would be a guess */
static void test_both_fit_is_a_guess(void **state)
{
	add_move(1, 0, 0, 0);
	assert_int_equal(batch_check_choose(&bc), -1);
	assert_non_null(strstr(bc.note, "more than one"));
}

/* a move that could not run (THP off) is left out, not failed */
static void test_unrun_move_left_out(void **state)
{
	add_move(256, 0, 253, 253);
	bc.shapes[bc.nr_shapes].name = "PMD THP";
	snprintf(bc.shapes[bc.nr_shapes].note, PTS_CHECK_NOTE_LEN, "not run");
	bc.nr_shapes++;
	assert_int_equal(batch_check_choose(&bc), PTS_LOOKUP_EVERY_PRESENT);
}

static void test_summary_names_rule_and_moves(void **state)
{
	char buf[2048];

	add_move(256, 0, 253, 253);
	batch_check_choose(&bc);
	batch_check_summary(&bc, buf, sizeof(buf));
	assert_non_null(strstr(buf, "rule every-present"));
	assert_non_null(strstr(buf, "the kernel made 253 lookups"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_fixed_kernel_is_hinted, setup),
		cmocka_unit_test_setup(test_regression_is_every_present, setup),
		cmocka_unit_test_setup(test_no_rule_fits, setup),
		cmocka_unit_test_setup(test_wrong_ptes_fit_nothing, setup),
		cmocka_unit_test_setup(test_both_fit_is_a_guess, setup),
		cmocka_unit_test_setup(test_unrun_move_left_out, setup),
		cmocka_unit_test_setup(test_summary_names_rule_and_moves, setup),
	};

	return cmocka_run_group_tests_name("batch_check", tests, NULL, NULL);
}
