/* SPDX-License-Identifier: GPL-2.0 */
/* Arrays that grow by doubling, for lists of unknown length read from /proc. */
#ifndef PTSCOPE_GROW_H
#define PTSCOPE_GROW_H

#include <errno.h>
#include <stdlib.h>

/*
 * Room for one more element of @size bytes in *@arr, which holds @nr of
 * *@cap: 0, or -ENOMEM with *@arr unchanged.
 */
static inline int grow_for_one(void **arr, size_t *cap, size_t nr,
			       size_t size)
{
	size_t want = *cap ? 2 * *cap : 64;
	void *grown;

	if (nr < *cap)
		return 0;
	grown = realloc(*arr, want * size);
	if (!grown)
		return -ENOMEM;
	*arr = grown;
	*cap = want;
	return 0;
}

#endif
