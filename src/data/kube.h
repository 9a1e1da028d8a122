/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kubernetes names of cgroups, from the node alone (no API server).
 *
 * The kubelet's cgroup layouts give a pod's UID, its QoS class and a
 * container's id: with the systemd driver
 *   kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod<uid>.slice/
 *   cri-containerd-<id>.scope (or crio-<id>.scope, docker-<id>.scope)
 * where the UID's dashes are written as underscores, and a guaranteed pod
 * sits directly in kubepods.slice as kubepods-pod<uid>.slice; with the
 * cgroupfs driver kubepods/burstable/pod<uid>/<id>.  The hierarchy may
 * sit below other cgroups (kind, nested kubelets).
 *
 * The kubelet's log directories give the names: pods/<namespace>_<pod>_<uid>/
 * and containers/<pod>_<namespace>_<container>-<container-id>.log.
 */
#ifndef PTSCOPE_KUBE_H
#define PTSCOPE_KUBE_H

#include <stdbool.h>
#include <stddef.h>

enum pts_kube_qos {
	PTS_KUBE_QOS_GUARANTEED = 0,
	PTS_KUBE_QOS_BURSTABLE,
	PTS_KUBE_QOS_BESTEFFORT,
};

#define PTS_KUBE_NS_LEN		64	/* a DNS label: 63 characters */
#define PTS_KUBE_POD_LEN	256	/* a DNS subdomain: 253 */
#define PTS_KUBE_CTR_LEN	129	/* 63, or a container id */
#define PTS_KUBE_UID_LEN	65	/* UIDs are 36, static pods' hashes 32 */
#define PTS_KUBE_CID_LEN	129	/* ids are 64 hex digits */

/* what a cgroup path says about a pod */
struct pts_kube_ref {
	char pod_uid[PTS_KUBE_UID_LEN];	/* with dashes */
	char container_id[PTS_KUBE_CID_LEN];	/* "": the pod's own cgroup */
	enum pts_kube_qos qos;
};

/* one entry of the log directories */
struct pts_kube_names {
	char ns[PTS_KUBE_NS_LEN];
	char pod[PTS_KUBE_POD_LEN];
	char container[PTS_KUBE_CTR_LEN];	/* pods/ entries: "" */
	char key[PTS_KUBE_CID_LEN];	/* pods/: the UID; containers/: the id */
};

/*
 * A pod's cgroup or one of its containers' with the names the node
 * knows.  Without log entries: ns "", pod the UID, container the id.
 */
struct pts_kube_id {
	struct pts_kube_ref ref;
	struct pts_kube_names names;
	bool named;		/* the log directories named it */
};

/* 1 with @ref filled when @path (a cgroup v2 path) is a pod's, else 0 */
int kube_parse_cgroup(const char *path, struct pts_kube_ref *ref);
const char *kube_qos_name(enum pts_kube_qos qos);
/* "<namespace>_<pod>_<uid>": 0 with @out filled (key: the UID), or -1 */
int kube_parse_pod_dir(const char *name, struct pts_kube_names *out);
/*
 * "<pod>_<namespace>_<container>-<id>.log": 0 with @out filled (key: the
 * container id), or -1
 */
int kube_parse_container_log(const char *name, struct pts_kube_names *out);
/* "namespace/pod/container" ("?" for an unknown namespace) into @buf */
const char *kube_label(char *buf, size_t len, const struct pts_kube_id *id);

#endif
