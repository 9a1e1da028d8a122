/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_HIST_PRINT_H
#define PTSCOPE_HIST_PRINT_H

#include <stdio.h>
#include <ptscope/ptscope.h>

/* bcc-style rows "low -> high : count |****|", @unit over the first column */
void hist_print(FILE *out, const struct pts_hist *h, const char *unit);

#endif
