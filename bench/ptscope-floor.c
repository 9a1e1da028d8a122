// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope-floor - the floor of the overhead bench (bench/overhead.sh):
 * empty BPF programs on exactly the hooks ptscope attached.
 *
 *   ptscope-floor [--stats] --hooks FILE     hooks from "ptscope probe --json"
 *   ptscope-floor [--stats] TYPE:TARGET ...  e.g. tracepoint:syscalls/sys_enter_mremap,
 *                                            tp_btf:mm_page_alloc, fentry:move_page_tables
 *
 * Types: tracepoint, raw_tp, tp_btf, fentry, fexit, kprobe, kretprobe.
 * Each hook gets its own copy of bench/floor.bpf.c with only the program
 * of its type loaded, aimed at the target and attached.  Prints "ready N
 * hooks" on stdout once all are attached, then waits for SIGINT or
 * SIGTERM.  Exit status: 0, 1 when a hook cannot be attached, 2 usage.
 *
 * --stats turns on the kernel's BPF run-time statistics while it runs
 * (bpf_enable_stats(BPF_STATS_RUN_TIME), as ptscope export --bpf-stats
 * does) and, on each SIGUSR1, prints what each empty program ran so far:
 * a "stats TYPE:TARGET RUNS RUN_NS" line per hook (tab-separated), then
 * "end N", N counting the reports.  That is the run time of a program
 * that does nothing, measured the way ptscope's are: the bench's floor for
 * the BPF time, as the plain floor is for the wall time.
 */
#include <errno.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <json-c/json.h>
#include "floor.skel.h"

#define MAX_HOOKS	64

struct hook {
	char type[16];
	char target[128];
	struct floor_bpf *skel;
	struct bpf_program *prog;
	struct bpf_link *link;
};

static struct hook hooks[MAX_HOOKS];
static int nr_hooks;
static volatile sig_atomic_t stop;
static volatile sig_atomic_t report_wanted;

static void on_signal(int sig)
{
	stop = 1;
}

static void on_report(int sig)
{
	report_wanted = 1;
}

static int add_hook(const char *type, const char *target)
{
	struct hook *h;

	if (nr_hooks == MAX_HOOKS || strlen(type) >= sizeof(h->type) ||
	    strlen(target) >= sizeof(h->target) || !*target) {
		fprintf(stderr, "ptscope-floor: bad hook %s:%s\n", type, target);
		return 2;
	}
	h = &hooks[nr_hooks++];
	strcpy(h->type, type);
	strcpy(h->target, target);
	return 0;
}

/* TYPE:TARGET */
static int add_hook_arg(const char *arg)
{
	char type[16];
	const char *colon = strchr(arg, ':');

	if (!colon || colon - arg >= (long)sizeof(type)) {
		fprintf(stderr, "ptscope-floor: '%s' is not TYPE:TARGET\n", arg);
		return 2;
	}
	memcpy(type, arg, colon - arg);
	type[colon - arg] = '\0';
	return add_hook(type, colon + 1);
}

/* the "hooks" array of "ptscope probe --json" */
static int add_hooks_json(const char *path)
{
	json_object *root, *arr, *h, *type, *target;
	size_t i, n;
	int ret = 0;

	root = json_object_from_file(path);
	if (!root) {
		fprintf(stderr, "ptscope-floor: cannot read %s: %s\n", path,
			json_util_get_last_err());
		return 2;
	}
	if (!json_object_object_get_ex(root, "hooks", &arr) ||
	    !json_object_is_type(arr, json_type_array)) {
		fprintf(stderr, "ptscope-floor: %s has no \"hooks\" array "
			"(from ptscope probe --json)\n", path);
		ret = 2;
		goto out;
	}
	n = json_object_array_length(arr);
	for (i = 0; i < n && !ret; i++) {
		h = json_object_array_get_idx(arr, i);
		if (!json_object_object_get_ex(h, "type", &type) ||
		    !json_object_object_get_ex(h, "target", &target)) {
			fprintf(stderr, "ptscope-floor: hook %zu of %s lacks "
				"type or target\n", i, path);
			ret = 2;
			break;
		}
		ret = add_hook(json_object_get_string(type),
			       json_object_get_string(target));
	}
out:
	json_object_put(root);
	return ret;
}

/* the program of @h's type, the only one left to load */
static struct bpf_program *pick_prog(struct hook *h)
{
	struct floor_bpf *s = h->skel;

	if (!strcmp(h->type, "tracepoint"))
		return s->progs.floor_tracepoint;
	if (!strcmp(h->type, "raw_tp"))
		return s->progs.floor_raw_tp;
	if (!strcmp(h->type, "tp_btf"))
		return s->progs.floor_tp_btf;
	if (!strcmp(h->type, "fentry"))
		return s->progs.floor_fentry;
	if (!strcmp(h->type, "fexit"))
		return s->progs.floor_fexit;
	if (!strcmp(h->type, "kprobe") || !strcmp(h->type, "kretprobe"))
		return s->progs.floor_kprobe;
	return NULL;
}

static struct bpf_link *attach(struct hook *h, struct bpf_program *prog)
{
	char category[128], *slash;

	if (!strcmp(h->type, "tracepoint")) {
		strcpy(category, h->target);
		slash = strchr(category, '/');
		if (!slash) {
			errno = EINVAL;
			return NULL;
		}
		*slash = '\0';
		return bpf_program__attach_tracepoint(prog, category, slash + 1);
	}
	if (!strcmp(h->type, "raw_tp"))
		return bpf_program__attach_raw_tracepoint(prog, h->target);
	if (!strcmp(h->type, "kprobe") || !strcmp(h->type, "kretprobe"))
		return bpf_program__attach_kprobe(prog,
						  !strcmp(h->type, "kretprobe"),
						  h->target);
	return bpf_program__attach(prog);	/* tp_btf, fentry, fexit */
}

static int load_hook(struct hook *h)
{
	struct bpf_program *prog, *p;
	bool btf = !strcmp(h->type, "tp_btf") || !strcmp(h->type, "fentry") ||
		   !strcmp(h->type, "fexit");
	int err;

	h->skel = floor_bpf__open();
	if (!h->skel)
		return -errno;
	prog = pick_prog(h);
	if (!prog)
		return -EINVAL;
	h->prog = prog;
	bpf_object__for_each_program(p, h->skel->obj)
		bpf_program__set_autoload(p, p == prog);
	if (btf) {
		err = bpf_program__set_attach_target(prog, 0, h->target);
		if (err)
			return err;
	}
	err = floor_bpf__load(h->skel);
	if (err)
		return err;
	h->link = attach(h, prog);
	return h->link ? 0 : -errno;
}

/* one "stats" line per hook: runs and run time so far, then "end N" */
static int print_stats(int seq)
{
	struct bpf_prog_info info;
	__u32 len;
	int i, err;

	for (i = 0; i < nr_hooks; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		err = bpf_obj_get_info_by_fd(bpf_program__fd(hooks[i].prog),
					     &info, &len);
		if (err) {
			fprintf(stderr, "ptscope-floor: %s:%s: program info: %s\n",
				hooks[i].type, hooks[i].target, strerror(-err));
			return 1;
		}
		printf("stats\t%s:%s\t%llu\t%llu\n", hooks[i].type,
		       hooks[i].target, (unsigned long long)info.run_cnt,
		       (unsigned long long)info.run_time_ns);
	}
	printf("end %d\n", seq);
	fflush(stdout);
	return 0;
}

static void usage(FILE *f)
{
	fputs("Usage: ptscope-floor [--stats] --hooks FILE | TYPE:TARGET...\n"
	      "Empty BPF programs on the given hooks (FILE: the output of\n"
	      "'ptscope probe --json'); prints \"ready N hooks\" once attached,\n"
	      "detaches on SIGINT/SIGTERM.  TYPE: tracepoint (TARGET cat/name),\n"
	      "raw_tp, tp_btf, fentry, fexit, kprobe, kretprobe.\n"
	      "--stats: BPF run-time statistics on; SIGUSR1 prints each hook's\n"
	      "runs and run time so far (\"stats TYPE:TARGET RUNS NS\", \"end N\").\n", f);
}

int main(int argc, char **argv)
{
	int i, err, ret = 0, first = 1, stats_fd = -1, reports = 0;
	bool with_stats = false;

	if (argc > 1 && !strcmp(argv[1], "--stats")) {
		with_stats = true;
		first = 2;
	}
	if (argc <= first) {
		usage(stderr);
		return 2;
	}
	if (!strcmp(argv[first], "-h") || !strcmp(argv[first], "--help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[first], "--hooks")) {
		if (argc != first + 2) {
			usage(stderr);
			return 2;
		}
		ret = add_hooks_json(argv[first + 1]);
	} else {
		for (i = first; i < argc && !ret; i++)
			ret = add_hook_arg(argv[i]);
	}
	if (ret)
		return ret;
	if (!nr_hooks) {
		fprintf(stderr, "ptscope-floor: no hooks given\n");
		return 2;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	signal(SIGUSR1, on_report);
	if (with_stats) {
		/* on while the fd is open (kernel/bpf/syscall.c, 5.8+) */
		stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
		if (stats_fd < 0) {
			fprintf(stderr, "ptscope-floor: --stats: %s\n",
				strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < nr_hooks; i++) {
		err = load_hook(&hooks[i]);
		if (err) {
			fprintf(stderr, "ptscope-floor: %s:%s: %s\n",
				hooks[i].type, hooks[i].target, strerror(-err));
			ret = 1;
			goto cleanup;
		}
	}
	printf("ready %d hooks\n", nr_hooks);
	fflush(stdout);
	while (!stop) {
		if (report_wanted && with_stats) {
			report_wanted = 0;
			ret = print_stats(++reports);
			if (ret)
				goto cleanup;
			continue;
		}
		sleep(1);	/* a signal ends the sleep */
	}
cleanup:
	for (i = 0; i < nr_hooks; i++) {
		bpf_link__destroy(hooks[i].link);
		floor_bpf__destroy(hooks[i].skel);
	}
	if (stats_fd >= 0)
		close(stats_fd);
	return ret;
}
