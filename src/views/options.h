/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_OPTIONS_H
#define PTSCOPE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <ptscope/ptscope.h>
#include "render/report.h"	/* enum pts_sort */

enum pts_command {
	PTS_CMD_TOP = 0,
	PTS_CMD_STAT,
	PTS_CMD_PROBE,
	PTS_CMD_SNOOP,
	PTS_CMD_EXPORT,
	PTS_CMD_DIFF,
	PTS_CMD_MAPS,
	PTS_CMD_SCHEMA,
	PTS_CMD_HELP,
	PTS_CMD_VERSION,
};


#define PTS_MAX_OPT_IN	4
#define PTS_MIN_INTERVAL_S	0.01	/* -i */
#define PTS_MAX_REPEAT	1000	/* stat --repeat */
#define PTS_MAX_MIN_EFFECT	1000.0	/* diff --min-effect, percent */

/* option defaults, for defaults() and --help alike */
#define PTS_DEFAULT_INTERVAL_S	1		/* -i */
#define PTS_DEFAULT_ROWS	20		/* top -r */
#define PTS_DEFAULT_LISTEN	"127.0.0.1:9477"	/* --listen */
#define PTS_DEFAULT_CGROUP_LABELS	5	/* --cgroup-labels */
#define PTS_DEFAULT_REPEAT	1		/* stat --repeat */
#define PTS_DEFAULT_MIN_EFFECT	2		/* diff --min-effect, percent */
#define PTS_DEFAULT_ALPHA	0.05		/* diff --alpha */

struct pts_options {
	enum pts_command cmd;
	pid_t pid;			/* -p: 0 for any */
	char comm[PTS_COMM_LEN];	/* -c: "" for any */
	const char *comm_given;		/* -c as typed when longer: cut */
	double interval_s;		/* -i */
	bool interval_set;		/* -i given: maps refreshes */
	double duration_s;		/* -d: 0 for until Ctrl-C */
	bool json;
	bool time_wall;			/* snoop: --time wall */
	const char *output;		/* -o FILE */
	int mode;			/* PTS_MODE_AUTO or enum pts_path_kind */
	bool verbose;			/* -v: what the kernel refused */
	bool libbpf_debug;		/* --libbpf-debug: libbpf's own log */
	enum pts_command help_cmd;	/* --help of this command; HELP: all */
	int rows;			/* top: -r */
	enum pts_sort sort;		/* top: -s */
	char **cmd_argv;		/* stat -- CMD ARGS */
	const char *listen;		/* export: ADDR:PORT */
	bool listen_set;		/* --listen given: top serves too */
	bool bpf_stats;			/* --bpf-stats: program run time */
	const char *diff_base;		/* diff BASE.json NEW.json */
	const char *diff_new;
	const char *opt_in[PTS_MAX_OPT_IN];	/* --metric NAME */
	int nr_opt_in;
	const char *cgroup;		/* --cgroup PATH: NULL for any */
	int cgroup_labels;		/* export: --cgroup-labels N */
	const char *parts_arg;		/* export: --parts LIST; NULL: not given */
	unsigned int parts;		/* its PTS_PART_* bits */
	const char *kube_logs;		/* --kube-logs DIR: NULL for /var/log */
	int repeat;			/* stat: --repeat N runs or windows */
	bool diff_all;			/* diff: --all rows */
	bool fail_on_change;		/* diff: exit 1 on a change */
	double min_effect_pct;		/* diff: --min-effect PCT */
	double alpha;			/* diff: --alpha A */
};

/* 0: run; 2: usage error (message in @err); help/version set cmd */
int options_parse(int argc, char **argv, struct pts_options *opts,
		  char *err, size_t errlen);
void options_usage(FILE *out);
/* @cmd's usage line, its options and examples */
void options_command_usage(FILE *out, enum pts_command cmd);
/* what the user should know about how an option was read (-c cut) */
void options_notes(const struct pts_options *opts, FILE *out);
/* -s KEY's word for @key, "activity" */
const char *options_sort_name(enum pts_sort key);

#endif
