/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The self-check: a per-size hugepage fault count of ptscope can never be
 * above the kernel's own system-wide counter of the same outcome over the
 * same window.  When one is, ptscope miscounted, and the report says so.
 */
#ifndef PTSCOPE_SELFCHECK_H
#define PTSCOPE_SELFCHECK_H

#include <stdint.h>
#include <stdio.h>
#include <json-c/json.h>
#include "data/collector.h"
#include "data/kcounters.h"

#define SELFCHECK_MAX	16

struct selfcheck_excess {
	char metric[48];	/* "hugepage_faults.alloc" */
	char size[16];		/* "2M" */
	uint64_t ptscope;
	uint64_t kernel;
	char counter[KC_GROUP_LEN + KC_NAME_LEN];	/* "vmstat/thp_fault_alloc" */
};

struct selfcheck {
	int compared;		/* counts that had a kernel counter to check */
	int nr;			/* counts above theirs (at most SELFCHECK_MAX kept) */
	int lost;		/* more than SELFCHECK_MAX: not kept */
	struct selfcheck_excess ex[SELFCHECK_MAX];
};

/* @snap: ptscope's counts over a window; @delta: the kernel's over it */
void selfcheck_run(struct selfcheck *sc, const struct pts_snapshot *snap,
		   const struct kcounters *delta, uint64_t page_size);
/* one line per count above the kernel's, or one line saying all agree */
void selfcheck_text(FILE *out, const struct selfcheck *sc);
json_object *selfcheck_json(const struct selfcheck *sc);

#endif
