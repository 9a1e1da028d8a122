// SPDX-License-Identifier: GPL-2.0
/*
 * Least privilege after attaching.  Reading BPF maps and program
 * statistics through fds opened earlier needs no capability on 6.5 and
 * later; before that, bpf() as a whole asks for CAP_BPF (CAP_SYS_ADMIN
 * before 5.8) while kernel.unprivileged_bpf_disabled is set, so whether
 * one capability stays is probed, not guessed; the same holds for the
 * updates and deletes of the cgroup rows (data/cgroup_prune.c).  The files
 * read later (/etc/localtime, /sys/devices/system/cpu/possible, the
 * kernel's hugepage counters in /proc/vmstat and
 * /sys/kernel/mm/transparent_hugepage for the self-check, the cgroup
 * v2 directories walked for the paths of new cgroup ids and stat()ed to
 * see whether they are gone, and the kubelet's /var/log/pods and
 * /var/log/containers) are world-readable.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <seccomp.h>
#include "export/privdrop.h"

#ifndef CAP_BPF
#define CAP_BPF 39
#endif

/* what serving, rendering and exiting call (x86_64 and arm64 names) */
static const char *const allowed_syscalls[] = {
	"read", "readv", "pread64", "write", "writev", "lseek", "close",
	"openat", "newfstatat", "fstat", "statx", "fcntl", "ioctl",
	"getdents64",	/* readdir(): the paths of cgroup ids (data/cgroup.c) */
	"mmap", "munmap", "mremap", "mprotect", "madvise", "brk",
	"ppoll", "poll", "epoll_wait", "epoll_pwait", "epoll_ctl",
	"accept", "accept4", "recvfrom", "recvmsg", "sendto", "sendmsg",
	"shutdown", "setsockopt", "getsockopt", "getsockname", "getpeername",
	"bpf", "rt_sigprocmask", "rt_sigaction", "rt_sigreturn",
	"clock_gettime", "clock_nanosleep", "nanosleep", "gettimeofday",
	"getpid", "gettid", "getrandom", "futex", "sched_yield",
	"restart_syscall", "tgkill", "exit", "exit_group",
};

static int last_cap(void)
{
	FILE *f = fopen("/proc/sys/kernel/cap_last_cap", "r");
	int n = CAP_BPF;

	if (f) {
		if (fscanf(f, "%d", &n) != 1)
			n = CAP_BPF;
		fclose(f);
	}
	return n;
}

/* effective and permitted sets to @eff and @perm bit masks */
static int set_caps(unsigned long long eff, unsigned long long perm)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	data[0].effective = (__u32)eff;
	data[1].effective = (__u32)(eff >> 32);
	data[0].permitted = (__u32)perm;
	data[1].permitted = (__u32)(perm >> 32);
	return (int)syscall(SYS_capset, &hdr, data);
}

/* the permitted set now */
static unsigned long long permitted_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];

	memset(data, 0, sizeof(data));
	if (syscall(SYS_capget, &hdr, data))
		return 0;
	return data[0].permitted | (unsigned long long)data[1].permitted << 32;
}

static int drop_caps(const struct pts_tracer *t)
{
	unsigned long long perm = permitted_caps(), keep = 0;
	int cap, top = last_cap();

	/* while CAP_SETPCAP is still effective: nothing to regain by exec */
	for (cap = 0; cap <= top; cap++)
		prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	if (set_caps(0, perm))
		return -errno;
	/* with no effective capability left: can the maps still be read? */
	if (tracer_check_read(t) == -EPERM)
		keep = 1ULL << (top >= CAP_BPF ? CAP_BPF : CAP_SYS_ADMIN);
	if (set_caps(keep & perm, keep & perm))
		return -errno;
	return 0;
}

/*
 * LeakSanitizer checks for leaks at exit from a thread that ptrace()s the
 * others (clone, ptrace, wait4, prctl...), which the filter refuses: the
 * sanitizer build of make check drops capabilities and sets
 * no_new_privs, but installs no filter.  The plain build's tests check
 * the filter.
 */
#if defined(__has_feature)
#if __has_feature(address_sanitizer)
#define PTS_SANITIZER_BUILD 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define PTS_SANITIZER_BUILD 1
#endif

static int install_filter(void)
{
	scmp_filter_ctx ctx = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	size_t i;
	int nr, err = 0;

#ifdef PTS_SANITIZER_BUILD
	seccomp_release(ctx);
	return 0;
#endif
	if (!ctx)
		return -ENOMEM;
	for (i = 0; i < sizeof(allowed_syscalls) / sizeof(*allowed_syscalls);
	     i++) {
		nr = seccomp_syscall_resolve_name(allowed_syscalls[i]);
		if (nr == __NR_SCMP_ERROR)
			continue;	/* not on this architecture */
		err = seccomp_rule_add(ctx, SCMP_ACT_ALLOW, nr, 0);
		if (err)
			goto out;
	}
	err = seccomp_load(ctx);
out:
	seccomp_release(ctx);
	return err;
}

int privdrop_apply(const struct pts_tracer *t)
{
	int err;

	err = drop_caps(t);
	if (err) {
		fprintf(stderr, "ptscope: dropping capabilities failed: %s\n",
			strerror(-err));
		return 1;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		fprintf(stderr, "ptscope: PR_SET_NO_NEW_PRIVS failed: %s\n",
			strerror(errno));
		return 1;
	}
	err = install_filter();
	if (err) {
		fprintf(stderr, "ptscope: installing the seccomp filter "
			"failed: %s\n", strerror(-err));
		return 1;
	}
	return 0;
}
