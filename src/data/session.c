// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "data/session.h"

volatile sig_atomic_t pts_stop_requested;
volatile sig_atomic_t pts_last_signal;

static void on_signal(int sig)
{
	pts_stop_requested = 1;
	pts_last_signal = sig;
}

void session_install_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	/* no SA_RESTART: sleeps and waits return early on Ctrl-C */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	/* a closed output is a write error (EPIPE) each view reports */
	signal(SIGPIPE, SIG_IGN);
}

/* historical ___GFP_* values (include/linux/gfp_types.h, 6.1) */
#define GFP_MOVABLE_6_1		0x08ULL
#define GFP_COMP_6_1		0x40000ULL
#define GFP_NOMEMALLOC_6_1	0x80000ULL
#define GFP_HARDWALL_6_1	0x100000ULL

/*
 * The anonymous THP/mTHP fault mask (GFP_TRANSHUGE_LIGHT) minus the bits
 * that vary with the defrag setting.  6.10+ numbers the bits in an enum
 * (___GFP_*_BIT) that kernels may shift, so read it from BTF.
 */
static __u64 thp_gfp_mask(const struct pts_kfeatures *kf)
{
	static const char *const bits[] = {
		"___GFP_MOVABLE_BIT", "___GFP_COMP_BIT",
		"___GFP_NOMEMALLOC_BIT", "___GFP_HARDWALL_BIT",
	};
	long long bit;
	__u64 mask = 0;
	size_t i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		if (kfeatures_enum_value(kf, bits[i], &bit) || bit < 0 || bit > 63)
			return GFP_MOVABLE_6_1 | GFP_COMP_6_1 |
			       GFP_NOMEMALLOC_6_1 | GFP_HARDWALL_6_1;
		mask |= 1ULL << bit;
	}
	return mask;
}

void session_build_config(const struct pts_kfeatures *kf,
			  const struct pts_options *opts, bool follow_fork,
			  struct pts_config *cfg)
{
	__u64 page_size = (__u64)sysconf(_SC_PAGESIZE);
	__u64 entries = page_size / 8;	/* 8-byte entries per table page */

	memset(cfg, 0, sizeof(*cfg));
	cfg->filter_tgid = (__u32)opts->pid;
	cfg->filter_traced = follow_fork;
	memcpy(cfg->filter_comm, opts->comm, PTS_COMM_LEN);
	cfg->page_shift = (__u32)__builtin_ctzll(page_size);
	cfg->dmap_var = kf->dmap_var;
	cfg->pmd_size = page_size * entries;
	cfg->pud_size = cfg->pmd_size * entries;
	cfg->thp_gfp_mask = thp_gfp_mask(kf);
	if (opts->cmd == PTS_CMD_SNOOP)
		cfg->flags |= PTS_CFG_EVENTS;
}

static void explain_attach_failure(struct pts_session *s, int err)
{
	if (err == -ENOENT)
		fprintf(stderr, "ptscope: no metric can be attached on this "
			"kernel; 'ptscope probe' shows why for each one\n");
	else
		fprintf(stderr, "ptscope: loading BPF programs failed: %s; rerun "
			"with -v for the libbpf log, or try --mode tracepoint\n",
			strerror(-err));
}

int session_start(struct pts_session *s, const struct pts_options *opts,
		  bool follow_fork)
{
	int err, i;

	memset(s, 0, sizeof(*s));
	s->opts = opts;
	if (geteuid() != 0) {
		fprintf(stderr, "ptscope: needs root (CAP_BPF, CAP_PERFMON and "
			"CAP_SYS_ADMIN for tracefs); run it with sudo\n");
		return 1;
	}
	if (kfeatures_init(&s->kf))
		return 1;
	session_build_config(&s->kf, opts, follow_fork, &s->cfg);
	engine_init(&s->eng, opts->mode, follow_fork);
	for (i = 0; i < opts->nr_opt_in; i++)
		engine_opt_in(&s->eng, opts->opt_in[i]);
	s->rep.eng = &s->eng;
	s->rep.kf = &s->kf;
	s->rep.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	err = engine_attach(&s->eng, &s->cfg, kfeatures_check, &s->kf);
	if (err == -ENOENT && opts->cmd == PTS_CMD_PROBE)
		return 0;	/* probe reports why nothing attaches */
	if (err) {
		explain_attach_failure(s, err);
		kfeatures_free(&s->kf);
		return 1;
	}
	return 0;
}

void session_stop(struct pts_session *s)
{
	engine_detach(&s->eng);
	kfeatures_free(&s->kf);
}
