/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which build of the BPF objects this kernel loads: the primary one
 * (task-local storage, bpf_get_current_task_btf(), bpf_loop()) or the
 * fallback one (a tid-keyed hash, bpf_get_current_task() with CO-RE
 * reads, bounded loops), chosen from what the kernel offers or forced
 * with PTSCOPE_BPF_FALLBACK.
 */
#ifndef PTSCOPE_BPF_FEATURES_H
#define PTSCOPE_BPF_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

enum pts_bpf_feature {
	PTS_BPF_TASK_STORAGE,	/* BPF_MAP_TYPE_TASK_STORAGE, 5.11 */
	PTS_BPF_TASK_BTF,	/* bpf_get_current_task_btf(), 5.11 */
	PTS_BPF_LOOP,		/* bpf_loop(), 5.17 */
	PTS_BPF_NR_FEATURES,
};

#define PTS_BPF_FALLBACK_ENV	"PTSCOPE_BPF_FALLBACK"

struct pts_bpf_features {
	bool probed;
	bool offered[PTS_BPF_NR_FEATURES];	/* the kernel has it */
	bool forced[PTS_BPF_NR_FEATURES];	/* PTSCOPE_BPF_FALLBACK names it */
	bool fallback;				/* the fallback build is loaded */
};

/* the feature's name as PTSCOPE_BPF_FALLBACK takes it ("thread-map") */
const char *bpf_feature_name(enum pts_bpf_feature f);
/*
 * @bf->forced from @value ("thread-map,loop", "all"; NULL or "": none).
 * -EINVAL with the reason in @why for a name it does not know.
 */
int bpf_features_force(struct pts_bpf_features *bf, const char *value,
		       char *why, size_t len);
/* @bf->fallback from offered[] and forced[] */
void bpf_features_decide(struct pts_bpf_features *bf);
/* ask the kernel for offered[], then decide */
void bpf_features_probe(struct pts_bpf_features *bf);
/*
 * What feature @f has in the loaded build and why, in @buf:
 * "task-local storage" or "tid-keyed hash (fallback: ...)".
 */
void bpf_feature_impl(const struct pts_bpf_features *bf,
		      enum pts_bpf_feature f, char *buf, size_t len);

#endif
