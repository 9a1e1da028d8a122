// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: "ptscope diff" over two recordings, through the same
 * loader as the command (view_diff: read, parse, check, compare, report).
 * The input up to the first NUL byte is the base recording, the rest the
 * new one (the same bytes when there is no NUL).  Both are in-memory files
 * (memfd), the report goes to /dev/null, text or --json by the input's
 * length, so both reports are exercised.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include "views/options.h"
#include "views/views.h"

static int memfile(const uint8_t *data, size_t size, char *path, size_t len)
{
	int fd = memfd_create("recording", 0);

	if (fd < 0)
		abort();
	if (size && write(fd, data, size) != (ssize_t)size)
		abort();
	snprintf(path, len, "/proc/self/fd/%d", fd);
	return fd;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nul = memchr(data, '\0', size);
	char base[64], new[64];
	struct pts_options opts;
	int fd_base, fd_new, ret;

	if (nul) {
		fd_base = memfile(data, nul - data, base, sizeof(base));
		fd_new = memfile(nul + 1, size - (nul - data) - 1, new,
				 sizeof(new));
	} else {
		fd_base = memfile(data, size, base, sizeof(base));
		fd_new = memfile(data, size, new, sizeof(new));
	}
	memset(&opts, 0, sizeof(opts));
	opts.cmd = PTS_CMD_DIFF;
	opts.diff_base = base;
	opts.diff_new = new;
	opts.output = "/dev/null";
	opts.json = size & 1;
	ret = view_diff(&opts);
	if (ret != 0 && ret != 2)
		abort();	/* 1 is a runtime failure: out of memory */
	close(fd_base);
	close(fd_new);
	return 0;
}
