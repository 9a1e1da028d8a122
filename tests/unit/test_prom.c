// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests for src/prom.c: the Prometheus text of "ptscope export"
 * (bucket bounds, cumulative counts, escaping, metrics left out when not
 * attached), the request-line check and the --listen parser.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "engine/engine.h"
#include "export/prom.h"
#include "fake_engine.h"

#define PMD_BUCKET	"ptscope_mremap_duration_seconds_bucket{class=\"pmd\""

static struct pts_engine eng;
static struct pts_snapshot snap;
/* the busiest cgroups that get a label; 0: none (the default page) */
static size_t cgroup_limit;
static unsigned int parts_off;	/* export --parts: left out */
static const struct selfcheck *selfcheck;	/* NULL: for selfcheck_off */
static const char *selfcheck_off;
/* the last rendered page (open_memstream) */
static char *page;
static size_t page_len;

static int setup(void **state)
{
	engine_init(&eng, PTS_MODE_AUTO, false);
	memset(&snap, 0, sizeof(snap));
	cgroup_limit = 0;
	parts_off = 0;
	selfcheck = NULL;
	selfcheck_off = NULL;
	page = NULL;
	page_len = 0;
	return 0;
}

static int teardown(void **state)
{
	free(page);
	page = NULL;
	return 0;
}

static void attach_all(bool pte_marker, bool fault_funcs)
{
	fake_attach(&eng, "mremap.calls", 0, false);
	fake_attach(&eng, "mremap.move_page_tables", 0, false);
	fake_attach(&eng, "mremap.levels", PTS_CFG_PTE_MARKER, pte_marker);
	fake_attach(&eng, "thp.fault_alloc", PTS_CFG_FAULT_FUNCS, fault_funcs);
	fake_attach(&eng, "thp.collapse", 0, false);
}

static const char *fake_collapse_name(const void *ctx, int status)
{
	switch (status) {
	case 1:
		return "SCAN_SUCCEED";
	case 3:
		return "SCAN_\"ODD\\NAME";
	default:
		return NULL;
	}
}

/* @progs NULL: run-time statistics off, for @progs_off (may be NULL) */
static const char *render_stats(const struct prom_prog *progs, size_t nr,
				const char *progs_off)
{
	struct prom_input in = {
		.eng = &eng,
		.snap = &snap,
		.page_size = 4096,
		.collapse_name = fake_collapse_name,
		.progs = progs,
		.nr_progs = nr,
		.progs_off = progs_off,
		.cgroup_limit = cgroup_limit,
		.parts_off = parts_off,
		.selfcheck = selfcheck,
		.selfcheck_off = selfcheck_off,
	};

	FILE *out;

	free(page);
	out = open_memstream(&page, &page_len);
	assert_non_null(out);
	assert_int_equal(prom_render(&in, out), 0);
	assert_int_equal(fclose(out), 0);
	assert_non_null(page);
	assert_int_equal(strlen(page), page_len);
	return page;
}

static const char *render_with(const struct prom_prog *progs, size_t nr)
{
	return render_stats(progs, nr, NULL);
}

static const char *render(void)
{
	return render_with(NULL, 0);
}

/* a whole line of @text equals @line */
static bool has_line(const char *text, const char *line)
{
	size_t len = strlen(line);
	const char *p = text;

	while ((p = strstr(p, line))) {
		if ((p == text || p[-1] == '\n') && p[len] == '\n')
			return true;
		p++;
	}
	return false;
}

static void assert_line(const char *text, const char *line)
{
	if (!has_line(text, line))
		fail_msg("missing line '%s' in:\n%s", line, text);
}

static void assert_absent(const char *text, const char *what)
{
	assert_non_null(text);
	if (text && strstr(text, what))
		fail_msg("'%s' should be absent from:\n%s", what, text);
}

/* what @put wrote for @ns or @text */
static void assert_put(void (*put_ns)(FILE *, uint64_t),
		       void (*put_text)(FILE *, const char *), uint64_t ns,
		       const char *text, const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	if (put_ns)
		put_ns(f, ns);
	else
		put_text(f, text);
	assert_int_equal(fclose(f), 0);
	assert_string_equal(buf, want);
	free(buf);
}

static void assert_seconds(uint64_t ns, const char *want)
{
	assert_put(prom_put_seconds, NULL, ns, NULL, want);
}

static void test_seconds(void **state)
{
	assert_seconds(0, "0");
	assert_seconds(1, "0.000000001");
	assert_seconds(127, "0.000000127");
	assert_seconds(2047, "0.000002047");
	assert_seconds(1000000000ULL, "1");
	assert_seconds(1500000000ULL, "1.5");
	assert_seconds(68719476735ULL, "68.719476735");
	assert_seconds(UINT64_MAX, "18446744073.709551615");
}

static void test_escaping(void **state)
{
	assert_put(NULL, prom_put_label_value, 0, "a\"b\\c\nd",
		   "a\\\"b\\\\c\\nd");
	assert_put(NULL, prom_put_help_text, 0, "say \"x\" \\ y\nz",
		   "say \"x\" \\\\ y\\nz");
}

/* the "le" of slot i is (2^(i+1)-1) ns: exactly the largest value it holds */
static void test_bucket_bounds(void **state)
{
	const char *text, *p;
	char want[128];
	int slot, n = 0;

	fake_attach(&eng, "mremap.calls", 0, false);
	text = render();
	for (slot = PROM_HIST_FIRST_SLOT; slot <= PROM_HIST_LAST_SLOT; slot++) {
		uint64_t high = (1ULL << (slot + 1)) - 1;

		snprintf(want, sizeof(want), PMD_BUCKET ",le=\"%llu.%09llu",
			 (unsigned long long)(high / 1000000000ULL),
			 (unsigned long long)(high % 1000000000ULL));
		/* trailing zeros are dropped: compare without them */
		while (want[strlen(want) - 1] == '0')
			want[strlen(want) - 1] = '\0';
		if (!strstr(text, want))
			fail_msg("no bucket for slot %d (%s)", slot, want);
	}
	for (p = text; (p = strstr(p, PMD_BUCKET)); p++)
		n++;
	/* one per exported slot, plus +Inf */
	assert_int_equal(n, PROM_HIST_LAST_SLOT - PROM_HIST_FIRST_SLOT + 2);
	assert_line(text, PMD_BUCKET ",le=\"0.000000127\"} 0");
	assert_line(text, PMD_BUCKET ",le=\"0.000001023\"} 0");
	assert_line(text, PMD_BUCKET ",le=\"1.073741823\"} 0");
	assert_line(text, PMD_BUCKET ",le=\"68.719476735\"} 0");
	assert_line(text, PMD_BUCKET ",le=\"+Inf\"} 0");
}

static void test_bucket_counts(void **state)
{
	struct pts_hist *h = &snap.hists.h[PTS_H_MREMAP_NS + PTS_MREMAP_PMD];
	const char *text;

	fake_attach(&eng, "mremap.calls", 0, false);
	h->slots[0] = 1;	/* 0 or 1 ns */
	h->slots[5] = 2;	/* below the first bucket: counted in it */
	h->slots[6] = 1;
	h->slots[10] = 3;	/* 1024..2047 ns */
	h->slots[35] = 1;
	h->slots[36] = 4;	/* above the last bucket: only in +Inf */
	h->slots[63] = 1;
	h->count = 13;
	h->sum = 123456789;
	text = render();
	assert_line(text, PMD_BUCKET ",le=\"0.000000127\"} 4");
	assert_line(text, PMD_BUCKET ",le=\"0.000001023\"} 4");
	assert_line(text, PMD_BUCKET ",le=\"0.000002047\"} 7");
	assert_line(text, PMD_BUCKET ",le=\"34.359738367\"} 7");
	assert_line(text, PMD_BUCKET ",le=\"68.719476735\"} 8");
	assert_line(text, PMD_BUCKET ",le=\"+Inf\"} 13");
	assert_line(text, "ptscope_mremap_duration_seconds_sum{class=\"pmd\"} "
		    "0.123456789");
	assert_line(text, "ptscope_mremap_duration_seconds_count{class=\"pmd\"} 13");
	/* the other classes are untouched */
	assert_line(text, "ptscope_mremap_duration_seconds_count{class=\"pud\"} 0");
}

/* +Inf and _count are the slot total even if count lags a slot update */
static void test_count_matches_inf(void **state)
{
	struct pts_hist *h = &snap.hists.h[PTS_H_MREMAP_NS + PTS_MREMAP_PTE];
	const char *text;

	fake_attach(&eng, "mremap.calls", 0, false);
	h->slots[12] = 2;
	h->count = 1;
	text = render();
	assert_line(text, "ptscope_mremap_duration_seconds_bucket{class=\"pte\","
		    "le=\"+Inf\"} 2");
	assert_line(text, "ptscope_mremap_duration_seconds_count{class=\"pte\"} 2");
}

/* the _count line of the series of a "+Inf" bucket line, with @value */
static void assert_count_line(const char *text, const char *inf_line,
			      unsigned long long value)
{
	const char *bucket = strstr(inf_line, "_bucket{");
	const char *labels = bucket + strlen("_bucket{");
	const char *le = strstr(inf_line, "le=\"+Inf\"");
	char want[512];
	int nlabels = (int)(le - labels);

	if (nlabels > 0)	/* drop the comma before le */
		snprintf(want, sizeof(want), "%.*s_count{%.*s} %llu",
			 (int)(bucket - inf_line), inf_line, nlabels - 1, labels,
			 value);
	else
		snprintf(want, sizeof(want), "%.*s_count %llu",
			 (int)(bucket - inf_line), inf_line, value);
	assert_line(text, want);
}

/* every histogram series: le rising, counts never falling, +Inf = _count */
static int check_histograms(const char *text)
{
	char series[512] = "", *line, *copy, *save;
	double le, prev_le = -1;
	unsigned long long v, prev_v = 0;
	int checked = 0;

	copy = strdup(text);
	assert_non_null(copy);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *le_at = strstr(line, "le=\"");

		if (!strstr(line, "_bucket{") || !le_at)
			continue;
		/* le is the last label: what precedes it names the series */
		if (strncmp(series, line, (size_t)(le_at - line)) ||
		    series[le_at - line]) {
			snprintf(series, sizeof(series), "%.*s",
				 (int)(le_at - line), line);
			prev_le = -1;
			prev_v = 0;
		}
		v = strtoull(strrchr(line, ' ') + 1, NULL, 10);
		le = strncmp(le_at, "le=\"+Inf\"", 9) ?
		     strtod(le_at + 4, NULL) : 1e300;
		assert_true(le > prev_le);
		assert_true(v >= prev_v);
		if (le == 1e300)
			assert_count_line(text, line, v);
		prev_le = le;
		prev_v = v;
		checked++;
	}
	free(copy);
	return checked;
}

static void test_cumulative(void **state)
{
	const char *text;
	int h, s;

	attach_all(true, true);
	for (h = 0; h < PTS_NR_HISTS; h++)
		for (s = 0; s < PTS_HIST_SLOTS; s++)
			snap.hists.h[h].slots[s] = (uint64_t)((h * 7 + s * 13) % 5);
	snap.counters.v[PTS_C_FAULT_ALLOC + 2] = 1;
	text = render();
	/* 5 mremap classes, move_page_tables, 4 fault orders (0, 4, 9 + seen) */
	assert_true(check_histograms(text) >= 10 *
		    (PROM_HIST_LAST_SLOT - PROM_HIST_FIRST_SLOT + 2));
}

static void test_absent_when_unavailable(void **state)
{
	const char *text = render();

	assert_absent(text, "ptscope_mremap_");
	assert_absent(text, "ptscope_move_page_tables_");
	assert_absent(text, "ptscope_pagetable_");
	assert_absent(text, "ptscope_pte");
	assert_absent(text, "ptscope_hugepage_");
	assert_absent(text, "ptscope_huge_zero_page");
	assert_absent(text, "ptscope_khugepaged_");
	assert_absent(text, "ptscope_bpf_program_");
	assert_line(text, "ptscope_probe_attached{metric=\"mremap.calls\","
		    "path=\"none\",status=\"unavailable\"} 0");
	assert_line(text, "ptscope_probe_attached{metric=\"thp.collapse\","
		    "path=\"none\",status=\"unavailable\"} 0");
	assert_absent(text, "task.follow_fork");	/* internal */
	assert_line(text, "ptscope_events_dropped_total{reason=\"inflight_map_full\"} 0");
}

static void test_mremap_only(void **state)
{
	const char *text;

	fake_attach(&eng, "mremap.calls", 0, false);
	snap.counters.v[PTS_C_MREMAP_CALLS + PTS_MREMAP_PMD] = 5;
	snap.counters.v[PTS_C_MREMAP_OLD_BYTES + PTS_MREMAP_PMD] = 80 << 20;
	snap.counters.v[PTS_C_MREMAP_NEW_BYTES + PTS_MREMAP_FAILED] = 4096;
	text = render();
	assert_line(text, "# TYPE ptscope_mremap_calls_total counter");
	assert_line(text, "ptscope_mremap_calls_total{class=\"pmd\"} 5");
	assert_line(text, "ptscope_mremap_calls_total{class=\"in_place\"} 0");
	assert_line(text, "ptscope_mremap_bytes_total{class=\"pmd\"} 83886080");
	assert_line(text, "ptscope_mremap_new_bytes_total{class=\"failed\"} 4096");
	assert_line(text, "# TYPE ptscope_mremap_duration_seconds histogram");
	assert_line(text, "ptscope_probe_attached{metric=\"mremap.calls\","
		    "path=\"fentry\",status=\"exact\"} 1");
	assert_absent(text, "ptscope_move_page_tables_");
	assert_absent(text, "ptscope_hugepage_");
}

static void test_levels_pte_counts(void **state)
{
	const char *text;

	attach_all(true, true);
	snap.counters.v[PTS_C_LV_PMD_MOVED] = 8;
	snap.counters.v[PTS_C_LV_HPMD_FALLBACK] = 2;
	snap.counters.v[PTS_C_LV_PTES] = 512;
	text = render();
	assert_line(text, "ptscope_pagetable_entries_moved_total{level=\"pmd\"} 8");
	assert_line(text, "ptscope_pagetable_entries_moved_total{level=\"pud\"} 0");
	assert_line(text, "ptscope_pagetable_fallbacks_total{level=\"huge_pmd\"} 2");
	assert_line(text, "ptscope_pte_extents_total 0");
	assert_line(text, "ptscope_ptes_moved_total 512");
	assert_line(text, "ptscope_move_page_tables_calls_total 0");
	assert_line(text, "# TYPE ptscope_move_page_tables_duration_seconds "
		    "histogram");
}

static void test_levels_without_pte_marker(void **state)
{
	const char *text;

	attach_all(false, true);
	snap.counters.v[PTS_C_LV_PTES] = 512;
	text = render();
	assert_line(text, "ptscope_pte_extents_total 0");
	assert_absent(text, "ptscope_ptes_moved_total");
}

/*
 * export --parts: what a left-out part counts is absent, never 0; the
 * levels of the PTE-table marker's path go with its scan
 */
static void test_parts_left_out(void **state)
{
	const char *text;

	attach_all(true, true);
	snap.counters.v[PTS_C_MREMAP_CALLS + PTS_MREMAP_PMD] = 5;
	parts_off = PTS_PART_HISTS | PTS_PART_PTE_MARKER;
	text = render();
	assert_line(text, "ptscope_mremap_calls_total{class=\"pmd\"} 5");
	assert_line(text, "ptscope_move_page_tables_calls_total 0");
	assert_absent(text, "histogram");
	assert_absent(text, "_bucket");
	assert_absent(text, "ptscope_pagetable_");
	assert_absent(text, "ptscope_ptes_moved_total");
	parts_off = PTS_PART_COUNTS;
	text = render();
	assert_absent(text, "ptscope_mremap_calls_total");
	assert_line(text, "# TYPE ptscope_mremap_duration_seconds histogram");
}

static void test_faults_function_path(void **state)
{
	const char *text;

	attach_all(true, true);
	snap.counters.v[PTS_C_FAULT_ALLOC + 4] = 3;
	snap.counters.v[PTS_C_FAULT_ALLOC + 2] = 1;	/* 16K: shown once seen */
	snap.counters.v[PTS_C_FAULT_FALLBACK_CHARGE + 9] = 6;
	text = render();
	assert_line(text, "ptscope_hugepage_fault_allocs_total{size=\"64K\","
		    "order=\"4\"} 3");
	assert_line(text, "ptscope_hugepage_fault_allocs_total{size=\"16K\","
		    "order=\"2\"} 1");
	assert_line(text, "ptscope_hugepage_fault_allocs_total{size=\"2M\","
		    "order=\"9\"} 0");
	assert_line(text, "ptscope_hugepage_fault_allocs_total{size=\"4K\","
		    "order=\"0\"} 0");
	assert_absent(text, "order=\"3\"");
	assert_line(text, "ptscope_hugepage_fault_fallback_charges_total{"
		    "size=\"2M\",order=\"9\"} 6");
	assert_line(text, "ptscope_hugepage_fault_duration_seconds_count{"
		    "size=\"64K\",order=\"4\"} 0");
	assert_line(text, "ptscope_huge_zero_page_faults_total 0");
}

static void test_faults_tracepoint_path(void **state)
{
	const char *text;

	attach_all(true, false);
	snap.counters.v[PTS_C_FAULT_FALLBACK + 9] = 2;
	text = render();
	assert_line(text, "ptscope_hugepage_fault_fallbacks_total{size=\"2M\","
		    "order=\"9\"} 2");
	assert_absent(text, "order=\"0\"");
	/* a folio freed by its thread before being mapped: charge refused */
	assert_line(text, "ptscope_hugepage_fault_fallback_charges_total{"
		    "size=\"2M\",order=\"9\"} 0");
	assert_absent(text, "ptscope_hugepage_fault_duration_seconds");
	assert_absent(text, "ptscope_huge_zero_page_faults_total");
	assert_line(text, "ptscope_probe_attached{metric=\"thp.fault_alloc\","
		    "path=\"tracepoint\",status=\"inferred\"} 1");
}

/* one series per size compared: 0 where a count was above the kernel's */
static void test_selfcheck(void **state)
{
	struct selfcheck sc = {
		.compared = 9,
		.nr = 1,
		.orders_compared = (1U << 4) | (1U << 9),
		.orders_above = 1U << 9,
	};
	const char *text;

	selfcheck = &sc;
	text = render();
	assert_line(text, "# TYPE ptscope_hugepage_fault_selfcheck gauge");
	assert_line(text, "ptscope_hugepage_fault_selfcheck{size=\"64K\","
		    "order=\"4\"} 1");
	assert_line(text, "ptscope_hugepage_fault_selfcheck{size=\"2M\","
		    "order=\"9\"} 0");
	assert_absent(text, "order=\"5\"} ");
}

/* no self-check: absent, not "agrees", and a comment says why */
static void test_selfcheck_off(void **state)
{
	const char *text;

	selfcheck_off = "thp.fault_alloc is not attached";
	text = render();
	assert_line(text, "# ptscope_hugepage_fault_selfcheck left out: "
		    "thp.fault_alloc is not attached");
	assert_absent(text, "ptscope_hugepage_fault_selfcheck{");
}

static void test_collapse_results(void **state)
{
	const char *text;

	fake_attach(&eng, "thp.collapse", 0, false);
	snap.counters.v[PTS_C_COLLAPSE + 3] = 2;
	snap.counters.v[PTS_C_COLLAPSE + 5] = 1;
	text = render();
	/* SCAN_SUCCEED even at 0; others once seen; unknown names by number */
	assert_line(text, "ptscope_khugepaged_collapse_total{result=\"SCAN_SUCCEED\"} 0");
	assert_line(text, "ptscope_khugepaged_collapse_total{"
		    "result=\"SCAN_\\\"ODD\\\\NAME\"} 2");
	assert_line(text, "ptscope_khugepaged_collapse_total{result=\"status_5\"} 1");
	assert_absent(text, "status_0");
}

static void test_program_stats(void **state)
{
	struct prom_prog progs[2] = {
		{ .name = "mremap_tp_enter", .run_time_ns = 1500000000ULL,
		  .run_cnt = 42 },
		{ .name = "odd\"name", .run_time_ns = 7, .run_cnt = 1 },
	};
	const char *text = render_with(progs, 2);

	assert_line(text, "# TYPE ptscope_bpf_program_run_seconds_total counter");
	assert_line(text, "ptscope_bpf_program_run_seconds_total{program="
		    "\"mremap_tp_enter\"} 1.5");
	assert_line(text, "ptscope_bpf_program_runs_total{program="
		    "\"mremap_tp_enter\"} 42");
	assert_line(text, "ptscope_bpf_program_run_seconds_total{program="
		    "\"odd\\\"name\"} 0.000000007");
}

/* stats off: the series are absent, not zero, and a comment says why */
static void test_program_stats_off(void **state)
{
	const char *text = render_stats(NULL, 2, "off; --bpf-stats turns "
					"them on");

	assert_line(text, "# ptscope_bpf_program_run_seconds_total and "
		    "ptscope_bpf_program_runs_total left out: off; "
		    "--bpf-stats turns them on");
	assert_absent(text, "\nptscope_bpf_program_");
	assert_absent(text, "# TYPE ptscope_bpf_program_");
}

static const char *family_of(const char *name, char *buf, size_t len,
			     const char *text)
{
	static const char *const suffixes[] = { "_bucket", "_sum", "_count" };
	char type_line[256];
	size_t i, n = strlen(name);

	snprintf(buf, len, "%s", name);
	for (i = 0; i < 3; i++) {
		size_t sl = strlen(suffixes[i]);

		if (n > sl && !strcmp(name + n - sl, suffixes[i])) {
			snprintf(type_line, sizeof(type_line), "# TYPE %.*s histogram",
				 (int)(n - sl), name);
			if (has_line(text, type_line)) {
				buf[n - sl] = '\0';
				break;
			}
		}
	}
	return buf;
}

static int count_type_lines(const char *text, const char *name)
{
	char type_line[160];
	const char *p = text;
	int n = 0;

	snprintf(type_line, sizeof(type_line), "# TYPE %s ", name);
	while ((p = strstr(p, type_line))) {
		n++;
		p++;
	}
	return n;
}

/* each sample follows a HELP and a TYPE of its family, each given once */
static void test_well_formed(void **state)
{
	char *copy, *line, *save, name[128], family[128], current[128] = "";
	const char *text;
	int types = 0;

	attach_all(true, true);
	text = render();
	assert_true(page_len > 4096);
	assert_int_equal(text[page_len - 1], '\n');
	copy = strdup(text);
	assert_non_null(copy);
	for (line = strtok_r(copy, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(line, "# HELP ", 7))
			continue;
		if (!strncmp(line, "# TYPE ", 7)) {
			char type_name[128];

			sscanf(line + 7, "%127s", type_name);
			assert_int_equal(count_type_lines(text, type_name), 1);
			strcpy(current, type_name);
			types++;
			continue;
		}
		assert_true(line[0] != '#' && line[0] != ' ');
		sscanf(line, "%127[^{ ]", name);
		family_of(name, family, sizeof(family), text);
		if (strcmp(family, current))
			fail_msg("sample '%s' outside its family (in %s)", line,
				 current);
	}
	free(copy);
	assert_true(types > 10);
}

/* namespace, pod and container of a cgroup that is no pod's */
#define NOPOD	"namespace=\"\",pod=\"\",container=\"\""

/*
 * Per cgroup: ptscope_cgroup_* for the busiest, "other" for the rest
 * (always there, 0 when nothing is folded), paths escaped, an unknown
 * path as its id, a pod's cgroup with its names, the removed cgroups'
 * row as cgroup="removed" (never ranked, never folded), the limits as
 * gauges; nothing with limit 0 or without per-cgroup rows, and a level
 * family only where levels are attached.
 */
static void test_cgroup_labels(void **state)
{
	static const struct pts_kube_id pod = {
		.names = { .ns = "shop", .pod = "cart-1", .container = "app" },
		.named = true,
	};
	struct pts_cgroup_entry rows[5] = {
		{ .id = PTS_CGROUP_REMOVED_ID },
		{ .id = 7, .path = "/a\"b" },
		{ .id = 8, .path = NULL },
		{ .id = 9, .path = "/quiet" },
		{ .id = 10, .path = "/kubepods/pod1/c1", .kube = &pod },
	};
	const char *text;

	attach_all(true, false);
	rows[0].stats.v[PTS_CG_MREMAP_CALLS + PTS_MREMAP_PMD] = 100;
	rows[1].stats.v[PTS_CG_MREMAP_CALLS + PTS_MREMAP_PMD] = 3;
	rows[1].stats.v[PTS_CG_LV_PMD_MOVED] = 24;
	rows[2].stats.v[PTS_CG_MREMAP_CALLS + PTS_MREMAP_PMD] = 5;
	rows[2].stats.v[PTS_CG_LV_PMD_MOVED] = 40;
	rows[3].stats.v[PTS_CG_FAULT_ALLOC + 9] = 1;
	rows[4].stats.v[PTS_CG_MREMAP_CALLS + PTS_MREMAP_PMD] = 4;
	snap.counters.v[PTS_C_MREMAP_CALLS + PTS_MREMAP_PMD] = 112;
	snap.counters.v[PTS_C_LV_PMD_MOVED] = 64;
	snap.counters.v[PTS_C_FAULT_ALLOC + 9] = 1;
	snap.cgroups = rows;
	snap.nr_cgroups = 5;
	text = render();
	assert_absent(text, "ptscope_cgroup_");
	cgroup_limit = 2;
	snap.has_cgroups = false;
	assert_absent(render(), "ptscope_cgroup_");
	snap.has_cgroups = true;
	text = render();
	assert_line(text, "# TYPE ptscope_cgroup_mremap_calls_total counter");
	assert_line(text, "ptscope_cgroup_mremap_calls_total{cgroup=\"id:8\","
		    NOPOD ",class=\"pmd\"} 5");
	assert_line(text, "ptscope_cgroup_mremap_calls_total{cgroup="
		    "\"/kubepods/pod1/c1\",namespace=\"shop\",pod=\"cart-1\","
		    "container=\"app\",class=\"pmd\"} 4");
	assert_line(text, "ptscope_cgroup_mremap_calls_total{cgroup=\"other\","
		    NOPOD ",class=\"pmd\"} 3");
	assert_line(text, "ptscope_cgroup_mremap_calls_total{cgroup="
		    "\"removed\"," NOPOD ",class=\"pmd\"} 100");
	assert_line(text, "ptscope_cgroup_pagetable_entries_moved_total{"
		    "cgroup=\"id:8\"," NOPOD ",level=\"pmd\"} 40");
	assert_line(text, "ptscope_cgroup_hugepage_fault_allocs_total{"
		    "cgroup=\"other\"," NOPOD ",size=\"2M\",order=\"9\"} 1");
	assert_absent(text, "cgroup=\"/quiet\"");
	assert_absent(text, "cgroup=\"/a\\\"b\"");
	/* histograms and fields the rows do not keep have no such family */
	assert_absent(text, "ptscope_cgroup_mremap_duration_seconds");
	assert_absent(text, "ptscope_cgroup_move_page_tables");
	assert_absent(text, "ptscope_cgroup_mremap_dontunmap");
	assert_line(text, "ptscope_cgroup_labels_limit 2");
	assert_line(text, "ptscope_cgroup_labels_folded 2");
	assert_line(text, "ptscope_cgroup_rows 5");
	/* no levels attached: no level family per cgroup either */
	engine_init(&eng, PTS_MODE_AUTO, false);
	fake_attach(&eng, "mremap.calls", 0, false);
	text = render();
	assert_absent(text, "ptscope_cgroup_pagetable_");
	assert_absent(text, "ptscope_cgroup_hugepage_");
	assert_line(text, "ptscope_cgroup_mremap_calls_total{cgroup=\"other\","
		    NOPOD ",class=\"pmd\"} 3");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_escaping),
		cmocka_unit_test_setup_teardown(test_bucket_bounds, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bucket_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_count_matches_inf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cumulative, setup, teardown),
		cmocka_unit_test_setup_teardown(test_absent_when_unavailable,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_mremap_only, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels_pte_counts, setup, teardown),
		cmocka_unit_test_setup_teardown(test_levels_without_pte_marker,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_parts_left_out, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_faults_function_path,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_faults_tracepoint_path,
						setup, teardown),
		cmocka_unit_test_setup_teardown(test_collapse_results, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selfcheck, setup, teardown),
		cmocka_unit_test_setup_teardown(test_selfcheck_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_program_stats_off, setup,
						teardown),
		cmocka_unit_test_setup_teardown(test_program_stats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_well_formed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_labels, setup,
						teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
