// SPDX-License-Identifier: GPL-2.0
/*
 * The command line.  One table of commands and one of options; getopt's
 * structures, --help and the messages that list an option's values are
 * made from them, the metric names from the catalog.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/format.h"
#include "engine/catalog.h"
#include "views/options.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define CMD(c)		(1u << (c))
/* the commands that trace: they filter and choose attach paths */
#define CMDS_TRACING	(CMD(PTS_CMD_TOP) | CMD(PTS_CMD_STAT) | \
			 CMD(PTS_CMD_SNOOP) | CMD(PTS_CMD_EXPORT))
#define CMDS_REPORTING	(CMD(PTS_CMD_TOP) | CMD(PTS_CMD_STAT) | \
			 CMD(PTS_CMD_SNOOP) | CMD(PTS_CMD_PROBE) | \
			 CMD(PTS_CMD_DIFF) | CMD(PTS_CMD_MAPS) | \
			 CMD(PTS_CMD_SCHEMA))
#define PTS_XSTR(x)	#x
#define PTS_STR(x)	PTS_XSTR(x)

/* long options without a letter */
#define OPT_FIRST_LONG	256
#define OPT_MODE	(OPT_FIRST_LONG + 0)
#define OPT_LISTEN	(OPT_FIRST_LONG + 1)
#define OPT_METRIC	(OPT_FIRST_LONG + 2)
#define OPT_BPF_STATS	(OPT_FIRST_LONG + 3)
#define OPT_CGROUP	(OPT_FIRST_LONG + 4)
#define OPT_CGROUP_LABELS	(OPT_FIRST_LONG + 5)
#define OPT_REPEAT	(OPT_FIRST_LONG + 6)
#define OPT_ALL		(OPT_FIRST_LONG + 7)
#define OPT_FAIL_ON_CHANGE	(OPT_FIRST_LONG + 8)
#define OPT_MIN_EFFECT	(OPT_FIRST_LONG + 9)
#define OPT_ALPHA	(OPT_FIRST_LONG + 10)
#define OPT_LIBBPF_DEBUG	(OPT_FIRST_LONG + 11)
#define OPT_TIME	(OPT_FIRST_LONG + 12)
#define OPT_KUBE_LOGS	(OPT_FIRST_LONG + 13)
#define OPT_PARTS	(OPT_FIRST_LONG + 14)

struct cmd_spec {
	const char *name;
	enum pts_command cmd;
	const char *args;	/* what follows the name in --help */
	const char *help;	/* NULL: not listed */
	const char *usage;	/* its own --help: what follows "Usage: " */
	const char *examples;	/* its own --help: lines of examples */
};

static const struct cmd_spec cmd_specs[] = {
	{ "top", PTS_CMD_TOP, NULL,
	  "live totals, per-process and per-cgroup tables (default)",
	  "ptscope [top] [OPTIONS]",
	  "  ptscope top -i 2 -c stress-ng-bighe  # live, refresh every 2 s\n"
	  "  ptscope top --listen 127.0.0.1:9477  # and Prometheus at once\n"
	  "  ptscope top --cgroup system.slice    # that cgroup and below\n" },
	{ "stat", PTS_CMD_STAT, "[OPTS] -- CMD",
	  "run CMD, trace it and its children, summarize at exit",
	  "ptscope stat [OPTIONS] -- CMD [ARGS]\n"
	  "       ptscope stat [OPTIONS] -p PID [-d S]",
	  "  ptscope stat -- stress-ng --bigheap 1 -t 5\n"
	  "  ptscope stat --repeat 5 --json -o base.json -- ./workload\n"
	  "  ptscope stat -p 1234 -d 10           # it and its children, 10 s\n" },
	{ "probe", PTS_CMD_PROBE, NULL,
	  "what this kernel offers and which path each metric uses",
	  "ptscope probe [OPTIONS]",
	  "  ptscope probe                        # attach paths on this kernel\n"
	  "  ptscope probe --mode fentry          # what fentry alone gives\n"
	  "  ptscope probe --json -o probe.json\n" },
	{ "snoop", PTS_CMD_SNOOP, NULL,
	  "one line per event (each mremap, each hugepage fault)",
	  "ptscope snoop [OPTIONS]",
	  "  ptscope snoop -p 1234                # its mremaps and faults\n"
	  "  ptscope snoop --json -d 5 -o events.json\n" },
	{ "export", PTS_CMD_EXPORT, NULL,
	  "serve Prometheus metrics (default " PTS_DEFAULT_LISTEN ")",
	  "ptscope export [OPTIONS]",
	  "  ptscope export                       # /metrics on "
	  PTS_DEFAULT_LISTEN "\n"
	  "  ptscope export --listen 0.0.0.0:9477 --cgroup-labels 10\n" },
	{ "diff", PTS_CMD_DIFF, "BASE NEW",
	  "compare two 'stat --json' recordings",
	  "ptscope diff [OPTIONS] BASE.json NEW.json",
	  "  ptscope diff base.json new.json\n"
	  "  ptscope diff --fail-on-change --min-effect 5 base.json new.json\n"
	  "  ptscope diff --all --json base.json new.json\n" },
	{ "maps", PTS_CMD_MAPS, "-p PID|-c COMM",
	  "what is mapped now per folio size: PMD-mapped, PTE-mapped large "
	  "(aligned, unaligned, partial), small",
	  "ptscope maps [OPTIONS] -p PID|-c COMM",
	  "  ptscope maps -p 1234                 # its folios by size\n"
	  "  ptscope maps -c java -i 2            # refresh every 2 s\n" },
	{ "schema", PTS_CMD_SCHEMA, NULL,
	  "the Prometheus families export can serve, as JSON: type, help, "
	  "labels, the metric owning each and the attach paths giving it",
	  "ptscope schema [OPTIONS]",
	  "  ptscope schema                       # JSON on stdout\n"
	  "  ptscope schema -o schema.json\n" },
	{ "help", PTS_CMD_HELP, NULL, NULL, NULL, NULL },
};

static const char *const sort_keys[] = {
	[PTS_SORT_ACTIVITY] = "activity",
	[PTS_SORT_MREMAP] = "mremap",
	[PTS_SORT_FAULTS] = "faults",
	[PTS_SORT_LATENCY] = "latency",
	[PTS_SORT_PID] = "pid",
};

const char *options_sort_name(enum pts_sort key)
{
	return key < ARRAY_SIZE(sort_keys) ? sort_keys[key] : "?";
}

#define MAX_CHOICES	16

/* the words an option's value can be: fills @words, returns how many */
typedef int (*choices_fn)(const char **words);

static int sort_choices(const char **words)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(sort_keys); i++)
		words[i] = sort_keys[i];
	return ARRAY_SIZE(sort_keys);
}

static int time_choices(const char **words)
{
	words[0] = "rel";
	words[1] = "wall";
	return 2;
}

static int mode_choices(const char **words)
{
	int i;

	words[0] = "auto";
	for (i = 0; i < PTS_PATH_KINDS; i++)
		words[i + 1] = path_kind_name(i);
	return PTS_PATH_KINDS + 1;
}

/* export --parts: the words for PTS_PART_*, in bit order */
static const char *const part_names[] = {
	"counts", "hists", "proc-rows", "cgroup-rows", "pte-marker",
};
_Static_assert((1U << ARRAY_SIZE(part_names)) - 1 == PTS_PARTS_ALL,
	       "a word for each PTS_PART_*");

static int part_choices(const char **words)
{
	size_t i;

	words[0] = "none";
	for (i = 0; i < ARRAY_SIZE(part_names); i++)
		words[i + 1] = part_names[i];
	return ARRAY_SIZE(part_names) + 1;
}

static int metric_choices(const char **words)
{
	int i, n = 0;

	for (i = 0; i < pts_catalog_len && n < MAX_CHOICES; i++)
		if (pts_catalog[i].opt_in)
			words[n++] = pts_catalog[i].name;
	return n;
}

struct opt_spec {
	const char *name;	/* --name */
	int val;		/* -letter, or an OPT_* for a long one only */
	const char *arg;	/* its value's name in --help; NULL: no value */
	unsigned int cmds;	/* CMD() of the commands it is for; 0: any */
	const char *refuse;	/* non-NULL: other commands refuse it so */
	const char *help;
	choices_fn choices;	/* the values, after @help and in errors */
	const char *dflt;	/* "(default ...)" after that */
};

static const struct opt_spec opt_specs[] = {
	{ .name = "pid", .val = 'p', .arg = "PID",
	  .cmds = CMDS_TRACING | CMD(PTS_CMD_MAPS),
	  .help = "only this process (tgid); stat: trace it and its "
		  "children (those it has and those it forks) instead of "
		  "running a command" },
	{ .name = "comm", .val = 'c', .arg = "COMM",
	  .cmds = CMDS_TRACING | CMD(PTS_CMD_MAPS),
	  .help = "only tasks with this command name, as the kernel keeps it "
		  "(its first 15 characters)" },
	{ .name = "cgroup", .val = OPT_CGROUP, .arg = "PATH",
	  .cmds = CMD(PTS_CMD_TOP) | CMD(PTS_CMD_STAT) | CMD(PTS_CMD_SNOOP) |
		  CMD(PTS_CMD_EXPORT),
	  .help = "only tasks in this cgroup v2 and the cgroups below it: its "
		  "directory, or its path under the cgroup2 mount (as "
		  "/proc/PID/cgroup writes it)" },
	{ .name = "interval", .val = 'i', .arg = "S",
	  .cmds = CMD(PTS_CMD_TOP) | CMD(PTS_CMD_MAPS),
	  .help = "refresh interval in seconds, at least "
		  PTS_STR(PTS_MIN_INTERVAL_S) "; maps reports once without it",
	  .dflt = PTS_STR(PTS_DEFAULT_INTERVAL_S) },
	{ .name = "duration", .val = 'd', .arg = "S",
	  .cmds = CMDS_TRACING | CMD(PTS_CMD_MAPS),
	  .help = "stop after S seconds; stat: only with -p", .dflt = "until "
		  "Ctrl-C" },
	{ .name = "rows", .val = 'r', .arg = "N", .cmds = CMD(PTS_CMD_TOP),
	  .help = "rows of each table (processes, cgroups)",
	  .dflt = PTS_STR(PTS_DEFAULT_ROWS) },
	{ .name = "sort", .val = 's', .arg = "KEY", .cmds = CMD(PTS_CMD_TOP),
	  .help = "sort both tables (cgroups by path for pid) by",
	  .choices = sort_choices, .dflt = "activity" },
	{ .name = "repeat", .val = OPT_REPEAT, .arg = "N",
	  .cmds = CMD(PTS_CMD_STAT),
	  .refuse = "--repeat applies to stat only",
	  .help = "run CMD N times under one attach (with -p: N windows of "
		  "-d seconds), mean and stddev per metric; at most "
		  PTS_STR(PTS_MAX_REPEAT),
	  .dflt = PTS_STR(PTS_DEFAULT_REPEAT) },
	{ .name = "all", .val = OPT_ALL, .cmds = CMD(PTS_CMD_DIFF),
	  .refuse = "--all applies to diff only",
	  .help = "show every row, not only the changed ones" },
	{ .name = "fail-on-change", .val = OPT_FAIL_ON_CHANGE,
	  .cmds = CMD(PTS_CMD_DIFF),
	  .refuse = "--fail-on-change applies to diff only",
	  .help = "exit 1 when a row changed (for CI)" },
	{ .name = "min-effect", .val = OPT_MIN_EFFECT, .arg = "PCT",
	  .cmds = CMD(PTS_CMD_DIFF),
	  .refuse = "--min-effect applies to diff only",
	  .help = "smallest change in percent that counts, 0 to 1000: for "
		  "a time its whole 95% interval, for an exact count its "
		  "change",
	  .dflt = PTS_STR(PTS_DEFAULT_MIN_EFFECT) },
	{ .name = "alpha", .val = OPT_ALPHA, .arg = "A",
	  .cmds = CMD(PTS_CMD_DIFF),
	  .refuse = "--alpha applies to diff only",
	  .help = "significance level of the test, between 0 and 1",
	  .dflt = PTS_STR(PTS_DEFAULT_ALPHA) },
	{ .name = "time", .val = OPT_TIME, .arg = "WHEN",
	  .cmds = CMD(PTS_CMD_SNOOP),
	  .refuse = "--time applies to snoop only",
	  .help = "the TIME column: seconds since tracing began (rel) or "
		  "the local time of day with microseconds (wall):",
	  .choices = time_choices, .dflt = "rel" },
	{ .name = "json", .val = 'j', .cmds = CMDS_REPORTING,
	  .help = "JSON output" },
	{ .name = "output", .val = 'o', .arg = "FILE", .cmds = CMDS_REPORTING,
	  .help = "write the report to FILE, not to stdout (stat: not to "
		  "stderr; a FILE ending in .json means --json); a FILE that "
		  "cannot be written stops ptscope before it runs anything" },
	{ .name = "mode", .val = OPT_MODE, .arg = "MODE",
	  .cmds = CMDS_TRACING | CMD(PTS_CMD_PROBE),
	  .help = "attach paths to use:", .choices = mode_choices,
	  .dflt = "auto" },
	{ .name = "listen", .val = OPT_LISTEN, .arg = "A:P",
	  .cmds = CMD(PTS_CMD_TOP) | CMD(PTS_CMD_EXPORT),
	  .refuse = "--listen applies to export and top only (top --listen "
		    "also serves /metrics)",
	  .help = "serve /metrics on this address and port; top only when "
		  "given, off the same maps",
	  .dflt = PTS_DEFAULT_LISTEN },
	/*
	 * BPF_STATS_RUN_TIME times every BPF program on the box, not only
	 * ours (bpf_prog_run() reads sched_clock() twice per run while the
	 * static key bpf_stats_enabled_key is on, kernel/bpf/syscall.c).
	 */
	{ .name = "bpf-stats", .val = OPT_BPF_STATS,
	  .cmds = CMD(PTS_CMD_TOP) | CMD(PTS_CMD_EXPORT),
	  .refuse = "--bpf-stats applies to export and top --listen",
	  .help = "serve each ptscope BPF program's run time and runs; turns "
		  "on the kernel's run-time statistics, which time every BPF "
		  "program on the box" },
	{ .name = "cgroup-labels", .val = OPT_CGROUP_LABELS, .arg = "N",
	  .cmds = CMD(PTS_CMD_TOP) | CMD(PTS_CMD_EXPORT),
	  .refuse = "--cgroup-labels applies to export and top --listen",
	  .help = "also serve the mremap, level and fault counters per cgroup "
		  "(ptscope_cgroup_*) for the N busiest cgroups, the others "
		  "summed as cgroup=\"other\"; 0: no cgroup label",
	  .dflt = PTS_STR(PTS_DEFAULT_CGROUP_LABELS) },
	{ .name = "parts", .val = OPT_PARTS, .arg = "LIST",
	  .cmds = CMD(PTS_CMD_EXPORT),
	  .refuse = "--parts applies to export only (it is for measuring "
		    "what each part costs)",
	  .help = "keep only these parts of the BPF programs' work, comma "
		  "separated, to measure what each costs (make "
		  "bench-overhead); what a left-out part counts is not "
		  "served:",
	  .choices = part_choices },
	{ .name = "kube-logs", .val = OPT_KUBE_LOGS, .arg = "DIR",
	  .cmds = CMD(PTS_CMD_TOP) | CMD(PTS_CMD_STAT) | CMD(PTS_CMD_EXPORT),
	  .refuse = "--kube-logs applies to top, stat and export",
	  .help = "the kubelet's log directories, DIR/pods and DIR/containers, "
		  "which name the namespace, pod and container of a pod's "
		  "cgroup", .dflt = "/var/log" },
	{ .name = "metric", .val = OPT_METRIC, .arg = "NAME",
	  .cmds = CMDS_TRACING | CMD(PTS_CMD_PROBE),
	  .help = "also attach an opt-in metric, off by default for its cost:",
	  .choices = metric_choices },
	{ .name = "verbose", .val = 'v',
	  .help = "say what the kernel refused, one line per program" },
	{ .name = "libbpf-debug", .val = OPT_LIBBPF_DEBUG,
	  .help = "libbpf's own debug log on stderr (thousands of lines: "
		  "BTF, relocations, verifier)" },
	{ .name = "help", .val = 'h', .help = "this text" },
	{ .name = "version", .val = 'V', .help = "version" },
};

static const char examples[] =
"Examples:\n"
"  ptscope probe                       # attach paths on this kernel\n"
"  ptscope stat -- stress-ng --bigheap 1 -t 5\n"
"  ptscope top -i 2 -c stress-ng-bighe # live, refresh every 2 s\n"
"  ptscope top --listen 127.0.0.1:9477 # live view and Prometheus at once\n"
"  ptscope top --cgroup system.slice   # only tasks in that cgroup and below\n"
"  ptscope stat --json -o run.json -- ./workload\n"
"  ptscope maps -p 1234                # its folios by size, PMD or PTE mapped\n";

/* @words joined by @sep, the last two by @last: "a, b or c" */
static void join(char *buf, size_t len, const char **words, int n,
		 const char *sep, const char *last)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < n && used < len; i++)
		used += snprintf(buf + used, len - used, "%s%s",
				 !i ? "" : i == n - 1 ? last : sep, words[i]);
}

#define HELP_COL	21	/* where the help text of an entry starts */
#define HELP_WIDTH	79

/* "  NAME   text tail": @text word-wrapped below itself, @tail unbroken */
static void print_entry(FILE *out, const char *name, const char *text,
			const char *tail)
{
	int col;

	col = fprintf(out, "  %s", name);
	if (col > HELP_COL - 2) {	/* two spaces at least before the text */
		fputc('\n', out);
		col = 0;
	}
	fprintf(out, "%*s", HELP_COL - col, "");
	col = fmt_wrap(out, HELP_COL, HELP_COL, HELP_WIDTH, text);
	if (tail && *tail)
		fmt_wrap_word(out, col, HELP_COL, HELP_WIDTH, tail, strlen(tail));
	fputc('\n', out);
}

/* "top, snoop, export": the listed commands among @cmds */
static void cmd_names(char *buf, size_t len, unsigned int cmds)
{
	const char *words[ARRAY_SIZE(cmd_specs)];
	size_t i;
	int n = 0;

	for (i = 0; i < ARRAY_SIZE(cmd_specs); i++)
		if (cmd_specs[i].help && (cmds & CMD(cmd_specs[i].cmd)))
			words[n++] = cmd_specs[i].name;
	join(buf, len, words, n, ", ", ", ");
}

/* @o's --help entry; @with_cmds: led by the commands it is for */
static void print_option(FILE *out, const struct opt_spec *o, bool with_cmds)
{
	const char *words[MAX_CHOICES];
	char name[64], text[512], list[256], dflt[64] = "";
	size_t used;

	if (o->val < OPT_FIRST_LONG)
		used = snprintf(name, sizeof(name), "-%c, --%s", o->val, o->name);
	else
		used = snprintf(name, sizeof(name), "    --%s", o->name);
	if (o->arg && used < sizeof(name))
		snprintf(name + used, sizeof(name) - used, " %s", o->arg);
	list[0] = '\0';
	with_cmds = with_cmds && o->cmds;
	if (with_cmds)
		cmd_names(list, sizeof(list), o->cmds);
	used = snprintf(text, sizeof(text), "%s%s%s", list, with_cmds ? ": " : "",
			o->help);
	if (o->choices && used < sizeof(text)) {
		join(list, sizeof(list), words, o->choices(words), "|", "|");
		used += snprintf(text + used, sizeof(text) - used, " %s", list);
	}
	if (o->dflt)
		snprintf(dflt, sizeof(dflt), "(default %s)", o->dflt);
	print_entry(out, name, text, dflt);
}

void options_usage(FILE *out)
{
	char name[64];
	size_t i;

	fputs("Usage: ptscope [COMMAND] [OPTIONS]\n"
	      "Trace mremap page-table moves and hugepage faults with eBPF.\n"
	      "\nCommands:\n", out);
	for (i = 0; i < ARRAY_SIZE(cmd_specs); i++) {
		if (!cmd_specs[i].help)
			continue;
		snprintf(name, sizeof(name), "%s%s%s", cmd_specs[i].name,
			 cmd_specs[i].args ? " " : "",
			 cmd_specs[i].args ? cmd_specs[i].args : "");
		print_entry(out, name, cmd_specs[i].help, NULL);
	}
	fputs("\nOptions:\n", out);
	for (i = 0; i < ARRAY_SIZE(opt_specs); i++)
		print_option(out, &opt_specs[i], true);
	fprintf(out, "\n%s\n'ptscope COMMAND --help' shows a command's own "
		"options.\n", examples);
}

static const struct cmd_spec *cmd_spec_of(enum pts_command cmd)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(cmd_specs); i++)
		if (cmd_specs[i].cmd == cmd)
			return &cmd_specs[i];
	return NULL;
}

void options_command_usage(FILE *out, enum pts_command cmd)
{
	const struct cmd_spec *c = cmd_spec_of(cmd);
	size_t i;

	if (!c || !c->usage) {
		options_usage(out);
		return;
	}
	fprintf(out, "Usage: %s\n", c->usage);
	fmt_wrap(out, 0, 0, HELP_WIDTH, c->help);
	fputs(".\n\nOptions:\n", out);
	for (i = 0; i < ARRAY_SIZE(opt_specs); i++)
		if (!opt_specs[i].cmds || (opt_specs[i].cmds & CMD(cmd)))
			print_option(out, &opt_specs[i], false);
	fprintf(out, "\nExamples:\n%s", c->examples);
}

void options_notes(const struct pts_options *opts, FILE *out)
{
	if (opts->comm_given)
		fprintf(out, "ptscope: note: -c %s matches the kernel's "
			"15-character comm '%s'\n", opts->comm_given,
			opts->comm);
}

/* a finite number in @arg (all of it) */
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

	for (i = 0; i < ARRAY_SIZE(cmd_specs); i++) {
		if (!strcmp(word, cmd_specs[i].name)) {
			*cmd = cmd_specs[i].cmd;
			return 0;
		}
	}
	cmd_names(names, sizeof(names), ~0u);
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
	char short_opts[2 * ARRAY_SIZE(opt_specs) + 2];
	struct option long_opts[ARRAY_SIZE(opt_specs) + 1];
};

static struct getopt_tables getopt_tables;

static void build_getopt(struct getopt_tables *t)
{
	const struct opt_spec *o;
	size_t i, n = 0;

	memset(t, 0, sizeof(*t));
	t->short_opts[n++] = '+';	/* stop at the first non-option */
	for (i = 0; i < ARRAY_SIZE(opt_specs); i++) {
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

	for (i = 0; i < ARRAY_SIZE(opt_specs); i++)
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

	join(list, sizeof(list), words, opt_spec_of(val)->choices(words),
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

	for (i = 0; i < ARRAY_SIZE(sort_keys); i++) {
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
		for (i = 0; i < ARRAY_SIZE(part_names); i++)
			if (strlen(part_names[i]) == len &&
			    !strncmp(word, part_names[i], len))
				break;
		if (i == ARRAY_SIZE(part_names))
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
