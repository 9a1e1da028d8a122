// SPDX-License-Identifier: GPL-2.0
/*
 * The command line parsed: getopt's structures made from the option
 * table (options_spec.c), values checked, the command's arguments.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/format.h"
#include "engine/catalog.h"
#include "views/options_spec.h"

static int parse_number(const char *arg, double *out)
{
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (errno || end == arg || *end || !isfinite(v))
		return -1;
	*out = v;
	return 0;
}

static int parse_seconds(const char *arg, double *out)
{
	double v;

	if (parse_number(arg, &v) || v <= 0 || v > 1e7)
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

static int parse_command(const char *word, enum pts_command *cmd,
			 char *err, size_t errlen)
{
	char names[128];
	size_t i;

	for (i = 0; i < NR_CMD_SPECS; i++) {
		if (!strcmp(word, cmd_specs[i].name)) {
			*cmd = cmd_specs[i].cmd;
			return 0;
		}
	}
	options_cmd_names(names, sizeof(names), ~0u);
	snprintf(err, errlen, "unknown command '%s' (commands: %s)", word,
		 names);
	return 2;
}

static void defaults(struct pts_options *opts)
{
	memset(opts, 0, sizeof(*opts));
	opts->cmd = PTS_CMD_TOP;
	opts->interval_s = PTS_DEFAULT_INTERVAL_S;
	opts->mode = PTS_MODE_AUTO;
	opts->rows = PTS_DEFAULT_ROWS;
	opts->listen = PTS_DEFAULT_LISTEN;
	opts->cgroup_labels = PTS_DEFAULT_CGROUP_LABELS;
	opts->help_cmd = PTS_CMD_HELP;
	opts->repeat = PTS_DEFAULT_REPEAT;
	opts->min_effect_pct = PTS_DEFAULT_MIN_EFFECT;
	opts->alpha = PTS_DEFAULT_ALPHA;
}

/* getopt_long()'s view of opt_specs[]: "+p:c:..." and struct option */
struct getopt_tables {
	char short_opts[2 * NR_OPT_SPECS + 2];
	struct option long_opts[NR_OPT_SPECS + 1];
};

static struct getopt_tables getopt_tables;

static void build_getopt(struct getopt_tables *t)
{
	const struct opt_spec *o;
	size_t i, n = 0;

	memset(t, 0, sizeof(*t));
	t->short_opts[n++] = '+';	/* stop at the first non-option */
	for (i = 0; i < NR_OPT_SPECS; i++) {
		o = &opt_specs[i];
		t->long_opts[i] = (struct option){
			o->name, o->arg ? required_argument : no_argument,
			NULL, o->val,
		};
		if (o->val >= OPT_FIRST_LONG)
			continue;
		t->short_opts[n++] = o->val;
		if (o->arg)
			t->short_opts[n++] = ':';
	}
}

static const struct opt_spec *opt_spec_of(int val)
{
	size_t i;

	for (i = 0; i < NR_OPT_SPECS; i++)
		if (opt_specs[i].val == val)
			return &opt_specs[i];
	return NULL;
}

static int bad_value(const char *opt, const char *arg, const char *want,
		     char *err, size_t errlen)
{
	snprintf(err, errlen, "invalid value '%s' for %s: %s", arg, opt, want);
	return 2;
}

/* a value that is none of option @val's choices: "..., x or y" */
static int bad_choice(int val, const char *opt, const char *arg,
		      const char *what, char *err, size_t errlen)
{
	const char *words[MAX_CHOICES];
	char list[256], want[300];

	options_join(list, sizeof(list), words, opt_spec_of(val)->choices(words),
	     ", ", " or ");
	snprintf(want, sizeof(want), "%s%s", what, list);
	return bad_value(opt, arg, want, err, errlen);
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
	size_t i;

	for (i = 0; i < nr_sort_keys; i++) {
		if (!strcmp(arg, sort_keys[i])) {
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

/* --parts a,b,c or none: PTS_PART_* bits; -1 on an unknown word */
static int parse_parts(const char *arg, unsigned int *parts)
{
	const char *word = arg, *end;
	size_t i, len;

	*parts = 0;
	if (!strcmp(arg, "none"))
		return 0;
	do {
		len = strcspn(word, ",");
		end = word + len;
		for (i = 0; i < nr_part_names; i++)
			if (strlen(part_names[i]) == len &&
			    !strncmp(word, part_names[i], len))
				break;
		if (i == nr_part_names)
			return -1;
		*parts |= 1U << i;
		word = end + 1;
	} while (*end);
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
		/* the kernel cuts comm to TASK_COMM_LEN - 1 = 15: match that */
		if (!*arg)
			return bad_value("-c", arg, "a command name", err, errlen);
		snprintf(opts->comm, sizeof(opts->comm), "%s", arg);
		opts->comm_given = strlen(arg) >= PTS_COMM_LEN ? arg : NULL;
		return 0;
	case 'i':
		/* below 10 ms top would spend its time redrawing */
		if (parse_seconds(arg, &opts->interval_s) ||
		    opts->interval_s < PTS_MIN_INTERVAL_S)
			return bad_value("-i", arg, "seconds, at least 0.01", err,
					 errlen);
		opts->interval_set = true;
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
			return bad_choice(c, "-s", arg, "", err, errlen);
		return 0;
	case OPT_TIME:
		if (strcmp(arg, "rel") && strcmp(arg, "wall"))
			return bad_choice(c, "--time", arg, "", err, errlen);
		opts->time_wall = !strcmp(arg, "wall");
		return 0;
	case 'j':
		opts->json = true;
		return 0;
	case 'o':
		opts->output = arg;
		return 0;
	case OPT_MODE:
		if (parse_mode(arg, &opts->mode))
			return bad_choice(c, "--mode", arg, "", err, errlen);
		return 0;
	case OPT_METRIC:
		m = catalog_find(arg);
		if (!m || !m->opt_in)
			return bad_choice(c, "--metric", arg, "an opt-in metric: ",
					  err, errlen);
		if (opts->nr_opt_in < PTS_MAX_OPT_IN)
			opts->opt_in[opts->nr_opt_in++] = m->name;
		return 0;
	case OPT_LISTEN:
		if (!strchr(arg, ':'))
			return bad_value("--listen", arg, "ADDR:PORT", err, errlen);
		opts->listen = arg;
		opts->listen_set = true;
		return 0;
	case OPT_BPF_STATS:
		opts->bpf_stats = true;
		return 0;
	case OPT_CGROUP:
		if (!*arg)
			return bad_value("--cgroup", arg, "a cgroup v2 directory "
					 "or path", err, errlen);
		opts->cgroup = arg;
		return 0;
	case OPT_CGROUP_LABELS:
		/* 0 is allowed: off */
		if (strcmp(arg, "0") &&
		    parse_positive(arg, PTS_MAX_CGROUPS, &v))
			return bad_value("--cgroup-labels", arg, "a number of "
					 "cgroups from 0 to "
					 PTS_STR(PTS_MAX_CGROUPS), err, errlen);
		opts->cgroup_labels = strcmp(arg, "0") ? (int)v : 0;
		return 0;
	case OPT_PARTS:
		if (parse_parts(arg, &opts->parts))
			return bad_choice(c, "--parts", arg, "a comma-separated "
					  "list of ", err, errlen);
		opts->parts_arg = arg;
		return 0;
	case OPT_KUBE_LOGS:
		if (!*arg)
			return bad_value("--kube-logs", arg, "a directory", err,
					 errlen);
		opts->kube_logs = arg;
		return 0;
	case OPT_REPEAT:
		if (parse_positive(arg, PTS_MAX_REPEAT, &v))
			return bad_value("--repeat", arg, "a number of runs from "
					 "1 to " PTS_STR(PTS_MAX_REPEAT), err,
					 errlen);
		opts->repeat = (int)v;
		return 0;
	case OPT_ALL:
		opts->diff_all = true;
		return 0;
	case OPT_FAIL_ON_CHANGE:
		opts->fail_on_change = true;
		return 0;
	case OPT_MIN_EFFECT:
		if (parse_number(arg, &opts->min_effect_pct) ||
		    opts->min_effect_pct < 0 ||
		    opts->min_effect_pct > PTS_MAX_MIN_EFFECT)
			return bad_value("--min-effect", arg, "a percentage from "
					 "0 to 1000", err, errlen);
		return 0;
	case OPT_ALPHA:
		if (parse_number(arg, &opts->alpha) || opts->alpha <= 0 ||
		    opts->alpha >= 1)
			return bad_value("--alpha", arg, "a significance level "
					 "between 0 and 1 (exclusive)", err,
					 errlen);
		return 0;
	case 'v':
		opts->verbose = true;
		return 0;
	case OPT_LIBBPF_DEBUG:
		opts->libbpf_debug = true;
		return 0;
	case 'h':
		opts->help_cmd = opts->cmd;
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
	const struct getopt_tables *t = &getopt_tables;
	const struct opt_spec *o;
	int c, ret;

	while ((c = getopt_long(argc, argv, t->short_opts, t->long_opts,
				NULL)) != -1) {
		if (c == '?' || c == ':') {
			unknown_option(argv[optind - 1], err, errlen);
			return 2;
		}
		/* the command word comes first, so it is known here */
		o = opt_spec_of(c);
		if (o && o->refuse && !(o->cmds & CMD(opts->cmd))) {
			snprintf(err, errlen, "%s", o->refuse);
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

/* stat traces either a command it runs or a running process (-p) */
static int check_stat_target(int argc, char **argv, struct pts_options *opts,
			     char *err, size_t errlen)
{
	bool has_cmd = optind < argc;

	if (has_cmd && opts->pid) {
		snprintf(err, errlen, "stat takes either -p PID or a command, "
			 "not both: ptscope stat -p PID -d S, or ptscope stat "
			 "-- CMD [ARGS]");
		return 2;
	}
	if (!has_cmd && !opts->pid) {
		snprintf(err, errlen, "stat needs a command or -p PID: "
			 "ptscope stat [OPTIONS] -- CMD [ARGS], or ptscope "
			 "stat -p PID -d S");
		return 2;
	}
	if (has_cmd && opts->duration_s) {
		snprintf(err, errlen, "stat -d applies to -p PID only (with a "
			 "command, stat ends when it exits)");
		return 2;
	}
	opts->cmd_argv = has_cmd ? &argv[optind] : NULL;
	return 0;
}

int options_parse(int argc, char **argv, struct pts_options *opts,
		  char *err, size_t errlen)
{
	int ret, first = 1;
	enum pts_command cmd;

	defaults(opts);
	build_getopt(&getopt_tables);
	err[0] = '\0';
	if (argc > 1 && argv[1][0] != '-') {
		if (parse_command(argv[1], &cmd, err, errlen))
			return 2;
		opts->cmd = cmd;
		first = 2;
	}
	optind = first;
	opterr = 0;
	ret = parse_option_run(argc, argv, opts, err, errlen);
	if (ret)
		return ret;
	if (opts->cmd == PTS_CMD_HELP && first == 1)
		opts->help_cmd = PTS_CMD_HELP;	/* no command word: all */
	if (opts->cmd == PTS_CMD_HELP || opts->cmd == PTS_CMD_VERSION)
		return 0;
	if (opts->cmd == PTS_CMD_DIFF)
		return parse_diff_args(argc, argv, opts, err, errlen);
	if (opts->cmd == PTS_CMD_MAPS && !opts->pid == !opts->comm[0]) {
		snprintf(err, errlen, "maps needs either -p PID or -c COMM: "
			 "ptscope maps -p PID");
		return 2;
	}
	if (opts->cmd == PTS_CMD_STAT)
		return check_stat_target(argc, argv, opts, err, errlen);
	if (optind < argc) {
		snprintf(err, errlen, "unexpected argument '%s'", argv[optind]);
		return 2;
	}
	return 0;
}
