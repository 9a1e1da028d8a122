// SPDX-License-Identifier: GPL-2.0
/*
 * ptscope top: totals and a per-process table every interval.  On a
 * terminal the screen is redrawn in place; otherwise plain blocks are
 * appended, like vmstat 1.  With --listen the same process serves
 * /metrics between refreshes, off the same maps (counters are never reset,
 * so the two views cannot disturb each other).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/ioctl.h>
#include "data/collector.h"
#include "export/exporter.h"
#include "export/privdrop.h"
#include "data/format.h"
#include "data/hist.h"
#include "data/schema.h"
#include "views/report.h"
#include "data/session.h"
#include "views/signals.h"
#include "views/start.h"
#include "views/views.h"

static enum pts_sort sort_key;
static const struct pts_options *top_opts;

static __u64 sort_value(const struct pts_proc_entry *e)
{
	const struct pts_proc *p = &e->stats;
	__u64 calls = proc_total_mremap(p);

	switch (sort_key) {
	case PTS_SORT_MREMAP:
		return calls;
	case PTS_SORT_FAULTS:
		return proc_total_faults(p);
	case PTS_SORT_LATENCY:
		return calls ? p->mremap_ns / calls : 0;
	case PTS_SORT_PID:
		return 0;
	case PTS_SORT_ACTIVITY:
		break;
	}
	return calls + proc_total_faults(p);
}

/* largest first, then by pid */
static int cmp_procs(const void *a, const void *b)
{
	const struct pts_proc_entry *pa = a, *pb = b;
	__u64 na = sort_value(pa), nb = sort_value(pb);

	if (na != nb)
		return na < nb ? 1 : -1;
	return (int)pa->tgid - (int)pb->tgid;
}

/* one character per log2 slot: " .:-=+*#%@" scaled to the fullest */
static void hist_line(FILE *out, const char *title, const struct pts_hist *h)
{
	static const char shades[] = " .:-=+*#%@";
	int low, top, i;
	uint64_t max;
	char lo[32], hi[32];

	hist_used_range(h, &low, &top, &max);
	if (top < 0) {
		fprintf(out, "%s: no samples\n", title);
		return;
	}
	fprintf(out, "%s: %s [", title,
		fmt_ns(lo, sizeof(lo), (double)hist_slot_low(low)));
	for (i = low; i <= top; i++)
		fputc(shades[h->slots[i] ? 1 + h->slots[i] * 8 / max : 0], out);
	fprintf(out, "] %s, mean %s\n",
		fmt_ns(hi, sizeof(hi), (double)hist_slot_high(top)),
		fmt_ns(lo, sizeof(lo), hist_mean(h)));
}

/* the sum over all rows of schema section @section */
static __u64 section_total(const char *section, const struct pts_snapshot *s)
{
	__u64 total = 0;
	size_t i;

	for (i = 0; i < pts_nr_fields; i++)
		if (!strcmp(pts_fields[i].section->key, section))
			total += schema_counter_total(&pts_fields[i], s);
	return total;
}

static void top_header(FILE *out, const struct pts_session *s,
		       const struct pts_snapshot *d)
{
	char stamp[32];
	time_t now = time(NULL);

	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	fprintf(out, "ptscope top - %s  kernel %s  interval %.1fs\n", stamp,
		s->kf.release, d->mono_s);
	report_metric_line(out, &s->rep);
}

/* mremap calls per class, 64 KiB and PMD-size faults, drops */
static void top_totals(FILE *out, const struct pts_snapshot *d,
		       uint64_t page_size)
{
	const struct pts_field *calls = schema_find("mremap", "calls");
	const struct pts_field *alloc = schema_find("hugepage_faults", "alloc");
	const struct pts_field *fallback = schema_find("hugepage_faults",
						       "fallback");
	unsigned int small = schema_order_64k(page_size);
	unsigned int pmd = schema_order_pmd(page_size);
	double secs = d->mono_s > 0 ? d->mono_s : 1;
	char small_s[16], pmd_s[16];
	unsigned int c;

	fprintf(out, "\nmremap/s %.1f:",
		schema_counter_total(calls, d) / secs);
	for (c = 0; c < schema_label_count(calls); c++)
		fprintf(out, " %s %llu", mremap_class_name(c),
			(unsigned long long)schema_counter(calls, d, c));
	fprintf(out, " | hugepage faults/s %.1f: %s %llu %s %llu fallback %llu "
		"| drops %llu\n", schema_counter_total(alloc, d) / secs,
		fmt_order_size(small_s, sizeof(small_s), small, page_size),
		(unsigned long long)schema_counter(alloc, d, small),
		fmt_order_size(pmd_s, sizeof(pmd_s), pmd, page_size),
		(unsigned long long)schema_counter(alloc, d, pmd),
		(unsigned long long)schema_counter_total(fallback, d),
		(unsigned long long)section_total("drops", d));
}

void top_sort(struct pts_snapshot *d, enum pts_sort key)
{
	sort_key = key;
	/* qsort(NULL, 0, ...) is undefined: an empty frame has no procs */
	if (d->nr_procs)
		qsort(d->procs, d->nr_procs, sizeof(*d->procs), cmp_procs);
}

/* per process: the 64 KiB and PMD sizes of this kernel's page size */
static void top_table(FILE *out, struct pts_snapshot *d, int rows,
		      uint64_t page_size)
{
	unsigned int small = schema_order_64k(page_size);
	unsigned int pmd = schema_order_pmd(page_size);
	char lat[32], comm[FMT_COMM_LEN], size[16], small_s[20], pmd_s[20];
	size_t i;

	snprintf(small_s, sizeof(small_s), "F-%s",
		 fmt_order_size(size, sizeof(size), small, page_size));
	snprintf(pmd_s, sizeof(pmd_s), "F-%s",
		 fmt_order_size(size, sizeof(size), pmd, page_size));
	top_sort(d, sort_key);
	fprintf(out, "\nmremap calls per alignment class (PUD/PMD/PTE/INPLACE), "
		"hugepage faults per size (F-*)");
	fprintf(out, "\n%7s %-16s %7s %5s %5s %6s %8s %9s %7s %7s %8s\n", "PID",
		"COMM", "MREMAP", "PUD", "PMD", "PTE", "INPLACE", "MEAN-LAT",
		small_s, pmd_s, "F-FALLBK");
	for (i = 0; i < d->nr_procs && (int)i < rows; i++) {
		const struct pts_proc *p = &d->procs[i].stats;
		__u64 calls = proc_total_mremap(p);
		__u64 fallback = 0;
		int o;

		if (!calls && !proc_total_faults(p))
			break;
		for (o = 0; o < PTS_MAX_ORDER; o++)
			fallback += p->fault_fallback[o];
		fprintf(out, "%7u %-16s %7llu %5llu %5llu %6llu %8llu %9s %7llu "
			"%7llu %8llu\n", d->procs[i].tgid,
			fmt_escape(comm, sizeof(comm), p->comm),
			(unsigned long long)calls,
			(unsigned long long)p->mremap_calls[PTS_MREMAP_PUD],
			(unsigned long long)p->mremap_calls[PTS_MREMAP_PMD],
			(unsigned long long)p->mremap_calls[PTS_MREMAP_PTE],
			(unsigned long long)p->mremap_calls[PTS_MREMAP_INPLACE],
			calls ? fmt_ns(lat, sizeof(lat),
				       (double)p->mremap_ns / calls) : "-",
			(unsigned long long)p->fault_alloc[small],
			(unsigned long long)p->fault_alloc[pmd],
			(unsigned long long)fallback);
	}
}

/* rows of the terminal, read every refresh so a resize takes effect */
static int terminal_rows(FILE *out)
{
	struct winsize ws;

	if (ioctl(fileno(out), TIOCGWINSZ, &ws) || !ws.ws_row)
		return 24;
	return ws.ws_row;
}

static void render_text(FILE *out, struct pts_session *s,
			struct pts_snapshot *d, int rows)
{
	struct pts_hist all = {};
	int c;

	for (c = 0; c < PTS_MREMAP_CLASSES; c++)
		hist_merge(&all, &d->hists.h[PTS_H_MREMAP_NS + c]);
	top_header(out, s, d);
	top_totals(out, d, s->rep.page_size);
	hist_line(out, "mremap latency", &all);
	top_table(out, d, rows, s->rep.page_size);
	report_cgroups_text(out, &s->rep, d, rows, true);
}

/* the errno of a failed write to @out since it was opened, else 0 */
static int out_error(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? errno : EIO;
	return 0;
}

/*
 * On a terminal: draw the frame off screen, then overwrite the old one
 * line by line (erase to end of each line and below), which does not
 * flicker the way clearing the screen first does.
 */
static int render(FILE *out, struct pts_session *s, struct pts_snapshot *d,
		   bool tty)
{
	int rows = top_opts->rows, fit;
	json_object *root;
	char *frame = NULL, *line, *save;
	size_t len = 0;
	FILE *mem;
	int err = 0;

	report_sort_cgroups(d, sort_key);
	if (top_opts->json) {
		root = report_snapshot_json(&s->rep, d);
		/* over a buffer's worth goes straight out: keep its errno */
		if (fprintf(out, "%s\n", json_object_to_json_string_ext(root,
				JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
			err = errno;
		json_object_put(root);
		return err ? err : out_error(out);
	}
	if (!tty) {
		render_text(out, s, d, rows);
		fputc('\n', out);
		return out_error(out);
	}
	fit = terminal_rows(out) - 10;	/* header, totals, histogram */
	if (d->has_cgroups)	/* two tables share what is left */
		fit = (fit - 3) / 2;
	if (fit < rows)
		rows = fit > 1 ? fit : 1;
	mem = open_memstream(&frame, &len);
	if (!mem)
		return 0;	/* no memory for this frame: skip it */
	render_text(mem, s, d, rows);
	fclose(mem);
	fputs("\033[H", out);
	for (line = strtok_r(frame, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(out, "%s\033[K\n", line);
	fputs("\033[J", out);
	free(frame);
	return out_error(out);
}

static void sleep_interval(double secs)
{
	struct timespec ts = {
		.tv_sec = (time_t)secs,
		.tv_nsec = (long)((secs - (time_t)secs) * 1e9),
	};

	/* a signal ends the sleep early; the loop checks the stop flag */
	nanosleep(&ts, NULL);
}

/* until the next refresh: sleep, or answer scrapes meanwhile */
static int wait_refresh(struct pts_exporter *ex, double next)
{
	double left = next - mono_seconds();

	if (ex)
		return exporter_serve(ex, next, &pts_stop_requested,
				      signals_hold());
	if (left > 0)
		sleep_interval(left);
	return 0;
}

/* *@werr: a write to @out failed (errno), the loop stopped there */
static int top_loop(struct pts_session *s, struct pts_exporter *ex, FILE *out,
		    int *werr)
{
	const struct pts_options *opts = top_opts;
	struct pts_snapshot prev, now, delta;
	bool tty = isatty(fileno(out));
	double start, next;
	int ret = 0;

	if (session_read(s, &prev))
		goto read_failed;
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop\n");
	start = next = prev.mono_s;
	while (!pts_stop_requested) {
		next += opts->interval_s;
		ret = wait_refresh(ex, next);
		if (ret)
			break;
		if (session_read(s, &now))
			goto read_failed;
		snapshot_delta(&now, &prev, &delta);
		*werr = render(out, s, &delta, tty);
		snapshot_free(&delta);
		snapshot_free(&prev);
		prev = now;
		if (*werr)
			break;
		if (opts->duration_s && now.mono_s - start >= opts->duration_s - 1e-3)
			break;
	}
	snapshot_free(&prev);
	return ret;
read_failed:
	fprintf(stderr, "ptscope: reading BPF maps failed: %s\n", strerror(errno));
	snapshot_free(&prev);
	return 1;
}

/* a reader that went away ("| head") ends top as Ctrl-C does */
static int top_close(FILE *out, const char *path, int werr)
{
	if (werr != EPIPE)
		return report_close_err(out, path, werr);
	fprintf(stderr, "ptscope: the output was closed by its reader\n");
	if (out != stdout)
		fclose(out);
	return 0;
}

int view_top(const struct pts_options *opts)
{
	struct pts_export_source src;
	struct pts_exporter *ex;
	struct pts_session s;
	int ret, werr = 0;
	FILE *out;

	sort_key = opts->sort;
	top_opts = opts;
	ret = view_serve_start(&s, &src, opts, opts->listen_set, &ex);
	if (ret)
		return ret;
	out = report_open(opts->output);
	if (!out) {
		ret = 1;
	} else {
		/* attached, listening, -o open: serving needs no privilege */
		if (ex && privdrop_apply(&s))
			ret = 1;
		else
			ret = top_loop(&s, ex, out, &werr);
		ret = top_close(out, opts->output, werr) || ret;
	}
	view_serve_stop(&s, ex);
	return ret;
}
