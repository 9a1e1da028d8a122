/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel's own hugepage counters (/proc/vmstat thp_*, the mTHP
 * hugepages-*kB/stats files), read around a "ptscope stat" run so every
 * report carries the ground truth beside what ptscope counted.
 */
#ifndef PTSCOPE_KCOUNTERS_H
#define PTSCOPE_KCOUNTERS_H

#include <stdint.h>

#define KC_MAX		64
#define KC_GROUP_LEN	32
#define KC_NAME_LEN	64

struct kcounter {
	char group[KC_GROUP_LEN];	/* "vmstat" or "hugepages-64kB" */
	char name[KC_NAME_LEN];
	uint64_t value;
};

struct kcounters {
	int nr;
	struct kcounter c[KC_MAX];
};

void kcounters_read(struct kcounters *kc);
/* out = after - before, matched by group and name */
void kcounters_delta(const struct kcounters *after,
		     const struct kcounters *before, struct kcounters *out);
/* @sum += @kc, matched by group and name (a new one appended) */
void kcounters_add(struct kcounters *sum, const struct kcounters *kc);

#endif
