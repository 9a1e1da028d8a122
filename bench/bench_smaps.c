// SPDX-License-Identifier: GPL-2.0
/*
 * /proc/self/smaps for ptscope-bench: the kB of one key summed over the
 * VMAs of a range.  Lines are read into a fixed buffer: reading smaps
 * never adds or changes a mapping.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench_common.h"

#define LINE_BUF_SIZE	8192

struct line_reader {
	int fd;
	size_t len;		/* valid bytes in buf */
	size_t pos;		/* start of the next unread line */
	bool eof;
	bool skipping;		/* dropping the tail of an overlong line */
	char buf[LINE_BUF_SIZE + 1];
};

static int reader_fill(struct line_reader *lr)
{
	ssize_t got;

	if (lr->pos) {
		memmove(lr->buf, lr->buf + lr->pos, lr->len - lr->pos);
		lr->len -= lr->pos;
		lr->pos = 0;
	}
	do {
		got = read(lr->fd, lr->buf + lr->len, LINE_BUF_SIZE - lr->len);
	} while (got < 0 && errno == EINTR);
	if (got < 0)
		return -1;
	if (got == 0)
		lr->eof = true;
	lr->len += (size_t)got;
	return 0;
}

/*
 * Next line without its newline: 1 and *line set, 0 at end of file, -1 on
 * read error.  Overlong lines are cut to LINE_BUF_SIZE bytes.
 */
static int reader_next(struct line_reader *lr, char **line)
{
	char *start, *newline;

	for (;;) {
		start = lr->buf + lr->pos;
		newline = memchr(start, '\n', lr->len - lr->pos);
		if (newline) {
			*newline = '\0';
			lr->pos = (size_t)(newline + 1 - lr->buf);
			if (lr->skipping) {
				lr->skipping = false;
				continue;
			}
			*line = start;
			return 1;
		}
		if (lr->eof) {
			if (lr->pos == lr->len || lr->skipping)
				return 0;
			lr->buf[lr->len] = '\0';
			lr->pos = lr->len;
			*line = start;
			return 1;
		}
		if (lr->len - lr->pos == LINE_BUF_SIZE) {
			bool was_skipping = lr->skipping;

			lr->buf[lr->len] = '\0';
			lr->pos = lr->len;
			lr->skipping = true;
			if (!was_skipping) {
				*line = start;
				return 1;
			}
		}
		if (reader_fill(lr))
			return -1;
	}
}

/* "start-end perms ..." line that opens a VMA block in smaps. */
static bool parse_vma_header(const char *line, uintptr_t *start,
			     uintptr_t *end)
{
	char *rest;

	if (!isxdigit((unsigned char)line[0]))
		return false;
	*start = strtoull(line, &rest, 16);
	if (*rest != '-')
		return false;
	*end = strtoull(rest + 1, &rest, 16);
	return *rest == ' ';
}

/*
 * Sum @key ("AnonHugePages:") in kB of every VMA overlapping [start, end);
 * 0, or -1 with errno.
 */
int smaps_sum_kb(const char *start, const char *end, const char *key,
		 uint64_t *kb_out)
{
	size_t key_len = strlen(key);
	struct line_reader lr = { .fd = -1 };
	uintptr_t vm_start, vm_end;
	uint64_t total_kb = 0;
	bool in_range = false;
	int got, saved_errno;
	char *line;

	lr.fd = open("/proc/self/smaps", O_RDONLY | O_CLOEXEC);
	if (lr.fd < 0)
		return -1;
	while ((got = reader_next(&lr, &line)) > 0) {
		if (parse_vma_header(line, &vm_start, &vm_end)) {
			in_range = vm_start < (uintptr_t)end &&
				   vm_end > (uintptr_t)start;
			continue;
		}
		if (in_range && !strncmp(line, key, key_len))
			total_kb += strtoull(line + key_len, NULL, 10);
	}
	saved_errno = errno;
	close(lr.fd);
	if (got < 0) {
		errno = saved_errno;
		return -1;
	}
	*kb_out = total_kb;
	return 0;
}

/* AnonHugePages of [start, start + len): 0, or the runtime failure reported */
int anon_huge_kb(const char *start, uint64_t len, uint64_t *kb_out)
{
	if (smaps_sum_kb(start, start + len, "AnonHugePages:", kb_out))
		return fail_errno("read /proc/self/smaps");
	return 0;
}
