// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include "engine/kminimum.h"

/*
 * What 5.10 has that ptscope cannot do without: the BPF ring buffer
 * (5.8), BTF-typed tracepoints and fentry (5.5), bpf_probe_read_kernel()
 * (5.5); and the oldest kernels it is proven on are 5.10's (tests/vm).
 * Kernel BTF (CONFIG_DEBUG_INFO_BTF) gives the CO-RE relocations and the
 * engine's choices their types.
 */
static bool release_too_old(const char *release)
{
	unsigned int major, minor;

	if (sscanf(release, "%u.%u", &major, &minor) != 2)
		return false;
	return major < PTS_KERNEL_MIN_MAJOR ||
	       (major == PTS_KERNEL_MIN_MAJOR && minor < PTS_KERNEL_MIN_MINOR);
}

/* what the kernel lacks, for the message */
static const char *missing(bool old, bool has_btf)
{
	if (old && !has_btf)
		return "is too old and has no kernel BTF";
	if (old)
		return "is too old";
	return "has no kernel BTF";
}

int kminimum_check(const char *release, bool has_btf, char *why, size_t len)
{
	bool old = release_too_old(release);

	if (!old && has_btf)
		return 0;
	snprintf(why, len, "kernel %s %s: ptscope needs Linux %d.%d or later "
		 "built with CONFIG_DEBUG_INFO_BTF=y (/sys/kernel/btf/vmlinux), "
		 "as Debian 11 and later ship it; run it on such a kernel",
		 release,
		 missing(old, has_btf), PTS_KERNEL_MIN_MAJOR,
		 PTS_KERNEL_MIN_MINOR);
	return -EOPNOTSUPP;
}
