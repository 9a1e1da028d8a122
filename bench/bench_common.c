// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope-bench's page-table geometry, its errors and exit codes, and
 * its clock.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_common.h"

uint64_t page_size;

/*
 * Page-table geometry from the running kernel's page size: a table is one
 * page of 8-byte entries, so an entry one level up maps page_size / 8
 * times more (PMD 2 MiB and PUD 1 GiB with 4 KiB pages, 32 MiB and
 * 64 GiB with 16 KiB pages).
 */
uint64_t pmd_span(void)
{
	return page_size / 8 * page_size;
}

uint64_t pud_span(void)
{
	return page_size / 8 * pmd_span();
}

static void vreport(int errnum, const char *fmt, va_list ap)
{
	fprintf(stderr, PROG_NAME ": ");
	vfprintf(stderr, fmt, ap);
	if (errnum)
		fprintf(stderr, ": %s", strerror(errnum));
	fputc('\n', stderr);
}

/* Runtime failure caused by a syscall: message plus errno text. */
int fail_errno(const char *fmt, ...)
{
	int saved_errno = errno;
	va_list ap;

	va_start(ap, fmt);
	vreport(saved_errno, fmt, ap);
	va_end(ap);
	return EXIT_RUNTIME;
}

/* Runtime failure without an errno (e.g. data mismatch). */
int fail_msg(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	return EXIT_RUNTIME;
}

int usage_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport(0, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_usage(stderr);
	return EXIT_USAGE;
}

uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

static int compare_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return (x > y) - (x < y);
}

/* Sort @n (> 0) samples in place; their median (the mean of the middle two). */
uint64_t sort_median(uint64_t *samples, uint64_t n)
{
	qsort(samples, n, sizeof(samples[0]), compare_u64);
	return n % 2 ? samples[n / 2] :
	       (samples[n / 2 - 1] + samples[n / 2]) / 2;
}
