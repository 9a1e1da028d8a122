/* SPDX-License-Identifier: GPL-2.0 */
/* Start a command held at the door until it is traced, then let it run. */
#ifndef PTSCOPE_RUN_CMD_H
#define PTSCOPE_RUN_CMD_H

#include <stdbool.h>
#include <sys/types.h>

struct pts_child {
	pid_t pid;
	int go_fd;		/* write end: closing it lets the child exec */
	bool interrupted;	/* child_wait() passed it a Ctrl-C or TERM */
};

int child_spawn(struct pts_child *child, char **argv);
int child_release(struct pts_child *child);
/*
 * Waits, forwarding Ctrl-C/TERM; returns a shell-style exit status: the
 * exit code, 128+signal, 127 not found, 126 not executable.
 */
int child_wait(struct pts_child *child);
void child_kill(struct pts_child *child);

#endif
