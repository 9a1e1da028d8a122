// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope diff's report of the machine's own speed (its reference, and
 * the times that moved with it) and of the share of a changed run time
 * the traced mremaps account for: text and JSON.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "data/format.h"
#include "render/diff_format.h"
#include "render/values.h"

static const char *const ref_state_name[] = {
	[DIFF_REF_MISSING] = "missing",
	[DIFF_REF_OTHER_WORK] = "other work",
	[DIFF_REF_UNTESTED] = "untested",
	[DIFF_REF_USED] = "used",
	[DIFF_REF_NOISY] = "unreliable: noisy",
	[DIFF_REF_MOVED] = "unreliable: moved",
};

/* "base", "new", "base and new": the sides without a reference */
static const char *missing_sides(const struct diff_reference *ref)
{
	if (!ref->present[DIFF_BASE] && !ref->present[DIFF_NEW])
		return "base and new";
	return ref->present[DIFF_BASE] ? "new" : "base";
}

const char *diff_fmt_unreliable(char *buf, size_t len,
				const struct diff_result *res)
{
	const struct diff_reference *ref = &res->ref;
	enum diff_side side;

	if (ref->state == DIFF_REF_NOISY) {
		side = ref->cv_pct[DIFF_NEW] > ref->cv_pct[DIFF_BASE] ?
		       DIFF_NEW : DIFF_BASE;
		snprintf(buf, len, "the machine's own speed varied by %.0f%% "
			 "between the runs of %s (more than %g%%)",
			 ref->cv_pct[side], diff_side_name[side],
			 DIFF_REF_MAX_CV_PCT);
	} else {
		snprintf(buf, len, "the machine itself was %.2fx %s in new "
			 "(beyond %gx: work that does not scale with it, such "
			 "as memory and I/O, no longer tells)",
			 ref->factor > 1 ? ref->factor : 1 / ref->factor,
			 ref->factor > 1 ? "slower" : "faster",
			 DIFF_REF_MAX_FACTOR);
	}
	return buf;
}

/* "9.30 ms ± 2.1% -> 14.0 ms ± 3.0%, +50.5% [+45.1%, +55.9%] p=0.0001" */
static void print_ref_change(FILE *out, const struct diff_row *row)
{
	char base[48], new[48], change[32], interval[64];

	fprintf(out, "reference %s -> %s, %s %s",
		fmt_mean_sd(base, sizeof(base), &row->side[DIFF_BASE], row->unit),
		fmt_mean_sd(new, sizeof(new), &row->side[DIFF_NEW], row->unit),
		diff_fmt_change(change, sizeof(change), row),
		diff_fmt_interval(interval, sizeof(interval), row));
}

/* what the speed of the machine itself did, under the two runs */
void diff_print_machine(FILE *out, const struct diff_result *res)
{
	const struct diff_reference *ref = &res->ref;
	char why[DIFF_TEXT_LEN];

	fprintf(out, "  machine: ");
	switch (ref->state) {
	case DIFF_REF_MISSING:
		fprintf(out, "no reference in %s (recorded by an older ptscope): "
			"times are compared as measured, and a slower machine "
			"would look like a slower workload\n", missing_sides(ref));
		return;
	case DIFF_REF_OTHER_WORK:
		fprintf(out, "the two recordings timed different reference work "
			"(another ptscope): times are compared as measured\n");
		return;
	default:
		break;
	}
	print_ref_change(out, &ref->row);
	if (ref->state == DIFF_REF_UNTESTED)
		fprintf(out, "\n");
	else if (ref->state == DIFF_REF_USED)
		fprintf(out, ": %s\n  a time changed only where it did both as "
			"measured and relative to the machine: one that changed "
			"by the machine's factor is not a change of the "
			"workload\n", !ref->row.changed ?
			"the same speed within the noise" :
			ref->row.change_pct > 0 ? "the machine was slower in new" :
			"the machine was faster in new");
	else
		fprintf(out, "\n  unreliable: %s; no time is called a change\n",
			diff_fmt_unreliable(why, sizeof(why), res));
}

/* "+50.2% [+40.0%, +60.1%]" as measured */
static void print_raw(FILE *out, const struct diff_row *row)
{
	fprintf(out, "%+.1f%%", row->raw_change_pct);
	if (!isnan(row->raw_ci_low_pct))
		fprintf(out, " [%+.1f%%, %+.1f%%]", row->raw_ci_low_pct,
			row->raw_ci_high_pct);
}

/*
 * The times that changed as measured but not relative to the machine,
 * and with an unreliable reference every time that differs, as measured
 */
void diff_print_machine_moved(FILE *out, const struct diff_result *res)
{
	char change[32], interval[64], name[FMT_ESCAPED_LEN(DIFF_NAME_LEN)];
	const struct diff_row *row;
	size_t i, n = 0;

	for (i = 0; i < res->nr_rows; i++) {
		row = &res->rows[i];
		if (!row->normalized || row->changed ||
		    (!row->raw_changed && !row->rel_changed))
			continue;
		if (!n++)
			fprintf(out, "\ntimes that changed as measured or relative "
				"to the machine, not both (not a change of the "
				"workload):\n");
		fprintf(out, "  %s ", fmt_escape(name, sizeof(name), row->name));
		print_raw(out, row);
		fprintf(out, " as measured, %s %s relative to the machine: %s\n",
			diff_fmt_change(change, sizeof(change), row),
			diff_fmt_interval(interval, sizeof(interval), row),
			row->raw_changed ? "it moved with the machine" :
			"it did not scale with the machine");
	}
	for (i = 0, n = 0; i < res->nr_rows; i++) {
		row = &res->rows[i];
		if (!row->unreliable || !row->differs)
			continue;
		if (!n++)
			fprintf(out, "\ntimes not compared (the machine's reference "
				"is unreliable), as measured:\n");
		fprintf(out, "  %s %s\n", fmt_escape(name, sizeof(name), row->name),
			diff_fmt_change(change, sizeof(change), row));
	}
}

/* "+1.20 ms" */
static const char *signed_ns(char *buf, size_t len, double seconds)
{
	char abs[32];

	fmt_ns(abs, sizeof(abs), fabs(seconds) * 1e9);
	snprintf(buf, len, "%s%s", seconds < 0 ? "-" : "+", abs);
	return buf;
}

static void print_interval(FILE *out, const struct diff_interval *iv)
{
	char d[40], lo[40], hi[40];

	fprintf(out, "%s a run [%s, %s]", signed_ns(d, sizeof(d), iv->diff),
		signed_ns(lo, sizeof(lo), iv->low),
		signed_ns(hi, sizeof(hi), iv->high));
}

/*
 * "traced: mremap time +1.2 ms a run [...] (calls x mean latency) of the
 * run time's +800 ms a run [...]: 0.2% of it (0% to 0.4%)"
 */
void diff_print_share(FILE *out, const struct diff_result *res)
{
	const struct diff_share *sh = &res->share;

	if (!sh->have)
		return;
	fprintf(out, "  traced work: mremap time (calls x mean latency)%s ",
		sh->faults ? " with hugepage fault time" : "");
	print_interval(out, &sh->traced);
	fprintf(out, " of the run time's ");
	print_interval(out, &sh->run);
	fprintf(out, ": %.0f%% of it", sh->share * 100);
	if (!isnan(sh->share_low) && !isnan(sh->share_high))
		fprintf(out, " (%.0f%% to %.0f%%)", sh->share_low * 100,
			sh->share_high * 100);
	fputc('\n', out);
	if (sh->elsewhere)
		fprintf(out, "  the traced mremaps%s account for at most %.0f%% "
			"of the run time added: the cause lies elsewhere\n",
			sh->faults ? " and faults" : "", sh->share_high * 100);
}

/* ---- JSON ---- */

json_object *diff_reference_json(const struct diff_result *res)
{
	const struct diff_reference *ref = &res->ref;
	json_object *obj = json_object_new_object();
	char why[DIFF_TEXT_LEN];

	json_object_object_add(obj, "state",
			       json_object_new_string(ref_state_name[ref->state]));
	json_object_object_add(obj, "base_present",
			       json_object_new_boolean(ref->present[DIFF_BASE]));
	json_object_object_add(obj, "new_present",
			       json_object_new_boolean(ref->present[DIFF_NEW]));
	json_object_object_add(obj, "times_relative",
			       json_object_new_boolean(ref->state == DIFF_REF_USED));
	if (diff_times_unreliable(res))
		json_object_object_add(obj, "unreliable", json_object_new_string(
			diff_fmt_unreliable(why, sizeof(why), res)));
	if (ref->state == DIFF_REF_MISSING || ref->state == DIFF_REF_OTHER_WORK)
		return obj;
	json_object_object_add(obj, "factor", diff_json_number(ref->factor));
	json_object_object_add(obj, "base_cv_pct",
			       diff_json_number(ref->cv_pct[DIFF_BASE]));
	json_object_object_add(obj, "new_cv_pct",
			       diff_json_number(ref->cv_pct[DIFF_NEW]));
	json_object_object_add(obj, "row", diff_row_json(&ref->row));
	return obj;
}

static json_object *interval_json(const struct diff_interval *iv)
{
	json_object *obj = json_object_new_object();

	json_object_object_add(obj, "diff_s", diff_json_number(iv->diff));
	json_object_object_add(obj, "ci_low_s", diff_json_number(iv->low));
	json_object_object_add(obj, "ci_high_s", diff_json_number(iv->high));
	return obj;
}

/* null where no run time changed, or mremap was not traced */
json_object *diff_share_json(const struct diff_result *res)
{
	const struct diff_share *sh = &res->share;
	json_object *obj;

	if (!sh->have)
		return NULL;
	obj = json_object_new_object();
	json_object_object_add(obj, "traced", interval_json(&sh->traced));
	json_object_object_add(obj, "traced_work", json_object_new_string(
				       sh->faults ? "mremap, hugepage faults" :
				       "mremap"));
	json_object_object_add(obj, "run", interval_json(&sh->run));
	json_object_object_add(obj, "share", diff_json_number(sh->share));
	json_object_object_add(obj, "share_low", diff_json_number(sh->share_low));
	json_object_object_add(obj, "share_high", diff_json_number(sh->share_high));
	json_object_object_add(obj, "cause_elsewhere",
			       json_object_new_boolean(sh->elsewhere));
	return obj;
}
