/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_KCOUNTERS_REPORT_H
#define PTSCOPE_KCOUNTERS_REPORT_H

#include <stdio.h>
#include <json-c/json.h>
#include "data/kcounters.h"

/* { group: { name: value } } */
json_object *kcounters_json(const struct kcounters *kc);
/* the nonzero counters, three a line, or "no change" */
void kcounters_text(FILE *out, const struct kcounters *kc);

#endif
