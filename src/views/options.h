/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_OPTIONS_H
#define PTSCOPE_OPTIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>
#include <ptscope/ptscope.h>

enum pts_command {
	PTS_CMD_TOP = 0,
	PTS_CMD_STAT,
	PTS_CMD_PROBE,
	PTS_CMD_SNOOP,
	PTS_CMD_EXPORT,
	PTS_CMD_DIFF,
	PTS_CMD_MAPS,
	PTS_CMD_HELP,
	PTS_CMD_VERSION,
};

enum pts_sort {
	PTS_SORT_ACTIVITY = 0,	/* mremap calls + hugepage faults */
	PTS_SORT_MREMAP,
	PTS_SORT_FAULTS,
	PTS_SORT_LATENCY,	/* mean mremap latency */
	PTS_SORT_PID,
};
#define PTS_NR_SORTS	(PTS_SORT_PID + 1)

#define PTS_MAX_OPT_IN	4
#define PTS_CGROUP_LABELS	5	/* --cgroup-labels default */
#define PTS_MIN_INTERVAL_S	0.01	/* -i */

struct pts_options {
	enum pts_command cmd;
	pid_t pid;			/* -p: 0 for any */
	char comm[PTS_COMM_LEN];	/* -c: "" for any */
	double interval_s;		/* -i */
	bool interval_set;		/* -i given: maps refreshes */
	double duration_s;		/* -d: 0 for until Ctrl-C */
	bool json;
	bool time_wall;			/* snoop: --time wall */
	const char *output;		/* -o FILE */
	int mode;			/* PTS_MODE_AUTO or enum pts_path_kind */
	bool verbose;
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
};

/* 0: run; 2: usage error (message in @err); help/version set cmd */
int options_parse(int argc, char **argv, struct pts_options *opts,
		  char *err, size_t errlen);
void options_usage(FILE *out);
/* -s KEY's word for @key, "activity" */
const char *options_sort_name(enum pts_sort key);

#endif
