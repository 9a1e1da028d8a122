// SPDX-License-Identifier: GPL-2.0
#include <string.h>
#include "data/format.h"
#include "data/schema.h"
#include "data/selfcheck.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/*
 * ptscope's fault counters and the kernel's counters of the same outcome:
 * count_mthp_stat() per size (hugepages-<size>kB/stats, 6.8+) and
 * count_vm_event() for the PMD size only (mm/huge_memory.c, 6.18).
 */
static const struct {
	const char *metric;
	int index;
	const char *mthp;
	const char *vmstat;
} fault_counts[] = {
	{ "hugepage_faults.alloc", PTS_C_FAULT_ALLOC, "anon_fault_alloc",
	  "thp_fault_alloc" },
	{ "hugepage_faults.fallback", PTS_C_FAULT_FALLBACK,
	  "anon_fault_fallback", "thp_fault_fallback" },
	{ "hugepage_faults.fallback_charge", PTS_C_FAULT_FALLBACK_CHARGE,
	  "anon_fault_fallback_charge", "thp_fault_fallback_charge" },
};

static const struct kcounter *kcounter_find(const struct kcounters *kc,
					    const char *group, const char *name)
{
	int i;

	for (i = 0; i < kc->nr; i++)
		if (!strcmp(kc->c[i].group, group) && !strcmp(kc->c[i].name, name))
			return &kc->c[i];
	return NULL;
}

/* compare @count with the kernel's @group/@name, when the kernel has it */
static void compare(struct selfcheck *sc, const struct kcounters *delta,
		    const char *metric, unsigned int order, const char *size,
		    uint64_t count, const char *group, const char *name)
{
	const struct kcounter *k = kcounter_find(delta, group, name);
	struct selfcheck_excess *ex;

	if (!k)
		return;
	sc->compared++;
	sc->orders_compared |= 1U << order;
	if (count <= k->value)
		return;
	sc->orders_above |= 1U << order;
	if (sc->nr >= SELFCHECK_MAX) {
		sc->lost++;
		return;
	}
	ex = &sc->ex[sc->nr++];
	snprintf(ex->metric, sizeof(ex->metric), "%s", metric);
	snprintf(ex->size, sizeof(ex->size), "%s", size);
	ex->ptscope = count;
	ex->kernel = k->value;
	snprintf(ex->counter, sizeof(ex->counter), "%s/%s", group, name);
}

void selfcheck_run(struct selfcheck *sc, const struct pts_snapshot *snap,
		   const struct kcounters *delta, uint64_t page_size)
{
	unsigned int pmd_order = schema_order_pmd(page_size), order;
	char size[16], group[KC_GROUP_LEN];
	uint64_t count;
	size_t i;

	memset(sc, 0, sizeof(*sc));
	for (order = 1; order < PTS_MAX_ORDER; order++) {
		fmt_order_size(size, sizeof(size), order, page_size);
		snprintf(group, sizeof(group), "hugepages-%llukB",
			 (unsigned long long)((page_size << order) >> 10));
		for (i = 0; i < ARRAY_SIZE(fault_counts); i++) {
			count = snap->counters.v[fault_counts[i].index + order];
			compare(sc, delta, fault_counts[i].metric, order, size,
				count, group, fault_counts[i].mthp);
			if (order == pmd_order)
				compare(sc, delta, fault_counts[i].metric, order,
					size, count, "vmstat",
					fault_counts[i].vmstat);
		}
	}
}

void selfcheck_since(struct selfcheck *sc, const struct pts_snapshot *snap,
		     const struct kcounters *base, uint64_t page_size)
{
	struct kcounters now, delta;

	kcounters_read(&now);
	kcounters_delta(&now, base, &delta);
	selfcheck_run(sc, snap, &delta, page_size);
}

const char *selfcheck_live_off(const struct pts_engine *eng,
			       unsigned int parts_off)
{
	if (!engine_provides(eng, "thp.fault_alloc", 0, 0))
		return "thp.fault_alloc is not attached";
	if (parts_off & PTS_PART_COUNTS)
		return "the counts are off (--parts)";
	return NULL;
}

void selfcheck_text(FILE *out, const struct selfcheck *sc)
{
	const struct selfcheck_excess *ex;
	int i;

	if (!sc->compared) {
		fprintf(out, "\nself-check: no kernel counter to compare with\n");
		return;
	}
	if (!sc->nr) {
		fprintf(out, "\nself-check: %d hugepage fault counts, none above the kernel's\n",
			sc->compared);
		return;
	}
	fprintf(out, "\n");
	for (i = 0; i < sc->nr; i++) {
		ex = &sc->ex[i];
		fprintf(out, "self-check FAILED: %s[%s] = %llu is above the kernel's %s +%llu over the same window: ptscope's count is wrong\n",
			ex->metric, ex->size, (unsigned long long)ex->ptscope,
			ex->counter, (unsigned long long)ex->kernel);
	}
	if (sc->lost)
		fprintf(out, "self-check FAILED: %d more counts above the kernel's\n",
			sc->lost);
}

static json_object *excess_json(const struct selfcheck_excess *ex)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "metric", json_object_new_string(ex->metric));
	json_object_object_add(o, "size", json_object_new_string(ex->size));
	json_object_object_add(o, "ptscope", json_object_new_uint64(ex->ptscope));
	json_object_object_add(o, "kernel", json_object_new_uint64(ex->kernel));
	json_object_object_add(o, "counter", json_object_new_string(ex->counter));
	return o;
}

json_object *selfcheck_json(const struct selfcheck *sc)
{
	json_object *o = json_object_new_object();
	json_object *above = json_object_new_array();
	int i;

	for (i = 0; i < sc->nr; i++)
		json_object_array_add(above, excess_json(&sc->ex[i]));
	json_object_object_add(o, "status", json_object_new_string(
		!sc->compared ? "nothing_to_compare" :
		sc->nr ? "above_kernel" : "ok"));
	json_object_object_add(o, "compared", json_object_new_int(sc->compared));
	json_object_object_add(o, "above_kernel", above);
	json_object_object_add(o, "not_listed", json_object_new_int(sc->lost));
	return o;
}
