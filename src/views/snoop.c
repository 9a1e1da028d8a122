// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope snoop: one line per event from the ring buffer, like
 * execsnoop/biosnoop: each mremap with its class, latency and (where the
 * level markers attach) its page-table moves; each hugepage fault with the
 * folio order it mapped.  The counters never depend on this path; events
 * the ring buffer had no room for are counted and reported.
 */
#include <errno.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <bpf/libbpf.h>
#include "data/collector.h"
#include "data/format.h"
#include "render/report.h"
#include "tracer/tracer.h"
#include "views/signals.h"
#include "views/start.h"
#include "views/views.h"

/*
 * Each poll round formats its events into memory (@out, @buf), then
 * writes them to @fd without ever blocking for long: a reader that stalls
 * must not keep snoop from honouring -d or Ctrl-C.
 */
struct snoop_ctx {
	FILE *out;
	char *buf;
	size_t len;
	int fd;
	bool json;
	uint64_t page_size;
	uint64_t events;
	double deadline;	/* -d: mono_seconds() to stop at; 0: none */
	bool time_wall;		/* --time wall; else seconds since start_ns */
	uint64_t start_ns;	/* CLOCK_MONOTONIC when tracing began */
};

static uint64_t clock_ns(clockid_t clock)
{
	struct timespec ts;

	clock_gettime(clock, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The wall clock at a bpf_ktime_get_ns() stamp: that is CLOCK_MONOTONIC,
 * so the realtime clock now less the monotonic time elapsed since.
 */
static struct timespec event_wall(uint64_t ts_ns)
{
	uint64_t real = clock_ns(CLOCK_REALTIME) -
			(clock_ns(CLOCK_MONOTONIC) - ts_ns);
	struct timespec ts = {
		.tv_sec = real / 1000000000ULL,
		.tv_nsec = real % 1000000000ULL,
	};

	return ts;
}

/* the TIME column: local time of day, or seconds since tracing began */
static const char *event_time(char *buf, size_t len,
			      const struct snoop_ctx *sc, uint64_t ts_ns)
{
	struct timespec wall;

	if (sc->time_wall) {
		wall = event_wall(ts_ns);
		return fmt_time_local(buf, len, &wall);
	}
	/* an event of the attach itself can be stamped before start_ns */
	snprintf(buf, len, "%.6f", ts_ns > sc->start_ns ?
		 (double)(ts_ns - sc->start_ns) / 1e9 : 0.0);
	return buf;
}

/* the patched tracepoints count batches; the markers infer them from 6.17 */
static bool has_batches(const struct pts_event *ev)
{
	return ev->mremap.has_levels == PTS_LEVELS_TPS ||
	       ev->mremap.has_levels == PTS_LEVELS_MARKERS_BATCHES;
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
	if (has_batches(ev)) {
		json_object_object_add(lv, "pte_batches",
				       json_object_new_int64(ev->mremap.levels.pte_batches));
		json_object_object_add(lv, "folio_lookups",
				       json_object_new_int64(ev->mremap.levels.folio_lookups));
	}
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
	struct timespec wall = event_wall(ev->ts_ns);
	char stamp[40];

	json_object_object_add(o, "time", json_object_new_string(
		fmt_time_iso_utc(stamp, sizeof(stamp), &wall)));
	json_object_object_add(o, "type", json_object_new_string(
		ev->type == PTS_EV_MREMAP ? "mremap" : "fault"));
	json_object_object_add(o, "ts_ns", json_object_new_uint64(ev->ts_ns));
	json_object_object_add(o, "pid", json_object_new_int(ev->tgid));
	json_object_object_add(o, "tid", json_object_new_int(ev->tid));
	json_object_object_add(o, "comm", fmt_json_string(ev->comm));
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
	if (has_batches(ev))
		fprintf(sc->out, " batches=%u lookups=%u", lv->pte_batches,
			lv->folio_lookups);
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
	char when[32], lat[32], comm[FMT_COMM_LEN];

	if (len < sizeof(*ev))
		return 0;
	sc->events++;
	if (sc->json) {
		print_json(sc, ev);
		return 0;
	}
	fprintf(sc->out, "%-15s %-16s %7u %9s  ",
		event_time(when, sizeof(when), sc, ev->ts_ns),
		fmt_escape(comm, sizeof(comm), ev->comm), ev->tgid,
		ev->latency_ns ? fmt_ns(lat, sizeof(lat), ev->latency_ns) : "-");
	if (ev->type == PTS_EV_MREMAP)
		print_mremap(sc, ev);
	else
		print_fault(sc, ev);
	fputc('\n', sc->out);
	return 0;
}

static bool stopping(const struct snoop_ctx *sc)
{
	return pts_stop_requested ||
	       (sc->deadline && mono_seconds() >= sc->deadline);
}

/*
 * All of @buf to @fd in pieces of at most PIPE_BUF, each written only once
 * poll() says there is room, so write() does not block on a pipe.  Once
 * told to stop, what cannot be written at once is dropped: -EAGAIN.
 */
static int write_out(struct snoop_ctx *sc, const char *buf, size_t len)
{
	struct pollfd pfd = { .fd = sc->fd, .events = POLLOUT };
	size_t chunk;
	ssize_t n;
	int ready;

	/* a pipe whose reader left polls POLLERR: stop without an event */
	if (!len && poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLERR))
		return -EPIPE;
	while (len) {
		ready = poll(&pfd, 1, stopping(sc) ? 0 : 100);
		if (ready < 0 && errno != EINTR)
			return -errno;
		if (ready <= 0) {
			if (stopping(sc))
				return -EAGAIN;
			continue;
		}
		chunk = len < PIPE_BUF ? len : PIPE_BUF;
		n = write(sc->fd, buf, chunk);
		if (n < 0 && errno != EINTR && errno != EAGAIN)
			return -errno;
		if (n > 0) {
			buf += n;
			len -= n;
		}
	}
	return 0;
}

static int round_begin(struct snoop_ctx *sc)
{
	sc->out = open_memstream(&sc->buf, &sc->len);
	return sc->out ? 0 : -errno;
}

/* write the round's lines out; 0 or -errno (-EAGAIN: dropped) */
static int round_end(struct snoop_ctx *sc)
{
	int err;

	if (!sc->out)
		return 0;
	err = fclose(sc->out) ? -errno : 0;
	sc->out = NULL;
	if (!err)
		err = write_out(sc, sc->buf, sc->len);
	free(sc->buf);
	sc->buf = NULL;
	return err;
}

static void header(struct snoop_ctx *sc, struct pts_tracer *t)
{
	if (sc->json)
		return;
	report_metric_line(stderr, &t->rep);
	fprintf(sc->out, "%-15s %-16s %7s %9s  %s\n",
		sc->time_wall ? "TIME" : "TIME(s)", "COMM", "PID", "LAT",
		"EVENT");
}

/* the drop summary, and what became of the output; the exit code */
static int summary(struct snoop_ctx *sc, struct pts_tracer *t,
		   const char *path, int werr)
{
	struct pts_snapshot snap;

	if (!tracer_read_totals(t, &snap)) {
		fprintf(stderr, "ptscope: %llu events, %llu dropped (ring buffer full)\n",
			(unsigned long long)sc->events,
			(unsigned long long)snap.counters.v[PTS_C_DROP_RINGBUF]);
		snapshot_free(&snap);
	}
	if (werr == -EPIPE) {
		fprintf(stderr, "ptscope: the output was closed by its reader\n");
		return 0;
	}
	if (werr == -EAGAIN) {
		fprintf(stderr, "ptscope: the reader of the output stalled: the "
			"last events were not written\n");
		return 0;
	}
	if (werr) {
		fprintf(stderr, "ptscope: writing %s: %s\n",
			path ? path : "standard output", strerror(-werr));
		return 1;
	}
	return 0;
}

static int poll_loop(struct snoop_ctx *sc, struct ring_buffer *rb, int *werr)
{
	int err;

	while (!stopping(sc)) {
		*werr = round_begin(sc);
		if (*werr)
			return 0;
		err = ring_buffer__poll(rb, 100);
		*werr = round_end(sc);
		if (*werr)
			return 0;
		if (err < 0 && err != -EINTR) {
			fprintf(stderr, "ptscope: polling events: %s\n", strerror(-err));
			return 1;
		}
	}
	/* what the ring buffer still holds, if the output takes it now */
	*werr = round_begin(sc);
	if (!*werr) {
		ring_buffer__consume(rb);
		*werr = round_end(sc);
	}
	return 0;
}

int view_snoop(const struct pts_options *opts)
{
	struct snoop_ctx sc = {
		.fd = STDOUT_FILENO, .json = opts->json,
		.time_wall = opts->time_wall,
	};
	struct ring_buffer *rb = NULL;
	struct pts_tracer t;
	FILE *file = NULL;
	int ret, werr = 0;

	ret = view_tracer_start(&t, opts, false);
	if (ret)
		return ret;
	sc.start_ns = clock_ns(CLOCK_MONOTONIC);	/* attached: tracing */
	sc.page_size = t.rep.page_size;
	if (opts->output) {
		file = report_open(opts->output);
		if (!file) {
			ret = 1;
			goto cleanup;
		}
		sc.fd = fileno(file);
	}
	rb = tracer_events(&t, handle_event, &sc);
	if (!rb) {
		fprintf(stderr, "ptscope: cannot open the event ring buffer: %s\n",
			strerror(errno));
		ret = 1;
		goto cleanup;
	}
	werr = round_begin(&sc);
	if (!werr) {
		header(&sc, &t);
		werr = round_end(&sc);
	}
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop\n");
	if (opts->duration_s)
		sc.deadline = mono_seconds() + opts->duration_s;
	if (!werr)
		ret = poll_loop(&sc, rb, &werr);
	if (summary(&sc, &t, opts->output, werr))
		ret = 1;
cleanup:
	ring_buffer__free(rb);
	if (file && report_close(file, opts->output))
		ret = 1;
	tracer_stop(&t);
	return ret;
}
