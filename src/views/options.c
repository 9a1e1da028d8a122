// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/catalog.h"
#include "views/options.h"

static const char usage_text[] =
"Usage: ptscope [COMMAND] [OPTIONS]\n"
"Trace mremap page-table moves and hugepage faults with eBPF.\n"
"\n"
"Commands:\n"
"  top                live totals and per-process table (default)\n"
"  stat [OPTS] -- CMD run CMD, trace it and its children, summarize at exit\n"
"  probe              what this kernel offers and which path each metric uses\n"
"  snoop              one line per event (each mremap, each hugepage fault)\n"
"  export             serve Prometheus metrics (default 127.0.0.1:9477)\n"
"  diff BASE NEW      compare two 'stat --json' recordings\n"
"\n"
"Options:\n"
"  -p, --pid PID      only this process (tgid)\n"
"  -c, --comm COMM    only tasks with this command name\n"
"  -i, --interval S   top: refresh interval in seconds, at least 0.01\n"
"                     (default 1)\n"
"  -d, --duration S   top, snoop, export: stop after S seconds (default:\n"
"                     until Ctrl-C)\n"
"  -r, --rows N       top: per-process rows (default 20)\n"
"  -s, --sort KEY     top: activity|mremap|faults|latency|pid (default activity)\n"
"  -j, --json         JSON output\n"
"  -o, --output FILE  write the report to FILE instead of stdout\n"
"      --mode MODE    auto|patched|fentry|kprobe|tracepoint (default auto)\n"
"      --listen A:P   export: address and port (default 127.0.0.1:9477);\n"
"                     top: also serve /metrics there, off the same maps\n"
"      --metric NAME  also attach this opt-in metric: mremap.folio_lookups\n"
"                     (times every vm_normal_folio() call: costly)\n"
"  -v, --verbose      libbpf debug output\n"
"  -h, --help         this text\n"
"  -V, --version      version\n"
"\n"
"Examples:\n"
"  ptscope probe                       # attach paths on this kernel\n"
"  ptscope stat -- stress-ng --bigheap 1 -t 5\n"
"  ptscope top -i 2 -c stress-ng       # live, refresh every 2 s\n"
"  ptscope top --listen 127.0.0.1:9477 # live view and Prometheus at once\n"
"  ptscope stat --json -o run.json -- ./workload\n";

void options_usage(FILE *out)
{
	fputs(usage_text, out);
}

static int parse_seconds(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || isnan(v) || v <= 0 || v > 1e7)
		return -1;
	*out = v;
	return 0;
}

/*
 * The kernel hands out pids below /proc/sys/kernel/pid_max (it allocates
 * in [1, pid_max)); PID_MAX_LIMIT (4 Mi) when the file cannot be read.
 */
static long options_pid_max(void)
{
	FILE *f = fopen("/proc/sys/kernel/pid_max", "r");
	long max = 0;

	if (f) {
		if (fscanf(f, "%ld", &max) != 1)
			max = 0;
		fclose(f);
	}
	return max > 1 ? max : 4194304;
}

static int parse_positive(const char *arg, long max, long *out)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(arg, &end, 10);
	if (errno || end == arg || *end || v <= 0 || v > max)
		return -1;
	*out = v;
	return 0;
}

static int parse_command(const char *word, enum pts_command *cmd)
{
	static const struct {
		const char *name;
		enum pts_command cmd;
	} cmds[] = {
		{ "top", PTS_CMD_TOP },
		{ "stat", PTS_CMD_STAT },
		{ "probe", PTS_CMD_PROBE },
		{ "snoop", PTS_CMD_SNOOP },
		{ "export", PTS_CMD_EXPORT },
		{ "diff", PTS_CMD_DIFF },
		{ "help", PTS_CMD_HELP },
	};
	size_t i;

	for (i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		if (!strcmp(word, cmds[i].name)) {
			*cmd = cmds[i].cmd;
			return 0;
		}
	}
	return -1;
}

static void defaults(struct pts_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->cmd = PTS_CMD_TOP;
	opts->interval_s = 1.0;
	opts->mode = PTS_MODE_AUTO;
	opts->rows = 20;
	opts->listen = "127.0.0.1:9477";
}

#define OPT_MODE 256
#define OPT_LISTEN 257
#define OPT_METRIC 258

static const struct option long_opts[] = {
	{ "pid", required_argument, NULL, 'p' },
	{ "comm", required_argument, NULL, 'c' },
	{ "interval", required_argument, NULL, 'i' },
	{ "duration", required_argument, NULL, 'd' },
	{ "rows", required_argument, NULL, 'r' },
	{ "sort", required_argument, NULL, 's' },
	{ "json", no_argument, NULL, 'j' },
	{ "output", required_argument, NULL, 'o' },
	{ "mode", required_argument, NULL, OPT_MODE },
	{ "listen", required_argument, NULL, OPT_LISTEN },
	{ "metric", required_argument, NULL, OPT_METRIC },
	{ "verbose", no_argument, NULL, 'v' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ NULL, 0, NULL, 0 },
};

static int bad_value(const char *opt, const char *arg, const char *want,
		     char *err, size_t errlen)
{
	snprintf(err, errlen, "invalid value '%s' for %s: %s", arg, opt, want);
	return 2;
}

static int parse_mode(const char *arg, int *mode)
{
	enum pts_path_kind kind;

	if (!strcmp(arg, "auto")) {
		*mode = PTS_MODE_AUTO;
		return 0;
	}
	if (path_kind_parse(arg, &kind))
		return -1;
	*mode = kind;
	return 0;
}

static int parse_sort(const char *arg, enum pts_sort *sort)
{
	static const char *const keys[] = {
		[PTS_SORT_ACTIVITY] = "activity",
		[PTS_SORT_MREMAP] = "mremap",
		[PTS_SORT_FAULTS] = "faults",
		[PTS_SORT_LATENCY] = "latency",
		[PTS_SORT_PID] = "pid",
	};
	size_t i;

	for (i = 0; i < sizeof(keys) / sizeof(keys[0]); i++) {
		if (!strcmp(arg, keys[i])) {
			*sort = i;
			return 0;
		}
	}
	return -1;
}

static int parse_pid(const char *arg, struct pts_options *opts, char *err,
		     size_t errlen)
{
	long pid_max = options_pid_max(), v;

	if (parse_positive(arg, pid_max - 1, &v)) {
		snprintf(err, errlen, "invalid value '%s' for -p: a process id "
			 "from 1 to %ld (kernel.pid_max is %ld)", arg,
			 pid_max - 1, pid_max);
		return 2;
	}
	opts->pid = (pid_t)v;
	return 0;
}

static int parse_one(int c, const char *arg, struct pts_options *opts,
		     char *err, size_t errlen)
{
	const struct pts_metric *m;
	long v;

	switch (c) {
	case 'p':
		return parse_pid(arg, opts, err, errlen);
	case 'c':
		if (!*arg || strlen(arg) >= PTS_COMM_LEN)
			return bad_value("-c", arg, "1 to 15 characters (the "
					 "kernel keeps 15 of comm)", err, errlen);
		snprintf(opts->comm, sizeof(opts->comm), "%s", arg);
		return 0;
	case 'i':
		/* below 10 ms top would spend its time redrawing */
		if (parse_seconds(arg, &opts->interval_s) ||
		    opts->interval_s < PTS_MIN_INTERVAL_S)
			return bad_value("-i", arg, "seconds, at least 0.01", err,
					 errlen);
		return 0;
	case 'd':
		if (parse_seconds(arg, &opts->duration_s))
			return bad_value("-d", arg, "seconds > 0", err, errlen);
		return 0;
	case 'r':
		if (parse_positive(arg, 100000, &v))
			return bad_value("-r", arg, "a row count > 0", err, errlen);
		opts->rows = (int)v;
		return 0;
	case 's':
		if (parse_sort(arg, &opts->sort))
			return bad_value("-s", arg, "activity, mremap, faults, "
					 "latency or pid", err, errlen);
		return 0;
	case 'j':
		opts->json = true;
		return 0;
	case 'o':
		opts->output = arg;
		return 0;
	case OPT_MODE:
		if (parse_mode(arg, &opts->mode))
			return bad_value("--mode", arg, "auto, patched, fentry, "
					 "kprobe or tracepoint", err, errlen);
		return 0;
	case OPT_METRIC:
		m = catalog_find(arg);
		if (!m || !m->opt_in)
			return bad_value("--metric", arg, "an opt-in metric: "
					 "mremap.folio_lookups", err, errlen);
		if (opts->nr_opt_in < PTS_MAX_OPT_IN)
			opts->opt_in[opts->nr_opt_in++] = m->name;
		return 0;
	case OPT_LISTEN:
		/* the command word comes first, so it is known here */
		if (opts->cmd != PTS_CMD_EXPORT && opts->cmd != PTS_CMD_TOP) {
			snprintf(err, errlen, "--listen applies to export and "
				 "top only (top --listen also serves /metrics)");
			return 2;
		}
		if (!strchr(arg, ':'))
			return bad_value("--listen", arg, "ADDR:PORT", err, errlen);
		opts->listen = arg;
		opts->listen_set = true;
		return 0;
	case 'v':
		opts->verbose = true;
		return 0;
	case 'h':
		opts->cmd = PTS_CMD_HELP;
		return 0;
	case 'V':
		opts->cmd = PTS_CMD_VERSION;
		return 0;
	}
	snprintf(err, errlen, "unknown option (see ptscope --help)");
	return 2;
}

/*
 * Name the offending option: optopt holds a short option (getopt has not
 * advanced past a cluster like "-xj" yet); a long one is only in argv.
 */
static void unknown_option(const char *arg, char *err, size_t errlen)
{
	if (optopt && optopt < 256 && strncmp(arg, "--", 2))
		snprintf(err, errlen, "unknown option or missing value: '-%c' "
			 "(see ptscope --help)", optopt);
	else
		snprintf(err, errlen, "unknown option or missing value: '%s' "
			 "(see ptscope --help)", arg);
}

/* The command word, if any, comes first: ptscope stat -p 42 -- CMD */
/* getopt until the first non-option ('+': "stat -- CMD -x" keeps -x) */
static int parse_option_run(int argc, char **argv, struct pts_options *opts,
			    char *err, size_t errlen)
{
	int c, ret;

	while ((c = getopt_long(argc, argv, "+p:c:i:d:r:s:jo:vhV", long_opts,
				NULL)) != -1) {
		if (c == '?' || c == ':') {
			unknown_option(argv[optind - 1], err, errlen);
			return 2;
		}
		ret = parse_one(c, optarg, opts, err, errlen);
		if (ret)
			return ret;
	}
	return 0;
}

/* diff takes its two files anywhere among the options */
static int parse_diff_args(int argc, char **argv, struct pts_options *opts,
			   char *err, size_t errlen)
{
	const char *files[2];
	int nr_files = 0, ret, next;
	bool options_done = false;

	while (optind < argc) {
		if (nr_files < 2)
			files[nr_files] = argv[optind];
		nr_files++;
		next = ++optind;
		if (options_done)
			continue;
		ret = parse_option_run(argc, argv, opts, err, errlen);
		if (ret)
			return ret;
		/*
		 * After a "--", glibc's getopt sends optind back to the first
		 * argument after it on every call: the rest are files (this
		 * looped forever on "diff A -- B").
		 */
		if (optind < next) {
			optind = next;
			options_done = true;
		}
	}
	if (nr_files != 2) {
		snprintf(err, errlen, "diff needs two recordings: "
			 "ptscope diff BASE.json NEW.json");
		return 2;
	}
	opts->diff_base = files[0];
	opts->diff_new = files[1];
	return 0;
}

int options_parse(int argc, char **argv, struct pts_options *opts,
		  char *err, size_t errlen)
{
	int ret, first = 1;
	enum pts_command cmd;

	defaults(opts);
	err[0] = '\0';
	if (argc > 1 && argv[1][0] != '-') {
		if (parse_command(argv[1], &cmd)) {
			snprintf(err, errlen, "unknown command '%s' (commands: "
				 "top, stat, probe, snoop, export, diff)", argv[1]);
			return 2;
		}
		opts->cmd = cmd;
		first = 2;
	}
	optind = first;
	opterr = 0;
	ret = parse_option_run(argc, argv, opts, err, errlen);
	if (ret)
		return ret;
	if (opts->cmd == PTS_CMD_HELP || opts->cmd == PTS_CMD_VERSION)
		return 0;
	if (opts->cmd == PTS_CMD_DIFF)
		return parse_diff_args(argc, argv, opts, err, errlen);
	if (opts->cmd == PTS_CMD_STAT) {
		if (optind >= argc) {
			snprintf(err, errlen, "stat needs a command: "
				 "ptscope stat [OPTIONS] -- CMD [ARGS]");
			return 2;
		}
		opts->cmd_argv = &argv[optind];
		return 0;
	}
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return 0;
}
