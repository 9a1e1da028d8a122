/* SPDX-License-Identifier: GPL-2.0 */
/* What every command shares: probe the kernel, configure, attach, detach. */
#ifndef PTSCOPE_SESSION_H
#define PTSCOPE_SESSION_H

#include <signal.h>
#include "engine/kfeatures.h"
#include "engine/engine.h"
#include "views/options.h"
#include "views/report.h"

struct pts_session {
	const struct pts_options *opts;
	struct pts_kfeatures kf;
	struct pts_engine eng;
	struct pts_config cfg;
	struct pts_report rep;
};

extern volatile sig_atomic_t pts_stop_requested;
extern volatile sig_atomic_t pts_last_signal;

void session_install_signals(void);
/* Returns 0, or a process exit code (1) after printing what to do. */
int session_start(struct pts_session *s, const struct pts_options *opts,
		  bool follow_fork);
void session_stop(struct pts_session *s);
void session_build_config(const struct pts_kfeatures *kf,
			  const struct pts_options *opts, bool follow_fork,
			  struct pts_config *cfg);

#endif
