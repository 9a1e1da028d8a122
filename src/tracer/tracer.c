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
#include "tracer/tracer.h"

void session_build_config(const struct pts_kfeatures *kf,
			  const struct pts_session_params *p,
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
	if (p->events)
		cfg->flags |= PTS_CFG_EVENTS;
	cfg->filter_cgroup = p->cgroup != NULL;
	cfg->cgroup_rows = p->cgroup_rows;
}

/*
 * --cgroup: hand the cgroup to the BPF filter.  Until this is done
 * bpf_current_task_under_cgroup() finds the slot empty (-EAGAIN) and
 * nothing counts; the map keeps its own reference to the cgroup
 * (cgroup_fd_array_get_ptr(), kernel/bpf/arraymap.c).
 */
static int set_cgroup_filter(struct pts_session *s,
			     const struct pts_session_params *p)
{
	__u32 zero = 0, fd;
	int err;

	if (!p->cgroup)
		return 0;
	fd = (__u32)p->cgroup->fd;
	if (bpf_map_update_elem(s->eng.objs.cgroup_filter_fd, &zero, &fd,
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
static int start_cgroup_names(struct pts_session *s,
			      const struct pts_session_params *p)
{
	struct pts_cgroup_fs fs;
	int err;

	if (!s->cfg.cgroup_rows)
		return 0;
	cgroup_fs_find(&fs);	/* not mounted: rows keep their ids */
	s->cgroup_names = cgroup_names_new(&fs);
	s->kube_logs = kube_logs_new(p->kube_logs ? p->kube_logs : "/var/log");
	if (!s->cgroup_names || !s->kube_logs) {
		fprintf(stderr, "ptscope: out of memory\n");
		return -ENOMEM;
	}
	s->prune_cgroups = p->prune_cgroups;
	err = s->prune_cgroups ? cgroup_prune_init(s->eng.objs.cgroups_fd) : 0;
	if (err) {
		fprintf(stderr, "ptscope: cannot make the row of removed "
			"cgroups: %s\n", strerror(-err));
		return err;
	}
	return 0;
}

int session_start(struct pts_session *s, const struct pts_session_params *p)
{
	int err, i;

	memset(s, 0, sizeof(*s));
	err = kfeatures_init(&s->kf);
	if (err)
		return err;
	session_build_config(&s->kf, p, &s->cfg);
	engine_init(&s->eng, p->mode, p->follow_fork);
	for (i = 0; i < p->nr_opt_in; i++)
		engine_opt_in(&s->eng, p->opt_in[i]);
	s->rep.eng = &s->eng;
	s->rep.kf = &s->kf;
	s->rep.page_size = (uint64_t)sysconf(_SC_PAGESIZE);
	err = engine_attach(&s->eng, &s->cfg, kfeatures_check, &s->kf);
	if (err == -ENOENT && p->probe_only)
		return 0;	/* probe reports why nothing attaches */
	if (err) {
		s->attach_err = err;
		kfeatures_free(&s->kf);
		return err;
	}
	err = set_cgroup_filter(s, p);
	if (!err)
		err = start_cgroup_names(s, p);
	if (err) {
		session_stop(s);
		return err;
	}
	/*
	 * The kernel BTF, the kallsyms copy and libbpf's own BTF loads were
	 * for choosing and loading only: give their memory back.
	 */
	kfeatures_release(&s->kf);
	malloc_trim(0);
	return 0;
}

void session_stop(struct pts_session *s)
{
	free(s->progs);
	s->progs = NULL;
	cgroup_names_free(s->cgroup_names);
	s->cgroup_names = NULL;
	kube_logs_free(s->kube_logs);
	s->kube_logs = NULL;
	engine_detach(&s->eng);
	kfeatures_free(&s->kf);
}

/* the paths of @snap's cgroups, looked up for ids not seen before */
static int name_cgroups(struct pts_session *s, struct pts_snapshot *snap)
{
	__u64 *ids;
	size_t i;
	int err;

	if (!snap->nr_cgroups || !s->cgroup_names)
		return 0;
	ids = calloc(snap->nr_cgroups, sizeof(*ids));
	if (!ids)
		return -ENOMEM;
	for (i = 0; i < snap->nr_cgroups; i++)
		ids[i] = snap->cgroups[i].id;
	err = cgroup_names_resolve(s->cgroup_names, ids, snap->nr_cgroups);
	free(ids);
	for (i = 0; i < snap->nr_cgroups; i++) {
		snap->cgroups[i].path = cgroup_names_get(s->cgroup_names,
							 snap->cgroups[i].id);
		snap->cgroups[i].kube = cgroup_names_kube(s->cgroup_names,
							  snap->cgroups[i].id,
							  s->kube_logs);
	}
	return err;
}

void session_tidy(struct pts_session *s)
{
	double now = mono_seconds();
	int n;

	if (!s->prune_cgroups || now - s->pruned_at < PTS_PRUNE_INTERVAL_S)
		return;
	s->pruned_at = now;
	n = cgroup_prune(s->eng.objs.cgroups_fd, s->cgroup_names);
	if (n < 0)
		fprintf(stderr, "ptscope: warning: moving the rows of removed "
			"cgroups failed: %s; they stay until the next try\n",
			strerror(-n));
}

/* @objs without the per-process maps (@procs false) or the cgroup rows */
static int read_session(struct pts_session *s, struct pts_objects objs,
			bool procs, struct pts_snapshot *snap)
{
	int err;

	session_tidy(s);
	if (!procs)
		objs.procs_fd = -1;	/* collector_read() skips them */
	if (!s->cfg.cgroup_rows)
		objs.cgroups_fd = -1;
	err = collector_read(&objs, snap);
	return err ? err : name_cgroups(s, snap);
}

int session_read(struct pts_session *s, struct pts_snapshot *snap)
{
	return read_session(s, s->eng.objs, true, snap);
}

int session_read_totals(struct pts_session *s, struct pts_snapshot *snap)
{
	return read_session(s, s->eng.objs, false, snap);
}

int session_trace_pid(struct pts_session *s, pid_t pid)
{
	__u32 tgid = (__u32)pid;
	__u8 one = 1;

	if (bpf_map_update_elem(s->eng.objs.traced_fd, &tgid, &one, BPF_ANY))
		return -errno;
	return 0;
}

struct ring_buffer *session_events(struct pts_session *s,
				   ring_buffer_sample_fn fn, void *ctx)
{
	return ring_buffer__new(s->eng.objs.events_fd, fn, ctx, NULL);
}

/* what privdrop asks: bpf() on a map fd, without CAP_BPF where allowed */
int session_check_read(const struct pts_session *s)
{
	struct bpf_map_info info;
	__u32 len = sizeof(info);

	memset(&info, 0, sizeof(info));
	if (bpf_obj_get_info_by_fd(s->eng.objs.counters_fd, &info, &len))
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

const struct pts_prog_ref *session_programs(struct pts_session *s, size_t *n)
{
	size_t count;

	if (!s->progs) {
		count = list_loaded(&s->eng.objs, NULL, 0);
		s->progs = calloc(count ? count : 1, sizeof(*s->progs));
		if (!s->progs) {
			*n = 0;
			return NULL;
		}
		s->nr_progs = list_loaded(&s->eng.objs, s->progs, count);
	}
	*n = s->nr_progs;
	return s->progs;
}

size_t session_hooks(struct pts_session *s, struct pts_hook *out, size_t max)
{
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	struct pts_objects *objs = &s->eng.objs;
	struct bpf_program *prog;
	const char *target;
	size_t n = 0;
	int i, j;

	for (i = 0; i < s->eng.nr_choices; i++) {
		ch = &s->eng.choices[i];
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
			n++;
		}
	}
	return n;
}
