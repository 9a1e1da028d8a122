// SPDX-License-Identifier: GPL-2.0
/* cgroup v2 paths and ids (see cgroup.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/types.h>
#include "data/cgroup.h"

/* st_ino and d_ino hold all 64 bits of the id only where ino_t has them */
_Static_assert(sizeof(ino_t) >= sizeof(__u64),
	       "cgroup ids need a 64-bit ino_t (else use name_to_handle_at)");

/* mountinfo escapes space, tab, newline and backslash as \ooo */
static void unescape_octal(char *s)
{
	char *out = s;

	for (; *s; s++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' &&
		    s[2] >= '0' && s[2] <= '7' && s[3] >= '0' && s[3] <= '7') {
			*out++ = (char)((s[1] - '0') << 6 | (s[2] - '0') << 3 |
					(s[3] - '0'));
			s += 3;
		} else {
			*out++ = *s;
		}
	}
	*out = '\0';
}

/*
 * "36 25 0:30 / /sys/fs/cgroup rw,nosuid - cgroup2 cgroup2 rw" (see
 * proc(5)): the root within the file system, the mount point, and after
 * " - " the file system type.  0 and both set, or -1.
 */
static int mountinfo_line(const char *line, char *root, char *mount,
			  char *fstype)
{
	const char *sep = strstr(line, " - ");

	if (!sep || sscanf(line, "%*s %*s %*s %4095s %4095s", root, mount) != 2 ||
	    sscanf(sep + 3, "%63s", fstype) != 1)
		return -1;
	unescape_octal(root);
	unescape_octal(mount);
	return 0;
}

int cgroup_fs_parse(FILE *mountinfo, struct pts_cgroup_fs *fs,
		    bool (*usable)(const char *mount))
{
	char *line = NULL, root[PATH_MAX], mount[PATH_MAX], fstype[64];
	size_t cap = 0;
	bool whole = false;

	fs->mount[0] = '\0';
	fs->magic = CGROUP2_SUPER_MAGIC;
	while (!whole && getline(&line, &cap, mountinfo) > 0) {
		if (mountinfo_line(line, root, mount, fstype) ||
		    strcmp(fstype, "cgroup2") || (usable && !usable(mount)))
			continue;
		/* a mount of the hierarchy's root beats one of a subtree */
		whole = !strcmp(root, "/");
		if (whole || !fs->mount[0])
			snprintf(fs->mount, sizeof(fs->mount), "%s", mount);
	}
	free(line);
	return fs->mount[0] ? 0 : -ENOENT;
}

/* still cgroup2 at @mount: not covered by a later mount on or above it */
static bool mounted_cgroup2(const char *mount)
{
	struct statfs sfs;

	return !statfs(mount, &sfs) && sfs.f_type == CGROUP2_SUPER_MAGIC;
}

int cgroup_fs_find(struct pts_cgroup_fs *fs)
{
	FILE *f = fopen("/proc/self/mountinfo", "re");
	int err;

	if (!f) {
		fs->mount[0] = '\0';
		fs->magic = CGROUP2_SUPER_MAGIC;
		return -errno;
	}
	err = cgroup_fs_parse(f, fs, mounted_cgroup2);
	fclose(f);
	return err;
}

enum path_kind {
	PATH_MISSING,
	PATH_NOT_DIR,
	PATH_CGROUP_V1,
	PATH_OTHER_FS,
	PATH_CGROUP_V2,
};

static enum path_kind path_kind(const char *path, long magic)
{
	struct statfs sfs;
	struct stat st;

	if (stat(path, &st))
		return PATH_MISSING;
	if (!S_ISDIR(st.st_mode))
		return PATH_NOT_DIR;
	if (statfs(path, &sfs))
		return PATH_OTHER_FS;
	if ((long)sfs.f_type == magic)
		return PATH_CGROUP_V2;
	return (long)sfs.f_type == CGROUP_SUPER_MAGIC ? PATH_CGROUP_V1 :
							  PATH_OTHER_FS;
}

/* @dir's path below @mount ("/" for @mount itself), or NULL if not below */
static const char *below_mount(const char *mount, const char *dir)
{
	size_t n = strlen(mount);

	while (n > 1 && mount[n - 1] == '/')
		n--;
	if (strncmp(dir, mount, n) || (dir[n] && dir[n] != '/'))
		return NULL;
	return dir[n] ? dir + n : "/";
}

static int resolved(const struct pts_cgroup_fs *fs, const char *path,
		    struct pts_cgroup_target *t, char *err, size_t errlen)
{
	char real[PATH_MAX], mount[PATH_MAX];
	const char *rel = NULL;
	struct stat st;
	int ret;

	t->fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (t->fd < 0 || fstat(t->fd, &st)) {
		ret = -errno;
		snprintf(err, errlen, "--cgroup: cannot open %s: %s", path,
			 strerror(-ret));
		cgroup_target_close(t);
		return ret;
	}
	t->id = st.st_ino;
	if (realpath(path, real) && realpath(fs->mount, mount))
		rel = below_mount(mount, real);
	snprintf(t->path, sizeof(t->path), "%s", rel ? rel : path);
	return 0;
}

static int explain(const struct pts_cgroup_fs *fs, const char *arg,
		   const char *path, enum path_kind kind, char *err,
		   size_t errlen)
{
	switch (kind) {
	case PATH_NOT_DIR:
		snprintf(err, errlen, "--cgroup %s: %s is not a directory", arg,
			 path);
		return -ENOTDIR;
	case PATH_CGROUP_V1:
		snprintf(err, errlen, "--cgroup %s: %s is a cgroup v1 hierarchy, "
			 "not cgroup v2; ptscope filters by cgroup v2, mounted "
			 "at %s", arg, path, fs->mount);
		return -EINVAL;
	case PATH_OTHER_FS:
		snprintf(err, errlen, "--cgroup %s: %s is not in cgroup v2 (not "
			 "a cgroup2 file system; cgroup v2 is mounted at %s)",
			 arg, path, fs->mount);
		return -EINVAL;
	default:
		snprintf(err, errlen, "--cgroup %s: no such cgroup (no directory "
			 "%s)", arg, path);
		return -ENOENT;
	}
}

int cgroup_resolve(const struct pts_cgroup_fs *fs, const char *arg,
		   struct pts_cgroup_target *t, char *err, size_t errlen)
{
	enum path_kind under_kind, fs_kind = PATH_MISSING;
	char under[PATH_MAX];

	memset(t, 0, sizeof(*t));
	t->fd = -1;
	if (!fs->mount[0]) {
		snprintf(err, errlen, "--cgroup %s: cgroup v2 is not mounted "
			 "(no cgroup2 file system in /proc/self/mountinfo); "
			 "mount it: mount -t cgroup2 none /sys/fs/cgroup", arg);
		return -ENODEV;
	}
	/* a cgroup path ("/" is the root cgroup), then a file system path */
	if ((size_t)snprintf(under, sizeof(under), "%s/%s", fs->mount,
			     arg + strspn(arg, "/")) >= sizeof(under))
		return explain(fs, arg, arg, PATH_MISSING, err, errlen);
	under_kind = path_kind(under, fs->magic);
	if (under_kind == PATH_CGROUP_V2)
		return resolved(fs, under, t, err, errlen);
	if (arg[0] == '/') {
		fs_kind = path_kind(arg, fs->magic);
		if (fs_kind == PATH_CGROUP_V2)
			return resolved(fs, arg, t, err, errlen);
	}
	/* say what is wrong with the path that exists, the directory first */
	if (fs_kind != PATH_MISSING)
		return explain(fs, arg, arg, fs_kind, err, errlen);
	if (under_kind != PATH_MISSING || arg[0] != '/')
		return explain(fs, arg, under, under_kind, err, errlen);
	snprintf(err, errlen, "--cgroup %s: no such cgroup (neither %s nor %s "
		 "is a directory)", arg, arg, under);
	return -ENOENT;
}

void cgroup_target_close(struct pts_cgroup_target *t)
{
	if (t->fd >= 0)
		close(t->fd);
	t->fd = -1;
}
