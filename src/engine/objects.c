// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "engine/objects.h"
#include "mremap.skel.h"
#include "thp.skel.h"
#include "task.skel.h"
#include "mremap_fallback.skel.h"
#include "thp_fallback.skel.h"
#include "task_fallback.skel.h"

/*
 * The fallback build (-DPTS_BPF_FALLBACK, bpf/ptscope.bpf.h) is the same
 * source: the same maps, programs and globals by the same names, only
 * the thread-state maps' type and the loops differ.  It is opened
 * through the primary build's skeleton (open_build()), so everything
 * that reads or writes the globals below works on either; these say
 * the globals sit where that skeleton expects them.
 */
#define SAME_GLOBAL(obj, sec, var)					\
	_Static_assert(offsetof(struct obj##_bpf__##sec, var) ==	\
		       offsetof(struct obj##_fallback_bpf__##sec, var),	\
		       #obj " fallback build: " #var " moved")
SAME_GLOBAL(mremap, rodata, cfg);
SAME_GLOBAL(mremap, bss, check_tid);
SAME_GLOBAL(mremap, bss, lookup_rule);
SAME_GLOBAL(mremap, bss, check_counts);
SAME_GLOBAL(thp, rodata, cfg);
SAME_GLOBAL(thp, bss, check_tid);
SAME_GLOBAL(task, rodata, cfg);
SAME_GLOBAL(task, bss, check_tid);

/*
 * Maps every object declares (bpf/ptscope.bpf.h) and that all objects
 * share: the first object loaded creates them, the others reuse them.
 */
static const char *const shared_maps[] = {
	"counters", "hists", "procs", "traced", "events", "procs_exited",
	"cgroups", "cgroup_filter",
	/* per-thread state: task-local storage, one per thread and map */
	"mremap_inflight", "mpt_inflight", "mpt_partial", "fault_inflight",
	"in_madvise",
};

#define NR_SHARED_MAPS	(sizeof(shared_maps) / sizeof(shared_maps[0]))
/* the named fds of shared_fd(), then the per-thread ones */
_Static_assert(NR_SHARED_MAPS == 8 + PTS_NR_THREAD_MAPS,
	       "shared_maps[] and shared_fd() disagree");

static void objects_reset(struct pts_objects *objs)
{
	size_t i;

	memset(objs, 0, sizeof(*objs));
	objs->counters_fd = objs->hists_fd = objs->procs_fd = -1;
	objs->traced_fd = objs->events_fd = objs->procs_exited_fd = -1;
	objs->cgroups_fd = objs->cgroup_filter_fd = -1;
	for (i = 0; i < PTS_NR_THREAD_MAPS; i++)
		objs->thread_fds[i] = -1;
}

/*
 * Without PTS_CFG_EVENTS nothing reserves in the ring buffer: one page,
 * the least a BPF_MAP_TYPE_RINGBUF takes (ringbuf_map_alloc()), instead
 * of the PTS_RINGBUF_BYTES of kernel memory snoop needs.
 */
static int size_ringbuf(struct bpf_object *obj, const struct pts_config *cfg)
{
	struct bpf_map *map = bpf_object__find_map_by_name(obj, "events");

	if (!map)
		return -ENOENT;
	if (cfg->flags & PTS_CFG_EVENTS)
		return 0;
	return bpf_map__set_max_entries(map, (__u32)sysconf(_SC_PAGESIZE));
}

/*
 * @skel, made by the primary build's NAME_bpf__create_skeleton(), opened
 * on the ELF of the fallback build when @fallback: what NAME_bpf__open()
 * does, but for the choice of ELF.
 */
static int open_build(struct bpf_object_skeleton *skel, bool fallback,
		      const void *fallback_elf, size_t fallback_size)
{
	if (fallback) {
		skel->data = (void *)fallback_elf;
		skel->data_sz = fallback_size;
	}
	return bpf_object__open_skeleton(skel, NULL);
}

static struct mremap_bpf *open_mremap(bool fallback)
{
	struct mremap_bpf *o = calloc(1, sizeof(*o));
	size_t size;
	const void *elf = mremap_fallback_bpf__elf_bytes(&size);

	if (!o || mremap_bpf__create_skeleton(o) ||
	    open_build(o->skeleton, fallback, elf, size)) {
		mremap_bpf__destroy(o);
		return NULL;
	}
	return o;
}

static struct thp_bpf *open_thp(bool fallback)
{
	struct thp_bpf *o = calloc(1, sizeof(*o));
	size_t size;
	const void *elf = thp_fallback_bpf__elf_bytes(&size);

	if (!o || thp_bpf__create_skeleton(o) ||
	    open_build(o->skeleton, fallback, elf, size)) {
		thp_bpf__destroy(o);
		return NULL;
	}
	return o;
}

static struct task_bpf *open_task(bool fallback)
{
	struct task_bpf *o = calloc(1, sizeof(*o));
	size_t size;
	const void *elf = task_fallback_bpf__elf_bytes(&size);

	if (!o || task_bpf__create_skeleton(o) ||
	    open_build(o->skeleton, fallback, elf, size)) {
		task_bpf__destroy(o);
		return NULL;
	}
	return o;
}

int objects_open(struct pts_objects *objs, const struct pts_config *cfg,
		 bool fallback)
{
	int i, err;

	objects_reset(objs);

	objs->mremap = open_mremap(fallback);
	objs->thp = open_thp(fallback);
	objs->task = open_task(fallback);
	if (!objs->mremap || !objs->thp || !objs->task) {
		objects_close(objs);
		return -errno ? -errno : -ENOMEM;
	}
	objs->mremap->rodata->cfg = *cfg;
	objs->thp->rodata->cfg = *cfg;
	objs->task->rodata->cfg = *cfg;
	objs->obj[PTS_OBJ_MREMAP] = objs->mremap->obj;
	objs->obj[PTS_OBJ_THP] = objs->thp->obj;
	objs->obj[PTS_OBJ_TASK] = objs->task->obj;
	for (i = 0; i < PTS_NR_OBJS; i++) {
		err = size_ringbuf(objs->obj[i], cfg);
		if (err) {
			objects_close(objs);
			return err;
		}
	}
	return 0;
}

void objects_disable_all(struct pts_objects *objs)
{
	struct bpf_program *prog;
	int i;

	for (i = 0; i < PTS_NR_OBJS; i++) {
		objs->used[i] = false;
		bpf_object__for_each_program(prog, objs->obj[i])
			bpf_program__set_autoload(prog, false);
	}
}

struct bpf_program *objects_prog(struct pts_objects *objs,
				 enum pts_obj_id id, const char *prog)
{
	if (id >= PTS_NR_OBJS || !objs->obj[id])
		return NULL;
	return bpf_object__find_program_by_name(objs->obj[id], prog);
}

int objects_enable(struct pts_objects *objs, enum pts_obj_id id,
		   const char *name)
{
	struct bpf_program *prog = objects_prog(objs, id, name);

	if (!prog)
		return -ENOENT;
	objs->used[id] = true;
	return bpf_program__set_autoload(prog, true);
}

/* where the fd of shared_maps[i] is kept */
static int *shared_fd(struct pts_objects *objs, size_t i)
{
	int *fds[] = {
		&objs->counters_fd, &objs->hists_fd, &objs->procs_fd,
		&objs->traced_fd, &objs->events_fd, &objs->procs_exited_fd,
		&objs->cgroups_fd, &objs->cgroup_filter_fd,
	};
	size_t named = sizeof(fds) / sizeof(fds[0]);

	return i < named ? fds[i] : &objs->thread_fds[i - named];
}

/*
 * After bpf_object__load() a skeleton's .bss pointer still points at
 * libbpf's private copy of the initial values: only
 * bpf_object__load_skeleton() maps the map itself over it (libbpf 1.1,
 * bpf_object__load_skeleton()).  Do the same, so that what user space
 * writes there (the start-up check's state) is what the programs read.
 */
static int share_bss(struct bpf_map *map, void *bss)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	size_t size = (bpf_map__value_size(map) + page - 1) & ~(page - 1);

	if (!bss || !(bpf_map__map_flags(map) & BPF_F_MMAPABLE))
		return -EOPNOTSUPP;
	if (mmap(bss, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 bpf_map__fd(map), 0) == MAP_FAILED)
		return -errno;
	return 0;
}

static int share_loaded_bss(struct pts_objects *objs, enum pts_obj_id id)
{
	switch (id) {
	case PTS_OBJ_MREMAP:
		return share_bss(objs->mremap->maps.bss, objs->mremap->bss);
	case PTS_OBJ_THP:
		return share_bss(objs->thp->maps.bss, objs->thp->bss);
	case PTS_OBJ_TASK:
		return share_bss(objs->task->maps.bss, objs->task->bss);
	default:
		return -EINVAL;
	}
}

/* The first object loaded creates the shared maps, the others reuse them. */
static int load_one(struct pts_objects *objs, enum pts_obj_id id)
{
	struct bpf_map *map;
	size_t i;
	int err;

	for (i = 0; i < NR_SHARED_MAPS; i++) {
		if (*shared_fd(objs, i) < 0)
			continue;
		map = bpf_object__find_map_by_name(objs->obj[id], shared_maps[i]);
		if (!map)
			return -ENOENT;
		err = bpf_map__reuse_fd(map, *shared_fd(objs, i));
		if (err)
			return err;
	}
	err = bpf_object__load(objs->obj[id]);
	if (!err)
		err = share_loaded_bss(objs, id);
	if (err)
		return err;
	objs->loaded[id] = true;
	for (i = 0; i < NR_SHARED_MAPS; i++) {
		if (*shared_fd(objs, i) >= 0)
			continue;
		map = bpf_object__find_map_by_name(objs->obj[id], shared_maps[i]);
		*shared_fd(objs, i) = bpf_map__fd(map);
	}
	return 0;
}

int objects_load(struct pts_objects *objs)
{
	int i, err;

	for (i = 0; i < PTS_NR_OBJS; i++) {
		if (!objs->used[i])
			continue;
		err = load_one(objs, i);
		if (err)
			return err;
	}
	return 0;
}

void objects_close(struct pts_objects *objs)
{
	mremap_bpf__destroy(objs->mremap);
	thp_bpf__destroy(objs->thp);
	task_bpf__destroy(objs->task);
	objects_reset(objs);
}

/*
 * The start-up check's thread (0: none), in every loaded object: the
 * BPF side counts its moves apart and its other work nowhere.
 */
void objects_set_check_tid(struct pts_objects *objs, __u32 tid)
{
	if (objs->loaded[PTS_OBJ_MREMAP])
		objs->mremap->bss->check_tid = tid;
	if (objs->loaded[PTS_OBJ_THP])
		objs->thp->bss->check_tid = tid;
	if (objs->loaded[PTS_OBJ_TASK])
		objs->task->bss->check_tid = tid;
}

/* enum pts_lookup_rule, for the PTE-table marker's batch model */
void objects_set_lookup_rule(struct pts_objects *objs, __u32 rule)
{
	if (objs->loaded[PTS_OBJ_MREMAP])
		objs->mremap->bss->lookup_rule = rule;
}

/* what the start-up check's moves counted, then zero for the next */
void objects_take_check_counts(struct pts_objects *objs,
			       struct pts_check_counts *out)
{
	memset(out, 0, sizeof(*out));
	if (!objs->loaded[PTS_OBJ_MREMAP])
		return;
	*out = objs->mremap->bss->check_counts;
	memset(&objs->mremap->bss->check_counts, 0, sizeof(*out));
}

bool objects_is_kretprobe(const struct bpf_program *prog)
{
	return !strncmp(bpf_program__section_name(prog), "kretprobe/", 10);
}

const char *objects_section_target(const struct bpf_program *prog)
{
	const char *slash = strchr(bpf_program__section_name(prog), '/');

	return slash ? slash + 1 : "";
}

const char *objects_hook_type(const struct bpf_program *prog)
{
	switch (bpf_program__type(prog)) {
	case BPF_PROG_TYPE_TRACEPOINT:
		return "tracepoint";
	case BPF_PROG_TYPE_RAW_TRACEPOINT:
		return "raw_tp";
	case BPF_PROG_TYPE_KPROBE:
		return objects_is_kretprobe(prog) ? "kretprobe" : "kprobe";
	case BPF_PROG_TYPE_TRACING:
		switch (bpf_program__expected_attach_type(prog)) {
		case BPF_TRACE_RAW_TP:
			return "tp_btf";
		case BPF_TRACE_FENTRY:
			return "fentry";
		case BPF_TRACE_FEXIT:
			return "fexit";
		default:
			break;
		}
		break;
	default:
		break;
	}
	return "other";
}
