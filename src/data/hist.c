// SPDX-License-Identifier: GPL-2.0
/*
 * log2 histograms.  Slot i holds values in [2^i, 2^(i+1)); slot 0 holds
 * 0 and 1.  The BPF programs fill the slots with pts_log2_slot()
 * (include/ptscope/log2.h); the bounds here are checked against it in
 * tests/unit/test_hist.c and against the kernel's own counts in
 * tests/host/test_hist.sh.
 */
#include "data/hist.h"

uint64_t hist_slot_low(unsigned int slot)
{
	return slot ? (uint64_t)1 << slot : 0;
}

/* inclusive upper bound of a slot */
uint64_t hist_slot_high(unsigned int slot)
{
	if (slot >= PTS_HIST_SLOTS - 1)
		return UINT64_MAX;
	return ((uint64_t)1 << (slot + 1)) - 1;
}

int hist_highest_slot(const struct pts_hist *h)
{
	int i;

	for (i = PTS_HIST_SLOTS - 1; i >= 0; i--)
		if (h->slots[i])
			return i;
	return -1;
}

double hist_mean(const struct pts_hist *h)
{
	return h->count ? (double)h->sum / (double)h->count : 0.0;
}

void hist_merge(struct pts_hist *dst, const struct pts_hist *src)
{
	int i;

	for (i = 0; i < PTS_HIST_SLOTS; i++)
		dst->slots[i] += src->slots[i];
	dst->count += src->count;
	dst->sum += src->sum;
}

void hist_sub(struct pts_hist *dst, const struct pts_hist *a,
	      const struct pts_hist *b)
{
	int i;

	for (i = 0; i < PTS_HIST_SLOTS; i++)
		dst->slots[i] = a->slots[i] - b->slots[i];
	dst->count = a->count - b->count;
	dst->sum = a->sum - b->sum;
}

/* the lowest and highest used slots and the largest count; top -1: empty */
void hist_used_range(const struct pts_hist *h, int *low, int *top,
		     uint64_t *max)
{
	int i;

	*top = hist_highest_slot(h);
	*low = -1;
	*max = 0;
	for (i = 0; i <= *top; i++) {
		if (h->slots[i] && *low < 0)
			*low = i;
		if (h->slots[i] > *max)
			*max = h->slots[i];
	}
}
