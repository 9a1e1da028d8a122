/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers: BTF, kallsyms, tracefs, kprobes and
 * whether fentry programs really load and attach.
 */
#ifndef PTSCOPE_CAPS_H
#define PTSCOPE_CAPS_H

#include <stdbool.h>
#include <stddef.h>
#include "catalog.h"

struct btf;

#define CAPS_FENTRY_CACHE 32

struct fentry_result {
	char func[64];
	int err;		/* 0: loads and attaches */
	char why[96];
};

struct pts_caps {
	struct btf *btf;
	char **ksyms;		/* sorted names from /proc/kallsyms */
	size_t nr_ksyms;
	/* page_offset_base (x86-64) or memstart_addr (arm64), 0: unknown */
	unsigned long long dmap_var;
	bool kprobe_pmu;
	int config_kprobes;	/* 1: y, 0: not set, -1: unknown */
	char tracefs[64];	/* where tracefs is mounted, "" if nowhere */
	char release[65];
	char machine[65];
	struct fentry_result fentry[CAPS_FENTRY_CACHE];
	int nr_fentry;
};

int caps_init(struct pts_caps *caps);
void caps_free(struct pts_caps *caps);

/* 0 when @req holds; otherwise a reason in @why.  @ctx is a pts_caps. */
int caps_check(void *ctx, const struct pts_req *req, char *why, size_t len);

bool caps_has_symbol(const struct pts_caps *caps, const char *name);
/* first compiler clone "name.isra.0" / "name.constprop.0", or NULL */
/* the kallsyms name of the variable that places the direct map */
const char *caps_dmap_var_name(void);
const char *caps_symbol_clone(const struct pts_caps *caps, const char *name);
int caps_enum_value(const struct pts_caps *caps, const char *enumerator,
		    long long *value);
const char *caps_enum_name(const struct pts_caps *caps, const char *enum_type,
			   long long value);

#endif
