/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF objects (one skeleton per bpf/NAME.bpf.c) and their shared maps. */
#ifndef PTSCOPE_OBJECTS_H
#define PTSCOPE_OBJECTS_H

#include <stdbool.h>
#include <linux/types.h>
#include <ptscope/ptscope.h>
#include "engine/obj_ids.h"

struct bpf_object;
struct bpf_program;

/* mremap_inflight, mpt_inflight, mpt_partial, fault_inflight, in_madvise */
#define PTS_NR_THREAD_MAPS	5

struct pts_objects {
	struct mremap_bpf *mremap;
	struct thp_bpf *thp;
	struct task_bpf *task;
	struct bpf_object *obj[PTS_NR_OBJS];
	bool used[PTS_NR_OBJS];
	bool loaded[PTS_NR_OBJS];
	/* shared maps, valid after objects_load() */
	int counters_fd;
	int hists_fd;
	int procs_fd;
	int traced_fd;
	int events_fd;
	int procs_exited_fd;	/* rows of processes that exited */
	int cgroups_fd;		/* per-cgroup rows (PTS_PART_CGROUP_ROWS) */
	int cgroup_filter_fd;	/* --cgroup: the cgroup, written after attach */
	/*
	 * per-thread in-flight state, only the BPF side uses it: task
	 * storage, or tid-keyed hashes in the fallback build
	 */
	int thread_fds[PTS_NR_THREAD_MAPS];
};

/* the primary build of the objects, or the fallback one (engine/bpf_features.h) */
int objects_open(struct pts_objects *objs, const struct pts_config *cfg,
		 bool fallback);
/* turn off autoload of every program; objects_enable() turns one on */
void objects_disable_all(struct pts_objects *objs);
int objects_enable(struct pts_objects *objs, enum pts_obj_id id,
		   const char *prog);
struct bpf_program *objects_prog(struct pts_objects *objs,
				 enum pts_obj_id id, const char *prog);
int objects_load(struct pts_objects *objs);
/* the start-up check's state in the loaded objects' .bss */
void objects_set_check_tid(struct pts_objects *objs, __u32 tid);
void objects_set_lookup_rule(struct pts_objects *objs, __u32 rule);
void objects_take_check_counts(struct pts_objects *objs,
			       struct pts_check_counts *out);
/* is @prog a kretprobe (its section "kretprobe/FUNC")? */
bool objects_is_kretprobe(const struct bpf_program *prog);
/* what @prog's section names after its type: "FUNC", "cat/event"; or "" */
const char *objects_section_target(const struct bpf_program *prog);
/*
 * @prog's hook as bpftool names it: tracepoint, raw_tp, tp_btf, fentry,
 * fexit, kprobe, kretprobe; "other" for anything else
 */
const char *objects_hook_type(const struct bpf_program *prog);
void objects_close(struct pts_objects *objs);

#endif
