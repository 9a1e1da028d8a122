// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target: the command line parser (options_parse).  The input,
 * split on NUL bytes, is argv[1..]; argv[0] is "ptscope".
 */
#include <getopt.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "views/options.h"

#define MAX_ARGS	64

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char *reset_argv[] = { "ptscope", NULL };
	char *argv[MAX_ARGS + 2], *text, *p, *end;
	struct pts_options opts;
	char err[512];
	int argc = 0, ret;

	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	argv[argc++] = "ptscope";
	for (p = text, end = text + size; p <= end && argc <= MAX_ARGS;
	     p += strlen(p) + 1)
		argv[argc++] = p;
	argv[argc] = NULL;

	/*
	 * ptscope parses once per process; here glibc's getopt must forget
	 * the previous input (its cluster pointer) before the next one.  It
	 * reads the ordering ('+': stop at the first non-option) only when
	 * it initializes, so the reset must say '+' as options_parse does:
	 * with "" it permutes, and parse_diff_args loops forever.
	 */
	optind = 0;
	opterr = 0;
	getopt_long(1, reset_argv, "+", NULL, NULL);

	memset(&opts, 0, sizeof(opts));
	err[0] = '\0';
	ret = options_parse(argc, argv, &opts, err, sizeof(err));
	if (ret != 0 && ret != 2)
		abort();
	if (ret == 2 && !err[0])
		abort();	/* a usage error always says why */
	if (strnlen(err, sizeof(err)) == sizeof(err))
		abort();
	free(text);
	return 0;
}
