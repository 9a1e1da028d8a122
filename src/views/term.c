// SPDX-License-Identifier: GPL-2.0
#define _GNU_SOURCE	/* ppoll() */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <termios.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "data/collector.h"
#include "views/term.h"

static struct termios saved_mode;
static bool keys_on;

bool term_keys_begin(void)
{
	struct termios raw;

	if (keys_on)
		return true;
	if (!isatty(STDIN_FILENO) || tcgetattr(STDIN_FILENO, &saved_mode))
		return false;
	/* in the background ("top -o f &") tcsetattr() would stop us (SIGTTOU) */
	if (tcgetpgrp(STDIN_FILENO) != getpgrp())
		return false;
	raw = saved_mode;
	/* ISIG stays: Ctrl-C still sends SIGINT and ends the view cleanly */
	raw.c_lflag &= ~(ICANON | ECHO);
	raw.c_cc[VMIN] = 1;
	raw.c_cc[VTIME] = 0;
	if (tcsetattr(STDIN_FILENO, TCSANOW, &raw))
		return false;
	keys_on = true;
	/* an exit() on some path the view does not return through */
	atexit(term_keys_end);
	return true;
}

void term_keys_end(void)
{
	if (!keys_on)
		return;
	tcsetattr(STDIN_FILENO, TCSANOW, &saved_mode);
	keys_on = false;
}

int term_wait_key(double deadline, const sigset_t *wait_mask)
{
	struct pollfd pfd = { .fd = STDIN_FILENO, .events = POLLIN };
	double left = deadline - mono_seconds();
	struct timespec ts;
	unsigned char key;

	if (left < 0)
		left = 0;	/* a key already typed is still read */
	ts.tv_sec = (time_t)left;
	ts.tv_nsec = (long)((left - (double)ts.tv_sec) * 1e9);
	if (ppoll(&pfd, keys_on ? 1 : 0, &ts, wait_mask) <= 0)
		return 0;
	/* POLLHUP: the terminal went away, and read() gives 0 from now on */
	if (read(STDIN_FILENO, &key, 1) != 1) {
		term_keys_end();
		return 0;
	}
	return key;
}

int term_columns(int fd)
{
	struct winsize ws;
	const char *env = getenv("COLUMNS");
	long cols;
	char *end;

	if (!ioctl(fd, TIOCGWINSZ, &ws) && ws.ws_col)
		return ws.ws_col;
	if (env) {
		cols = strtol(env, &end, 10);
		if (end != env && !*end && cols > 0 && cols < 100000)
			return (int)cols;
	}
	return 80;
}

int term_rows(int fd)
{
	struct winsize ws;

	if (ioctl(fd, TIOCGWINSZ, &ws) || !ws.ws_row)
		return 24;
	return ws.ws_row;
}
