// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "engine/bpf_features.h"

struct feature_desc {
	const char *name;	/* for PTSCOPE_BPF_FALLBACK */
	const char *what;	/* what the kernel lacks, and since when */
	const char *primary;
	const char *fallback;
};

static const struct feature_desc features[PTS_BPF_NR_FEATURES] = {
	[PTS_BPF_TASK_STORAGE] = {
		"thread-map", "task-local storage (5.11)",
		"task-local storage",
		"tid-keyed hash, freed at thread exit",
	},
	[PTS_BPF_TASK_BTF] = {
		"task-btf", "bpf_get_current_task_btf() (5.11)",
		"bpf_get_current_task_btf()",
		"bpf_get_current_task() and CO-RE reads",
	},
	[PTS_BPF_LOOP] = {
		"loop", "bpf_loop() (5.17)",
		"bpf_loop()",
		"bounded loops",
	},
};

const char *bpf_feature_name(enum pts_bpf_feature f)
{
	return f < PTS_BPF_NR_FEATURES ? features[f].name : "?";
}

static int force_one(struct pts_bpf_features *bf, const char *name,
		     size_t n, char *why, size_t len)
{
	int f;

	if (n == 3 && !strncmp(name, "all", 3)) {
		for (f = 0; f < PTS_BPF_NR_FEATURES; f++)
			bf->forced[f] = true;
		return 0;
	}
	for (f = 0; f < PTS_BPF_NR_FEATURES; f++) {
		if (strlen(features[f].name) == n &&
		    !strncmp(name, features[f].name, n)) {
			bf->forced[f] = true;
			return 0;
		}
	}
	snprintf(why, len, "%s: unknown fallback \"%.*s\" (thread-map, "
		 "task-btf, loop or all, separated by commas)",
		 PTS_BPF_FALLBACK_ENV, (int)n, name);
	return -EINVAL;
}

int bpf_features_force(struct pts_bpf_features *bf, const char *value,
		       char *why, size_t len)
{
	const char *p = value, *comma;
	size_t n;
	int err;

	while (p && *p) {
		comma = strchr(p, ',');
		n = comma ? (size_t)(comma - p) : strlen(p);
		err = force_one(bf, p, n, why, len);
		if (err)
			return err;
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/*
 * One build holds every fallback: a kernel without task storage (before
 * 5.11) has no bpf_loop() either, and builds for each combination
 * would multiply the objects for kernels that do not exist.
 */
void bpf_features_decide(struct pts_bpf_features *bf)
{
	int f;

	bf->fallback = false;
	for (f = 0; f < PTS_BPF_NR_FEATURES; f++)
		if (!bf->offered[f] || bf->forced[f])
			bf->fallback = true;
}

/*
 * libbpf loads a one-call tracepoint program and reads the verifier's
 * answer (libbpf_probe_bpf_helper()); every hook type ptscope uses takes
 * the same tracing helpers (bpf_tracing_func_proto()).
 */
static bool helper_offered(enum bpf_func_id helper)
{
	return libbpf_probe_bpf_helper(BPF_PROG_TYPE_TRACEPOINT, helper,
				       NULL) == 1;
}

void bpf_features_probe(struct pts_bpf_features *bf)
{
	bf->offered[PTS_BPF_TASK_STORAGE] =
		libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL) == 1;
	bf->offered[PTS_BPF_TASK_BTF] =
		helper_offered(BPF_FUNC_get_current_task_btf);
	bf->offered[PTS_BPF_LOOP] = helper_offered(BPF_FUNC_loop);
	bf->probed = true;
	bpf_features_decide(bf);
}

/* the first feature that made the fallback build the one loaded */
static int fallback_cause(const struct pts_bpf_features *bf)
{
	int f;

	for (f = 0; f < PTS_BPF_NR_FEATURES; f++)
		if (!bf->offered[f] || bf->forced[f])
			return f;
	return -1;
}

void bpf_feature_impl(const struct pts_bpf_features *bf,
		      enum pts_bpf_feature f, char *buf, size_t len)
{
	const struct feature_desc *d = &features[f];
	int cause = fallback_cause(bf);

	if (!bf->fallback)
		snprintf(buf, len, "%s", d->primary);
	else if (!bf->offered[f])
		snprintf(buf, len, "%s (fallback: the kernel has no %s)",
			 d->fallback, d->what);
	else if (bf->forced[f])
		snprintf(buf, len, "%s (fallback: forced by %s)", d->fallback,
			 PTS_BPF_FALLBACK_ENV);
	else
		snprintf(buf, len, "%s (fallback: it comes with the one for %s)",
			 d->fallback, features[cause].name);
}
