// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/data/hist.c and include/ptscope/log2.h: the slot the
 * BPF programs put a value in (pts_log2_slot()) against hand-computed
 * boundaries, and the bounds user space reports for each slot.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "data/hist.h"
#include <ptscope/log2.h>
#include "render/hist_print.h"

/* 64-bit xorshift, so the "many values" are the same on every run */
static uint64_t next_random(uint64_t *state)
{
	uint64_t x = *state;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	*state = x;
	return x;
}

static void hist_add(struct pts_hist *h, uint64_t value, uint64_t times)
{
	h->slots[pts_log2_slot(value)] += times;
	h->count += times;
	h->sum += value * times;
}

/* 2^k - 1 ends slot k - 1, 2^k and 2^k + 1 are in slot k (2 + 1 is too) */
static void test_slot_powers_of_two(void **state)
{
	uint64_t pow;
	unsigned int k;

	for (k = 1; k <= 63; k++) {
		pow = (uint64_t)1 << k;
		assert_int_equal(pts_log2_slot(pow - 1), k - 1);
		assert_int_equal(pts_log2_slot(pow), k);
		assert_int_equal(pts_log2_slot(pow + 1), k);
		/* the midpoint and the last value of slot k */
		assert_int_equal(pts_log2_slot(pow | (pow >> 1)), k);
		assert_int_equal(pts_log2_slot(pow + (pow - 1)), k);
	}
}

static void test_slot_max(void **state)
{
	assert_int_equal(pts_log2_slot(UINT64_MAX), 63);
	assert_int_equal(pts_log2_slot(UINT64_MAX - 1), 63);
	assert_true(pts_log2_slot(UINT64_MAX) < PTS_HIST_SLOTS);
}

/*
 * Known slots, written out rather than computed: slot i holds
 * [2^i, 2^(i+1)), slot 0 also holds 0.
 */
static const struct {
	uint64_t value;
	unsigned int slot;
} known_slots[] = {
	{ 0, 0 },
	{ 1, 0 },
	{ 2, 1 },
	{ 3, 1 },
	{ 4, 2 },
	{ 5, 2 },
	{ 6, 2 },
	{ 7, 2 },
	{ 8, 3 },
	{ 15, 3 },
	{ 16, 4 },
	{ 255, 7 },
	{ 256, 8 },
	{ 1023, 9 },
	{ 1024, 10 },
	{ 4095, 11 },
	{ 4096, 12 },
	{ 65535, 15 },
	{ 65536, 16 },
	{ 0xffffffffULL, 31 },
	{ 0x100000000ULL, 32 },
	{ 0x100000001ULL, 32 },
	{ 0x1ffffffffULL, 32 },
	{ 0x200000000ULL, 33 },
	{ 0xffffffffffffULL, 47 },
	{ 0x7fffffffffffffffULL, 62 },
	{ 0x8000000000000000ULL, 63 },
	{ 0x8000000000000001ULL, 63 },
	{ UINT64_MAX - 1, 63 },
	{ UINT64_MAX, 63 },
};

static void test_slot_known_values(void **state)
{
	size_t i;

	for (i = 0; i < sizeof(known_slots) / sizeof(known_slots[0]); i++)
		assert_int_equal(pts_log2_slot(known_slots[i].value),
				 known_slots[i].slot);
}

/* the slot by definition: how many times v can be halved before it is 1 */
static unsigned int slot_by_halving(uint64_t v)
{
	unsigned int slot = 0;

	while (v > 1) {
		v /= 2;
		slot++;
	}
	return slot;
}

/* every value up to 70000, then many values of every magnitude */
static void test_slot_by_definition(void **state)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL, v;
	int i;

	for (v = 0; v < 70000; v++)
		assert_int_equal(pts_log2_slot(v), slot_by_halving(v));
	for (i = 0; i < 100000; i++) {
		v = next_random(&seed) >> (i % 64);
		assert_int_equal(pts_log2_slot(v), slot_by_halving(v));
	}
}

static void test_slot_bounds(void **state)
{
	unsigned int i;

	assert_int_equal(hist_slot_low(0), 0);
	assert_int_equal(hist_slot_high(0), 1);
	assert_int_equal(hist_slot_low(1), 2);
	assert_int_equal(hist_slot_high(1), 3);
	assert_int_equal(hist_slot_low(10), 1024);
	assert_int_equal(hist_slot_high(10), 2047);
	for (i = 1; i < PTS_HIST_SLOTS - 1; i++) {
		assert_int_equal(hist_slot_low(i), (uint64_t)1 << i);
		assert_int_equal(hist_slot_high(i),
				 ((uint64_t)1 << (i + 1)) - 1);
		/* slots tile the range without gaps or overlaps */
		assert_int_equal(hist_slot_low(i + 1), hist_slot_high(i) + 1);
	}
	assert_int_equal(hist_slot_low(PTS_HIST_SLOTS - 1), (uint64_t)1 << 63);
	assert_int_equal(hist_slot_high(PTS_HIST_SLOTS - 1), UINT64_MAX);
}

/* the bounds user space prints hold the values the BPF side slots there */
static void assert_value_in_its_slot(uint64_t v)
{
	unsigned int slot = pts_log2_slot(v);

	assert_true(v >= hist_slot_low(slot));
	assert_true(v <= hist_slot_high(slot));
}

static void test_value_within_slot_bounds(void **state)
{
	uint64_t seed = 0x2545f4914f6cdd1dULL, v;
	unsigned int k;
	int i;

	for (v = 0; v < 5000; v++)
		assert_value_in_its_slot(v);
	for (k = 1; k < 64; k++) {
		v = (uint64_t)1 << k;
		assert_value_in_its_slot(v - 1);
		assert_value_in_its_slot(v);
		assert_value_in_its_slot(v + 1);
	}
	assert_value_in_its_slot(UINT64_MAX);
	for (i = 0; i < 100000; i++)
		assert_value_in_its_slot(next_random(&seed) >> (i % 64));
}

static void test_mean(void **state)
{
	struct pts_hist h = { 0 };

	assert_true(hist_mean(&h) == 0.0);
	hist_add(&h, 10, 1);
	hist_add(&h, 20, 1);
	hist_add(&h, 31, 1);
	assert_true(hist_mean(&h) == 61.0 / 3.0);
	memset(&h, 0, sizeof(h));
	h.count = 4;
	h.sum = 1000;
	assert_true(hist_mean(&h) == 250.0);
}

/* 1 x 1 (slot 0), 2 x 3 (slot 1), 7 x 100 (slot 6) */
static void fill_known(struct pts_hist *h)
{
	memset(h, 0, sizeof(*h));
	hist_add(h, 1, 1);
	hist_add(h, 3, 2);
	hist_add(h, 100, 7);
}

static void test_merge_sub_round_trip(void **state)
{
	struct pts_hist a, b = { 0 }, sum, back;

	fill_known(&a);
	hist_add(&b, 0, 4);
	hist_add(&b, 100, 1);
	hist_add(&b, (uint64_t)1 << 40, 2);

	sum = a;
	hist_merge(&sum, &b);
	assert_int_equal(sum.count, 17);
	assert_int_equal(sum.sum, a.sum + b.sum);
	assert_int_equal(sum.slots[0], 5);
	assert_int_equal(sum.slots[1], 2);
	assert_int_equal(sum.slots[6], 8);
	assert_int_equal(sum.slots[40], 2);

	hist_sub(&back, &sum, &b);
	assert_memory_equal(&back, &a, sizeof(a));
	hist_sub(&back, &sum, &a);
	assert_memory_equal(&back, &b, sizeof(b));
}

static void test_sub_of_itself_is_empty(void **state)
{
	struct pts_hist a, zero = { 0 }, out;

	fill_known(&a);
	memset(&out, 0xff, sizeof(out));
	hist_sub(&out, &a, &a);
	assert_memory_equal(&out, &zero, sizeof(zero));
	assert_int_equal(hist_highest_slot(&out), -1);
}

static void test_highest_slot(void **state)
{
	struct pts_hist h = { 0 };

	assert_int_equal(hist_highest_slot(&h), -1);
	hist_add(&h, 0, 1);
	assert_int_equal(hist_highest_slot(&h), 0);
	hist_add(&h, 100, 1);
	assert_int_equal(hist_highest_slot(&h), 6);
	hist_add(&h, 5, 1);
	assert_int_equal(hist_highest_slot(&h), 6);
	hist_add(&h, UINT64_MAX, 1);
	assert_int_equal(hist_highest_slot(&h), 63);
}

/* what hist_print() writes, as a malloc'ed string */
static char *print_to_string(const struct pts_hist *h, const char *unit)
{
	char *text = NULL;
	size_t size = 0;
	FILE *out;

	out = open_memstream(&text, &size);
	assert_non_null(out);
	hist_print(out, h, unit);
	assert_int_equal(fclose(out), 0);
	assert_non_null(text);
	return text;
}

static int count_lines(const char *text)
{
	int n = 0;

	for (; *text; text++)
		if (*text == '\n')
			n++;
	return n;
}

static void test_print_empty(void **state)
{
	struct pts_hist h = { 0 };
	char *text = print_to_string(&h, "nsecs");

	assert_string_equal(text, "        (no samples)\n");
	free(text);
}

#define STARS_30 "******************************"

static void test_print_rows(void **state)
{
	struct pts_hist h = { 0 };
	char *text;

	hist_add(&h, 5, 3);	/* slot 2: 4 -> 7 */
	hist_add(&h, 20, 6);	/* slot 4: 16 -> 31 */
	text = print_to_string(&h, "nsecs");

	/* header + slots 2..4 (the empty slot 3 between used ones too) */
	assert_int_equal(count_lines(text), 4);
	assert_non_null(strstr(text, "nsecs"));
	assert_non_null(strstr(text, "count"));
	assert_non_null(strstr(text, "distribution"));
	assert_non_null(strstr(text,
		"           4 -> 7            : 3          |"
		"***************               |\n"));
	assert_non_null(strstr(text,
		"           8 -> 15           : 0          |"
		"                              |\n"));
	assert_non_null(strstr(text,
		"          16 -> 31           : 6          |" STARS_30 "|\n"));
	/* nothing below the lowest or above the highest used slot */
	assert_null(strstr(text, " 0 -> 1 "));
	assert_null(strstr(text, " 2 -> 3 "));
	assert_null(strstr(text, " 32 -> 63 "));
	assert_null(strstr(text, "(no samples)"));
	free(text);
}

static void test_print_top_slot(void **state)
{
	struct pts_hist h = { 0 };
	char *text;

	hist_add(&h, UINT64_MAX, 2);
	text = print_to_string(&h, "bytes");
	assert_int_equal(count_lines(text), 2);
	assert_non_null(strstr(text,
		"9223372036854775808 -> 18446744073709551615 : 2          |"
		STARS_30 "|\n"));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_slot_powers_of_two),
		cmocka_unit_test(test_slot_max),
		cmocka_unit_test(test_slot_known_values),
		cmocka_unit_test(test_slot_by_definition),
		cmocka_unit_test(test_slot_bounds),
		cmocka_unit_test(test_value_within_slot_bounds),
		cmocka_unit_test(test_mean),
		cmocka_unit_test(test_merge_sub_round_trip),
		cmocka_unit_test(test_sub_of_itself_is_empty),
		cmocka_unit_test(test_highest_slot),
		cmocka_unit_test(test_print_empty),
		cmocka_unit_test(test_print_rows),
		cmocka_unit_test(test_print_top_slot),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
