/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The tables of the command line, shared by the parser (options.c) and
 * --help (options_help.c): commands, options, the words of their values.
 */
#ifndef PTSCOPE_VIEWS_OPTIONS_SPEC_H
#define PTSCOPE_VIEWS_OPTIONS_SPEC_H

#include <stddef.h>
#include <stdio.h>
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

#define MAX_CHOICES	16

/* the words an option's value can be: fills @words, returns how many */
typedef int (*choices_fn)(const char **words);

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

#define NR_CMD_SPECS	9
#define NR_OPT_SPECS	26
extern const struct cmd_spec cmd_specs[NR_CMD_SPECS];
extern const struct opt_spec opt_specs[NR_OPT_SPECS];
extern const char *const sort_keys[];
extern const size_t nr_sort_keys;
/* export --parts: the words for PTS_PART_*, in bit order */
extern const char *const part_names[];
extern const size_t nr_part_names;

/* options_help.c */
#define HELP_WIDTH	79
/* @words joined by @sep, the last two by @last: "a, b or c" */
void options_join(char *buf, size_t len, const char **words, int n,
		  const char *sep, const char *last);
/* the names of the commands in @cmds (CMD() bits) */
void options_cmd_names(char *buf, size_t len, unsigned int cmds);

#endif
