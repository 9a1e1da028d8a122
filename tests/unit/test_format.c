// SPDX-License-Identifier: GPL-2.0
/* Unit tests for src/format.c. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <ptscope/ptscope.h>
#include "data/collector.h"
#include "data/format.h"
#include "render/report.h"
#include "views/views.h"

#define KIB ((uint64_t)1024)
#define MIB (KIB * 1024)
#define GIB (MIB * 1024)
#define TIB (GIB * 1024)

static void assert_bytes(uint64_t bytes, const char *want)
{
	char buf[32];

	assert_ptr_equal(fmt_bytes(buf, sizeof(buf), bytes), buf);
	assert_string_equal(buf, want);
}

static void assert_ns(double ns, const char *want)
{
	char buf[32];

	assert_ptr_equal(fmt_ns(buf, sizeof(buf), ns), buf);
	assert_string_equal(buf, want);
}

static void assert_order_size(unsigned int order, uint64_t page_size,
			      const char *want)
{
	char buf[16];

	assert_ptr_equal(fmt_order_size(buf, sizeof(buf), order, page_size),
			 buf);
	assert_string_equal(buf, want);
}

static void test_bytes_plain(void **state)
{
	assert_bytes(0, "0 B");
	assert_bytes(1, "1 B");
	assert_bytes(1023, "1023 B");
}

static void test_bytes_units(void **state)
{
	assert_bytes(KIB, "1.00 KiB");
	assert_bytes(1536, "1.50 KiB");
	assert_bytes(10 * KIB, "10.0 KiB");
	assert_bytes(100 * KIB, "100 KiB");
	assert_bytes(MIB, "1.00 MiB");
	assert_bytes(16 * MIB, "16.0 MiB");
	assert_bytes(2 * MIB + MIB / 4, "2.25 MiB");
	assert_bytes(GIB, "1.00 GiB");
	assert_bytes(512 * GIB, "512 GiB");
	assert_bytes(TIB, "1.00 TiB");
}

/* TiB is the largest unit */
static void test_bytes_huge(void **state)
{
	assert_bytes(1024 * TIB, "1024 TiB");
	assert_bytes(UINT64_MAX, "16777216 TiB");
}

static void test_bytes_truncates(void **state)
{
	char buf[16];

	memset(buf, '#', sizeof(buf));
	assert_ptr_equal(fmt_bytes(buf, 5, 16 * MIB), buf);
	assert_string_equal(buf, "16.0");
	assert_int_equal(buf[5], '#');
}

static void test_ns_ranges(void **state)
{
	assert_ns(0, "0 ns");
	assert_ns(1, "1 ns");
	assert_ns(999, "999 ns");
	assert_ns(1000, "1.0 us");
	assert_ns(1500, "1.5 us");
	assert_ns(999000, "999.0 us");
	assert_ns(1e6, "1.00 ms");
	assert_ns(2.5e6, "2.50 ms");
	assert_ns(999e6, "999.00 ms");
	assert_ns(1e9, "1.00 s");
	assert_ns(65e9, "65.00 s");
}

static void test_ns_fractions(void **state)
{
	assert_ns(12.4, "12 ns");
	assert_ns(1234, "1.2 us");
	assert_ns(1234567, "1.23 ms");
	assert_ns(1234567890, "1.23 s");
}

static void test_order_size(void **state)
{
	assert_order_size(4, 4096, "64K");
	assert_order_size(9, 4096, "2M");
	assert_order_size(0, 4096, "4K");
	assert_order_size(4, 16384, "256K");
	assert_order_size(1, 4096, "8K");
	assert_order_size(8, 4096, "1M");
	assert_order_size(10, 4096, "4M");
	assert_order_size(11, 16384, "32M");
	assert_order_size(0, 65536, "64K");
	assert_order_size(13, 65536, "512M");
}

static void test_class_names(void **state)
{
	assert_int_equal(PTS_MREMAP_CLASSES, 5);
	assert_string_equal(mremap_class_name(PTS_MREMAP_PUD), "pud");
	assert_string_equal(mremap_class_name(PTS_MREMAP_PMD), "pmd");
	assert_string_equal(mremap_class_name(PTS_MREMAP_PTE), "pte");
	assert_string_equal(mremap_class_name(PTS_MREMAP_INPLACE), "in_place");
	assert_string_equal(mremap_class_name(PTS_MREMAP_FAILED), "failed");
	assert_string_equal(mremap_class_name(PTS_MREMAP_CLASSES), "?");
	assert_string_equal(mremap_class_name(100), "?");
	assert_string_equal(mremap_class_name(UINT_MAX), "?");
}

static void test_class_descs(void **state)
{
	unsigned int i;

	for (i = 0; i < PTS_MREMAP_CLASSES; i++) {
		assert_non_null(mremap_class_desc(i));
		assert_true(strlen(mremap_class_desc(i)) > 0);
		assert_string_not_equal(mremap_class_desc(i), "?");
	}
	assert_string_equal(mremap_class_desc(PTS_MREMAP_INPLACE),
			    "resized in place");
	assert_string_equal(mremap_class_desc(PTS_MREMAP_FAILED), "failed");
	assert_string_equal(mremap_class_desc(PTS_MREMAP_CLASSES), "?");
	assert_string_equal(mremap_class_desc(UINT_MAX), "?");
}

/* ESC, BEL, a CSI sequence, DEL and UTF-8 C1 (CSI) become \xNN */
static void test_escape_controls(void **state)
{
	char buf[128];

	assert_string_equal(fmt_escape(buf, sizeof(buf), "a\033[2Jb\007"),
			    "a\\x1b[2Jb\\x07");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "\t\n\r\177"),
			    "\\x09\\x0a\\x0d\\x7f");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "x\xc2\x9b" "31m"),
			    "x\\xc2\\x9b31m");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "a\\x1b"), "a\\\\x1b");
	assert_null(strchr(buf, '\033'));
}

/* printable ASCII and UTF-8 (an e acute, a CJK character) are kept */
static void test_escape_keeps_text(void **state)
{
	char buf[64];

	assert_string_equal(fmt_escape(buf, sizeof(buf), "stress-ng-vm"),
			    "stress-ng-vm");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "caf\xc3\xa9 \xe4\xb8\xad"),
			    "caf\xc3\xa9 \xe4\xb8\xad");
	assert_string_equal(fmt_escape(buf, sizeof(buf), ""), "");
}

/* bytes of no well-formed UTF-8 sequence are escaped, one by one */
static void test_escape_invalid_utf8(void **state)
{
	char buf[128];

	/* a lone C1 byte (CSI in 8-bit terminals), a stray continuation */
	assert_string_equal(fmt_escape(buf, sizeof(buf), "a\x9b" "b\x80"),
			    "a\\x9bb\\x80");
	/* overlong ESC (0xc0 0x9b), a surrogate, above U+10FFFF, cut short */
	assert_string_equal(fmt_escape(buf, sizeof(buf), "\xc0\x9b"),
			    "\\xc0\\x9b");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "\xed\xa0\x80"),
			    "\\xed\\xa0\\x80");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "\xf4\x90\x80\x80"),
			    "\\xf4\\x90\\x80\\x80");
	assert_string_equal(fmt_escape(buf, sizeof(buf), "x\xe4\xb8"),
			    "x\\xe4\\xb8");
	/* a 4-byte character is kept whole */
	assert_string_equal(fmt_escape(buf, sizeof(buf), "\xf0\x9f\x90\xa7"),
			    "\xf0\x9f\x90\xa7");
}

/* @in as JSON through fmt_json_string, and read back */
static void assert_json_string(const char *in, const char *want_json,
			       const char *want_back)
{
	json_object *o = fmt_json_string(in), *back;
	const char *text;

	assert_non_null(o);
	text = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	assert_string_equal(text, want_json);
	back = json_tokener_parse(text);
	assert_non_null(back);
	assert_string_equal(json_object_get_string(back), want_back);
	json_object_put(back);
	json_object_put(o);
}

/* C0, DEL and C1 as \u escapes, invalid bytes as U+FFFD, text kept */
static void test_json_string(void **state)
{
	assert_json_string("a\033[1m\007", "\"a\\u001b[1m\\u0007\"",
			   "a\033[1m\007");
	assert_json_string("\177x\xc2\x9by", "\"\\u007fx\\u009by\"",
			   "\177x\xc2\x9by");
	assert_json_string("q\"b\\s/", "\"q\\\"b\\\\s/\"", "q\"b\\s/");
	assert_json_string("caf\xc3\xa9", "\"caf\xc3\xa9\"", "caf\xc3\xa9");
	assert_json_string("a\xff" "b", "\"a\\ufffd" "b\"", "a\xef\xbf\xbd" "b");
}

/* truncation never leaves half an escape, nor overruns */
static void test_escape_truncates(void **state)
{
	char buf[8];

	memset(buf, 'Z', sizeof(buf));
	assert_string_equal(fmt_escape(buf, 7, "ab\033cd"), "ab\\x1b");
	assert_int_equal(buf[7], 'Z');
	assert_string_equal(fmt_escape(buf, 6, "ab\033cd"), "ab");
	assert_string_equal(fmt_escape(buf, 1, "abc"), "");
}

/*
 * This binary's qsort(): view_top.o's call binds to it at link time, so
 * the test sees each call.  glibc's does not fault on qsort(NULL, 0, ...),
 * which is undefined all the same: an empty frame must make no call.
 * Insertion sort.
 */
static int qsort_calls;

void qsort(void *base, size_t n, size_t size,
	   int (*cmp)(const void *, const void *))
{
	char *a = base, tmp;
	size_t i, j, b;

	qsort_calls++;
	for (i = 1; i < n; i++)
		for (j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
			for (b = 0; b < size; b++) {
				tmp = a[(j - 1) * size + b];
				a[(j - 1) * size + b] = a[j * size + b];
				a[j * size + b] = tmp;
			}
}

/* an empty frame (no procs, NULL array) is not handed to qsort() */
static void test_top_sort_empty_frame(void **state)
{
	struct pts_proc_entry procs[2] = {};
	struct pts_snapshot empty = {}, two = {};

	qsort_calls = 0;
	report_sort_procs(&empty, PTS_SORT_ACTIVITY);
	assert_int_equal(qsort_calls, 0);
	/* the witness: a frame with processes does reach this qsort() */
	procs[0].tgid = 10;
	procs[1].tgid = 20;
	procs[1].stats.v[PTS_P_MREMAP_CALLS + PTS_MREMAP_PMD] = 5;
	two.procs = procs;
	two.nr_procs = 2;
	report_sort_procs(&two, PTS_SORT_ACTIVITY);
	assert_int_equal(qsort_calls, 1);
	assert_int_equal(procs[0].tgid, 20);
}

/* a known instant: 2026-12-04 16:34:50.123456789 UTC */
static const struct timespec instant = { 1796402090, 123456789 };

static void test_time_iso_utc(void **state)
{
	char buf[40];

	/* UTC whatever the local zone: never the local time */
	setenv("TZ", "EST5", 1);	/* POSIX zones: no tzdata needed */
	tzset();
	assert_string_equal(fmt_time_iso_utc(buf, sizeof(buf), &instant),
			    "2026-12-04T16:34:50.123456Z");
}

static void test_time_local(void **state)
{
	char buf[40];

	setenv("TZ", "UTC", 1);
	tzset();
	assert_string_equal(fmt_time_local(buf, sizeof(buf), &instant),
			    "16:34:50.123456");
	/* the local zone, as perf and bpftrace print it */
	setenv("TZ", "IST-5:30", 1);
	tzset();
	assert_string_equal(fmt_time_local(buf, sizeof(buf), &instant),
			    "22:04:50.123456");
}

static void assert_secs(double secs, const char *want)
{
	char buf[32];

	assert_string_equal(fmt_secs(buf, sizeof(buf), secs), want);
}

static void test_secs(void **state)
{
	assert_secs(1, "1 s");
	assert_secs(2.0003, "2 s");
	assert_secs(2.5, "2.5 s");
	assert_secs(0.25, "0.25 s");
	assert_secs(10, "10 s");
	assert_secs(0.001, "0 s");
}

static void test_fit_columns(void **state)
{
	assert_int_equal(fmt_fit_columns("abcdef", 4), 4);
	assert_int_equal(fmt_fit_columns("abc", 80), 3);
	assert_int_equal(fmt_fit_columns("abc", 0), 0);
	/* "\u00e9" is two bytes and one column: never cut in half */
	assert_int_equal(fmt_fit_columns("a\xc3\xa9" "b", 2), 3);
	assert_int_equal(fmt_fit_columns("a\xc3\xa9" "b", 3), 4);
	assert_int_equal(fmt_fit_columns("\xe2\x82\xac", 1), 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bytes_plain),
		cmocka_unit_test(test_bytes_units),
		cmocka_unit_test(test_bytes_huge),
		cmocka_unit_test(test_bytes_truncates),
		cmocka_unit_test(test_ns_ranges),
		cmocka_unit_test(test_ns_fractions),
		cmocka_unit_test(test_order_size),
		cmocka_unit_test(test_class_names),
		cmocka_unit_test(test_class_descs),
		cmocka_unit_test(test_escape_controls),
		cmocka_unit_test(test_escape_keeps_text),
		cmocka_unit_test(test_escape_truncates),
		cmocka_unit_test(test_escape_invalid_utf8),
		cmocka_unit_test(test_json_string),
		cmocka_unit_test(test_top_sort_empty_frame),
		cmocka_unit_test(test_time_iso_utc),
		cmocka_unit_test(test_time_local),
		cmocka_unit_test(test_secs),
		cmocka_unit_test(test_fit_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
