// SPDX-License-Identifier: GPL-2.0
/* The kernel's hugepage counters of a stat run, as JSON and as text. */
#include <stdio.h>
#include <string.h>
#include "render/kcounters_report.h"

json_object *kcounters_json(const struct kcounters *kc)
{
	json_object *root = json_object_new_object(), *group;
	int i;

	for (i = 0; i < kc->nr; i++) {
		if (!json_object_object_get_ex(root, kc->c[i].group, &group)) {
			group = json_object_new_object();
			json_object_object_add(root, kc->c[i].group, group);
		}
		json_object_object_add(group, kc->c[i].name,
				       json_object_new_uint64(kc->c[i].value));
	}
	return root;
}

void kcounters_text(FILE *out, const struct kcounters *kc)
{
	int i, seen = 0;

	fprintf(out, "\nkernel counters over the run (system-wide):");
	for (i = 0; i < kc->nr; i++) {
		if (!kc->c[i].value)
			continue;
		fprintf(out, "%s %s%s%s +%llu", seen++ % 3 ? "," : "\n ",
			strcmp(kc->c[i].group, "vmstat") ? kc->c[i].group : "",
			strcmp(kc->c[i].group, "vmstat") ? "/" : "",
			kc->c[i].name, (unsigned long long)kc->c[i].value);
	}
	fprintf(out, "%s\n", seen ? "" : " no change");
}
