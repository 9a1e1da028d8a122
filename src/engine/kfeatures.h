/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers: BTF, kallsyms, tracefs, kprobes and
 * whether fentry programs really load and attach.
 */
#ifndef PTSCOPE_KFEATURES_H
#define PTSCOPE_KFEATURES_H

#include <stdbool.h>
#include <stddef.h>
#include <ptscope/ptscope.h>
#include "engine/catalog.h"

struct btf;

#define KFEATURES_FENTRY_CACHE 32

struct fentry_result {
	char func[64];
	int err;		/* 0: loads and attaches */
	char why[96];
};

struct pts_kfeatures {
	struct btf *btf;
	char **ksyms;		/* sorted names from /proc/kallsyms */
	size_t nr_ksyms;
	/* page_offset_base (x86-64) or memstart_addr (arm64), 0: unknown */
	unsigned long long dmap_var;
	bool kprobe_pmu;
	int config_kprobes;	/* 1: y, 0: not set, -1: unknown */
	char tracefs[64];	/* where tracefs is mounted, "" if nowhere */
	char release[65];
	char machine[65];
	struct fentry_result fentry[KFEATURES_FENTRY_CACHE];
	int nr_fentry;
	/* enum scan_result names, kept by kfeatures_release() */
	char *scan_results[PTS_COLLAPSE_STATUSES];
	bool released;
};

int kfeatures_init(struct pts_kfeatures *kf);
void kfeatures_free(struct pts_kfeatures *kf);
/*
 * Once attached: free the kernel BTF and the kallsyms copy, which only
 * choosing and attaching need (most of ptscope's memory), keeping what
 * renderers show: the khugepaged result names.  kfeatures_check() and
 * the enum lookups must not be used afterwards.
 */
void kfeatures_release(struct pts_kfeatures *kf);
/* name of enum scan_result @status (khugepaged), or NULL */
const char *kfeatures_scan_result(const struct pts_kfeatures *kf, int status);

/* 0 when @req holds; otherwise a reason in @why.  @ctx is a pts_kfeatures. */
int kfeatures_check(void *ctx, const struct pts_req *req, char *why, size_t len);

int kfeatures_enum_value(const struct pts_kfeatures *kf, const char *enumerator,
		    long long *value);
const char *kfeatures_enum_name(const struct pts_kfeatures *kf, const char *enum_type,
			   long long value);
/*
 * The anonymous THP/mTHP fault mask (GFP_TRANSHUGE_LIGHT) minus the bits
 * that vary with the defrag setting, as this kernel numbers them.
 */
__u64 kfeatures_thp_gfp_mask(const struct pts_kfeatures *kf);
__u64 kfeatures_pgtable_gfp_mask(const struct pts_kfeatures *kf);
__u64 kfeatures_movable_gfp_mask(const struct pts_kfeatures *kf);

#endif
