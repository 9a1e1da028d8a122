// SPDX-License-Identifier: GPL-2.0
#include <glob.h>
#include <stdio.h>
#include <string.h>
#include "data/kcounters.h"

#define THP_SYSFS "/sys/kernel/mm/transparent_hugepage"

static const char *const vmstat_keys[] = {
	"thp_fault_alloc", "thp_fault_fallback", "thp_fault_fallback_charge",
	"thp_collapse_alloc", "thp_collapse_alloc_failed", "thp_split_pmd",
	"thp_zero_page_alloc",
};

static const char *const mthp_keys[] = {
	"anon_fault_alloc", "anon_fault_fallback", "anon_fault_fallback_charge",
};

static void add(struct kcounters *kc, const char *group, const char *name,
		uint64_t value)
{
	struct kcounter *c;

	if (kc->nr >= KC_MAX)
		return;
	c = &kc->c[kc->nr++];
	snprintf(c->group, sizeof(c->group), "%s", group);
	snprintf(c->name, sizeof(c->name), "%s", name);
	c->value = value;
}

static void read_vmstat(struct kcounters *kc)
{
	char key[64];
	unsigned long long value;
	size_t i;
	FILE *f = fopen("/proc/vmstat", "r");

	if (!f)
		return;
	while (fscanf(f, "%63s %llu", key, &value) == 2)
		for (i = 0; i < sizeof(vmstat_keys) / sizeof(vmstat_keys[0]); i++)
			if (!strcmp(key, vmstat_keys[i]))
				add(kc, "vmstat", key, value);
	fclose(f);
}

static void read_mthp_size(struct kcounters *kc, const char *dir)
{
	const char *group = strrchr(dir, '/') + 1;
	unsigned long long value;
	char path[256];
	size_t i;
	FILE *f;

	for (i = 0; i < sizeof(mthp_keys) / sizeof(mthp_keys[0]); i++) {
		snprintf(path, sizeof(path), "%s/stats/%s", dir, mthp_keys[i]);
		f = fopen(path, "r");
		if (!f)
			continue;	/* before 6.8: no per-size stats */
		if (fscanf(f, "%llu", &value) == 1)
			add(kc, group, mthp_keys[i], value);
		fclose(f);
	}
}

void kcounters_read(struct kcounters *kc)
{
	glob_t g;
	size_t i;

	memset(kc, 0, sizeof(*kc));
	read_vmstat(kc);
	if (glob(THP_SYSFS "/hugepages-*kB", 0, NULL, &g))
		return;
	for (i = 0; i < g.gl_pathc; i++)
		read_mthp_size(kc, g.gl_pathv[i]);
	globfree(&g);
}

void kcounters_delta(const struct kcounters *after,
		     const struct kcounters *before, struct kcounters *out)
{
	const struct kcounter *a, *b;
	int i, j;

	memset(out, 0, sizeof(*out));
	for (i = 0; i < after->nr; i++) {
		a = &after->c[i];
		for (j = 0; j < before->nr; j++) {
			b = &before->c[j];
			if (!strcmp(a->group, b->group) && !strcmp(a->name, b->name)) {
				add(out, a->group, a->name, a->value - b->value);
				break;
			}
		}
	}
}

void kcounters_add(struct kcounters *sum, const struct kcounters *kc)
{
	const struct kcounter *c;
	int i, j;

	for (i = 0; i < kc->nr; i++) {
		c = &kc->c[i];
		for (j = 0; j < sum->nr; j++) {
			if (!strcmp(sum->c[j].group, c->group) &&
			    !strcmp(sum->c[j].name, c->name)) {
				sum->c[j].value += c->value;
				break;
			}
		}
		if (j == sum->nr)
			add(sum, c->group, c->name, c->value);
	}
}
