/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The machine's own speed: a fixed piece of work, about 10 ms here,
 * timed before and after every run of ptscope stat and kept in the
 * recording, so that diff can tell a slower machine (load, frequency, a
 * noisy neighbour) from a slower workload.  The work is CPU (a chain of
 * integer hashes, each step needing the last) and syscalls ptscope never
 * traces (getppid): no mremap, no page fault.  Method: docs/regressions.md.
 */
#ifndef PTSCOPE_REFERENCE_H
#define PTSCOPE_REFERENCE_H

#define REF_HASH_ROUNDS	3600000	/* 8-9 ms of the chain at ~2.4 ns a step */
#define REF_SYSCALLS	4000	/* getppid(): 0.3 ms at ~70 ns */

/* the wall time (CLOCK_MONOTONIC) of one pass of the fixed work, seconds */
double reference_seconds(void);

#endif
