/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The histogram slot of a value, shared by the BPF programs and the
 * frontend so both agree: slot i holds [2^i, 2^(i+1)), slot 0 holds 0 and 1.
 */
#ifndef PTSCOPE_LOG2_H
#define PTSCOPE_LOG2_H

static inline __u32 pts_log2_slot(__u64 v)
{
	__u32 slot = 0;

	if (v >> 32) {
		v >>= 32;
		slot += 32;
	}
	if (v >> 16) {
		v >>= 16;
		slot += 16;
	}
	if (v >> 8) {
		v >>= 8;
		slot += 8;
	}
	if (v >> 4) {
		v >>= 4;
		slot += 4;
	}
	if (v >> 2) {
		v >>= 2;
		slot += 2;
	}
	if (v >> 1)
		slot += 1;
	return slot;
}

#endif
