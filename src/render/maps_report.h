/* SPDX-License-Identifier: GPL-2.0 */
/* Renders what ptscope maps found, as text and as JSON (json-c). */
#ifndef PTSCOPE_MAPS_REPORT_H
#define PTSCOPE_MAPS_REPORT_H

#include <stdio.h>
#include <sys/types.h>
#include <json-c/json.h>
#include <ptscope/ptscope.h>
#include "maps/mapscan.h"
#include "render/report.h"

/* the "ptscope_version" of maps --json, a format of its own */
#define MAPS_FORMAT_VERSION	1

struct maps_row {
	pid_t pid;
	char comm[PTS_COMM_LEN];
	struct mapscan_counts counts;
};

/* one scan of every process asked for */
struct maps_frame {
	/* kernel, page size for the header */
	const struct pts_report_input *rep;
	const char *comm;		/* -c, or NULL for -p */
	double time;			/* when, seconds since the epoch */
	struct maps_row *rows;		/* by pid */
	size_t nr_rows;
	struct mapscan_counts total;	/* their sum */
};

json_object *maps_frame_json(const struct maps_frame *f);
void maps_frame_text(FILE *out, const struct maps_frame *f);

#endif
