/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kubelet's log directories as an index of names (--kube-logs DIR):
 * DIR/pods/<namespace>_<pod>_<uid>/ by pod UID and
 * DIR/containers/<pod>_<namespace>_<container>-<id>.log by container id.
 * Read when a pod's cgroup is first named, and again when an id is not
 * found there (a new pod), at most every PTS_KUBE_RESCAN_S.
 */
#ifndef PTSCOPE_KUBE_LOGS_H
#define PTSCOPE_KUBE_LOGS_H

#include "data/kube.h"

#define PTS_KUBE_RESCAN_S	2.0

struct pts_kube_logs;

/* an index of @dir, read on first use; NULL: out of memory */
struct pts_kube_logs *kube_logs_new(const char *dir);
void kube_logs_free(struct pts_kube_logs *logs);
/*
 * The names of the pod (and container) @ref points to, from the index;
 * without entries the UID and the id stand for them (@id->named false).
 * A directory that is missing or unreadable is said once on stderr.
 * @ref may point into @id (a second look after a rescan).
 */
void kube_logs_identify(struct pts_kube_logs *logs,
			const struct pts_kube_ref *ref, struct pts_kube_id *id);

#endif
