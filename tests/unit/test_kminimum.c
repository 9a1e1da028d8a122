// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for the least kernel ptscope runs on (src/engine/kminimum.c):
 * the one message a kernel too old or without BTF gets, checked here for
 * kernels this machine is not.
 */
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <string.h>
#include "engine/kminimum.h"

static char why[PTS_KMINIMUM_WHY_LEN];

static int check(const char *release, bool has_btf)
{
	why[0] = '\0';
	return kminimum_check(release, has_btf, why, sizeof(why));
}

/* the message names what works, whatever is missing */
static void assert_says_what_works(void)
{
	assert_non_null(strstr(why, "needs Linux 5.10 or later"));
	assert_non_null(strstr(why, "CONFIG_DEBUG_INFO_BTF=y"));
}

static void test_supported(void **state)
{
	assert_int_equal(check("5.10.0-46-cloud-amd64", true), 0);
	assert_string_equal(why, "");
	assert_int_equal(check("6.1.0-44-arm64", true), 0);
	assert_int_equal(check("7.3.4+deb13-cloud-amd64", true), 0);
	assert_int_equal(check("10.0.0", true), 0);
}

static void test_too_old(void **state)
{
	assert_int_equal(check("5.4.0-216-generic", true), -EOPNOTSUPP);
	assert_non_null(strstr(why, "kernel 5.4.0-216-generic is too old:"));
	assert_null(strstr(why, "no kernel BTF"));
	assert_says_what_works();
	assert_int_equal(check("4.19.0-27-amd64", true), -EOPNOTSUPP);
	assert_int_equal(check("5.9.16", true), -EOPNOTSUPP);
}

static void test_no_btf(void **state)
{
	assert_int_equal(check("6.1.0-44-amd64", false), -EOPNOTSUPP);
	assert_non_null(strstr(why, "kernel 6.1.0-44-amd64 has no kernel BTF:"));
	assert_says_what_works();
}

static void test_both_missing(void **state)
{
	assert_int_equal(check("4.19.0-27-amd64", false), -EOPNOTSUPP);
	assert_non_null(strstr(why, "is too old and has no kernel BTF:"));
	assert_says_what_works();
}

/* a release that is not MAJOR.MINOR is not refused for its number */
static void test_unreadable_release(void **state)
{
	assert_int_equal(check("custom", true), 0);
	assert_int_equal(check("custom", false), -EOPNOTSUPP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_supported),
		cmocka_unit_test(test_too_old),
		cmocka_unit_test(test_no_btf),
		cmocka_unit_test(test_both_missing),
		cmocka_unit_test(test_unreadable_release),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
