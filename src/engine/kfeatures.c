// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/utsname.h>
#include <zlib.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>
#include "engine/kfeatures.h"
#include "engine/kminimum.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/*
 * The direct map puts physical address pa at page_offset_base + pa on
 * x86-64 (randomized with CONFIG_RANDOMIZE_MEMORY) and at
 * (pa - memstart_addr) | PAGE_OFFSET on arm64 (memory.h): the kallsyms
 * name of the variable that places it.
 */
static const char *kfeatures_dmap_var_name(void)
{
#if defined(__x86_64__)
	return "page_offset_base";
#elif defined(__aarch64__)
	return "memstart_addr";
#else
	return "";
#endif
}

static int load_kallsyms(struct pts_kfeatures *kf)
{
	size_t cap = 0;
	char line[512], name[256], type;
	unsigned long long addr;
	FILE *f = fopen("/proc/kallsyms", "r");

	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%llx %c %255s", &addr, &type, name) != 3)
			continue;
		if (!strcmp(name, kfeatures_dmap_var_name()))
			kf->dmap_var = addr;	/* 0 when kptr_restrict hides it */
		if (type != 't' && type != 'T')
			continue;
		if (kf->nr_ksyms == cap) {
			char **grown;

			cap = cap ? cap * 2 : 65536;
			grown = realloc(kf->ksyms, cap * sizeof(*grown));
			if (!grown)
				break;
			kf->ksyms = grown;
		}
		kf->ksyms[kf->nr_ksyms] = strdup(name);
		if (kf->ksyms[kf->nr_ksyms])
			kf->nr_ksyms++;
	}
	fclose(f);
	qsort(kf->ksyms, kf->nr_ksyms, sizeof(char *), cmp_str);
	return 0;
}

static bool kfeatures_has_symbol(const struct pts_kfeatures *kf,
				 const char *name)
{
	return bsearch(&name, kf->ksyms, kf->nr_ksyms, sizeof(char *),
		       cmp_str) != NULL;
}

/* index of the first symbol "@name.*" in the sorted list (or past it) */
static size_t first_clone_index(const struct pts_kfeatures *kf,
				const char *name, size_t n)
{
	size_t lo = 0, hi = kf->nr_ksyms;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		int c = strncmp(kf->ksyms[mid], name, n);

		if (c < 0 || (c == 0 && kf->ksyms[mid][n] < '.'))
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static bool is_clone_of(const char *sym, const char *name, size_t n)
{
	return !strncmp(sym, name, n) && sym[n] == '.';
}

/* first compiler clone "name.isra.0" / "name.constprop.0", or NULL */
static const char *kfeatures_symbol_clone(const struct pts_kfeatures *kf,
					  const char *name)
{
	size_t n = strlen(name), i = first_clone_index(kf, name, n);

	if (i < kf->nr_ksyms && is_clone_of(kf->ksyms[i], name, n))
		return kf->ksyms[i];
	return NULL;
}

/*
 * A "name.part.N" beside "name": GCC's partial inlining (-fpartial-inlining)
 * copied name's entry test into its callers in the same file, which then
 * call the body name.part.N directly.  A probe on name sees only the calls
 * from other files: on Debian's 5.10 amd64 kernel move_page_tables() is a
 * 32-byte wrapper that exec's stack move enters, while mremap's
 * move_vma() calls move_page_tables.part.0.  The clones "name.*" sort
 * together, right after the lower bound.
 */
static int check_whole(const struct pts_kfeatures *kf, const char *name,
		       char *why, size_t len)
{
	size_t n = strlen(name), i;

	for (i = first_clone_index(kf, name, n);
	     i < kf->nr_ksyms && is_clone_of(kf->ksyms[i], name, n); i++) {
		if (strncmp(kf->ksyms[i] + n, ".part.", 6))
			continue;
		snprintf(why, len, "%s is split by the compiler (%s): callers "
			 "in its own file bypass it, a probe would miss calls",
			 name, kf->ksyms[i]);
		return -ENOENT;
	}
	return 0;
}

/* "CONFIG_KPROBES=y" -> 1, "# CONFIG_KPROBES is not set" -> 0, else -1 */
static int read_config_kprobes(void)
{
	char line[256];
	int state = -1;
	gzFile gz = gzopen("/proc/config.gz", "r");

	if (!gz)
		return -1;
	while (gzgets(gz, line, sizeof(line))) {
		if (!strncmp(line, "CONFIG_KPROBES=", 15)) {
			state = 1;
			break;
		}
		if (strstr(line, "CONFIG_KPROBES is not set")) {
			state = 0;
			break;
		}
	}
	gzclose(gz);
	return state;
}

static bool is_tracefs_dir(const char *dir)
{
	char path[128];

	snprintf(path, sizeof(path), "%s/events", dir);
	return access(path, F_OK) == 0;
}

/* Like perf, mount tracefs where libbpf looks for it when nobody has. */
static void find_tracefs(struct pts_kfeatures *kf)
{
	static const char *const dirs[] = {
		"/sys/kernel/tracing", "/sys/kernel/debug/tracing",
	};
	size_t i;

	for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (is_tracefs_dir(dirs[i])) {
			snprintf(kf->tracefs, sizeof(kf->tracefs), "%s", dirs[i]);
			return;
		}
	}
	if (!mount("tracefs", dirs[0], "tracefs", 0, NULL) &&
	    is_tracefs_dir(dirs[0]))
		snprintf(kf->tracefs, sizeof(kf->tracefs), "%s", dirs[0]);
}

int kfeatures_init(struct pts_kfeatures *kf)
{
	char why[PTS_KMINIMUM_WHY_LEN];
	struct utsname uts;
	int err;

	memset(kf, 0, sizeof(*kf));
	if (!uname(&uts)) {
		snprintf(kf->release, sizeof(kf->release), "%s", uts.release);
		snprintf(kf->machine, sizeof(kf->machine), "%s", uts.machine);
	}
	kf->btf = btf__load_vmlinux_btf();
	if (libbpf_get_error(kf->btf))
		kf->btf = NULL;
	err = kminimum_check(kf->release, kf->btf != NULL, why, sizeof(why));
	if (err) {
		fprintf(stderr, "ptscope: %s\n", why);
		kfeatures_free(kf);
		return err;
	}
	load_kallsyms(kf);
	kf->kprobe_pmu = access("/sys/bus/event_source/devices/kprobe/type",
				  F_OK) == 0;
	kf->config_kprobes = read_config_kprobes();
	find_tracefs(kf);
	return 0;
}

static void free_ksyms(struct pts_kfeatures *kf)
{
	size_t i;

	for (i = 0; i < kf->nr_ksyms; i++)
		free(kf->ksyms[i]);
	free(kf->ksyms);
	kf->ksyms = NULL;
	kf->nr_ksyms = 0;
}

void kfeatures_free(struct pts_kfeatures *kf)
{
	int i;

	free_ksyms(kf);
	btf__free(kf->btf);
	for (i = 0; i < PTS_COLLAPSE_STATUSES; i++)
		free(kf->scan_results[i]);
	memset(kf, 0, sizeof(*kf));
}

void kfeatures_release(struct pts_kfeatures *kf)
{
	const char *name;
	int st;

	if (kf->released)
		return;
	for (st = 0; kf->btf && st < PTS_COLLAPSE_STATUSES; st++) {
		name = kfeatures_enum_name(kf, "scan_result", st);
		kf->scan_results[st] = name ? strdup(name) : NULL;
	}
	free_ksyms(kf);
	btf__free(kf->btf);
	kf->btf = NULL;
	kf->released = true;
}

const char *kfeatures_scan_result(const struct pts_kfeatures *kf, int status)
{
	if (status < 0 || status >= PTS_COLLAPSE_STATUSES)
		return NULL;
	if (!kf->released)
		return kfeatures_enum_name(kf, "scan_result", status);
	return kf->scan_results[status];
}

static const struct btf_type *func_proto(const struct pts_kfeatures *kf,
					 const char *func)
{
	int id = btf__find_by_name_kind(kf->btf, func, BTF_KIND_FUNC);
	const struct btf_type *t;

	if (id < 0)
		return NULL;
	t = btf__type_by_id(kf->btf, id);
	return btf__type_by_id(kf->btf, t->type);
}

/* name of the struct the first argument points to, or NULL */
static const char *arg0_struct(const struct pts_kfeatures *kf,
			       const struct btf_type *proto)
{
	const struct btf_param *params = btf_params(proto);
	const struct btf_type *t;

	if (!btf_vlen(proto))
		return NULL;
	t = btf__type_by_id(kf->btf, params[0].type);
	if (!t || !btf_is_ptr(t))
		return NULL;
	t = btf__type_by_id(kf->btf, t->type);
	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(kf->btf, t->type);
	if (!t || !btf_is_struct(t))
		return NULL;
	return btf__name_by_offset(kf->btf, t->name_off);
}

static void why_missing_symbol(const struct pts_kfeatures *kf, const char *name,
			       char *why, size_t len)
{
	const char *clone = kfeatures_symbol_clone(kf, name);

	if (clone)
		snprintf(why, len, "%s: only the compiler clone %s exists "
			 "(arguments untrusted)", name, clone);
	else
		snprintf(why, len, "%s: inlined, no symbol", name);
}

/* A two-instruction fentry program: does it load and attach here? */
static int try_fentry(const struct pts_kfeatures *kf, const char *func,
		      char *why, size_t len)
{
	struct bpf_insn insns[] = {
		{ .code = 0xb7, .dst_reg = 0, .imm = 0 },	/* r0 = 0 */
		{ .code = 0x95 },				/* exit */
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog_fd, link_fd, err;

	id = btf__find_by_name_kind(kf->btf, func, BTF_KIND_FUNC);
	if (id < 0) {
		snprintf(why, len, "fentry: %s not in kernel BTF", func);
		return -ENOENT;
	}
	opts.attach_btf_id = id;
	prog_fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, "pts_fentry_probe", "GPL",
				insns, 2, &opts);
	if (prog_fd < 0) {
		err = -errno;
		snprintf(why, len, "fentry: load refused, %s (%s)",
			 err == -EPERM ? "EPERM" : "error", strerror(-err));
		return err;
	}
	link_fd = bpf_link_create(prog_fd, 0, BPF_TRACE_FENTRY, NULL);
	if (link_fd < 0) {
		err = -errno;
		snprintf(why, len, "fentry: attach failed, %d (%s)%s", err,
			 strerror(-err),
			 err == -524 ? ": no BPF trampoline on this kernel/arch" : "");
		close(prog_fd);
		return err;
	}
	close(link_fd);
	close(prog_fd);
	return 0;
}

static int check_fentry(struct pts_kfeatures *kf, const char *func, char *why,
			size_t len)
{
	struct fentry_result *r;
	int i;

	for (i = 0; i < kf->nr_fentry; i++) {
		r = &kf->fentry[i];
		if (!strcmp(r->func, func)) {
			snprintf(why, len, "%s", r->why);
			return r->err;
		}
	}
	if (!kfeatures_has_symbol(kf, func)) {
		why_missing_symbol(kf, func, why, len);
		return -ENOENT;
	}
	if (kf->nr_fentry == KFEATURES_FENTRY_CACHE)
		return try_fentry(kf, func, why, len);
	r = &kf->fentry[kf->nr_fentry++];
	snprintf(r->func, sizeof(r->func), "%s", func);
	r->why[0] = '\0';
	r->err = try_fentry(kf, func, r->why, sizeof(r->why));
	snprintf(why, len, "%s", r->why);
	return r->err;
}

static int check_kprobe(const struct pts_kfeatures *kf, const char *func,
			char *why, size_t len)
{
	if (!kf->kprobe_pmu) {
		if (kf->config_kprobes == 0)
			snprintf(why, len, "kprobe: CONFIG_KPROBES not set");
		else
			snprintf(why, len, "kprobe: no kprobe PMU in "
				 "/sys/bus/event_source/devices");
		return -EOPNOTSUPP;
	}
	if (!kfeatures_has_symbol(kf, func)) {
		why_missing_symbol(kf, func, why, len);
		return -ENOENT;
	}
	return 0;
}

static int check_tracefs_event(const struct pts_kfeatures *kf, const char *event,
			       char *why, size_t len)
{
	char path[256];

	if (!kf->tracefs[0]) {
		snprintf(why, len, "tracefs not mounted and could not be mounted");
		return -ENOENT;
	}
	snprintf(path, sizeof(path), "%s/events/%s/id", kf->tracefs, event);
	if (access(path, R_OK)) {
		snprintf(why, len, "tracepoint %s not in %s/events", event,
			 kf->tracefs);
		return -ENOENT;
	}
	return 0;
}

static int check_btf_trace(const struct pts_kfeatures *kf, const char *tp,
			   char *why, size_t len)
{
	char name[128];

	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	if (btf__find_by_name_kind(kf->btf, name, BTF_KIND_TYPEDEF) < 0) {
		snprintf(why, len, "no tracepoint %s (no %s in kernel BTF)", tp,
			 name);
		return -ENOENT;
	}
	return 0;
}

static int check_proto(const struct pts_kfeatures *kf, const struct pts_req *req,
		       char *why, size_t len)
{
	const struct btf_type *proto = func_proto(kf, req->name);
	const char *arg0;

	if (!proto) {
		snprintf(why, len, "%s not in kernel BTF", req->name);
		return -ENOENT;
	}
	switch (req->kind) {
	case PTS_REQ_NARGS:
		if (btf_vlen(proto) == req->nargs)
			return 0;
		snprintf(why, len, "%s takes %d argument%s here, not %d",
			 req->name, btf_vlen(proto),
			 btf_vlen(proto) == 1 ? "" : "s", req->nargs);
		return -EINVAL;
	case PTS_REQ_ARG0_STRUCT:
		arg0 = arg0_struct(kf, proto);
		if (arg0 && !strcmp(arg0, req->arg))
			return 0;
		snprintf(why, len, "%s does not take struct %s * (prototype "
			 "differs)", req->name, req->arg);
		return -EINVAL;
	default:
		return -EINVAL;
	}
}

/* the running release ("7.3.4+deb13-cloud-arm64") is at least @min ("6.17") */
static int check_release(const struct pts_kfeatures *kf, const char *min,
			 char *why, size_t len)
{
	unsigned int major, minor, min_major, min_minor;

	if (sscanf(kf->release, "%u.%u", &major, &minor) != 2 ||
	    sscanf(min, "%u.%u", &min_major, &min_minor) != 2) {
		snprintf(why, len, "kernel release \"%s\" unreadable",
			 kf->release);
		return -EINVAL;
	}
	if (major > min_major || (major == min_major && minor >= min_minor))
		return 0;
	snprintf(why, len, "kernel %u.%u predates %s", major, minor, min);
	return -ENOENT;
}

/*
 * The PTE-level marker copies the PTE table it counts into a per-CPU
 * buffer of PTS_PTE_TABLE_MAX entries; a table holds PAGE_SIZE / 8.
 */
static int check_pte_table(char *why, size_t len)
{
	long page_size = sysconf(_SC_PAGESIZE);

	if (page_size > 0 && (unsigned long)page_size / 8 <= PTS_PTE_TABLE_MAX)
		return 0;
	snprintf(why, len, "a PTE table of %ld entries (%ld KiB pages) is "
		 "larger than the PTE marker's %d-entry buffer", page_size / 8,
		 page_size / 1024, PTS_PTE_TABLE_MAX);
	return -E2BIG;
}

int kfeatures_check(void *ctx, const struct pts_req *req, char *why, size_t len)
{
	struct pts_kfeatures *kf = ctx;

	switch (req->kind) {
	case PTS_REQ_NONE:
	case PTS_REQ_METRIC_PATH:	/* decided by the engine */
	case PTS_REQ_METRIC:
	case PTS_REQ_METRIC_CFG:
		return 0;
	case PTS_REQ_SYMBOL:
		if (kfeatures_has_symbol(kf, req->name))
			return 0;
		why_missing_symbol(kf, req->name, why, len);
		return -ENOENT;
	case PTS_REQ_FENTRY:
		return check_fentry(kf, req->name, why, len);
	case PTS_REQ_KPROBE:
		return check_kprobe(kf, req->name, why, len);
	case PTS_REQ_TRACEFS_EVENT:
		return check_tracefs_event(kf, req->name, why, len);
	case PTS_REQ_BTF_TRACE:
		return check_btf_trace(kf, req->name, why, len);
	case PTS_REQ_ARG0_STRUCT:
	case PTS_REQ_NARGS:
		return check_proto(kf, req, why, len);
	case PTS_REQ_KERNEL_MIN:
		return check_release(kf, req->arg, why, len);
	case PTS_REQ_DIRECT_MAP:
		if (kf->dmap_var)
			return 0;
		snprintf(why, len, "no address of %s in /proc/kallsyms: PMD "
			 "entries cannot be read", kfeatures_dmap_var_name());
		return -ENOENT;
	case PTS_REQ_PTE_TABLE:
		return check_pte_table(why, len);
	case PTS_REQ_WHOLE:
		return check_whole(kf, req->name, why, len);
	}
	snprintf(why, len, "unknown requirement %d", req->kind);
	return -EOPNOTSUPP;
}

/* Look an enumerator up in every enum of the kernel BTF (anonymous too). */
int kfeatures_enum_value(const struct pts_kfeatures *kf, const char *enumerator,
		    long long *value)
{
	int n = btf__type_cnt(kf->btf), id, i;

	for (id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(kf->btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t))
			continue;
		e = btf_enum(t);
		for (i = 0; i < btf_vlen(t); i++) {
			if (!strcmp(btf__name_by_offset(kf->btf, e[i].name_off),
				    enumerator)) {
				*value = e[i].val;
				return 0;
			}
		}
	}
	return -ENOENT;
}

const char *kfeatures_enum_name(const struct pts_kfeatures *kf, const char *enum_type,
			   long long value)
{
	int id = btf__find_by_name_kind(kf->btf, enum_type, BTF_KIND_ENUM);
	const struct btf_type *t;
	const struct btf_enum *e;
	int i;

	if (id < 0)
		return NULL;
	t = btf__type_by_id(kf->btf, id);
	e = btf_enum(t);
	for (i = 0; i < btf_vlen(t); i++)
		if (e[i].val == value)
			return btf__name_by_offset(kf->btf, e[i].name_off);
	return NULL;
}

/* historical ___GFP_* values (include/linux/gfp_types.h, 6.1) */
#define GFP_MOVABLE_6_1		0x08ULL
#define GFP_ZERO_6_1		0x100ULL
#define GFP_DIRECT_RECLAIM_6_1	0x400ULL
#define GFP_COMP_6_1		0x40000ULL
#define GFP_NOMEMALLOC_6_1	0x80000ULL
#define GFP_HARDWALL_6_1	0x100000ULL
#define GFP_ACCOUNT_6_1		0x400000ULL

/*
 * 6.10+ numbers the bits in an enum (___GFP_*_BIT) that kernels may
 * shift, so read them from BTF; @fallback where BTF has none of them.
 */
static __u64 gfp_bits(const struct pts_kfeatures *kf, const char *const *bits,
		      size_t nr, __u64 fallback)
{
	long long bit;
	__u64 mask = 0;
	size_t i;

	for (i = 0; i < nr; i++) {
		if (kfeatures_enum_value(kf, bits[i], &bit) || bit < 0 || bit > 63)
			return fallback;
		mask |= 1ULL << bit;
	}
	return mask;
}

__u64 kfeatures_thp_gfp_mask(const struct pts_kfeatures *kf)
{
	static const char *const bits[] = {
		"___GFP_MOVABLE_BIT", "___GFP_COMP_BIT",
		"___GFP_NOMEMALLOC_BIT", "___GFP_HARDWALL_BIT",
	};

	return gfp_bits(kf, bits, sizeof(bits) / sizeof(bits[0]),
			GFP_MOVABLE_6_1 | GFP_COMP_6_1 | GFP_NOMEMALLOC_6_1 |
			GFP_HARDWALL_6_1);
}

/* GFP_PGTABLE_USER's own bits (include/asm-generic/pgalloc.h) */
__u64 kfeatures_pgtable_gfp_mask(const struct pts_kfeatures *kf)
{
	static const char *const bits[] = {
		"___GFP_ZERO_BIT", "___GFP_ACCOUNT_BIT",
		"___GFP_DIRECT_RECLAIM_BIT",
	};

	return gfp_bits(kf, bits, sizeof(bits) / sizeof(bits[0]),
			GFP_ZERO_6_1 | GFP_ACCOUNT_6_1 |
			GFP_DIRECT_RECLAIM_6_1);
}

__u64 kfeatures_movable_gfp_mask(const struct pts_kfeatures *kf)
{
	static const char *const bits[] = { "___GFP_MOVABLE_BIT" };

	return gfp_bits(kf, bits, 1, GFP_MOVABLE_6_1);
}
