// SPDX-License-Identifier: GPL-2.0
/*
 * hold: a region of known backing kept mapped for ptscope maps to read,
 * its folios whole and aligned, moved off their alignment, split by an
 * mprotect() or cut by an unmapped page, until stdin ends or a signal
 * comes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "bench_common.h"

static volatile sig_atomic_t hold_stop;

static void on_hold_signal(int sig)
{
	(void)sig;
	hold_stop = 1;
}

/*
 * Until SIGTERM, SIGINT or SIGHUP, or (unless @signal_only) end of file
 * on stdin.  The signals are blocked outside ppoll(), so one that comes
 * between the check and the wait is not lost.
 */
static int hold_wait(bool signal_only)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP };
	struct pollfd in = { .fd = STDIN_FILENO, .events = POLLIN };
	struct sigaction sa;
	sigset_t block, wait_mask;
	char buf[256];
	size_t i;
	int ret = 0;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_hold_signal;
	sigemptyset(&block);
	for (i = 0; i < ARRAY_SIZE(sigs); i++) {
		sigaddset(&block, sigs[i]);
		sigaction(sigs[i], &sa, NULL);
	}
	sigprocmask(SIG_BLOCK, &block, &wait_mask);
	while (!hold_stop) {
		if (ppoll(signal_only ? NULL : &in, signal_only ? 0 : 1, NULL,
			  &wait_mask) < 0) {
			if (errno == EINTR)
				continue;
			ret = fail_errno("ppoll");
			break;
		}
		if (read(STDIN_FILENO, buf, sizeof(buf)) <= 0)
			break;	/* end of file, or stdin is gone */
	}
	sigprocmask(SIG_SETMASK, &wait_mask, NULL);
	return ret;
}

/*
 * Move the populated region to @offset past an @align boundary of a fresh
 * window: mremap() moves the PTEs (a PMD that cannot move whole is split
 * first, move_huge_pmd() in mm/huge_memory.c), the folios stay as they
 * were.  The rest of the window is unmapped again.
 */
static int hold_move(char **region, uint64_t len, uint64_t align,
		     uint64_t offset)
{
	uint64_t window_len = len + 2 * align;
	char *window, *dst, *window_end;

	if (reserve_va(window_len, &window))
		return fail_errno("mmap reserve %" PRIu64 " bytes", window_len);
	window_end = window + window_len;
	dst = (char *)(uintptr_t)ALIGN_UP((uintptr_t)window, align) + offset;
	if (mremap(*region, len, len, MREMAP_MAYMOVE | MREMAP_FIXED, dst) !=
	    dst) {
		munmap(window, window_len);
		return fail_errno("mremap %p -> %p", (void *)*region, (void *)dst);
	}
	*region = dst;
	if ((dst > window && munmap(window, (size_t)(dst - window))) ||
	    (window_end > dst + len &&
	     munmap(dst + len, (size_t)(window_end - dst - len))))
		return fail_errno("munmap the rest of the window");
	return 0;
}

/*
 * The line tests read: where the region is, what smaps says of it now,
 * and @faulted_huge_kb, its AnonHugePages right after the faults.
 */
static int hold_report(const char *start, const char *end,
		       uint64_t faulted_huge_kb)
{
	uint64_t anon_kb, huge_kb;
	int ret;

	if (smaps_sum_kb(start, end, "Anonymous:", &anon_kb))
		return fail_errno("read /proc/self/smaps");
	ret = anon_huge_kb(start, (uint64_t)(end - start), &huge_kb);
	if (ret)
		return ret;
	printf("hold pid=%d start=%p end=%p size=%" PRIu64 " page_size=%"
	       PRIu64 " pmd_size=%" PRIu64 " faulted_huge_kb=%" PRIu64
	       " anon_kb=%" PRIu64 " anon_huge_kb=%" PRIu64 "\n",
	       (int)getpid(), (void *)start, (void *)end,
	       (uint64_t)(end - start), page_size, pmd_span(), faulted_huge_kb,
	       anon_kb, huge_kb);
	if (fflush(stdout))
		return fail_errno("write stdout");
	return 0;
}

/* --move-offset, --split-mprotect and --punch, those given, in order */
static int hold_reshape(const struct bench_args *args, char **region)
{
	int ret;

	if (args->seen & OPT_BIT(OPT_MOVE_OFFSET)) {
		ret = hold_move(region, args->size, args->fault_align,
				args->move_offset);
		if (ret)
			return ret;
	}
	if ((args->seen & OPT_BIT(OPT_SPLIT_MPROTECT)) &&
	    mprotect(*region + args->mprotect_at, page_size, PROT_READ))
		return fail_errno("mprotect %p",
				  (void *)(*region + args->mprotect_at));
	if ((args->seen & OPT_BIT(OPT_PUNCH)) &&
	    munmap(*region + args->punch_at, page_size))
		return fail_errno("munmap %p",
				  (void *)(*region + args->punch_at));
	return 0;
}

static int run_hold(const struct bench_args *args)
{
	uint64_t len = args->size, faulted_huge_kb;
	char *region;
	int ret;

	ret = map_advised(len, args->fault_align, args->thp, &region);
	if (ret)
		return ret;
	write_markers(region, 0, len / page_size, 0);
	ret = anon_huge_kb(region, len, &faulted_huge_kb) ?:
	      hold_reshape(args, &region) ?:
	      hold_report(region, region + len, faulted_huge_kb) ?:
	      hold_wait(args->pause);
	munmap(region, len);
	return ret;
}

/* a page offset inside the region, if option @code was given */
static int check_offset(const struct bench_args *args, int code,
			uint64_t offset, uint64_t limit)
{
	if (!(args->seen & OPT_BIT(code)))
		return 0;
	if (offset % page_size || offset >= limit)
		return usage_error("hold: %s must be a multiple of %" PRIu64
				   " below %" PRIu64, opt_name(code), page_size,
				   limit);
	return 0;
}

int cmd_hold(int argc, char **argv)
{
	const unsigned int options = OPT_BIT(OPT_SIZE) | OPT_BIT(OPT_THP) |
				    OPT_BIT(OPT_ALIGN) |
				    OPT_BIT(OPT_MOVE_OFFSET) |
				    OPT_BIT(OPT_SPLIT_MPROTECT) |
				    OPT_BIT(OPT_PUNCH) | OPT_BIT(OPT_PAUSE);
	struct bench_args args = { .thp = THP_DEFAULT };

	args.fault_align = pmd_span();
	return parse_args(argc, argv, options, &args) ?:
	       require(&args, "hold", OPT_SIZE) ?:
	       check_bytes("hold", OPT_SIZE, args.size, page_size) ?:
	       parse_align_size("hold", &args) ?:
	       check_offset(&args, OPT_MOVE_OFFSET, args.move_offset,
			    args.fault_align) ?:
	       check_offset(&args, OPT_SPLIT_MPROTECT, args.mprotect_at,
			    args.size) ?:
	       check_offset(&args, OPT_PUNCH, args.punch_at, args.size) ?:
	       run_hold(&args);
}
