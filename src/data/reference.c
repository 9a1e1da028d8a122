// SPDX-License-Identifier: GPL-2.0
/* The machine's reference: a fixed piece of CPU work and syscalls, timed. */
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>
#include "data/collector.h"
#include "data/reference.h"

/* xorshift64*: each step depends on the last, so nothing runs in parallel */
static uint64_t hash_chain(uint64_t x, long rounds)
{
	long i;

	for (i = 0; i < rounds; i++) {
		x ^= x >> 12;
		x ^= x << 25;
		x ^= x >> 27;
		x *= 0x2545f4914f6cdd1dull;
	}
	return x;
}

double reference_seconds(void)
{
	static volatile uint64_t sink;	/* the result is used: not folded */
	double start = mono_seconds();
	int i;

	sink = hash_chain(0x9e3779b97f4a7c15ull + sink, REF_HASH_ROUNDS);
	for (i = 0; i < REF_SYSCALLS; i++)
		syscall(SYS_getppid);	/* not cached by libc, never traced */
	return mono_seconds() - start;
}
