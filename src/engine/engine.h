/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The attach engine: per metric, pick the first candidate the kernel
 * supports, load only its programs, attach, and fall back to the next
 * candidate when the kernel refuses one at load or attach time.
 */
#ifndef PTSCOPE_ENGINE_H
#define PTSCOPE_ENGINE_H

#include <stdbool.h>
#include <stddef.h>
#include "engine/bpf_features.h"
#include "engine/catalog.h"
#include "engine/objects.h"

#define PTS_WHY_LEN	200
#define PTS_MAX_LINKS	32

typedef int (*pts_check_fn)(void *ctx, const struct pts_req *req, char *why,
			    size_t len);

struct pts_choice {
	const struct pts_metric *metric;
	int chosen;			/* candidate index, -1: unavailable */
	bool refused[PTS_MAX_CANDS];	/* refused by the kernel at load/attach */
	bool other_kernel[PTS_MAX_CANDS];	/* written for another prototype */
	char why[PTS_MAX_CANDS][PTS_WHY_LEN];
	int err[PTS_MAX_CANDS];		/* why[]'s -errno; 0: none */
	/* for the chosen candidate: the function each retarget resolved to */
	const char *targets[PTS_MAX_RETARGETS];
	bool opted_in;			/* an opt_in metric the user asked for */
};

/*
 * The start-up check of the PTE batch model (engine/batch_check.c): one
 * move of known geometry per shape, under each lookup rule in turn,
 * with the kernel's vm_normal_folio() calls as the truth.
 */
#define PTS_CHECK_SHAPES	3
#define PTS_CHECK_NOTE_LEN	160

struct pts_check_shape {
	const char *name;		/* "4 KiB pages" */
	char note[PTS_CHECK_NOTE_LEN];	/* why it did not run, or what it had */
	bool ran;
	__u64 ptes_expected;
	struct pts_check_counts seen[PTS_LOOKUP_RULES];	/* per rule */
};

struct pts_batch_check {
	bool ran;
	int rule;			/* enum pts_lookup_rule taken; -1: none */
	char note[PTS_WHY_LEN];		/* why it did not run, or none fits */
	double ms;			/* its cost at start, attach included */
	int nr_shapes;
	struct pts_check_shape shapes[PTS_CHECK_SHAPES];
};

struct pts_engine {
	int mode;			/* PTS_MODE_AUTO or an enum pts_path_kind */
	bool follow_fork;		/* stat -- CMD: include stat_only rows */
	int nr_choices;
	struct pts_choice choices[PTS_MAX_METRICS];
	struct pts_objects objs;
	/* which build of the objects loads: set before engine_attach() */
	struct pts_bpf_features bpf;
	struct bpf_link *links[PTS_MAX_LINKS];
	int nr_links;
	struct pts_batch_check batch_check;
};

void engine_init(struct pts_engine *eng, int mode, bool follow_fork);
int engine_opt_in(struct pts_engine *eng, const char *metric);
void engine_choose(struct pts_engine *eng, pts_check_fn check, void *ctx);
const struct pts_choice *engine_choice(const struct pts_engine *eng,
				       const char *metric);
bool engine_available(const struct pts_engine *eng, const char *metric);
/*
 * Is @metric attached by a candidate whose cfg_flags hold one of
 * @needs_any (0: any candidate) and none of @excludes?  Which fields of a
 * metric exist depends on the path that attached it.
 */
bool engine_provides(const struct pts_engine *eng, const char *metric,
		     unsigned int needs_any, unsigned int excludes);
/* is candidate @i's reason one of its metric's unavailability reasons? */
bool engine_reason_shown(const struct pts_choice *ch, int i);
/* "reason1; reason2" for an unavailable metric */
void engine_unavailable_reason(const struct pts_choice *choice, char *buf,
			       size_t len);
/* the function retargeted program @prog of candidate @c attaches to, or NULL */
const char *engine_retarget_of(const struct pts_choice *ch,
			       const struct pts_candidate *c, const char *prog);
/*
 * Was a candidate turned down with @err by the kernel itself (a test load,
 * the load or the attach), as opposed to missing from this kernel?
 * Bit i of the result: a candidate of path kind i was.
 */
unsigned int engine_refused_kinds(const struct pts_engine *eng, int err);
/* was candidate @i of @ch turned down by the kernel (see above)? */
bool engine_kernel_refused(const struct pts_choice *ch, int i);
int engine_attach(struct pts_engine *eng, const struct pts_config *cfg,
		  pts_check_fn check, void *ctx);
int engine_attach_check_progs(struct pts_engine *eng, const char *metric,
			      struct bpf_link **links, char *why, size_t len);
void engine_withdraw(struct pts_engine *eng, const char *metric,
		     const char *why);
void engine_detach(struct pts_engine *eng);

#endif
