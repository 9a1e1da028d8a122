// SPDX-License-Identifier: GPL-2.0
/* Kubernetes names of cgroups: the kubelet's layouts (see kube.h). */
#define _GNU_SOURCE	/* memrchr() */
#include <stdio.h>
#include <string.h>
#include "data/kube.h"

static const char *const qos_names[] = {
	[PTS_KUBE_QOS_GUARANTEED] = "guaranteed",
	[PTS_KUBE_QOS_BURSTABLE] = "burstable",
	[PTS_KUBE_QOS_BESTEFFORT] = "besteffort",
};

const char *kube_qos_name(enum pts_kube_qos qos)
{
	return qos <= PTS_KUBE_QOS_BESTEFFORT ? qos_names[qos] : "?";
}

/* a path component: @s up to @len characters */
struct span {
	const char *s;
	size_t len;
};

static bool span_is(struct span c, const char *word)
{
	return c.len == strlen(word) && !strncmp(c.s, word, c.len);
}

/* @c without @prefix and @suffix, if it has both */
static bool strip(struct span c, const char *prefix, const char *suffix,
		  struct span *out)
{
	size_t p = strlen(prefix), s = strlen(suffix);

	if (c.len < p + s || strncmp(c.s, prefix, p) ||
	    strncmp(c.s + c.len - s, suffix, s))
		return false;
	out->s = c.s + p;
	out->len = c.len - p - s;
	return true;
}

static bool all_of(struct span c, const char *set, size_t min, size_t max)
{
	return c.len >= min && c.len <= max && strspn(c.s, set) >= c.len;
}

/* @uid (dashes, or underscores from the systemd driver) into @ref */
static bool take_uid(struct span uid, struct pts_kube_ref *ref)
{
	size_t i;

	if (!all_of(uid, "0123456789abcdef-_", 32, PTS_KUBE_UID_LEN - 1))
		return false;
	for (i = 0; i < uid.len; i++)
		ref->pod_uid[i] = uid.s[i] == '_' ? '-' : uid.s[i];
	ref->pod_uid[uid.len] = '\0';
	return true;
}

/* kubepods-pod<uid>.slice, kubepods-burstable-pod<uid>.slice, ... */
static bool systemd_pod(struct span c, struct pts_kube_ref *ref)
{
	static const struct {
		const char *prefix;
		enum pts_kube_qos qos;
	} forms[] = {
		{ "kubepods-pod", PTS_KUBE_QOS_GUARANTEED },
		{ "kubepods-burstable-pod", PTS_KUBE_QOS_BURSTABLE },
		{ "kubepods-besteffort-pod", PTS_KUBE_QOS_BESTEFFORT },
	};
	struct span uid;
	size_t i;

	for (i = 0; i < sizeof(forms) / sizeof(forms[0]); i++) {
		if (strip(c, forms[i].prefix, ".slice", &uid) &&
		    take_uid(uid, ref)) {
			ref->qos = forms[i].qos;
			return true;
		}
	}
	return false;
}

/* kubepods/pod<uid>, kubepods/burstable/pod<uid>, ... */
static bool cgroupfs_pod(struct span up2, struct span up1, struct span c,
			 struct pts_kube_ref *ref)
{
	struct span uid;

	if (!strip(c, "pod", "", &uid))
		return false;
	if (span_is(up1, "kubepods"))
		ref->qos = PTS_KUBE_QOS_GUARANTEED;
	else if (span_is(up2, "kubepods") && span_is(up1, "burstable"))
		ref->qos = PTS_KUBE_QOS_BURSTABLE;
	else if (span_is(up2, "kubepods") && span_is(up1, "besteffort"))
		ref->qos = PTS_KUBE_QOS_BESTEFFORT;
	else
		return false;
	return take_uid(uid, ref);
}

/* cri-containerd-<id>.scope, crio-<id>.scope, docker-<id>.scope, or <id> */
static void container(struct span c, struct pts_kube_ref *ref)
{
	static const char *const prefixes[] = {
		"cri-containerd-", "crio-", "docker-", "",
	};
	struct span id;
	size_t i;

	for (i = 0; i < sizeof(prefixes) / sizeof(prefixes[0]); i++) {
		if ((strip(c, prefixes[i], ".scope", &id) ||
		     strip(c, prefixes[i], "", &id)) &&
		    all_of(id, "0123456789abcdef", 12, PTS_KUBE_CID_LEN - 1)) {
			memcpy(ref->container_id, id.s, id.len);
			ref->container_id[id.len] = '\0';
			return;
		}
	}
}

/* the component of @path after @c, or an empty span at its end */
static struct span next_component(struct span c)
{
	const char *s = c.s + c.len;
	struct span n;

	s += strspn(s, "/");
	n.s = s;
	n.len = strcspn(s, "/");
	return n;
}

int kube_parse_cgroup(const char *path, struct pts_kube_ref *ref)
{
	struct span up2 = { "", 0 }, up1 = { "", 0 }, c = { path, 0 };

	memset(ref, 0, sizeof(*ref));
	for (c = next_component(c); c.len;
	     up2 = up1, up1 = c, c = next_component(c)) {
		if (systemd_pod(c, ref) || cgroupfs_pod(up2, up1, c, ref)) {
			container(next_component(c), ref);
			return 1;
		}
	}
	memset(ref, 0, sizeof(*ref));
	return 0;
}

/* copy @c into @dst of @len bytes: false if it does not fit or is empty */
static bool copy_span(char *dst, size_t len, struct span c)
{
	if (!c.len || c.len >= len)
		return false;
	memcpy(dst, c.s, c.len);
	dst[c.len] = '\0';
	return true;
}

/* "a_b_c" (@len characters of @s) into three words, none empty */
static bool split3(const char *s, size_t len, struct span w[3])
{
	const char *end = s + len, *u1, *u2;

	u1 = memchr(s, '_', len);
	u2 = u1 ? memchr(u1 + 1, '_', (size_t)(end - u1 - 1)) : NULL;
	if (!u2 || memchr(u2 + 1, '_', (size_t)(end - u2 - 1)))
		return false;
	w[0] = (struct span){ s, (size_t)(u1 - s) };
	w[1] = (struct span){ u1 + 1, (size_t)(u2 - u1 - 1) };
	w[2] = (struct span){ u2 + 1, (size_t)(end - u2 - 1) };
	return w[0].len && w[1].len && w[2].len;
}

int kube_parse_pod_dir(const char *name, struct pts_kube_names *out)
{
	struct span w[3];

	memset(out, 0, sizeof(*out));
	if (!split3(name, strlen(name), w) ||
	    !all_of(w[2], "0123456789abcdef-", 32, PTS_KUBE_UID_LEN - 1) ||
	    !copy_span(out->ns, sizeof(out->ns), w[0]) ||
	    !copy_span(out->pod, sizeof(out->pod), w[1]) ||
	    !copy_span(out->key, sizeof(out->key), w[2]))
		return -1;
	return 0;
}

int kube_parse_container_log(const char *name, struct pts_kube_names *out)
{
	struct span base, id, w[3];
	const char *dash;

	memset(out, 0, sizeof(*out));
	if (!strip((struct span){ name, strlen(name) }, "", ".log", &base))
		return -1;
	dash = memrchr(base.s, '-', base.len);
	if (!dash)
		return -1;
	id = (struct span){ dash + 1, base.len - (size_t)(dash + 1 - base.s) };
	if (!all_of(id, "0123456789abcdef", 12, PTS_KUBE_CID_LEN - 1) ||
	    !split3(base.s, (size_t)(dash - base.s), w) ||
	    !copy_span(out->pod, sizeof(out->pod), w[0]) ||
	    !copy_span(out->ns, sizeof(out->ns), w[1]) ||
	    !copy_span(out->container, sizeof(out->container), w[2]) ||
	    !copy_span(out->key, sizeof(out->key), id))
		return -1;
	return 0;
}

const char *kube_label(char *buf, size_t len, const struct pts_kube_id *id)
{
	const struct pts_kube_names *n = &id->names;

	snprintf(buf, len, "%s/%s%s%s", n->ns[0] ? n->ns : "?", n->pod,
		 n->container[0] ? "/" : "", n->container);
	return buf;
}
