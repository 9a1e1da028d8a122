/* SPDX-License-Identifier: GPL-2.0 */
/*
 * cgroup v2 paths and ids: where cgroup v2 is mounted, and --cgroup PATH
 * to the directory the BPF filter holds (cgroup_names.h turns the ids of
 * the per-cgroup rows back to paths).
 *
 * A cgroup's id, what bpf_get_current_cgroup_id() returns, is the kernfs
 * node id of its directory (cgroup_id(), include/linux/cgroup.h).  On
 * 64-bit kernels that is also the directory's inode number
 * (kernfs_id_ino(), include/linux/kernfs.h), so stat()'s st_ino and
 * readdir()'s d_ino (kernfs_fop_readdir(), fs/kernfs/dir.c) name it,
 * checked on this box's 6.18; name_to_handle_at() gives the same 64 bits
 * (kernfs_encode_fh(), fs/kernfs/mount.c) and is needed only where ino_t
 * is 32 bits, which ptscope does not build for.
 */
#ifndef PTSCOPE_CGROUP_H
#define PTSCOPE_CGROUP_H

#include <limits.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/types.h>

/* the cgroup v2 file system: where it is mounted, and its statfs type */
struct pts_cgroup_fs {
	char mount[PATH_MAX];	/* "": not mounted */
	long magic;		/* CGROUP2_SUPER_MAGIC (tests: a fake tree's) */
};

/* what --cgroup PATH names */
struct pts_cgroup_target {
	int fd;			/* its directory, for the BPF cgroup array */
	__u64 id;
	char path[PATH_MAX];	/* as /proc/PID/cgroup writes it: "/a/b" */
};

/* cgroup v2's mount point from /proc/self/mountinfo; 0 or -errno */
int cgroup_fs_find(struct pts_cgroup_fs *fs);
/*
 * The same from an open mountinfo: the first cgroup2 mount of the
 * hierarchy's root (/sys/fs/cgroup, or /sys/fs/cgroup/unified on a
 * hybrid system) that @usable accepts (NULL: any; cgroup_fs_find() asks
 * that it is not covered by a later mount), else the first of a subtree;
 * -ENOENT when there is none.
 */
int cgroup_fs_parse(FILE *mountinfo, struct pts_cgroup_fs *fs,
		    bool (*usable)(const char *mount));
/*
 * --cgroup @arg: a directory of @fs given as a file system path, or as a
 * cgroup path relative to its mount ("a/b", or "/a/b" as /proc/PID/cgroup
 * writes it).  0 with @t filled (t->fd open), or -errno with what is
 * wrong in @err: no such cgroup (-ENOENT), not a directory (-ENOTDIR), a
 * cgroup v1 hierarchy or another file system (-EINVAL), cgroup v2 not
 * mounted (-ENODEV).
 */
int cgroup_resolve(const struct pts_cgroup_fs *fs, const char *arg,
		   struct pts_cgroup_target *t, char *err, size_t errlen);
void cgroup_target_close(struct pts_cgroup_target *t);

#endif
