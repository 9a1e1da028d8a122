/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Least privilege for the serving processes (export, top --listen): once
 * everything is attached and opened, keep no capability reading the maps
 * does not need, set no_new_privs and filter the system calls.
 */
#ifndef PTSCOPE_PRIVDROP_H
#define PTSCOPE_PRIVDROP_H

#include "tracer/tracer.h"

/*
 * Drop every capability (the bounding set too) except CAP_BPF (or, before
 * 5.8, CAP_SYS_ADMIN) where reading @t's already-open maps still needs
 * it (kernels before 6.5 with unprivileged BPF disabled), set
 * PR_SET_NO_NEW_PRIVS and install a seccomp filter that fails other
 * system calls with EPERM.  0, or 1 after saying what failed.
 */
int privdrop_apply(const struct pts_tracer *t);

#endif
