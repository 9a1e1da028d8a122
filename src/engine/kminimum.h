/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The least kernel ptscope runs on: a release and kernel BTF.  Below it,
 * one message says what is missing and what would work.
 */
#ifndef PTSCOPE_KMINIMUM_H
#define PTSCOPE_KMINIMUM_H

#include <stdbool.h>
#include <stddef.h>

#define PTS_KERNEL_MIN_MAJOR	5
#define PTS_KERNEL_MIN_MINOR	10
#define PTS_KMINIMUM_WHY_LEN	400

/*
 * 0 when kernel @release ("5.10.0-46-cloud-amd64") with BTF (@has_btf)
 * can run ptscope; otherwise -EOPNOTSUPP and the message in @why.  A
 * release that does not start with MAJOR.MINOR is not held against it.
 */
int kminimum_check(const char *release, bool has_btf, char *why, size_t len);

#endif
