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
#include "data/collector.h"
#include "export/exporter.h"
#include "export/privdrop.h"
#include "data/format.h"
#include "data/hist.h"
#include "data/schema.h"
#include "data/selfcheck.h"
#include "render/report.h"
#include "tracer/tracer.h"
#include "views/signals.h"
#include "views/term.h"
#include "views/start.h"
#include "views/views.h"

static enum pts_sort sort_key;
static const struct pts_options *top_opts;

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

/* one frame: its data, and how it is drawn */
struct top_frame {
	struct pts_tracer *t;
	struct pts_snapshot *d;
	bool taxed;		/* on syscall tracepoints, and on a terminal */
	int rows;		/* process and cgroup rows at most */
	int width;		/* columns of the output */
	double span;		/* seconds the frame was meant to cover */
	bool partial;		/* -d ended the interval early */
	/* fault counts since attaching against the kernel's; off: why not */
	struct selfcheck sc;
	const char *sc_off;
	/* a short terminal: a self-check with nothing to report takes no line */
	bool sc_quiet;
};


/* @text at most @width columns a line, broken at spaces, indented after */
static void print_wrapped(FILE *out, const char *text, int width)
{
	int col = 0, len;
	const char *word = text, *end;

	while (*word) {
		end = strpbrk(word, " \n");
		len = end ? (int)(end - word) : (int)strlen(word);
		if (col && col + 1 + len > width) {
			fputs("\n ", out);
			col = 1;
		}
		fprintf(out, "%s%.*s", col > 1 ? " " : "", len, word);
		col += (col > 1 ? 1 : 0) + len;
		if (!end)
			break;
		word = end + strspn(end, " \n");
	}
	fputc('\n', out);
}

/* the probes line of every view, wrapped to the frame's width */
static void metric_line(FILE *out, const struct top_frame *f)
{
	char *text = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem) {
		report_metric_line(out, &f->t->rep);
		return;
	}
	report_metric_line(mem, &f->t->rep);
	fclose(mem);
	print_wrapped(out, text, f->width);
	free(text);
}

static void top_header(FILE *out, const struct top_frame *f)
{
	char stamp[32], secs[32], interval[32];
	time_t now = time(NULL);

	strftime(stamp, sizeof(stamp), "%H:%M:%S", localtime(&now));
	fprintf(out, "ptscope top - %s  kernel %s  sort %s  h: keys\n", stamp,
		f->t->kf.release, options_sort_name(sort_key));
	if (f->partial)
		fprintf(out, "last frame: %s of the %s interval, -d ended the "
			"run\n", fmt_secs(secs, sizeof(secs), f->span),
			fmt_secs(interval, sizeof(interval),
				 top_opts->interval_s));
	metric_line(out, f);
}

/*
 * On a terminal the screen covers the note said at the start: the cost of
 * syscall tracepoints stays in every frame, below the header, in one
 * short line (the whole note again after the last screen)
 */
static void cost_line(FILE *out, const struct top_frame *f)
{
	char text[80];

	if (!f->taxed)
		return;
	snprintf(text, sizeof(text), "cost: every syscall +%d ns (syscall "
		 "tracepoints)", PTS_SYSCALL_TAX_NS);
	print_wrapped(out, text, f->width);
}

/* the fault self-check: its live result, or why there is none */
static void selfcheck_lines(FILE *out, const struct top_frame *f)
{
	if (f->sc_quiet && !f->sc_off && f->sc.compared && !f->sc.nr)
		return;
	if (f->sc_off)
		fprintf(out, "\nself-check: none (%s)\n", f->sc_off);
	else
		selfcheck_text(out, &f->sc);
}

/* the lines @draw takes at the frame's width */
static int rows_of(const struct top_frame *f,
		   void (*draw)(FILE *out, const struct top_frame *f))
{
	char *text = NULL, *p;
	size_t len = 0;
	int rows = 0;
	FILE *mem = open_memstream(&text, &len);

	if (!mem)
		return 0;
	draw(mem, f);
	fclose(mem);
	/* draw_screen() leaves empty lines out */
	for (p = text; *p; p++)
		rows += *p == '\n' && p > text && p[-1] != '\n';
	free(text);
	return rows;
}

/*
 * Rates per second first, then the counts of this frame "per N s": with
 * -i 2 a count is twice its rate, and both say which they are.
 */
static void top_totals(FILE *out, const struct top_frame *f)
{
	const struct pts_snapshot *d = f->d;
	const struct pts_field *calls = schema_find("mremap", "calls");
	const struct pts_field *alloc = schema_find("hugepage_faults", "alloc");
	const struct pts_field *fallback = schema_find("hugepage_faults",
						       "fallback");
	uint64_t page_size = f->t->rep.page_size;
	unsigned int small = schema_order_64k(page_size);
	unsigned int pmd = schema_order_pmd(page_size);
	double secs = d->mono_s > 0 ? d->mono_s : 1;
	char small_s[16], pmd_s[16], per[32];
	unsigned int c;

	fmt_secs(per, sizeof(per), f->span);
	fprintf(out, "\nmremap calls %.1f/s, per %s:",
		schema_counter_total(calls, d) / secs, per);
	for (c = 0; c < schema_label_count(calls); c++)
		fprintf(out, " %s %llu", mremap_class_name(c),
			(unsigned long long)schema_counter(calls, d, c));
	fprintf(out, "\nhugepage faults %.1f/s, per %s: %s %llu %s %llu "
		"fallback %llu, drops %llu\n",
		schema_counter_total(alloc, d) / secs, per,
		fmt_order_size(small_s, sizeof(small_s), small, page_size),
		(unsigned long long)schema_counter(alloc, d, small),
		fmt_order_size(pmd_s, sizeof(pmd_s), pmd, page_size),
		(unsigned long long)schema_counter(alloc, d, pmd),
		(unsigned long long)schema_counter_total(fallback, d),
		(unsigned long long)section_total("drops", d));
}

/* everything above the process and cgroup tables */
static void top_above_tables(FILE *out, const struct top_frame *f)
{
	struct pts_hist all = {};
	int c;

	for (c = 0; c < PTS_MREMAP_CLASSES; c++)
		hist_merge(&all, &f->d->hists.h[PTS_H_MREMAP_NS + c]);
	top_header(out, f);
	cost_line(out, f);
	top_totals(out, f);
	selfcheck_lines(out, f);
	hist_line(out, "mremap latency", &all);
}

static void render_text(FILE *out, const struct top_frame *f)
{
	top_above_tables(out, f);
	report_sort_procs(f->d, sort_key);
	report_procs_text(out, f->d, f->t->rep.page_size, f->rows, f->width,
			  f->span);
	report_cgroups_text(out, &f->t->rep, f->d, f->rows, true, f->width);
}

/* the errno of a failed write to @out since it was opened, else 0 */
static int out_error(FILE *out)
{
	errno = 0;
	if (fflush(out) || ferror(out))
		return errno ? errno : EIO;
	return 0;
}

static int render_json(FILE *out, const struct top_frame *f)
{
	json_object *root = report_snapshot_json(&f->t->rep, f->d);
	struct timespec now;
	char stamp[40];
	int err = 0;

	/* when the frame was taken, for a reader that logs them */
	clock_gettime(CLOCK_REALTIME, &now);
	json_object_object_add(root, "time", json_object_new_string(
		fmt_time_iso_utc(stamp, sizeof(stamp), &now)));
	if (f->partial)
		json_object_object_add(root, "partial",
				       json_object_new_boolean(true));
	if (!f->sc_off)
		json_object_object_add(root, "self_check",
				       selfcheck_json(&f->sc));
	/* over a buffer's worth goes straight out: keep its errno */
	if (fprintf(out, "%s\n", json_object_to_json_string_ext(root,
			JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE)) < 0)
		err = errno;
	json_object_put(root);
	return err ? err : out_error(out);
}

/*
 * Overwrite the old screen with @frame line by line (erase to end of each
 * line and below), which does not flicker the way clearing first does.
 * A line the column fitting could not narrow (a long cgroup path) is cut
 * at the edge, and lines past the last row but one are left out: the
 * terminal would wrap or scroll, and the next frame would draw over the
 * wrong lines.
 */
static void draw_screen(FILE *out, char *frame, int width, int height)
{
	char *line, *save;
	int drawn = 0;

	fputs("\033[H", out);
	for (line = strtok_r(frame, "\n", &save); line && drawn < height - 1;
	     line = strtok_r(NULL, "\n", &save), drawn++)
		fprintf(out, "%.*s\033[K\n", (int)fmt_fit_columns(line, width),
			line);
	fputs("\033[J", out);
}

static void key_help(FILE *out)
{
	fprintf(out, "ptscope top: keys\n"
		"  q        quit (detach and exit)\n"
		"  s        sort by the next key (now %s; -s sets the first)\n"
		"  h or ?   this help; any other key returns to the tables\n"
		"  Ctrl-C   quit\n", options_sort_name(sort_key));
}

/* the key help in place of the frame, until the next key */
static int help_screen(FILE *out, int width)
{
	char *frame = NULL;
	size_t len = 0;
	FILE *mem = open_memstream(&frame, &len);

	if (!mem)
		return 0;
	key_help(mem);
	fclose(mem);
	draw_screen(out, frame, width, term_rows(fileno(out)));
	free(frame);
	return out_error(out);
}

/*
 * Rows left for the tables on a terminal of @height: draw_screen() draws
 * height - 1 lines; a table takes its title, the hidden columns' line and
 * its head.  Where no row would be left, a self-check with nothing to
 * report gives its line up.
 */
#define TABLE_HEAD_ROWS	3

static int table_room(struct top_frame *f, int height)
{
	int fit = height - 1 - rows_of(f, top_above_tables) - TABLE_HEAD_ROWS;

	if (fit >= 1)
		return fit;
	f->sc_quiet = true;
	return height - 1 - rows_of(f, top_above_tables) - TABLE_HEAD_ROWS;
}

/* the frame drawn off screen, then over the old one */
static int render_tty(FILE *out, struct top_frame *f, bool help)
{
	int fit = table_room(f, term_rows(fileno(out)));
	char *frame = NULL;
	size_t len = 0;
	FILE *mem;

	if (help)
		return help_screen(out, f->width);
	if (f->d->has_cgroups)	/* two tables share what is left */
		fit = (fit - 3) / 2;
	if (fit < f->rows)
		f->rows = fit > 1 ? fit : 1;
	mem = open_memstream(&frame, &len);
	if (!mem)
		return 0;	/* no memory for this frame: skip it */
	render_text(mem, f);
	fclose(mem);
	draw_screen(out, frame, f->width, term_rows(fileno(out)));
	free(frame);
	return out_error(out);
}

/* @f's data, span and partial set; the rest is the output's */
static int render(FILE *out, struct top_frame *f, bool help)
{
	f->rows = top_opts->rows;
	f->width = term_columns(fileno(out));
	report_sort_cgroups(f->d, sort_key);
	if (top_opts->json)
		return render_json(out, f);
	if (isatty(fileno(out)))
		return render_tty(out, f, help);
	render_text(out, f);
	fputc('\n', out);
	return out_error(out);
}

/* what the keys asked for; set by top_key() */
struct top_keys {
	bool on;	/* stdin is a terminal */
	bool help;	/* the key help is on screen */
};

/* act on @key; true when the screen should be drawn again now */
static bool top_key(struct top_keys *k, int key, FILE *out)
{
	if (key == 'q') {
		pts_stop_requested = 1;
		return false;
	}
	if (key == 'h' || key == '?') {
		k->help = true;
		/* not on the screen: the help goes where the messages go */
		if (top_opts->json || !isatty(fileno(out)))
			key_help(stderr);
		return true;
	}
	k->help = false;
	if (key == 's')
		sort_key = (sort_key + 1) % PTS_NR_SORTS;
	return true;
}

/*
 * The screen again after a key, not waiting for the next frame.  A write
 * error here is left to that frame, whose write fails the same way.
 */
static void redraw(FILE *out, struct top_frame *last, const struct top_keys *k)
{
	if (top_opts->json || !isatty(fileno(out)))
		return;
	if (k->help)
		help_screen(out, term_columns(fileno(out)));
	else if (last)
		render(out, last, false);
}

/*
 * Until the next refresh at @next: answer scrapes, or wait for a key and
 * redraw @last at once when it changes the screen.
 */
static int wait_refresh(struct pts_exporter *ex, double next,
			struct top_keys *k, FILE *out, struct top_frame *last)
{
	const sigset_t *mask = signals_hold();
	double until;
	int key;

	while (!pts_stop_requested && mono_seconds() < next) {
		until = next;
		if (ex) {
			/* keys between scrapes, a tenth of a second apart */
			if (k->on && next - mono_seconds() > 0.1)
				until = mono_seconds() + 0.1;
			if (exporter_serve(ex, until, &pts_stop_requested,
					   mask))
				return 1;
			until = mono_seconds();
		}
		key = term_wait_key(until, mask);
		if (key && top_key(k, key, out))
			redraw(out, last, k);
	}
	return 0;
}

/* the end of the frame after @prev_end: an interval, or -d's end */
static double frame_end(double prev_end, double stop_at, bool *partial)
{
	double end = prev_end + top_opts->interval_s;

	*partial = false;
	if (stop_at && end > stop_at - 1e-3) {
		/* a whole interval ending at -d is not partial */
		*partial = end > stop_at + 1e-3;
		end = stop_at;
	}
	return end;
}

/* *@werr: a write to @out failed (errno), the loop stopped there */
static int top_loop(struct pts_tracer *t, struct pts_exporter *ex, FILE *out,
		    bool keys_on, int *werr)
{
	const struct pts_options *opts = top_opts;
	struct pts_snapshot prev, now, delta = {}, last = {};
	struct top_keys keys = { .on = keys_on };
	struct top_frame frame = { .t = t };
	double stop_at, next, begin;
	char note[1024];
	bool partial = false;
	int ret = 0;

	if (tracer_read(t, &prev))
		goto read_failed;
	if (!opts->json && isatty(fileno(out)))
		frame.taxed = view_syscall_tax_note(&t->eng, note,
						    sizeof(note)) > 0;
	fprintf(stderr, "ptscope: tracing, Ctrl-C to stop%s\n",
		keys.on ? " (or q; h: keys)" : "");
	next = prev.mono_s;
	stop_at = opts->duration_s ? next + opts->duration_s : 0;
	while (!pts_stop_requested && !partial &&
	       (!stop_at || next < stop_at - 1e-3)) {
		begin = next;
		next = frame_end(next, stop_at, &partial);
		ret = wait_refresh(ex, next, &keys, out,
				   frame.d ? &frame : NULL);
		if (ret || pts_stop_requested)
			break;
		if (tracer_read(t, &now))
			goto read_failed;
		frame.sc_off = selfcheck_live_off(&t->eng,
						  PTS_PARTS_ALL & ~t->cfg.parts);
		if (!frame.sc_off)
			selfcheck_since(&frame.sc, &now, &t->kc_base,
					t->rep.page_size);
		snapshot_delta(&now, &prev, &delta);
		frame.d = &delta;
		frame.span = next - begin;
		frame.partial = partial;
		*werr = render(out, &frame, keys.help);
		snapshot_free(&last);
		last = delta;
		frame.d = &last;	/* what a key redraws */
		snapshot_free(&prev);
		prev = now;
		if (*werr)
			break;
	}
	snapshot_free(&last);
	snapshot_free(&prev);
	return ret;
read_failed:
	fprintf(stderr, "ptscope: reading BPF maps failed: %s\n", strerror(errno));
	snapshot_free(&last);
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
	struct pts_tracer t;
	int ret, werr = 0;
	bool keys;
	FILE *out;

	sort_key = opts->sort;
	top_opts = opts;
	ret = view_serve_start(&t, &src, opts, opts->listen_set, &ex);
	if (ret)
		return ret;
	out = report_open(opts->output);
	if (!out) {
		ret = 1;
	} else {
		/* before the privilege drop, whose filter refuses getpgrp() */
		keys = term_keys_begin();
		/* attached, listening, -o open: serving needs no privilege */
		if (ex && privdrop_apply(&t))
			ret = 1;
		else
			ret = top_loop(&t, ex, out, keys, &werr);
		term_keys_end();
		/* below the last screen, which covered the note of the start */
		if (!opts->json && isatty(fileno(out)))
			view_syscall_tax_say(&t.eng);
		ret = top_close(out, opts->output, werr) || ret;
	}
	view_serve_stop(&t, ex);
	return ret;
}
