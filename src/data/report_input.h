/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What renderers need besides a snapshot: the engine's choices, the
 * kernel's features and the page size.  Built by the tracer, read by
 * the views' renderers.
 */
#ifndef PTSCOPE_REPORT_INPUT_H
#define PTSCOPE_REPORT_INPUT_H

#include <stdint.h>
#include "engine/engine.h"
#include "engine/kfeatures.h"
#include "data/schema.h"

struct pts_report_input {
	const struct pts_engine *eng;
	const struct pts_kfeatures *kf;
	uint64_t page_size;
	/* khugepaged result names; NULL: from kf's BTF */
	pts_result_name_fn result_name;
	const void *result_ctx;
};

#endif
