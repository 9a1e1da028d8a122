// SPDX-License-Identifier: GPL-2.0
/* A log2 histogram as text: one bcc-style row per used slot. */
#include "data/hist.h"
#include "render/hist_print.h"

#define HIST_BAR_WIDTH 30

/* bcc-style rows "low -> high : count |****|", lowest to highest used slot */
void hist_print(FILE *out, const struct pts_hist *h, const char *unit)
{
	int top, low, i, j, stars;
	uint64_t max;

	hist_used_range(h, &low, &top, &max);
	if (top < 0) {
		fprintf(out, "        (no samples)\n");
		return;
	}
	fprintf(out, "%20s %-6s : %-10s distribution\n", unit, "", "count");
	for (i = low; i <= top; i++) {
		stars = (int)(h->slots[i] * HIST_BAR_WIDTH / max);
		fprintf(out, "%12llu -> %-12llu : %-10llu |",
			(unsigned long long)hist_slot_low(i),
			(unsigned long long)hist_slot_high(i),
			(unsigned long long)h->slots[i]);
		for (j = 0; j < HIST_BAR_WIDTH; j++)
			fputc(j < stars ? '*' : ' ', out);
		fputs("|\n", out);
	}
}
