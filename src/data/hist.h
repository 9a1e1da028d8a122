/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_HIST_H
#define PTSCOPE_HIST_H

#include <stdint.h>
#include <linux/types.h>
#include <ptscope/ptscope.h>

uint64_t hist_slot_low(unsigned int slot);
uint64_t hist_slot_high(unsigned int slot);
int hist_highest_slot(const struct pts_hist *h);
void hist_used_range(const struct pts_hist *h, int *low, int *top,
		     uint64_t *max);
double hist_mean(const struct pts_hist *h);
void hist_merge(struct pts_hist *dst, const struct pts_hist *src);
void hist_sub(struct pts_hist *dst, const struct pts_hist *a,
	      const struct pts_hist *b);

#endif
