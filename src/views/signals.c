// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <string.h>
#include "views/signals.h"

volatile sig_atomic_t pts_stop_requested;
volatile sig_atomic_t pts_last_signal;

static sigset_t wait_mask;	/* the mask before signals_hold() */
static bool held;

static void on_signal(int sig)
{
	pts_stop_requested = 1;
	pts_last_signal = sig;
}

void signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: sleeps and waits return early on Ctrl-C */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed output, or a scraper hanging up, is a write error (EPIPE) */
	signal(SIGPIPE, SIG_IGN);
}

const sigset_t *signals_hold(void)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	if (!held)
		sigprocmask(SIG_BLOCK, &stop, &wait_mask);
	held = true;
	return &wait_mask;
}

void signals_release(void)
{
	if (held)
		sigprocmask(SIG_SETMASK, &wait_mask, NULL);
	held = false;
}
