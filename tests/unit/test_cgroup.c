// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/data/cgroup.c and cgroup_rank.c: where cgroup v2 is
 * mounted (mountinfo), --cgroup PATH to a directory and its id, ids back
 * to paths, on a fake tree in a temporary directory (its own file system
 * type stands in for cgroup2's, inode numbers for cgroup ids); the
 * busiest cgroups and the sum of the others; that the rows count what
 * the output schema says they hold; and the per-cgroup table of top and
 * stat, rendered from fixed rows.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include "data/cgroup.h"
#include "data/cgroup_names.h"
#include "data/cgroup_carry.h"
#include "data/cgroup_rank.h"
#include "data/counters.h"
#include "data/schema.h"
#include "render/report.h"
#include "fake_engine.h"

static char tree[64];		/* the fake cgroup v2 mount */
static char err[2 * PATH_MAX + 200];

/* a mount covered by a later one, as /sys/fs/cgroup/unified below */
static bool not_unified(const char *mount)
{
	return strcmp(mount, "/sys/fs/cgroup/unified");
}

/* mountinfo text through cgroup_fs_parse() */
static int parse_with(const char *text, struct pts_cgroup_fs *fs,
		      bool (*usable)(const char *mount))
{
	FILE *f = fmemopen((void *)text, strlen(text), "r");
	int ret;

	assert_non_null(f);
	ret = cgroup_fs_parse(f, fs, usable);
	fclose(f);
	return ret;
}

static int parse_mountinfo(const char *text, struct pts_cgroup_fs *fs)
{
	return parse_with(text, fs, NULL);
}

static void test_mountinfo(void **state)
{
	static const char hybrid[] =
		"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw\n"
		"35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n";
	static const char unified[] =
		"25 1 8:1 / / rw - ext4 /dev/sda1 rw\n"
		"30 25 0:26 / /sys/fs/cgroup rw,nosuid shared:4 - cgroup2 cgroup2 rw\n";
	/* a container's bind of its own subtree, then the whole hierarchy */
	static const char subtree_first[] =
		"50 40 0:26 /kubepods/pod1 /run/cg rw - cgroup2 cgroup2 rw\n"
		"51 40 0:26 / /mnt/cg\\040v2 rw - cgroup2 cgroup2 rw\n";
	static const char only_subtree[] =
		"50 40 0:26 /kubepods/pod1 /run/cg rw - cgroup2 cgroup2 rw\n";
	static const char covered[] =
		"41 31 0:38 / /sys/fs/cgroup/unified rw - cgroup2 cgroup2 rw\n"
		"60 23 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
	static const char v1_only[] =
		"35 31 0:32 / /sys/fs/cgroup/memory rw - cgroup cgroup rw,memory\n"
		"garbage without a separator\n";
	struct pts_cgroup_fs fs;

	(void)state;
	assert_int_equal(parse_mountinfo(hybrid, &fs), 0);
	assert_string_equal(fs.mount, "/sys/fs/cgroup/unified");
	assert_int_equal(fs.magic, CGROUP2_SUPER_MAGIC);
	assert_int_equal(parse_mountinfo(unified, &fs), 0);
	assert_string_equal(fs.mount, "/sys/fs/cgroup");
	assert_int_equal(parse_mountinfo(subtree_first, &fs), 0);
	assert_string_equal(fs.mount, "/mnt/cg v2");
	assert_int_equal(parse_mountinfo(only_subtree, &fs), 0);
	assert_string_equal(fs.mount, "/run/cg");
	assert_int_equal(parse_mountinfo(v1_only, &fs), -ENOENT);
	assert_string_equal(fs.mount, "");
	/* cgroup2 mounted over the hybrid tmpfs later: the unified one hides */
	assert_int_equal(parse_with(covered, &fs, not_unified), 0);
	assert_string_equal(fs.mount, "/sys/fs/cgroup");
}

static void make_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	assert_int_equal(mkdir(path, 0755), 0);
}

static void remove_dir(const char *rel)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/%s", tree, rel);
	assert_int_equal(rmdir(path), 0);
}

static void rename_dir(const char *from, const char *to)
{
	char a[PATH_MAX], b[PATH_MAX];

	snprintf(a, sizeof(a), "%s/%s", tree, from);
	snprintf(b, sizeof(b), "%s/%s", tree, to);
	assert_int_equal(rename(a, b), 0);
}

static __u64 ino_of(const char *rel)
{
	char path[PATH_MAX];
	struct stat st;

	snprintf(path, sizeof(path), "%s%s%s", tree, *rel ? "/" : "", rel);
	assert_int_equal(stat(path, &st), 0);
	return st.st_ino;
}

/* the fake tree: a, a/b, c, and a file */
static int setup_tree(void **state)
{
	char path[PATH_MAX];
	FILE *f;

	snprintf(tree, sizeof(tree), "/tmp/ptscope-cgtest.XXXXXX");
	assert_non_null(mkdtemp(tree));
	make_dir("a");
	make_dir("a/b");
	make_dir("c");
	snprintf(path, sizeof(path), "%s/a/cgroup.procs", tree);
	f = fopen(path, "w");
	assert_non_null(f);
	fclose(f);
	return 0;
}

static int teardown_tree(void **state)
{
	char cmd[PATH_MAX + 16];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tree);
	return system(cmd);
}

/* the fake tree as a cgroup v2 mount: its statfs type stands in */
static void fake_fs(struct pts_cgroup_fs *fs)
{
	struct statfs sfs;

	assert_int_equal(statfs(tree, &sfs), 0);
	snprintf(fs->mount, sizeof(fs->mount), "%s", tree);
	fs->magic = (long)sfs.f_type;
}

static void assert_resolves(const struct pts_cgroup_fs *fs, const char *arg,
			    const char *rel, const char *path)
{
	struct pts_cgroup_target t;

	if (cgroup_resolve(fs, arg, &t, err, sizeof(err)))
		fail_msg("--cgroup %s: %s", arg, err);
	assert_true(t.fd >= 0);
	assert_int_equal(t.id, ino_of(rel));
	assert_string_equal(t.path, path);
	cgroup_target_close(&t);
	assert_int_equal(t.fd, -1);
}

static void assert_refused(const struct pts_cgroup_fs *fs, const char *arg,
			   const char *needle)
{
	struct pts_cgroup_target t;

	assert_true(cgroup_resolve(fs, arg, &t, err, sizeof(err)) < 0);
	assert_int_equal(t.fd, -1);
	if (!strstr(err, needle))
		fail_msg("--cgroup %s: '%s' lacks '%s'", arg, err, needle);
}

/* relative, as /proc/PID/cgroup writes it, or the directory itself */
static void test_resolve(void **state)
{
	struct pts_cgroup_fs fs;
	char full[PATH_MAX];

	(void)state;
	fake_fs(&fs);
	assert_resolves(&fs, "a/b", "a/b", "/a/b");
	/* "/" and "/a/b": cgroup paths, although "/" is a directory too */
	assert_resolves(&fs, "/a/b", "a/b", "/a/b");
	assert_resolves(&fs, "c/", "c", "/c");
	assert_resolves(&fs, "/", "", "/");
	assert_resolves(&fs, ".", "", "/");
	snprintf(full, sizeof(full), "%s/a/b", tree);
	assert_resolves(&fs, full, "a/b", "/a/b");
	assert_refused(&fs, "nope", "no such cgroup");
	assert_refused(&fs, "/nope/a", "neither /nope/a nor");
	assert_refused(&fs, "a/cgroup.procs", "not a directory");
}

static void test_resolve_not_v2(void **state)
{
	struct pts_cgroup_fs fs;
	char full[PATH_MAX];

	(void)state;
	fake_fs(&fs);
	fs.magic = CGROUP2_SUPER_MAGIC;	/* the tree is no cgroup2 now */
	assert_refused(&fs, "a", "is not in cgroup v2");
	snprintf(full, sizeof(full), "%s/a", tree);
	assert_refused(&fs, full, "is not in cgroup v2");
	fs.mount[0] = '\0';
	assert_refused(&fs, "a", "cgroup v2 is not mounted");
}

/* ids to paths: one walk for the unknown ones, cached, unknown stays */
static void test_names(void **state)
{
	struct pts_cgroup_fs fs;
	struct pts_cgroup_names *names;
	__u64 ids[5], gone = 0xfffffff1ULL;
	char buf[32];

	(void)state;
	fake_fs(&fs);
	names = cgroup_names_new(&fs);
	assert_non_null(names);
	ids[0] = ino_of("a/b");
	ids[1] = ino_of("c");
	ids[2] = ino_of("");
	ids[3] = gone;
	ids[4] = ino_of("a/b");	/* twice in one read */
	assert_int_equal(cgroup_names_resolve(names, ids, 5), 0);
	assert_string_equal(cgroup_names_get(names, ids[0]), "/a/b");
	assert_string_equal(cgroup_names_get(names, ids[1]), "/c");
	assert_string_equal(cgroup_names_get(names, ids[2]), "/");
	assert_null(cgroup_names_get(names, gone));
	assert_string_equal(cgroup_label(buf, sizeof(buf), NULL, gone),
			    "id:4294967281");
	assert_string_equal(cgroup_label(buf, sizeof(buf), "/c", 1), "/c");
	/* a removed cgroup keeps the path it was seen with */
	make_dir("d");
	ids[3] = ino_of("d");
	remove_dir("c");
	assert_int_equal(cgroup_names_resolve(names, ids, 4), 0);
	assert_string_equal(cgroup_names_get(names, ids[1]), "/c");
	assert_string_equal(cgroup_names_get(names, ids[3]), "/d");
	assert_null(cgroup_names_get(names, 12345));
	cgroup_names_free(names);
}

/*
 * Which rows' cgroups are gone: a removed one, one never seen, not one
 * that is still there or was renamed (found again by a walk, with its new
 * path); gone ones leave the cache, and the removed row has its label.
 */
static void test_names_gone(void **state)
{
	struct pts_cgroup_fs fs;
	struct pts_cgroup_names *names;
	__u64 ids[5];
	bool gone[5];
	char buf[32];

	(void)state;
	fake_fs(&fs);
	names = cgroup_names_new(&fs);
	assert_non_null(names);
	make_dir("d");
	ids[0] = ino_of("a/b");
	ids[1] = ino_of("c");
	ids[2] = ino_of("d");
	ids[3] = ino_of("");
	ids[4] = 0xfffffff1ULL;		/* never there */
	assert_int_equal(cgroup_names_resolve(names, ids, 5), 0);
	remove_dir("c");
	rename_dir("d", "e");
	assert_int_equal(cgroup_names_gone(names, ids, 5, gone), 0);
	assert_false(gone[0]);
	assert_true(gone[1]);
	assert_false(gone[2]);
	assert_false(gone[3]);
	assert_true(gone[4]);
	assert_string_equal(cgroup_names_get(names, ids[0]), "/a/b");
	assert_null(cgroup_names_get(names, ids[1]));
	assert_string_equal(cgroup_names_get(names, ids[2]), "/e");
	assert_string_equal(cgroup_names_get(names, ids[3]), "/");
	/* the cache holds nothing of the gone: asked again, still gone */
	assert_int_equal(cgroup_names_gone(names, ids + 1, 1, gone), 0);
	assert_true(gone[0]);
	assert_string_equal(cgroup_label(buf, sizeof(buf), NULL,
					 PTS_CGROUP_REMOVED_ID), "removed");
	cgroup_names_free(names);
	/* without a cgroup v2 mount nothing can be said to be gone */
	fs.mount[0] = '\0';
	names = cgroup_names_new(&fs);
	assert_non_null(names);
	assert_int_equal(cgroup_names_gone(names, ids + 4, 1, gone), 0);
	assert_false(gone[0]);
	cgroup_names_free(names);
}

/* an entry with @calls pmd mremap calls and @faults 2M faults */
static void set_row(struct pts_cgroup_entry *e, __u64 id, __u64 calls,
		    __u64 faults)
{
	memset(e, 0, sizeof(*e));
	e->id = id;
	e->stats.v[PTS_CG_MREMAP_CALLS + PTS_MREMAP_PMD] = calls;
	e->stats.v[PTS_CG_MREMAP_OLD_BYTES + PTS_MREMAP_PMD] = calls << 21;
	e->stats.v[PTS_CG_FAULT_ALLOC + 9] = faults;
	e->stats.v[PTS_CG_MREMAP_NS] = calls * 1000;
}

/*
 * Between two reads cgroup 7 made one more call and was removed (its 4
 * calls moved into the removed row), cgroup 8 made one: the interval's
 * rows say 1 and 1, not the 4 moved calls again.
 */
static void test_removed_delta(void **state)
{
	struct pts_cgroup_entry prev_rows[3], now_rows[2];
	struct pts_snapshot prev = { .cgroups = prev_rows, .nr_cgroups = 3,
				     .has_cgroups = true };
	struct pts_snapshot now = { .cgroups = now_rows, .nr_cgroups = 2,
				    .has_cgroups = true };
	struct pts_snapshot d;

	(void)state;
	set_row(&prev_rows[0], PTS_CGROUP_REMOVED_ID, 5, 0);
	set_row(&prev_rows[1], 7, 3, 0);
	set_row(&prev_rows[2], 8, 2, 0);
	set_row(&now_rows[0], PTS_CGROUP_REMOVED_ID, 9, 0);
	set_row(&now_rows[1], 8, 3, 0);
	assert_int_equal(snapshot_delta(&now, &prev, &d), 0);
	assert_int_equal(d.nr_cgroups, 2);
	assert_int_equal(d.cgroups[0].id, PTS_CGROUP_REMOVED_ID);
	assert_int_equal(cgroup_total_mremap(&d.cgroups[0].stats), 1);
	assert_int_equal(d.cgroups[0].stats.v[PTS_CG_MREMAP_NS], 1000);
	assert_int_equal(cgroup_total_mremap(&d.cgroups[1].stats), 1);
	snapshot_free(&d);
}

/* one scrape of @rows (@nr, sorted by id) with --cgroup-labels 1 */
static void scrape(struct pts_cgroup_carry *carry,
		   struct pts_cgroup_entry *rows, size_t nr,
		   struct pts_cgroup_fold *fold)
{
	struct pts_snapshot snap = { .cgroups = rows, .nr_cgroups = nr,
				     .has_cgroups = true };

	assert_int_equal(cgroup_fold(&snap, 1, fold), 0);
	assert_int_equal(cgroup_carry_apply(carry, &snap, fold), 0);
}

/*
 * Scrape 1: a (5 calls) labelled, b (2) and c (1) in other.  Then b makes
 * one more call and is removed: other keeps b's 2, removed gets only its
 * new 1.  Then a makes one more and is removed, and d (4) comes and goes
 * unseen: removed gets a's new 1 and d's 4, not a's 5 again.
 */
static void test_carry(void **state)
{
	struct pts_cgroup_carry carry = { 0 };
	struct pts_cgroup_entry rows[4];
	struct pts_cgroup_fold fold;

	(void)state;
	set_row(&rows[0], PTS_CGROUP_REMOVED_ID, 0, 0);
	set_row(&rows[1], 7, 5, 0);
	set_row(&rows[2], 8, 2, 0);
	set_row(&rows[3], 9, 1, 0);
	scrape(&carry, rows, 4, &fold);
	assert_int_equal(fold.top[0]->id, 7);
	assert_int_equal(cgroup_total_mremap(&fold.other), 3);
	assert_int_equal(cgroup_total_mremap(&fold.removed), 0);
	cgroup_fold_free(&fold);
	set_row(&rows[0], PTS_CGROUP_REMOVED_ID, 3, 0);
	set_row(&rows[1], 7, 6, 0);
	set_row(&rows[2], 9, 1, 0);
	scrape(&carry, rows, 3, &fold);
	assert_int_equal(cgroup_total_mremap(&fold.top[0]->stats), 6);
	assert_int_equal(cgroup_total_mremap(&fold.other), 3);
	assert_int_equal(cgroup_total_mremap(&fold.removed), 1);
	assert_int_equal(fold.removed.v[PTS_CG_MREMAP_NS], 1000);
	cgroup_fold_free(&fold);
	set_row(&rows[0], PTS_CGROUP_REMOVED_ID, 3 + 7 + 4, 0);
	set_row(&rows[1], 9, 1, 0);
	scrape(&carry, rows, 2, &fold);
	assert_int_equal(fold.top[0]->id, 9);
	assert_int_equal(cgroup_total_mremap(&fold.other), 2);
	assert_int_equal(cgroup_total_mremap(&fold.removed), 1 + 1 + 4);
	cgroup_fold_free(&fold);
	cgroup_carry_free(&carry);
}

static void assert_fold_sums(const struct pts_snapshot *snap,
			     const struct pts_cgroup_fold *fold)
{
	__u64 sum;
	size_t i, w;

	for (w = 0; w < PTS_CG_NR_COUNTERS; w++) {
		sum = fold->other.v[w];
		for (i = 0; i < fold->nr_top; i++)
			sum += fold->top[i]->stats.v[w];
		for (i = 0; i < snap->nr_cgroups; i++)
			sum -= snap->cgroups[i].stats.v[w];
		assert_int_equal(sum, 0);
	}
	assert_int_equal(fold->nr_top + fold->folded, snap->nr_cgroups);
}

/* the busiest (mremap calls + faults), ties by id; the rest summed */
static void test_fold(void **state)
{
	struct pts_cgroup_entry rows[4];
	struct pts_snapshot snap = { .cgroups = rows, .nr_cgroups = 4,
				     .has_cgroups = true };
	struct pts_cgroup_fold fold;
	size_t limit;

	(void)state;
	set_row(&rows[0], 10, 5, 0);	/* activity 5 */
	set_row(&rows[1], 30, 3, 6);	/* 9 */
	set_row(&rows[2], 20, 9, 0);	/* 9, lower id than 30 */
	set_row(&rows[3], 40, 0, 1);	/* 1 */
	assert_int_equal(cgroup_activity(&rows[1].stats), 9);
	assert_int_equal(cgroup_fold(&snap, 2, &fold), 0);
	assert_int_equal(fold.nr_top, 2);
	assert_int_equal(fold.top[0]->id, 20);
	assert_int_equal(fold.top[1]->id, 30);
	assert_int_equal(fold.folded, 2);
	assert_int_equal(fold.other.v[PTS_CG_MREMAP_CALLS + PTS_MREMAP_PMD], 5);
	assert_int_equal(fold.other.v[PTS_CG_FAULT_ALLOC + 9], 1);
	assert_int_equal(fold.other.v[PTS_CG_MREMAP_NS], 5000);
	assert_fold_sums(&snap, &fold);
	cgroup_fold_free(&fold);
	for (limit = 0; limit <= 5; limit++) {
		assert_int_equal(cgroup_fold(&snap, limit, &fold), 0);
		assert_int_equal(fold.nr_top, limit < 4 ? limit : 4);
		assert_fold_sums(&snap, &fold);
		cgroup_fold_free(&fold);
	}
	snap.nr_cgroups = 0;
	assert_int_equal(cgroup_fold(&snap, 3, &fold), 0);
	assert_int_equal(fold.nr_top + fold.folded, 0);
	cgroup_fold_free(&fold);
}

/*
 * What the rows hold is what the schema says they hold: each value of a
 * per-cgroup field has its own place in the row, and every place but the
 * mremap time (the mean latency columns' numerator) is shown by a field.
 */
static void test_rows_match_schema(void **state)
{
	bool shown[PTS_CG_NR_COUNTERS] = { false };
	const struct pts_field *f;
	unsigned int i;
	size_t r;
	int at;

	(void)state;
	for (r = 0; r < pts_nr_fields; r++) {
		f = &pts_fields[r];
		if (!schema_field_per_cgroup(f))
			continue;
		for (i = 0; i < schema_label_count(f); i++) {
			at = counter_cgroup_index(f->index + i);
			assert_true(at >= 0 && at < PTS_CG_NR_COUNTERS);
			if (shown[at])
				fail_msg("%s.%s: row place %d shown twice",
					 f->section->key, f->key, at);
			shown[at] = true;
		}
	}
	for (at = 0; at < PTS_CG_NR_COUNTERS; at++)
		if (!shown[at] && at != PTS_CG_MREMAP_NS)
			fail_msg("row place %d is kept per cgroup, no field "
				 "shows it", at);
	assert_true(schema_field_per_cgroup(schema_find("mremap", "calls")));
	assert_false(schema_field_per_cgroup(schema_find("mremap",
							 "latency_ns")));
	assert_false(schema_field_per_cgroup(schema_find("mremap",
							 "dontunmap_calls")));
	assert_false(schema_field_per_cgroup(schema_find("move_page_tables",
							 "calls")));
}

/*
 * the per-cgroup table of @snap as top (@active) or stat draws it, on
 * @width columns (0: no limit)
 */
static char *cgroup_table(const struct pts_report_input *rep,
			  const struct pts_snapshot *snap, int rows,
			  bool active, int width)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	assert_non_null(out);
	report_cgroups_text(out, rep, snap, rows, active, width);
	assert_int_equal(fclose(out), 0);
	return text;
}

static void assert_table_at(const struct pts_report_input *rep,
			    const struct pts_snapshot *snap, int rows,
			    bool active, int width, const char *want)
{
	char *got = cgroup_table(rep, snap, rows, active, width);

	assert_string_equal(got, want);
	free(got);
}

static void assert_table(const struct pts_report_input *rep,
			 const struct pts_snapshot *snap, int rows,
			 bool active, const char *want)
{
	assert_table_at(rep, snap, rows, active, 0, want);
}

/* a row with its mremap calls per class, in the order of the classes */
static void set_calls(struct pts_cgroup_entry *e, __u64 pud, __u64 pmd,
		      __u64 pte, __u64 in_place, __u64 failed, __u64 ns)
{
	__u64 *calls = &e->stats.v[PTS_CG_MREMAP_CALLS];

	calls[PTS_MREMAP_PUD] = pud;
	calls[PTS_MREMAP_PMD] = pmd;
	calls[PTS_MREMAP_PTE] = pte;
	calls[PTS_MREMAP_INPLACE] = in_place;
	calls[PTS_MREMAP_FAILED] = failed;
	e->stats.v[PTS_CG_MREMAP_NS] = ns;
}

/* test_table_levels: the heading and the three busiest rows */
#define LEVELS_BUSIEST \
	"\nper cgroup v2: mremap calls per alignment class, hugepage " \
	"faults per size (F-*), page-table entries moved (*-MV)\n" \
	" MREMAP   PUD   PMD    PTE  INPLACE  MEAN-LAT   F-64K    F-2M " \
	"F-FALLBK  PUD-MV  PMD-MV HPMD-MV  CGROUP\n" \
	"2000000     0 2000000      0        0   1.50 ms       0       " \
	"0        0       0       0       0  /odd\\x09name\n" \
	"     51     1     3     40        5    2.3 us      16       3 " \
	"       3       1       6       3  /system.slice/db.service\n" \
	"      0     0     0      0        0         -       0       7 " \
	"       1       0       0       0  shop/cart-7d9f/app\n"

/*
 * 4 KiB pages with the levels traced: stat's table (every row but an
 * empty removed one), then top's (active rows only, at most 3), sorted
 * by activity; paths escaped, pods by their names, unknown paths by id.
 */
static void test_table_levels(void **state)
{
	static struct pts_kube_id pod = {
		.names = { .ns = "shop", .pod = "cart-7d9f",
			   .container = "app" },
		.named = true,
	};
	struct pts_cgroup_entry rows[6];
	struct pts_snapshot snap = { .cgroups = rows, .nr_cgroups = 6,
				     .has_cgroups = true };
	struct pts_engine eng;
	struct pts_report_input rep = { .eng = &eng, .page_size = 4096 };
	__u64 *v;

	(void)state;
	engine_init(&eng, PTS_MODE_AUTO, false);
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "mremap.levels", PTS_CFG_LEVEL_TPS, false);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, true);
	memset(rows, 0, sizeof(rows));
	rows[0].id = PTS_CGROUP_REMOVED_ID;
	set_calls(&rows[0], 0, 0, 2, 0, 0, 9000);
	rows[1].id = 11;
	rows[1].path = "/system.slice/db.service";
	set_calls(&rows[1], 1, 3, 40, 5, 2, 51 * 2345);
	v = rows[1].stats.v;
	v[PTS_CG_FAULT_ALLOC + 4] = 16;
	v[PTS_CG_FAULT_ALLOC + 9] = 3;
	v[PTS_CG_FAULT_FALLBACK + 4] = 1;
	v[PTS_CG_FAULT_FALLBACK + 9] = 2;
	v[PTS_CG_LV_PUD_MOVED] = 1;
	v[PTS_CG_LV_PMD_MOVED] = 6;
	v[PTS_CG_LV_HPMD_MOVED] = 3;
	v[PTS_CG_LV_PUD_FALLBACK] = 4;	/* no column */
	rows[2].id = 4242;
	rows[2].path = "/kubepods.slice/x";
	rows[2].kube = &pod;
	rows[2].stats.v[PTS_CG_FAULT_ALLOC + 9] = 7;
	rows[2].stats.v[PTS_CG_FAULT_FALLBACK + 3] = 1;
	rows[3].id = 99;
	set_calls(&rows[3], 0, 0, 1, 0, 0, 800);
	rows[4].id = 12;
	rows[4].path = "/idle.slice";
	rows[5].id = 13;
	rows[5].path = "/odd\tname";
	set_calls(&rows[5], 0, 2000000, 0, 0, 0, 2000000ULL * 1500000);
	report_sort_cgroups(&snap, PTS_SORT_ACTIVITY);
	assert_table(&rep, &snap, 6, false, LEVELS_BUSIEST
		"      2     0     0      2        0    4.5 us       0       0 "
		"       0       0       0       0  removed\n"
		"      1     0     0      1        0    800 ns       0       0 "
		"       0       0       0       0  id:99\n"
		"      0     0     0      0        0         -       0       0 "
		"       0       0       0       0  /idle.slice\n");
	assert_table(&rep, &snap, 3, true, LEVELS_BUSIEST);
}

/*
 * 16 KiB pages on the tracepoints (no levels): the fault columns name
 * 64K (order 2) and 32M (order 11); an empty removed row is left out
 * even from stat's table; no rows kept, no table.
 */
static void test_table_16k(void **state)
{
	struct pts_cgroup_entry rows[2];
	struct pts_snapshot snap = { .cgroups = rows, .nr_cgroups = 2,
				     .has_cgroups = true };
	struct pts_engine eng;
	struct pts_report_input rep = { .eng = &eng, .page_size = 16384 };

	(void)state;
	engine_init(&eng, PTS_MODE_AUTO, false);
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, false);
	memset(rows, 0, sizeof(rows));
	rows[0].id = PTS_CGROUP_REMOVED_ID;
	rows[1].id = 20;
	rows[1].path = "/user.slice";
	set_calls(&rows[1], 0, 1, 0, 0, 0, 64000);
	rows[1].stats.v[PTS_CG_FAULT_ALLOC + 2] = 12;
	rows[1].stats.v[PTS_CG_FAULT_ALLOC + 11] = 1;
	rows[1].stats.v[PTS_CG_FAULT_ALLOC + 4] = 5;	/* no column */
	rows[1].stats.v[PTS_CG_FAULT_FALLBACK + 11] = 3;
	assert_table(&rep, &snap, 20, false,
		"\nper cgroup v2: mremap calls per alignment class, hugepage "
		"faults per size (F-*)\n"
		" MREMAP   PUD   PMD    PTE  INPLACE  MEAN-LAT   F-64K   F-32M "
		"F-FALLBK  CGROUP\n"
		"      1     0     1      0        0   64.0 us      12       1 "
		"       3  /user.slice\n");
	snap.has_cgroups = false;
	assert_table(&rep, &snap, 20, false, "");
}

/*
 * top on a terminal: at 100 columns a 40-character path is shown whole,
 * the fallback and PUD columns named as hidden; at 60 the path gets half
 * the line, cut at its start, and in-place resizes outlast the rest
 */
static void test_table_narrow(void **state)
{
	struct pts_cgroup_entry row;
	struct pts_snapshot snap = { .cgroups = &row, .nr_cgroups = 1,
				     .has_cgroups = true };
	struct pts_engine eng;
	struct pts_report_input rep = { .eng = &eng, .page_size = 4096 };

	(void)state;
	engine_init(&eng, PTS_MODE_AUTO, false);
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, false);
	memset(&row, 0, sizeof(row));
	row.id = 30;
	row.path = "/user.slice/user-0.slice/session-12.scope";
	set_calls(&row, 0, 2, 1, 300, 0, 303000);
	assert_table_at(&rep, &snap, 5, true, 100,
		"\nper cgroup v2: mremap calls per alignment class, hugepage "
		"faults per size (F-*)\n"
		"hidden at 100 columns: PUD F-FALLBK\n"
		" MREMAP   PMD    PTE  INPLACE  MEAN-LAT   F-64K    F-2M  CGROUP\n"
		"    303     2      1      300    1.0 us       0       0  "
		"/user.slice/user-0.slice/session-12.scope\n");
	assert_table_at(&rep, &snap, 5, true, 60,
		"\nper cgroup v2: mremap calls per alignment class, hugepage "
		"faults per size (F-*)\n"
		"hidden at 60 columns: PUD PTE MEAN-LAT F-64K F-2M F-FALLBK\n"
		" MREMAP   PMD  INPLACE  CGROUP\n"
		"    303     2      300  ...ice/user-0.slice/session-12.scope\n");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mountinfo),
		cmocka_unit_test_setup_teardown(test_resolve, setup_tree,
						teardown_tree),
		cmocka_unit_test_setup_teardown(test_resolve_not_v2, setup_tree,
						teardown_tree),
		cmocka_unit_test_setup_teardown(test_names, setup_tree,
						teardown_tree),
		cmocka_unit_test_setup_teardown(test_names_gone, setup_tree,
						teardown_tree),
		cmocka_unit_test(test_fold),
		cmocka_unit_test(test_removed_delta),
		cmocka_unit_test(test_carry),
		cmocka_unit_test(test_rows_match_schema),
		cmocka_unit_test(test_table_levels),
		cmocka_unit_test(test_table_16k),
		cmocka_unit_test(test_table_narrow),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
