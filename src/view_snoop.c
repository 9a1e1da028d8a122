// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope snoop: one line per event from the ring buffer, like
 * execsnoop/biosnoop: each mremap with its class, latency and (where the
 * level markers attach) its page-table moves; each hugepage fault with the
 * folio order it mapped.  The counters never depend on this path; events
 * the ring buffer had no room for are counted and reported.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "collector.h"
#include "format.h"
#include "report.h"
#include "session.h"
#include "views.h"

struct snoop_ctx {
	FILE *out;
	bool json;
	uint64_t page_size;
	uint64_t events;
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* wall-clock time of a bpf_ktime_get_ns() (CLOCK_MONOTONIC) stamp */
static void event_time(char *buf, size_t len, uint64_t ts_ns)
{
	uint64_t real = clock_ns(CLOCK_REALTIME) -
			(clock_ns(CLOCK_MONOTONIC) - ts_ns);
	time_t secs = real / 1000000000ULL;
	struct tm tm;

	localtime_r(&secs, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%03llu", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, (unsigned long long)(real % 1000000000ULL) / 1000000);
}

static json_object *mremap_event_json(const struct pts_event *ev)
{
	json_object *o = json_object_new_object(), *lv;

	json_object_object_add(o, "addr", json_object_new_uint64(ev->mremap.addr));
	json_object_object_add(o, "old_len", json_object_new_uint64(ev->mremap.old_len));
	json_object_object_add(o, "new_len", json_object_new_uint64(ev->mremap.new_len));
	json_object_object_add(o, "flags", json_object_new_uint64(ev->mremap.flags));
	json_object_object_add(o, "result", json_object_new_int64(ev->mremap.result));
	json_object_object_add(o, "class",
			       json_object_new_string(mremap_class_name(ev->mremap.class)));
	if (!ev->mremap.has_levels)
		return o;
	lv = json_object_new_object();
	json_object_object_add(lv, "pud", json_object_new_int(ev->mremap.levels.pud));
	json_object_object_add(lv, "pmd", json_object_new_int(ev->mremap.levels.pmd));
	json_object_object_add(lv, "huge_pmd",
			       json_object_new_int(ev->mremap.levels.huge_pmd));
	json_object_object_add(lv, "fallbacks",
			       json_object_new_int(ev->mremap.levels.fallbacks));
	json_object_object_add(lv, "pte_extents",
			       json_object_new_int(ev->mremap.levels.pte_extents));
	/* before 6.5 nothing out of line sees the PTE table: no count */
	if (ev->mremap.has_levels != PTS_LEVELS_MARKERS_NO_PTES)
		json_object_object_add(lv, "ptes",
				       json_object_new_uint64(ev->mremap.levels.ptes));
	json_object_object_add(lv, "pte_bytes",
			       json_object_new_uint64(ev->mremap.levels.pte_bytes));
	/* no tracepoint sees a step with nothing to move */
	if (ev->mremap.has_levels != PTS_LEVELS_TPS)
		json_object_object_add(lv, "empty",
				       json_object_new_int(ev->mremap.levels.empty));
	json_object_object_add(o, "levels", lv);
	return o;
}

static const char *fault_result_name(unsigned int result)
{
	switch (result) {
	case PTS_FAULT_RES_ALLOC:
		return "alloc";
	case PTS_FAULT_RES_FALLBACK:
		return "fallback";
	case PTS_FAULT_RES_ZERO_PAGE:
		return "zero_page";
	}
	return "?";
}

static json_object *fault_event_json(const struct pts_event *ev,
				     uint64_t page_size)
{
	json_object *o = json_object_new_object();
	char size[16];

	json_object_object_add(o, "order", json_object_new_int(ev->fault.order));
	json_object_object_add(o, "size", json_object_new_string(
		fmt_order_size(size, sizeof(size), ev->fault.order, page_size)));
	json_object_object_add(o, "result", json_object_new_string(
		fault_result_name(ev->fault.result)));
	json_object_object_add(o, "fallbacks", json_object_new_int(ev->fault.fallbacks));
	json_object_object_add(o, "charge_fallbacks",
			       json_object_new_int(ev->fault.charge_fallbacks));
	return o;
}

static void print_json(struct snoop_ctx *sc, const struct pts_event *ev)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "type", json_object_new_string(
		ev->type == PTS_EV_MREMAP ? "mremap" : "fault"));
	json_object_object_add(o, "ts_ns", json_object_new_uint64(ev->ts_ns));
	json_object_object_add(o, "pid", json_object_new_int(ev->tgid));
	json_object_object_add(o, "tid", json_object_new_int(ev->tid));
	json_object_object_add(o, "comm", json_object_new_string(ev->comm));
	if (ev->latency_ns)
		json_object_object_add(o, "latency_ns",
				       json_object_new_uint64(ev->latency_ns));
	json_object_object_add(o, ev->type == PTS_EV_MREMAP ? "mremap" : "fault",
			       ev->type == PTS_EV_MREMAP ? mremap_event_json(ev) :
			       fault_event_json(ev, sc->page_size));
	fprintf(sc->out, "%s\n", json_object_to_json_string_ext(o,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
}

static void print_mremap(struct snoop_ctx *sc, const struct pts_event *ev)
{
	const struct pts_ev_levels *lv = &ev->mremap.levels;
	char old_len[32], new_len[32];

	fprintf(sc->out, "mremap 0x%llx %s -> %s ",
		(unsigned long long)ev->mremap.addr,
		fmt_bytes(old_len, sizeof(old_len), ev->mremap.old_len),
		fmt_bytes(new_len, sizeof(new_len), ev->mremap.new_len));
	if (ev->mremap.result < 0 && ev->mremap.result >= -4095)
		fprintf(sc->out, "= %s", strerror((int)-ev->mremap.result));
	else
		fprintf(sc->out, "= 0x%llx", (unsigned long long)ev->mremap.result);
	fprintf(sc->out, " class=%s", mremap_class_name(ev->mremap.class));
	if (!ev->mremap.has_levels)
		return;
	fprintf(sc->out, " pud=%u pmd=%u hpmd=%u fallback=%u pte_ext=%u",
		lv->pud, lv->pmd, lv->huge_pmd, lv->fallbacks, lv->pte_extents);
	if (ev->mremap.has_levels != PTS_LEVELS_MARKERS_NO_PTES)
		fprintf(sc->out, " ptes=%llu", (unsigned long long)lv->ptes);
	if (ev->mremap.has_levels != PTS_LEVELS_TPS)
		fprintf(sc->out, " empty=%u", lv->empty);
}

static void print_fault(struct snoop_ctx *sc, const struct pts_event *ev)
{
	char size[16];

	fprintf(sc->out, "fault  %s order=%d %s",
		fmt_order_size(size, sizeof(size), ev->fault.order, sc->page_size),
		ev->fault.order, fault_result_name(ev->fault.result));
	if (ev->fault.fallbacks || ev->fault.charge_fallbacks)
		fprintf(sc->out, " after %u fallbacks (%u on memcg charge)",
			ev->fault.fallbacks, ev->fault.charge_fallbacks);
}

static int handle_event(void *ctx, void *data, size_t len)
{
	struct snoop_ctx *sc = ctx;
	const struct pts_event *ev = data;
	char when[32], lat[32];

	if (len < sizeof(*ev))
		return 0;
	sc->events++;
	if (sc->json) {
		print_json(sc, ev);
		return 0;
	}
	event_time(when, sizeof(when), ev->ts_ns);
	fprintf(sc->out, "%-12s %-16s %7u %9s  ", when, ev->comm, ev->tgid,
		ev->latency_ns ? fmt_ns(lat, sizeof(lat), ev->latency_ns) : "-");
	if (ev->type == PTS_EV_MREMAP)
		print_mremap(sc, ev);
	else
		print_fault(sc, ev);
	fputc('\n', sc->out);
	return 0;
}

static void header(struct snoop_ctx *sc, struct pts_session *s)
{
	if (sc->json)
		return;
	report_metric_line(stderr, &s->rep);
	fprintf(sc->out, "%-12s %-16s %7s %9s  %s\n", "TIME", "COMM", "PID",
		"LAT", "EVENT");
}

int view_snoop(const struct pts_options *opts)
{
	struct snoop_ctx sc = { .out = stdout, .json = opts->json };
	struct pts_snapshot snap;
	struct ring_buffer *rb = NULL;
	struct pts_session s;
	double start;
	int ret, err;

	ret = session_start(&s, opts, false);
	if (ret)
		return ret;
	sc.page_size = s.rep.page_size;
	if (opts->output && !(sc.out = fopen(opts->output, "w"))) {
		fprintf(stderr, "ptscope: -o %s: %s\n", opts->output, strerror(errno));
		ret = 1;
		goto cleanup;
	}
	rb = ring_buffer__new(s.eng.objs.events_fd, handle_event, &sc, NULL);
	if (!rb) {
		fprintf(stderr, "ptscope: cannot open the event ring buffer: %s\n",
			strerror(errno));
		ret = 1;
		goto cleanup;
	}
	header(&sc, &s);
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop\n");
	start = mono_seconds();
	while (!pts_stop_requested) {
		err = ring_buffer__poll(rb, 100);
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "ptscope: polling events: %s\n", strerror(-err));
			ret = 1;
			break;
		}
		fflush(sc.out);
		if (opts->duration_s &&
		    mono_seconds() - start >= opts->duration_s)
			break;
	}
	ring_buffer__consume(rb);
	if (!collector_read(&s.eng.objs, &snap)) {
		fprintf(stderr, "ptscope: %llu events, %llu dropped (ring buffer full)\n",
			(unsigned long long)sc.events,
			(unsigned long long)snap.counters.v[PTS_C_DROP_RINGBUF]);
		snapshot_free(&snap);
	}
cleanup:
	ring_buffer__free(rb);
	if (sc.out && sc.out != stdout)
		fclose(sc.out);
	session_stop(&s);
	return ret;
}
