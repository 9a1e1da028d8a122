// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <malloc.h>
#include <stdio.h>
#include <string.h>
#include <stdlib.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "data/cgroup_prune.h"
#include "engine/batch_check.h"
#include "tracer/tracer.h"

void tracer_build_config(const struct pts_kfeatures *kf,
			 const struct pts_tracer_params *p,
			 struct pts_config *cfg)
{
	__u64 page_size = (__u64)sysconf(_SC_PAGESIZE);
	__u64 entries = page_size / 8;	/* 8-byte entries per table page */

	memset(cfg, 0, sizeof(*cfg));
	cfg->filter_tgid = (__u32)p->pid;
	cfg->filter_traced = p->follow_fork;
	if (p->comm)
		strncpy(cfg->filter_comm, p->comm, PTS_COMM_LEN - 1);
	cfg->page_shift = (__u32)__builtin_ctzll(page_size);
	cfg->dmap_var = kf->dmap_var;
	cfg->pmd_size = page_size * entries;
	cfg->pud_size = cfg->pmd_size * entries;
	cfg->thp_gfp_mask = kfeatures_thp_gfp_mask(kf);
	cfg->pgtable_gfp_mask = kfeatures_pgtable_gfp_mask(kf);
	cfg->movable_gfp_mask = kfeatures_movable_gfp_mask(kf);
	if (p->events)
		cfg->flags |= PTS_CFG_EVENTS;
	cfg->filter_cgroup = p->cgroup != NULL;
	cfg->parts = p->parts;
}

/*
 * --cgroup: hand the cgroup to the BPF filter.  Until this is done
 * bpf_current_task_under_cgroup() finds the slot empty (-EAGAIN) and
 * nothing counts; the map keeps its own reference to the cgroup
 * (cgroup_fd_array_get_ptr(), kernel/bpf/arraymap.c).
 */
static int set_cgroup_filter(struct pts_tracer *t,
			     const struct pts_tracer_params *p)
{
	__u32 zero = 0, fd;
	int err;

	if (!p->cgroup)
		return 0;
	fd = (__u32)p->cgroup->fd;
	if (bpf_map_update_elem(t->eng.objs.cgroup_filter_fd, &zero, &fd,
				BPF_ANY)) {
		err = -errno;
		fprintf(stderr, "ptscope: cannot filter by cgroup %s: %s\n",
			p->cgroup->path, strerror(-err));
		return err;
	}
	return 0;
}

/*
 * The per-cgroup rows' names: where cgroup v2 is mounted, if it is, and
 * the kubelet's log directories; the removed row, where rows are pruned.
 */
static int start_cgroup_names(struct pts_tracer *t,
			      const struct pts_tracer_params *p)
{
	struct pts_cgroup_fs fs;
	int err;

	if (!(t->cfg.parts & PTS_PART_CGROUP_ROWS))
		return 0;
	cgroup_fs_find(&fs);	/* not mounted: rows keep their ids */
	t->cgroup_names = cgroup_names_new(&fs);
	t->kube_logs = kube_logs_new(p->kube_logs ? p->kube_logs : "/var/log");
	if (!t->cgroup_names || !t->kube_logs) {
		fprintf(stderr, "ptscope: out of memory\n");
		return -ENOMEM;
	}
	t->prune_cgroups = p->prune_cgroups;
	err = t->prune_cgroups ? cgroup_prune_init(t->eng.objs.cgroups_fd) : 0;
	if (err) {
		fprintf(stderr, "ptscope: cannot make the row of removed "
			"cgroups: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

/* the fallback build where the kernel lacks a feature, or where forced */
static int choose_bpf_build(struct pts_tracer *t)
{
	char why[PTS_WHY_LEN];
	int err;

	err = bpf_features_force(&t->eng.bpf, getenv(PTS_BPF_FALLBACK_ENV),
				 why, sizeof(why));
	if (err) {
		fprintf(stderr, "ptscope: %s\n", why);
		kfeatures_free(&t->kf);
		return err;
	}
	bpf_features_probe(&t->eng.bpf);
	return 0;
}

int tracer_start(struct pts_tracer *t, const struct pts_tracer_params *p)
{
	int err, i;

	memset(t, 0, sizeof(*t));
	err = kfeatures_init(&t->kf);
	if (err)
		return err;
	tracer_build_config(&t->kf, p, &t->cfg);
	engine_init(&t->eng, p->mode, p->follow_fork);
	err = choose_bpf_build(t);
	if (err)
		return err;
	for (i = 0; i < p->nr_opt_in; i++)
		engine_opt_in(&t->eng, p->opt_in[i]);
	t->rep.eng = &t->eng;
	t->rep.kf = &t->kf;
	t->rep.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	kcounters_read(&t->kc_base);
	err = engine_attach(&t->eng, &t->cfg, kfeatures_check, &t->kf);
	if (err == -ENOENT && p->probe_only)
		return 0;	/* probe reports why nothing attaches */
	if (err) {
		t->attach_err = err;
		kfeatures_free(&t->kf);
		return err;
	}
	err = set_cgroup_filter(t, p);
	if (!err)
		err = start_cgroup_names(t, p);
	if (err) {
		tracer_stop(t);
		return err;
	}
	/* no inferred batch count before its model is checked here */
	batch_check_run(&t->eng, &t->cfg);
	/*
	 * The kernel BTF, the kallsyms copy and libbpf's own BTF loads were
	 * for choosing and loading only: give their memory back.
	 */
	kfeatures_release(&t->kf);
	malloc_trim(0);
	return 0;
}

void tracer_stop(struct pts_tracer *t)
{
	free(t->progs);
	t->progs = NULL;
	cgroup_names_free(t->cgroup_names);
	t->cgroup_names = NULL;
	kube_logs_free(t->kube_logs);
	t->kube_logs = NULL;
	engine_detach(&t->eng);
	kfeatures_free(&t->kf);
}

/* the paths of @snap's cgroups, looked up for ids not seen before */
static int name_cgroups(struct pts_tracer *t, struct pts_snapshot *snap)
{
	__u64 *ids;
	size_t i;
	int err;

	if (!snap->nr_cgroups || !t->cgroup_names)
		return 0;
	ids = calloc(snap->nr_cgroups, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < snap->nr_cgroups; i++)
		ids[i] = snap->cgroups[i].id;
	err = cgroup_names_resolve(t->cgroup_names, ids, snap->nr_cgroups);
	free(ids);
	for (i = 0; i < snap->nr_cgroups; i++) {
		snap->cgroups[i].path = cgroup_names_get(t->cgroup_names,
							 snap->cgroups[i].id);
		snap->cgroups[i].kube = cgroup_names_kube(t->cgroup_names,
							  snap->cgroups[i].id,
							  t->kube_logs);
	}
	return err;
}

void tracer_tidy(struct pts_tracer *t)
{
	double now = mono_seconds();
	int n;

	if (!t->prune_cgroups || now - t->pruned_at < PTS_PRUNE_INTERVAL_S)
		return;
	t->pruned_at = now;
	n = cgroup_prune(t->eng.objs.cgroups_fd, t->cgroup_names);
	if (n < 0)
		fprintf(stderr, "ptscope: warning: moving the rows of removed "
			"cgroups failed: %s; they stay until the next try\n",
			strerror(-n));
}

/* @objs without the per-process maps (@procs false) or the cgroup rows */
static int read_tracer(struct pts_tracer *t, struct pts_objects objs,
		       bool procs, struct pts_snapshot *snap)
{
	int err;

	tracer_tidy(t);
	if (!procs)
		objs.procs_fd = -1;	/* collector_read() skips them */
	if (!(t->cfg.parts & PTS_PART_CGROUP_ROWS))
		objs.cgroups_fd = -1;
	err = collector_read(&objs, snap);
	return err ? err : name_cgroups(t, snap);
}

int tracer_read(struct pts_tracer *t, struct pts_snapshot *snap)
{
	return read_tracer(t, t->eng.objs, true, snap);
}

int tracer_read_totals(struct pts_tracer *t, struct pts_snapshot *snap)
{
	return read_tracer(t, t->eng.objs, false, snap);
}

int tracer_trace_pid(struct pts_tracer *t, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u8 one = 1;

	if (bpf_map_update_elem(t->eng.objs.traced_fd, &tgid, &one, BPF_ANY))
		return -errno;
	return 0;
}

struct ring_buffer *tracer_events(struct pts_tracer *t,
				  ring_buffer_sample_fn fn, void *ctx)
{
	return ring_buffer__new(t->eng.objs.events_fd, fn, ctx, NULL);
}

/* what privdrop asks: bpf() on a map fd, without CAP_BPF where allowed */
int tracer_check_read(const struct pts_tracer *t)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(t->eng.objs.counters_fd, &info, &len))
		return -errno;
	return 0;
}

/* the loaded programs into @out (up to @max); how many there are */
static size_t list_loaded(const struct pts_objects *objs,
			      struct pts_prog_ref *out, size_t max)
{
	struct bpf_program *prog;
	size_t n = 0;
	int i;

	for (i = 0; i < PTS_NR_OBJS; i++) {
		if (!objs->obj[i])
			continue;
		bpf_object__for_each_program(prog, objs->obj[i]) {
			if (bpf_program__fd(prog) < 0)
				continue;
			if (n < max)
				out[n] = (struct pts_prog_ref){
					.name = bpf_program__name(prog),
					.fd = bpf_program__fd(prog),
				};
			n++;
		}
	}
	return n;
}

const struct pts_prog_ref *tracer_programs(struct pts_tracer *t, size_t *n)
{
	size_t count;

	if (!t->progs) {
		count = list_loaded(&t->eng.objs, NULL, 0);
		t->progs = calloc(count ? count : 1, sizeof(*t->progs));
		if (!t->progs) {
			*n = 0;
			return NULL;
		}
		t->nr_progs = list_loaded(&t->eng.objs, t->progs, count);
	}
	*n = t->nr_progs;
	return t->progs;
}

/* the instructions the verifier processed to load @prog (5.16+), else 0 */
static __u32 prog_verified_insns(const struct bpf_program *prog)
{
	struct bpf_prog_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(bpf_program__fd(prog), &info, &len))
		return 0;
	return info.verified_insns;
}

size_t tracer_hooks(struct pts_tracer *t, struct pts_hook *out, size_t max)
{
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	struct pts_objects *objs = &t->eng.objs;
	struct bpf_program *prog;
	const char *target;
	size_t n = 0;
	int i, j;

	for (i = 0; i < t->eng.nr_choices; i++) {
		ch = &t->eng.choices[i];
		if (ch->chosen < 0)
			continue;
		c = &ch->metric->cands[ch->chosen];
		for (j = 0; j < PTS_MAX_PROGS && c->progs[j]; j++) {
			prog = objects_prog(objs, c->obj, c->progs[j]);
			if (!prog || bpf_program__fd(prog) < 0)
				continue;
			if (n >= max)
				return n;
			target = engine_retarget_of(ch, c, c->progs[j]);
			if (!target)
				target = objects_section_target(prog);
			out[n].metric = ch->metric->name;
			out[n].type = objects_hook_type(prog);
			out[n].prog = c->progs[j];
			snprintf(out[n].target, sizeof(out[n].target), "%s",
				 target);
			out[n].verified_insns = prog_verified_insns(prog);
			n++;
		}
	}
	return n;
}
