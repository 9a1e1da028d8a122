/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stop signals (SIGINT, SIGTERM, SIGHUP): a handler that sets a flag,
 * and, for loops that wait in ppoll(), a way to keep them blocked outside
 * the wait so a Ctrl-C can never slip in between the check and the wait.
 */
#ifndef PTSCOPE_SIGNALS_H
#define PTSCOPE_SIGNALS_H

#include <signal.h>

extern volatile sig_atomic_t pts_stop_requested;
extern volatile sig_atomic_t pts_last_signal;

/* no SA_RESTART: sleeps and waits return early; SIGPIPE ignored */
void signals_install(void);
/* block the stop signals; returns the mask to wait with (them unblocked) */
const sigset_t *signals_hold(void);
/* undo signals_hold(); harmless without it */
void signals_release(void);

#endif
