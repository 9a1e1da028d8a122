/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The start-up check of the PTE batch model: before ptscope reports an
 * inferred batch or folio lookup count, it moves memory of known geometry
 * in its own process under each lookup rule the model knows, counts the
 * kernel's vm_normal_folio() calls for those moves alone, and keeps the
 * rule whose counts equal the kernel's; where none does, or the check
 * cannot run, the metric is withdrawn with the reason.
 */
#ifndef PTSCOPE_BATCH_CHECK_H
#define PTSCOPE_BATCH_CHECK_H

#include <stddef.h>
#include "engine/engine.h"

/* the metric whose inference is checked */
#define PTS_BATCH_CHECK_METRIC	"mremap.pte_batches"

/* after engine_attach(): check, choose the rule, or withdraw the metric */
void batch_check_run(struct pts_engine *eng, const struct pts_config *cfg);
/*
 * The rule that fits every shape that ran (the model's lookups equal the
 * kernel's, its PTEs the geometry's), in bc->rule; -1 with bc->note said
 * when none or more than one does
 */
int batch_check_choose(struct pts_batch_check *bc);
/* "hinted", "every-present" */
const char *batch_rule_name(int rule);
/* what the kernel does under @rule, in a sentence's words */
const char *batch_rule_desc(int rule);
/* one line: what was checked, what was seen, which rule was taken */
void batch_check_summary(const struct pts_batch_check *bc, char *buf,
			 size_t len);

#endif
