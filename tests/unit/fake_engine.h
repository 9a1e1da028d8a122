/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unit tests' stand-in for an attached engine: pick a catalog candidate
 * for a metric as if the kernel had accepted it, without BPF.
 */
#ifndef PTSCOPE_TEST_FAKE_ENGINE_H
#define PTSCOPE_TEST_FAKE_ENGINE_H

#include <string.h>
#include "engine/engine.h"

static inline struct pts_choice *fake_choice(struct pts_engine *eng,
					     const char *metric)
{
	int i;

	for (i = 0; i < eng->nr_choices; i++)
		if (!strcmp(eng->choices[i].metric->name, metric))
			return &eng->choices[i];
	fail_msg("no metric %s in the catalog", metric);
	return NULL;
}

/*
 * Attach @metric through its first implemented candidate with (@with) or
 * without @flag in its cfg_flags; the patched tracepoints only when @flag
 * is one of theirs.
 */
static inline void fake_attach(struct pts_engine *eng, const char *metric,
			       unsigned int flag, bool with)
{
	struct pts_choice *ch = fake_choice(eng, metric);
	const struct pts_candidate *c;
	int i;

	for (i = 0; i < ch->metric->nr_cands; i++) {
		c = &ch->metric->cands[i];
		if (c->kind == PTS_PATH_PATCHED && !(c->cfg_flags & flag))
			continue;
		if (c->progs[0] && !!(c->cfg_flags & flag) == with) {
			ch->chosen = i;
			return;
		}
	}
	fail_msg("%s has no candidate %s flag %#x", metric,
		 with ? "with" : "without", flag);
}

#endif
