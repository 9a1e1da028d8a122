/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_VIEWS_H
#define PTSCOPE_VIEWS_H

#include "views/options.h"

/* each returns the process exit code */
int view_probe(const struct pts_options *opts);
int view_stat(const struct pts_options *opts);
int view_top(const struct pts_options *opts);
int view_snoop(const struct pts_options *opts);
int view_export(const struct pts_options *opts);
int view_diff(const struct pts_options *opts);
int view_maps(const struct pts_options *opts);
int view_schema(const struct pts_options *opts);

#endif
