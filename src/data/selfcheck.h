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
#include "engine/engine.h"

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
	uint32_t orders_compared;	/* bit per order: a count was compared */
	uint32_t orders_above;		/* bit per order: a count was above */
	struct selfcheck_excess ex[SELFCHECK_MAX];
};

/* @snap: ptscope's counts over a window; @delta: the kernel's over it */
void selfcheck_run(struct selfcheck *sc, const struct pts_snapshot *snap,
		   const struct kcounters *delta, uint64_t page_size);
/*
 * The live views' check (top, export): ptscope's counts since it attached
 * (@snap, cumulative) against the kernel's since @base, read before the
 * programs were attached.  Cumulative, not per interval: the
 * stock-tracepoint path counts an allocation when its thread moves on,
 * which may be an interval after the kernel counted it.
 */
void selfcheck_since(struct selfcheck *sc, const struct pts_snapshot *snap,
		     const struct kcounters *base, uint64_t page_size);
/*
 * Why a live view cannot check its fault counts (a reason to show in its
 * place), or NULL when it can; @parts_off: PTS_PART_* left out.
 */
const char *selfcheck_live_off(const struct pts_engine *eng,
			       unsigned int parts_off);
/* one line per count above the kernel's, or one line saying all agree */
void selfcheck_text(FILE *out, const struct selfcheck *sc);
json_object *selfcheck_json(const struct selfcheck *sc);

#endif
