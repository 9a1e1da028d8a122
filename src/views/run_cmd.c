// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>
#include "views/run_cmd.h"
#include "views/signals.h"

int child_spawn(struct pts_child *child, char **argv)
{
	int pipefd[2];
	char go;

	if (pipe(pipefd))
		return -errno;
	child->pid = fork();
	if (child->pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return -errno;
	}
	if (child->pid == 0) {
		close(pipefd[1]);
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		signal(SIGPIPE, SIG_DFL);	/* ignored by ptscope itself */
		/* EOF without a byte means ptscope gave up: do not run */
		if (read(pipefd[0], &go, 1) != 1)
			_exit(127);
		close(pipefd[0]);
		execvp(argv[0], argv);
		fprintf(stderr, "ptscope: cannot run '%s': %s\n", argv[0],
			strerror(errno));
		/* as shells do: 127 not found, 126 found but not runnable */
		_exit(errno == ENOENT || errno == ENOTDIR ? 127 : 126);
	}
	close(pipefd[0]);
	child->go_fd = pipefd[1];
	return 0;
}

int child_release(struct pts_child *child)
{
	char go = 'g';
	int err = 0;

	if (write(child->go_fd, &go, 1) != 1)
		err = -errno;
	close(child->go_fd);
	child->go_fd = -1;
	return err;
}

void child_kill(struct pts_child *child)
{
	if (child->go_fd >= 0)
		close(child->go_fd);	/* child exits 127 without running */
	child->go_fd = -1;
	waitpid(child->pid, NULL, 0);
}

int child_wait(struct pts_child *child)
{
	int status;
	pid_t ret;

	for (;;) {
		ret = waitpid(child->pid, &status, 0);
		if (ret == child->pid)
			break;
		if (ret < 0 && errno != EINTR)
			return 1;
		if (pts_stop_requested) {
			kill(child->pid, pts_last_signal);
			pts_stop_requested = 0;
			child->interrupted = true;
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}
