// SPDX-License-Identifier: GPL-2.0
/* --help, of ptscope and of each command, from the command-line tables */
#include <string.h>
#include "data/format.h"
#include "views/options_spec.h"

static const char examples[] =
"Examples:\n"
"  ptscope probe                       # attach paths on this kernel\n"
"  ptscope stat -- stress-ng --bigheap 1 -t 5\n"
"  ptscope top -i 2 -c stress-ng-bighe # live, refresh every 2 s\n"
"  ptscope top --listen 127.0.0.1:9477 # live view and Prometheus at once\n"
"  ptscope top --cgroup system.slice   # only tasks in that cgroup and below\n"
"  ptscope stat --json -o run.json -- ./workload\n"
"  ptscope maps -p 1234                # its folios by size, PMD or PTE mapped\n";

void options_join(char *buf, size_t len, const char **words, int n,
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
void options_cmd_names(char *buf, size_t len, unsigned int cmds)
{
	const char *words[NR_CMD_SPECS];
	size_t i;
	int n = 0;

	for (i = 0; i < NR_CMD_SPECS; i++)
		if (cmd_specs[i].help && (cmds & CMD(cmd_specs[i].cmd)))
			words[n++] = cmd_specs[i].name;
	options_join(buf, len, words, n, ", ", ", ");
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
		options_cmd_names(list, sizeof(list), o->cmds);
	used = snprintf(text, sizeof(text), "%s%s%s", list, with_cmds ? ": " : "",
			o->help);
	if (o->choices && used < sizeof(text)) {
		options_join(list, sizeof(list), words, o->choices(words), "|", "|");
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
	for (i = 0; i < NR_CMD_SPECS; i++) {
		if (!cmd_specs[i].help)
			continue;
		snprintf(name, sizeof(name), "%s%s%s", cmd_specs[i].name,
			 cmd_specs[i].args ? " " : "",
			 cmd_specs[i].args ? cmd_specs[i].args : "");
		print_entry(out, name, cmd_specs[i].help, NULL);
	}
	fputs("\nOptions:\n", out);
	for (i = 0; i < NR_OPT_SPECS; i++)
		print_option(out, &opt_specs[i], true);
	fprintf(out, "\n%s\n'ptscope COMMAND --help' shows a command's own "
		"options.\n", examples);
}

static const struct cmd_spec *cmd_spec_of(enum pts_command cmd)
{
	size_t i;

	for (i = 0; i < NR_CMD_SPECS; i++)
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
	for (i = 0; i < NR_OPT_SPECS; i++)
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
