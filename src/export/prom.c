// SPDX-License-Identifier: GPL-2.0
/*
 * The /metrics page of "ptscope export" in the Prometheus text format
 * 0.0.4.  Counters are the cumulative values of the BPF maps (never
 * reset); a metric that is not attached on this kernel is left out
 * entirely, never exported as 0.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "data/format.h"
#include "data/hist.h"
#include "export/prom.h"
#include "views/report.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define NS_PER_SEC 1000000000ULL

struct prom_label {
	const char *name;
	const char *value;
};

void prom_buf_init(struct prom_buf *b)
{
	memset(b, 0, sizeof(*b));
}

void prom_buf_free(struct prom_buf *b)
{
	free(b->data);
	prom_buf_init(b);
}

static int buf_reserve(struct prom_buf *b, size_t more)
{
	size_t cap = b->cap ? b->cap : 4096;
	char *data;

	if (b->err)
		return b->err;
	if (b->len + more + 1 <= b->cap)
		return 0;
	while (cap < b->len + more + 1)
		cap *= 2;
	data = realloc(b->data, cap);
	if (!data) {
		b->err = -ENOMEM;
		return b->err;
	}
	b->data = data;
	b->data[b->len] = '\0';
	b->cap = cap;
	return 0;
}

void prom_buf_printf(struct prom_buf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || buf_reserve(b, (size_t)n))
		return;
	va_start(ap, fmt);
	vsnprintf(b->data + b->len, b->cap - b->len, fmt, ap);
	va_end(ap);
	b->len += (size_t)n;
}

static void buf_putc(struct prom_buf *b, char c)
{
	if (buf_reserve(b, 1))
		return;
	b->data[b->len++] = c;
	b->data[b->len] = '\0';
}

static void put_escaped(struct prom_buf *b, const char *s, bool quotes)
{
	for (; *s; s++) {
		if (*s == '\\') {
			buf_putc(b, '\\');
			buf_putc(b, '\\');
		} else if (*s == '\n') {
			buf_putc(b, '\\');
			buf_putc(b, 'n');
		} else if (*s == '"' && quotes) {
			buf_putc(b, '\\');
			buf_putc(b, '"');
		} else {
			buf_putc(b, *s);
		}
	}
}

void prom_put_label_value(struct prom_buf *b, const char *value)
{
	put_escaped(b, value, true);
}

void prom_put_help_text(struct prom_buf *b, const char *text)
{
	put_escaped(b, text, false);
}

/* exact decimal, trailing zeros dropped: 2047 -> "0.000002047", 1e9 -> "1" */
static const char *fmt_seconds(char *buf, size_t len, uint64_t ns)
{
	size_t end;

	snprintf(buf, len, "%llu.%09llu", (unsigned long long)(ns / NS_PER_SEC),
		 (unsigned long long)(ns % NS_PER_SEC));
	end = strlen(buf);
	while (buf[end - 1] == '0')
		buf[--end] = '\0';
	if (buf[end - 1] == '.')
		buf[end - 1] = '\0';
	return buf;
}

void prom_put_seconds(struct prom_buf *b, uint64_t ns)
{
	char s[32];

	prom_buf_printf(b, "%s", fmt_seconds(s, sizeof(s), ns));
}

static void put_family(struct prom_buf *b, const char *name, const char *type,
		       const char *help)
{
	prom_buf_printf(b, "# HELP %s ", name);
	prom_put_help_text(b, help);
	prom_buf_printf(b, "\n# TYPE %s %s\n", name, type);
}

/* name+suffix{labels,le="..."} without the value */
static void put_series(struct prom_buf *b, const char *name, const char *suffix,
		       const struct prom_label *labels, int nr, const char *le)
{
	int i;

	prom_buf_printf(b, "%s%s", name, suffix);
	if (!nr && !le)
		return;
	buf_putc(b, '{');
	for (i = 0; i < nr; i++) {
		prom_buf_printf(b, "%s%s=\"", i ? "," : "", labels[i].name);
		prom_put_label_value(b, labels[i].value);
		buf_putc(b, '"');
	}
	if (le)
		prom_buf_printf(b, "%sle=\"%s\"", nr ? "," : "", le);
	buf_putc(b, '}');
}

static void put_u64(struct prom_buf *b, const char *name,
		    const struct prom_label *labels, int nr, uint64_t value)
{
	put_series(b, name, "", labels, nr, NULL);
	prom_buf_printf(b, " %llu\n", (unsigned long long)value);
}

static void put_seconds_sample(struct prom_buf *b, const char *name,
			       const char *suffix,
			       const struct prom_label *labels, int nr,
			       uint64_t ns)
{
	put_series(b, name, suffix, labels, nr, NULL);
	buf_putc(b, ' ');
	prom_put_seconds(b, ns);
	buf_putc(b, '\n');
}

/*
 * Cumulative buckets from the log2 slots.  "+Inf" and _count are the sum
 * of the slots, so they agree even if a BPF program was halfway through
 * an update when the map was read.
 */
static void put_histogram(struct prom_buf *b, const char *name,
			  const struct prom_label *labels, int nr,
			  const struct pts_hist *h)
{
	uint64_t cumulative = 0, total = 0;
	char le[32];
	int i;

	for (i = 0; i < PTS_HIST_SLOTS; i++)
		total += h->slots[i];
	for (i = 0; i <= PROM_HIST_LAST_SLOT; i++) {
		cumulative += h->slots[i];
		if (i < PROM_HIST_FIRST_SLOT)
			continue;
		put_series(b, name, "_bucket", labels, nr,
			   fmt_seconds(le, sizeof(le), hist_slot_high(i)));
		prom_buf_printf(b, " %llu\n", (unsigned long long)cumulative);
	}
	put_series(b, name, "_bucket", labels, nr, "+Inf");
	prom_buf_printf(b, " %llu\n", (unsigned long long)total);
	put_seconds_sample(b, name, "_sum", labels, nr, h->sum);
	put_series(b, name, "_count", labels, nr, NULL);
	prom_buf_printf(b, " %llu\n", (unsigned long long)total);
}

static uint64_t counter(const struct prom_input *in, int idx)
{
	return in->snap->counters.v[idx];
}

static bool attached(const struct prom_input *in, const char *metric)
{
	return engine_available(in->eng, metric);
}

/* PTE counts need the PTE-table marker of the levels metric */
static bool pte_counts(const struct prom_input *in)
{
	struct pts_report rep = { .eng = in->eng };

	return report_has_pte_counts(&rep);
}

/* batches and folio lookups: the patched tracepoints, not the markers */
static bool level_tps(const struct prom_input *in)
{
	struct pts_report rep = { .eng = in->eng };

	return report_has_level_tps(&rep);
}

/* charge fallbacks and latency need the fault path's functions */
static bool fault_funcs(const struct prom_input *in)
{
	struct pts_report rep = { .eng = in->eng };

	return report_has_fault_funcs(&rep);
}

/* fault latency needs the fault path's functions, not the tracepoint */
static bool fault_latency(const struct prom_input *in)
{
	struct pts_report rep = { .eng = in->eng };

	return report_has_fault_latency(&rep);
}

/* one counter per mremap class */
static void render_mremap_counter(const struct prom_input *in,
				  struct prom_buf *b, const char *name,
				  const char *help, int first)
{
	struct prom_label l = { "class", NULL };
	int c;

	put_family(b, name, "counter", help);
	for (c = 0; c < PTS_MREMAP_CLASSES; c++) {
		l.value = mremap_class_name(c);
		put_u64(b, name, &l, 1, counter(in, first + c));
	}
}

static void render_mremap(const struct prom_input *in, struct prom_buf *b)
{
	static const char *const hist = "ptscope_mremap_duration_seconds";
	struct prom_label l = { "class", NULL };
	int c;

	if (!attached(in, "mremap.calls"))
		return;
	render_mremap_counter(in, b, "ptscope_mremap_calls_total",
		"mremap calls by alignment class: pud or pmd (moves at that "
		"level were possible), pte (PTE level only), in_place (resized "
		"without moving), failed (returned an error).",
		PTS_C_MREMAP_CALLS);
	render_mremap_counter(in, b, "ptscope_mremap_bytes_total",
		"Bytes of the old mapping (old_len) of mremap calls by class.",
		PTS_C_MREMAP_OLD_BYTES);
	render_mremap_counter(in, b, "ptscope_mremap_new_bytes_total",
		"Bytes of the new mapping (new_len) of mremap calls by class.",
		PTS_C_MREMAP_NEW_BYTES);
	put_family(b, hist, "histogram",
		   "mremap syscall duration by class (log2 buckets).");
	for (c = 0; c < PTS_MREMAP_CLASSES; c++) {
		l.value = mremap_class_name(c);
		put_histogram(b, hist, &l, 1,
			      &in->snap->hists.h[PTS_H_MREMAP_NS + c]);
	}
}

struct plain_counter {
	const char *name;
	const char *help;
	int idx;
};

static void render_plain(const struct prom_input *in, struct prom_buf *b,
			 const struct plain_counter *pc, size_t nr)
{
	size_t i;

	for (i = 0; i < nr; i++) {
		put_family(b, pc[i].name, "counter", pc[i].help);
		put_u64(b, pc[i].name, NULL, 0, counter(in, pc[i].idx));
	}
}

static void render_mpt(const struct prom_input *in, struct prom_buf *b)
{
	static const struct plain_counter mpt[] = {
		{ "ptscope_move_page_tables_calls_total",
		  "move_page_tables() calls (mremap moves and exec stack "
		  "relocation).", PTS_C_MPT_CALLS },
		{ "ptscope_move_page_tables_requested_bytes_total",
		  "Bytes move_page_tables() was asked to move.",
		  PTS_C_MPT_BYTES_REQUESTED },
		{ "ptscope_move_page_tables_moved_bytes_total",
		  "Bytes move_page_tables() moved.", PTS_C_MPT_BYTES_MOVED },
		{ "ptscope_move_page_tables_partial_total",
		  "move_page_tables() calls that moved less than requested.",
		  PTS_C_MPT_PARTIAL },
		{ "ptscope_move_page_tables_stack_moves_total",
		  "move_page_tables() calls relocating an exec stack.",
		  PTS_C_MPT_STACK },
		{ "ptscope_move_page_tables_reverse_moves_total",
		  "move_page_tables() calls moving back after a partial move.",
		  PTS_C_MPT_REVERSE },
	};
	static const char *const hist =
		"ptscope_move_page_tables_duration_seconds";

	if (!attached(in, "mremap.move_page_tables"))
		return;
	render_plain(in, b, mpt, ARRAY_SIZE(mpt));
	put_family(b, hist, "histogram",
		   "move_page_tables() duration (log2 buckets).");
	put_histogram(b, hist, NULL, 0, &in->snap->hists.h[PTS_H_MPT_NS]);
}

static void render_level_pair(const struct prom_input *in, struct prom_buf *b,
			      const char *name, const char *help, bool moved)
{
	static const struct {
		const char *level;
		int moved;
		int fallback;
	} levels[] = {
		{ "pud", PTS_C_LV_PUD_MOVED, PTS_C_LV_PUD_FALLBACK },
		{ "pmd", PTS_C_LV_PMD_MOVED, PTS_C_LV_PMD_FALLBACK },
		{ "huge_pmd", PTS_C_LV_HPMD_MOVED, PTS_C_LV_HPMD_FALLBACK },
	};
	struct prom_label l = { "level", NULL };
	size_t i;

	put_family(b, name, "counter", help);
	for (i = 0; i < ARRAY_SIZE(levels); i++) {
		l.value = levels[i].level;
		put_u64(b, name, &l, 1, counter(in, moved ? levels[i].moved :
						       levels[i].fallback));
	}
}

static void render_levels(const struct prom_input *in, struct prom_buf *b)
{
	static const struct plain_counter extents[] = {
		{ "ptscope_pte_extents_total",
		  "PTE-level extents moved (move_ptes() calls).",
		  PTS_C_LV_PTE_EXTENTS },
		{ "ptscope_pte_extent_bytes_total",
		  "Bytes covered by the PTE-level extents.", PTS_C_LV_PTE_BYTES },
	};
	/* no tracepoint sees empty extents or THP splits: markers only */
	static const struct plain_counter marker_only[] = {
		{ "ptscope_pagetable_empty_extents_total",
		  "Extents with no page table to move.", PTS_C_LV_EMPTY },
		{ "ptscope_pagetable_thp_splits_total",
		  "Huge PMDs split inside move_page_tables().",
		  PTS_C_LV_SPLITS },
	};
	static const struct plain_counter ptes = {
		"ptscope_ptes_moved_total",
		"Present (non-none) PTEs in the PTE-level extents.", PTS_C_LV_PTES,
	};
	static const struct plain_counter batching[] = {
		{ "ptscope_pte_batches_total",
		  "Batches the PTE-level extents were moved in (patched "
		  "mremap:move_ptes).", PTS_C_LV_PTE_BATCHES },
		{ "ptscope_pte_batch_folio_lookups_total",
		  "Folio lookups move_ptes() made to find PTE batches (patched "
		  "mremap:move_ptes).", PTS_C_LV_FOLIO_LOOKUPS },
	};
	bool tps = level_tps(in);

	if (!attached(in, "mremap.levels"))
		return;
	render_level_pair(in, b, "ptscope_pagetable_entries_moved_total",
		"Page-table entries moved whole inside move_page_tables(): pud "
		"and pmd move a lower table, huge_pmd a huge page mapping.", true);
	render_level_pair(in, b, "ptscope_pagetable_fallbacks_total",
		"Moves possible at a level that went one level down instead.",
		false);
	render_plain(in, b, extents, ARRAY_SIZE(extents));
	if (!tps)
		render_plain(in, b, marker_only, ARRAY_SIZE(marker_only));
	if (pte_counts(in))
		render_plain(in, b, &ptes, 1);
	if (tps)
		render_plain(in, b, batching, ARRAY_SIZE(batching));
}

static void render_folio_lookups(const struct prom_input *in,
				 struct prom_buf *b)
{
	static const struct plain_counter calls = {
		"ptscope_vm_normal_folio_calls_total",
		"vm_normal_folio() (vmemmap) lookups inside move_page_tables().",
		PTS_C_VNF_CALLS,
	};
	static const char *const hist =
		"ptscope_vm_normal_folio_duration_seconds";

	if (!attached(in, "mremap.folio_lookups"))
		return;
	render_plain(in, b, &calls, 1);
	put_family(b, hist, "histogram",
		   "vm_normal_folio() duration inside move_page_tables() "
		   "(log2 buckets).");
	put_histogram(b, hist, NULL, 0, &in->snap->hists.h[PTS_H_VNF_NS]);
}

/* as in "stat": 64K and 2M always, other orders once seen, 0 with funcs */
static bool fault_order_shown(const struct prom_input *in,
			      unsigned int order, bool funcs)
{
	return counter(in, PTS_C_FAULT_ALLOC + order) ||
	       counter(in, PTS_C_FAULT_FALLBACK + order) ||
	       order == 4 || order == 9 || (funcs && order == 0);
}

static void render_fault_counter(const struct prom_input *in,
				 struct prom_buf *b, const char *name,
				 const char *help, int first, bool funcs)
{
	char size[16], order_s[8];
	struct prom_label l[2] = { { "size", size }, { "order", order_s } };
	unsigned int order;

	put_family(b, name, "counter", help);
	for (order = 0; order < PTS_MAX_ORDER; order++) {
		if (!fault_order_shown(in, order, funcs))
			continue;
		fmt_order_size(size, sizeof(size), order, in->page_size);
		snprintf(order_s, sizeof(order_s), "%u", order);
		put_u64(b, name, l, 2, counter(in, first + order));
	}
}

static void render_fault_hists(const struct prom_input *in, struct prom_buf *b)
{
	static const char *const hist = "ptscope_hugepage_fault_duration_seconds";
	char size[16], order_s[8];
	struct prom_label l[2] = { { "size", size }, { "order", order_s } };
	unsigned int order;

	put_family(b, hist, "histogram",
		   "Anonymous page fault duration by the order of the folio "
		   "it mapped (log2 buckets).");
	for (order = 0; order < PTS_MAX_ORDER; order++) {
		if (!fault_order_shown(in, order, true))
			continue;
		fmt_order_size(size, sizeof(size), order, in->page_size);
		snprintf(order_s, sizeof(order_s), "%u", order);
		put_histogram(b, hist, l, 2,
			      &in->snap->hists.h[PTS_H_FAULT_NS + order]);
	}
}

static void render_faults(const struct prom_input *in, struct prom_buf *b)
{
	static const struct plain_counter zero = {
		"ptscope_huge_zero_page_faults_total",
		"Read faults that mapped the huge zero page.",
		PTS_C_FAULT_ZERO_PAGE,
	};
	bool funcs;

	if (!attached(in, "thp.fault_alloc"))
		return;
	funcs = fault_funcs(in);
	render_fault_counter(in, b, "ptscope_hugepage_fault_allocs_total",
		"Anonymous hugepage (THP/mTHP) folios allocated at fault time "
		"by size.", PTS_C_FAULT_ALLOC, funcs);
	render_fault_counter(in, b, "ptscope_hugepage_fault_fallbacks_total",
		"Hugepage fault allocations that failed and fell back to a "
		"smaller size.", PTS_C_FAULT_FALLBACK, funcs);
	if (!funcs)
		return;
	render_fault_counter(in, b,
		"ptscope_hugepage_fault_fallback_charges_total",
		"Hugepage folios allocated but refused by the memory cgroup "
		"charge, then fallen back.", PTS_C_FAULT_FALLBACK_CHARGE, funcs);
	render_plain(in, b, &zero, 1);
	if (fault_latency(in))
		render_fault_hists(in, b);
}

static void render_collapse(const struct prom_input *in, struct prom_buf *b)
{
	static const char *const name = "ptscope_khugepaged_collapse_total";
	struct prom_label l = { "result", NULL };
	const char *result;
	char fallback[24];
	uint64_t n;
	int st;

	if (!attached(in, "thp.collapse"))
		return;
	put_family(b, name, "counter",
		   "khugepaged collapse attempts by result (enum scan_result), "
		   "system-wide.");
	for (st = 0; st < PTS_COLLAPSE_STATUSES; st++) {
		n = counter(in, PTS_C_COLLAPSE + st);
		result = in->collapse_name ?
			 in->collapse_name(in->name_ctx, st) : NULL;
		/* SCAN_SUCCEED always, so its rate is 0 rather than missing */
		if (!n && !(result && !strcmp(result, "SCAN_SUCCEED")))
			continue;
		if (!result) {
			snprintf(fallback, sizeof(fallback), "status_%d", st);
			result = fallback;
		}
		l.value = result;
		put_u64(b, name, &l, 1, n);
	}
}

static void render_probes(const struct prom_input *in, struct prom_buf *b)
{
	static const char *const name = "ptscope_probe_attached";
	const struct pts_candidate *c;
	const struct pts_choice *ch;
	struct prom_label l[3] = {
		{ "metric", NULL }, { "path", NULL }, { "status", NULL },
	};
	int i;

	put_family(b, name, "gauge",
		   "1 if the metric is attached, 0 if this kernel does not offer "
		   "it ('ptscope probe' says why).  path: how it is traced; "
		   "status: exact or inferred.");
	for (i = 0; i < in->eng->nr_choices; i++) {
		ch = &in->eng->choices[i];
		if (ch->metric->internal)
			continue;
		c = ch->chosen >= 0 ? &ch->metric->cands[ch->chosen] : NULL;
		l[0].value = ch->metric->name;
		l[1].value = c ? path_kind_name(c->kind) : "none";
		l[2].value = !c ? "unavailable" : c->exact ? "exact" : "inferred";
		put_u64(b, name, l, 3, c ? 1 : 0);
	}
}

static void render_drops(const struct prom_input *in, struct prom_buf *b)
{
	static const struct {
		const char *reason;
		int idx;
	} drops[] = {
		{ "inflight_map_full", PTS_C_DROP_START_MAP },
		{ "process_map_full", PTS_C_DROP_PROC_MAP },
		{ "traced_map_full", PTS_C_DROP_TRACED_MAP },
		{ "ringbuf_full", PTS_C_DROP_RINGBUF },
	};
	static const char *const name = "ptscope_events_dropped_total";
	struct prom_label l = { "reason", NULL };
	size_t i;

	put_family(b, name, "counter",
		   "Events ptscope could not count because a BPF map or the "
		   "ring buffer was full.");
	for (i = 0; i < ARRAY_SIZE(drops); i++) {
		l.value = drops[i].reason;
		put_u64(b, name, &l, 1, counter(in, drops[i].idx));
	}
}

static void render_progs(const struct prom_input *in, struct prom_buf *b)
{
	static const char *const secs = "ptscope_bpf_program_run_seconds_total";
	static const char *const runs = "ptscope_bpf_program_runs_total";
	struct prom_label l = { "program", NULL };
	size_t i;

	if (!in->progs)
		return;
	put_family(b, secs, "counter",
		   "Time spent running each ptscope BPF program since export "
		   "started (kernel BPF run-time statistics).");
	for (i = 0; i < in->nr_progs; i++) {
		l.value = in->progs[i].name;
		put_seconds_sample(b, secs, "", &l, 1, in->progs[i].run_time_ns);
	}
	put_family(b, runs, "counter",
		   "Runs of each ptscope BPF program since export started.");
	for (i = 0; i < in->nr_progs; i++) {
		l.value = in->progs[i].name;
		put_u64(b, runs, &l, 1, in->progs[i].run_cnt);
	}
}

int prom_render(const struct prom_input *in, struct prom_buf *out)
{
	render_mremap(in, out);
	render_mpt(in, out);
	render_levels(in, out);
	render_folio_lookups(in, out);
	render_faults(in, out);
	render_collapse(in, out);
	render_probes(in, out);
	render_drops(in, out);
	render_progs(in, out);
	buf_reserve(out, 0);	/* an empty page is still a string */
	return out->err;
}
