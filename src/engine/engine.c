// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <bpf/libbpf.h>
#include "engine/engine.h"

#define ENGINE_MAX_ROUNDS 6

void engine_init(struct pts_engine *eng, int mode, bool follow_fork)
{
	int i;

	memset(eng, 0, sizeof(*eng));
	eng->mode = mode;
	eng->follow_fork = follow_fork;
	for (i = 0; i < pts_catalog_len && i < PTS_MAX_METRICS; i++) {
		if (pts_catalog[i].stat_only && !follow_fork)
			continue;
		eng->choices[eng->nr_choices].metric = &pts_catalog[i];
		eng->choices[eng->nr_choices].chosen = -1;
		eng->nr_choices++;
	}
}

/* Attach an opt_in metric too; -ENOENT if there is no such metric. */
int engine_opt_in(struct pts_engine *eng, const char *metric)
{
	int i;

	for (i = 0; i < eng->nr_choices; i++) {
		if (!strcmp(eng->choices[i].metric->name, metric) &&
		    eng->choices[i].metric->opt_in) {
			eng->choices[i].opted_in = true;
			return 0;
		}
	}
	return -ENOENT;
}

/* Has the metric an implemented candidate of this kind? */
static bool metric_has_kind(const struct pts_metric *m, int kind)
{
	int i;

	for (i = 0; i < m->nr_cands; i++)
		if ((int)m->cands[i].kind == kind &&
		    (m->cands[i].progs[0] || m->cands[i].counted_by))
			return true;
	return false;
}

/* Is @metric attached through a candidate of @kind? */
static int check_metric_path(const struct pts_engine *eng, const char *metric,
			     enum pts_path_kind kind, char *why, size_t len)
{
	const struct pts_choice *dep = engine_choice(eng, metric);

	if (dep && dep->chosen >= 0 && dep->metric->cands[dep->chosen].kind == kind)
		return 0;
	snprintf(why, len, "needs %s through %s, which is %s", metric,
		 path_kind_name(kind), dep && dep->chosen >= 0 ?
		 path_kind_name(dep->metric->cands[dep->chosen].kind) :
		 "unavailable");
	return -ENOENT;
}

/* Is @metric attached by a candidate whose cfg_flags have @cfg? */
static int check_metric_cfg(const struct pts_engine *eng, const char *metric,
			    unsigned int cfg, char *why, size_t len)
{
	const struct pts_choice *dep = engine_choice(eng, metric);
	const struct pts_candidate *c;

	if (!dep || dep->chosen < 0) {
		snprintf(why, len, "needs %s, which is unavailable", metric);
		return -ENOENT;
	}
	c = &dep->metric->cands[dep->chosen];
	if (c->cfg_flags & cfg)
		return 0;
	snprintf(why, len, "%s is attached by \"%s\", which does not give it",
		 metric, c->label);
	return -ENOENT;
}

static int check_metric(const struct pts_engine *eng, const char *metric,
			char *why, size_t len)
{
	if (engine_available(eng, metric))
		return 0;
	snprintf(why, len, "needs %s, which is unavailable", metric);
	return -ENOENT;
}

/*
 * The first of a retarget's functions that this path can attach to.  When
 * none can, the reason is that of the first one the kernel has (a refusal
 * says more than another arch's name being absent).
 */
static int resolve_retarget(const struct pts_candidate *c,
			    const struct pts_retarget *rt, pts_check_fn check,
			    void *ctx, const char **target, char *why, size_t len)
{
	struct pts_req req = {
		.kind = c->kind == PTS_PATH_KPROBE ? PTS_REQ_KPROBE : PTS_REQ_FENTRY,
	};
	char alt_why[PTS_WHY_LEN];
	int i, err, kept = -ENOENT;

	why[0] = '\0';
	for (i = 0; i < PTS_MAX_ALTS && rt->funcs[i]; i++) {
		req.name = rt->funcs[i];
		alt_why[0] = '\0';
		err = check(ctx, &req, alt_why, sizeof(alt_why));
		if (!err) {
			*target = rt->funcs[i];
			return 0;
		}
		if (!why[0] || (kept == -ENOENT && err != -ENOENT)) {
			snprintf(why, len, "%s", alt_why);
			kept = err;
		}
	}
	return kept;
}

/* 0 when the candidate can be used; otherwise the reason in @why */
static int candidate_usable(const struct pts_engine *eng,
			    const struct pts_metric *m,
			    const struct pts_candidate *c, pts_check_fn check,
			    void *ctx, const char **targets, char *why,
			    size_t len)
{
	int i, err;

	if (eng->mode != PTS_MODE_AUTO && (int)c->kind != eng->mode &&
	    metric_has_kind(m, eng->mode)) {
		snprintf(why, len, "not selected: --mode %s",
			 path_kind_name(eng->mode));
		return -ECANCELED;
	}
	for (i = 0; i < PTS_MAX_REQS && c->reqs[i].kind; i++) {
		if (c->reqs[i].kind == PTS_REQ_METRIC_PATH)
			err = check_metric_path(eng, c->reqs[i].name, c->kind,
						why, len);
		else if (c->reqs[i].kind == PTS_REQ_METRIC)
			err = check_metric(eng, c->reqs[i].name, why, len);
		else if (c->reqs[i].kind == PTS_REQ_METRIC_CFG)
			err = check_metric_cfg(eng, c->reqs[i].name,
					       c->reqs[i].cfg, why, len);
		else
			err = check(ctx, &c->reqs[i], why, len);
		if (err)
			return err;
	}
	for (i = 0; i < PTS_MAX_RETARGETS && c->retargets[i].prog; i++) {
		err = resolve_retarget(c, &c->retargets[i], check, ctx,
				       &targets[i], why, len);
		if (err)
			return err;
	}
	if (!c->progs[0] && !c->counted_by) {
		snprintf(why, len, "kernel supports it, not implemented yet (%s)",
			 c->todo ? c->todo : "no programs");
		return -ENOSYS;
	}
	return 0;
}

static void choose_one(struct pts_engine *eng, struct pts_choice *ch,
		       pts_check_fn check, void *ctx)
{
	const struct pts_metric *m = ch->metric;
	int i, err;

	ch->chosen = -1;
	if (m->opt_in && !ch->opted_in) {
		for (i = 0; i < m->nr_cands; i++)
			snprintf(ch->why[i], PTS_WHY_LEN, "off: opt-in, ask "
				 "with --metric %s", m->name);
		return;
	}
	for (i = 0; i < m->nr_cands; i++) {
		if (ch->refused[i])
			continue;	/* keep the kernel's reason */
		ch->why[i][0] = '\0';
		ch->err[i] = 0;
		ch->other_kernel[i] = false;
		if (ch->chosen >= 0) {
			snprintf(ch->why[i], PTS_WHY_LEN, "not needed: an earlier "
				 "candidate works");
			continue;
		}
		err = candidate_usable(eng, m, &m->cands[i], check, ctx,
				       ch->targets, ch->why[i], PTS_WHY_LEN);
		ch->err[i] = err;
		if (!err)
			ch->chosen = i;
		ch->other_kernel[i] = err == -EINVAL;
	}
}

void engine_choose(struct pts_engine *eng, pts_check_fn check, void *ctx)
{
	int i;

	for (i = 0; i < eng->nr_choices; i++)
		choose_one(eng, &eng->choices[i], check, ctx);
}

const struct pts_choice *engine_choice(const struct pts_engine *eng,
				       const char *metric)
{
	int i;

	for (i = 0; i < eng->nr_choices; i++)
		if (!strcmp(eng->choices[i].metric->name, metric))
			return &eng->choices[i];
	return NULL;
}

bool engine_available(const struct pts_engine *eng, const char *metric)
{
	const struct pts_choice *ch = engine_choice(eng, metric);

	return ch && ch->chosen >= 0;
}

bool engine_provides(const struct pts_engine *eng, const char *metric,
		     unsigned int needs_any, unsigned int excludes)
{
	const struct pts_choice *ch = engine_choice(eng, metric);

	if (!ch || ch->chosen < 0)
		return false;
	return catalog_provides(&ch->metric->cands[ch->chosen], needs_any,
				excludes);
}

static bool said_before(const struct pts_choice *ch, int i)
{
	int j;

	for (j = 0; j < i; j++)
		if (!strcmp(ch->why[j], ch->why[i]))
			return true;
	return false;
}

/* Candidates written for another kernel's prototype are left out. */
bool engine_reason_shown(const struct pts_choice *ch, int i)
{
	return ch->why[i][0] && !ch->other_kernel[i] && !said_before(ch, i);
}

void engine_unavailable_reason(const struct pts_choice *ch, char *buf,
			       size_t len)
{
	size_t used = 0;
	int i;

	buf[0] = '\0';
	for (i = 0; i < ch->metric->nr_cands && used < len; i++) {
		if (!engine_reason_shown(ch, i))
			continue;
		used += snprintf(buf + used, len - used, "%s%s",
				 used ? "; " : "", ch->why[i]);
	}
}

/*
 * What the engine's own choice or limit gives (-ECANCELED: --mode,
 * -ENOSPC: more programs than PTS_MAX_LINKS), what is absent
 * (-ENOENT: no symbol, tracepoint or BTF; -EINVAL: another prototype;
 * -ENOSYS: not implemented) and what depends on another metric are not
 * the kernel refusing anything; -EOPNOTSUPP is a kernel built without it.
 */
bool engine_kernel_refused(const struct pts_choice *ch, int i)
{
	switch (ch->err[i]) {
	case 0:
	case -ENOSPC:
	case -ECANCELED:
	case -ENOENT:
	case -EINVAL:
	case -ENOSYS:
	case -EOPNOTSUPP:
		return false;
	}
	return true;
}

unsigned int engine_refused_kinds(const struct pts_engine *eng, int err)
{
	const struct pts_choice *ch;
	unsigned int kinds = 0;
	int i, j;

	for (i = 0; i < eng->nr_choices; i++) {
		ch = &eng->choices[i];
		for (j = 0; j < ch->metric->nr_cands; j++)
			if (engine_kernel_refused(ch, j) && ch->err[j] == err)
				kinds |= 1u << ch->metric->cands[j].kind;
	}
	return kinds;
}

const char *engine_retarget_of(const struct pts_choice *ch,
			       const struct pts_candidate *c, const char *prog)
{
	int i;

	for (i = 0; i < PTS_MAX_RETARGETS && c->retargets[i].prog; i++)
		if (!strcmp(c->retargets[i].prog, prog))
			return ch->targets[i];
	return NULL;
}

/* BTF-based programs learn their target before load */
static int set_targets(struct pts_objects *objs, const struct pts_choice *ch,
		       const struct pts_candidate *c)
{
	struct bpf_program *prog;
	int i, err;

	if (c->kind != PTS_PATH_FENTRY)
		return 0;	/* kprobes get theirs at attach time */
	for (i = 0; i < PTS_MAX_RETARGETS && c->retargets[i].prog; i++) {
		prog = objects_prog(objs, c->obj, c->retargets[i].prog);
		if (!prog || !ch->targets[i])
			return -ENOENT;
		err = bpf_program__set_attach_target(prog, 0, ch->targets[i]);
		if (err)
			return err;
	}
	return 0;
}

/* autoload the chosen candidate's programs, aimed at their targets */
static int enable_candidate(struct pts_objects *objs,
			    const struct pts_choice *ch)
{
	const struct pts_candidate *c = &ch->metric->cands[ch->chosen];
	int j, err;

	for (j = 0; j < PTS_MAX_PROGS && c->progs[j]; j++) {
		err = objects_enable(objs, c->obj, c->progs[j]);
		if (err)
			return err;
	}
	for (j = 0; j < PTS_MAX_PROGS && c->check_progs[j]; j++) {
		err = objects_enable(objs, c->obj, c->check_progs[j]);
		if (err)
			return err;
	}
	return set_targets(objs, ch, c);
}

static int enable_chosen(struct pts_engine *eng)
{
	int i, err;

	objects_disable_all(&eng->objs);
	for (i = 0; i < eng->nr_choices; i++) {
		if (eng->choices[i].chosen < 0)
			continue;
		err = enable_candidate(&eng->objs, &eng->choices[i]);
		if (err)
			return err;
	}
	return 0;
}

/*
 * The object failed to load.  Find which chosen candidate the kernel
 * refuses by loading each one alone, and mark it.  Returns how many
 * candidates were marked.
 */
static int isolate_load_failure(struct pts_engine *eng,
				const struct pts_config *cfg)
{
	struct pts_objects alone;
	const struct pts_candidate *c;
	struct pts_choice *ch;
	int i, err, marked = 0;

	for (i = 0; i < eng->nr_choices; i++) {
		ch = &eng->choices[i];
		if (ch->chosen < 0)
			continue;
		c = &ch->metric->cands[ch->chosen];
		if (objects_open(&alone, cfg, eng->bpf.fallback))
			return marked;
		objects_disable_all(&alone);
		err = enable_candidate(&alone, ch);
		if (!err)
			err = objects_load(&alone);
		objects_close(&alone);
		if (!err)
			continue;
		ch->refused[ch->chosen] = true;
		ch->err[ch->chosen] = err;
		snprintf(ch->why[ch->chosen], PTS_WHY_LEN,
			 "%s: load failed, %s (--libbpf-debug shows the "
			 "verifier log)", path_kind_name(c->kind),
			 strerror(-err));
		marked++;
	}
	return marked;
}

static struct bpf_link *attach_prog(struct bpf_program *prog,
				    enum pts_path_kind kind, const char *target)
{
	if (kind != PTS_PATH_KPROBE || !target)
		return bpf_program__attach(prog);
	return bpf_program__attach_kprobe(prog, objects_is_kretprobe(prog),
					  target);
}

/*
 * Attach program @name of @ch's chosen candidate and keep its link.
 * Returns 0, or -errno with the candidate marked refused and why.
 */
static int attach_one(struct pts_engine *eng, struct pts_choice *ch,
		      const char *name)
{
	const struct pts_candidate *c = &ch->metric->cands[ch->chosen];
	struct bpf_program *prog;
	struct bpf_link *link;
	int err;

	if (eng->nr_links >= PTS_MAX_LINKS) {
		err = -ENOSPC;
		snprintf(ch->why[ch->chosen], PTS_WHY_LEN,
			 "%s: %s not attached, ptscope keeps %d links at most "
			 "(PTS_MAX_LINKS)", path_kind_name(c->kind), name,
			 PTS_MAX_LINKS);
		goto refused;
	}
	prog = objects_prog(&eng->objs, c->obj, name);
	link = prog ? attach_prog(prog, c->kind,
				  engine_retarget_of(ch, c, name)) : NULL;
	if (link) {
		eng->links[eng->nr_links++] = link;
		return 0;
	}
	err = prog ? -errno : -ENOENT;
	snprintf(ch->why[ch->chosen], PTS_WHY_LEN, "%s: attach of %s failed, %s",
		 path_kind_name(c->kind), name, strerror(-err));
refused:
	ch->refused[ch->chosen] = true;
	ch->err[ch->chosen] = err;
	return err;
}

static int attach_chosen(struct pts_engine *eng)
{
	const struct pts_candidate *c;
	struct pts_choice *ch;
	int i, j, refused = 0;

	for (i = 0; i < eng->nr_choices; i++) {
		ch = &eng->choices[i];
		if (ch->chosen < 0)
			continue;
		c = &ch->metric->cands[ch->chosen];
		for (j = 0; j < PTS_MAX_PROGS && c->progs[j]; j++) {
			if (attach_one(eng, ch, c->progs[j])) {
				refused++;
				break;
			}
		}
	}
	return refused;
}

/* housekeeping rows (task.exit) alone are nothing worth attaching */
static int any_chosen(const struct pts_engine *eng)
{
	int i, n = 0;

	for (i = 0; i < eng->nr_choices; i++)
		if (eng->choices[i].chosen >= 0 &&
		    !eng->choices[i].metric->internal)
			n++;
	return n;
}

/* the configuration plus what the chosen candidates need */
static void chosen_config(const struct pts_engine *eng,
			  const struct pts_config *base, struct pts_config *cfg)
{
	int i;

	*cfg = *base;
	for (i = 0; i < eng->nr_choices; i++)
		if (eng->choices[i].chosen >= 0)
			cfg->flags |= eng->choices[i].metric->cands[
				eng->choices[i].chosen].cfg_flags;
}

/*
 * open -> configure -> choose autoload -> load -> attach; when the kernel
 * refuses a candidate, mark it and start over with the next one.
 */
int engine_attach(struct pts_engine *eng, const struct pts_config *base,
		  pts_check_fn check, void *ctx)
{
	struct pts_config config, *cfg = &config;
	int round, err;

	for (round = 0; round < ENGINE_MAX_ROUNDS; round++) {
		engine_choose(eng, check, ctx);
		if (!any_chosen(eng))
			return -ENOENT;
		chosen_config(eng, base, cfg);
		err = objects_open(&eng->objs, cfg, eng->bpf.fallback);
		if (err)
			return err;
		err = enable_chosen(eng);
		if (err)
			goto cleanup;
		err = objects_load(&eng->objs);
		if (err) {
			objects_close(&eng->objs);
			if (!isolate_load_failure(eng, cfg))
				return err;
			continue;
		}
		if (!attach_chosen(eng))
			return 0;
		engine_detach(eng);
	}
	return -ELOOP;
cleanup:
	objects_close(&eng->objs);
	return err;
}

/*
 * Attach the check programs of @metric's chosen candidate, into @links
 * (at most PTS_MAX_PROGS).  Returns how many, or -errno with @why said.
 */
int engine_attach_check_progs(struct pts_engine *eng, const char *metric,
			      struct bpf_link **links, char *why, size_t len)
{
	const struct pts_choice *ch = engine_choice(eng, metric);
	const struct pts_candidate *c;
	struct bpf_program *prog;
	int j, err;

	if (!ch || ch->chosen < 0)
		return -ENOENT;
	c = &ch->metric->cands[ch->chosen];
	for (j = 0; j < PTS_MAX_PROGS && c->check_progs[j]; j++) {
		prog = objects_prog(&eng->objs, c->obj, c->check_progs[j]);
		links[j] = prog ? attach_prog(prog, c->kind, NULL) : NULL;
		if (links[j])
			continue;
		err = prog ? -errno : -ENOENT;
		snprintf(why, len, "%s: attach of %s failed, %s",
			 path_kind_name(c->kind), c->check_progs[j],
			 strerror(-err));
		while (j--)
			bpf_link__destroy(links[j]);
		return err;
	}
	return j;
}

/* @metric's chosen candidate cannot be used after all: say why */
void engine_withdraw(struct pts_engine *eng, const char *metric,
		     const char *why)
{
	struct pts_choice *ch;
	int i;

	for (i = 0; i < eng->nr_choices; i++) {
		ch = &eng->choices[i];
		if (strcmp(ch->metric->name, metric) || ch->chosen < 0)
			continue;
		ch->refused[ch->chosen] = true;
		ch->err[ch->chosen] = -EPROTO;
		snprintf(ch->why[ch->chosen], PTS_WHY_LEN, "%s", why);
		ch->chosen = -1;
	}
}

void engine_detach(struct pts_engine *eng)
{
	int i;

	for (i = 0; i < eng->nr_links; i++)
		bpf_link__destroy(eng->links[i]);
	eng->nr_links = 0;
	objects_close(&eng->objs);
}
