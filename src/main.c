// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope: live eBPF tracer of the kernel's page-table moves (mremap)
 * and hugepage allocations.  Exit codes: 0 ok, 1 runtime failure, 2 bad
 * usage.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "views/options.h"
#include "render/report.h"
#include "views/signals.h"
#include "views/views.h"

/* from debian/changelog, through the Makefile (VERSION_DEF) */
#ifndef PTSCOPE_VERSION
#error "PTSCOPE_VERSION is defined by the Makefile, from debian/changelog"
#endif

static bool libbpf_debug;

/* libbpf's log: its warnings too, as the engine reports refusals itself */
static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list args)
{
	if (level != LIBBPF_INFO && !libbpf_debug)
		return 0;
	return vfprintf(stderr, fmt, args);
}

/* -o FILE: 0 when it can be written, else 1 after saying why */
static int check_output(const char *path)
{
	int err = report_check_output(path);

	if (!err)
		return 0;
	fprintf(stderr, "ptscope: -o %s: %s; nothing was run: give -o a "
		"file that can be written\n", path,
		strerror(-err));
	return 1;
}

int main(int argc, char **argv)
{
	struct pts_options opts;
	char err[256];

	if (options_parse(argc, argv, &opts, err, sizeof(err))) {
		fprintf(stderr, "ptscope: %s\n", err);
		return 2;
	}
	/* like perf: a report that cannot be written stops it before it runs */
	if (opts.output && check_output(opts.output))
		return 2;
	options_notes(&opts, stderr);
	libbpf_debug = opts.libbpf_debug;
	libbpf_set_print(libbpf_print);
	signals_install();

	switch (opts.cmd) {
	case PTS_CMD_HELP:
		options_command_usage(stdout, opts.help_cmd);
		return 0;
	case PTS_CMD_VERSION:
		printf("ptscope %s (libbpf %s)\n", PTSCOPE_VERSION,
		       libbpf_version_string());
		return 0;
	case PTS_CMD_PROBE:
		return view_probe(&opts);
	case PTS_CMD_STAT:
		return view_stat(&opts);
	case PTS_CMD_TOP:
		return view_top(&opts);
	case PTS_CMD_SNOOP:
		return view_snoop(&opts);
	case PTS_CMD_EXPORT:
		return view_export(&opts);
	case PTS_CMD_DIFF:
		return view_diff(&opts);
	case PTS_CMD_MAPS:
		return view_maps(&opts);
	case PTS_CMD_SCHEMA:
		return view_schema(&opts);
	}
	return 2;
}
