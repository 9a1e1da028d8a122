// SPDX-License-Identifier: GPL-2.0
/*
 * The command line's tables: one of commands and one of options, from
 * which getopt's structures, --help and the messages that list an
 * option's values are made; the metric names come from the catalog.
 */
#include "engine/catalog.h"
#include "views/options_spec.h"

const struct cmd_spec cmd_specs[] = {
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

const char *const sort_keys[] = {
	[PTS_SORT_ACTIVITY] = "activity",
	[PTS_SORT_MREMAP] = "mremap",
	[PTS_SORT_FAULTS] = "faults",
	[PTS_SORT_LATENCY] = "latency",
	[PTS_SORT_PID] = "pid",
};

const size_t nr_sort_keys = ARRAY_SIZE(sort_keys);

const char *options_sort_name(enum pts_sort key)
{
	return key < ARRAY_SIZE(sort_keys) ? sort_keys[key] : "?";
}

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
const char *const part_names[] = {
	"counts", "hists", "proc-rows", "cgroup-rows", "pte-marker",
};
_Static_assert((1U << ARRAY_SIZE(part_names)) - 1 == PTS_PARTS_ALL,
	       "a word for each PTS_PART_*");
const size_t nr_part_names = ARRAY_SIZE(part_names);

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

const struct opt_spec opt_specs[] = {
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
