/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_FORMAT_H
#define PTSCOPE_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include <json-c/json.h>
#include <ptscope/ptscope.h>

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes);
const char *fmt_ns(char *buf, size_t len, double ns);
/* folio size of @order with @page_size pages, "64K", "2M" */
const char *fmt_order_size(char *buf, size_t len, unsigned int order,
			   uint64_t page_size);
/*
 * @src safe to print on a terminal: control characters (C0, DEL, and C1
 * as UTF-8 U+0080-U+009F) and bytes of no well-formed UTF-8 sequence
 * become \xNN, a backslash \\; printable ASCII and UTF-8 are kept.
 * Truncated to @len, never inside an escape or a character.  For comm,
 * command lines and every other string the kernel or a recording hands us.
 */
const char *fmt_escape(char *buf, size_t len, const char *src);
/*
 * A @buf that holds any string of a @size-byte buffer escaped: its
 * @size - 1 bytes at 4 each (\xNN) and the NUL.
 */
#define FMT_ESCAPED_LEN(size)	(4 * (size))
/* a @buf that holds any escaped comm */
#define FMT_COMM_LEN	FMT_ESCAPED_LEN(PTS_COMM_LEN)
/*
 * A JSON string of @s, for the same strings: serialized with DEL and C1
 * as \u escapes and invalid UTF-8 as U+FFFD (json-c escapes only C0).
 */
json_object *fmt_json_string(const char *s);
/*
 * Word-wrapped text for help and reports: @n bytes of @word at column
 * @col, after a space, or at column @indent of a new line when it would
 * pass @width.  Returns the column after it.
 */
int fmt_wrap_word(FILE *out, int col, int indent, int width, const char *word,
		  int n);
/* @text's words so, from column @col; returns the column after them */
int fmt_wrap(FILE *out, int col, int indent, int width, const char *text);
/* wall-clock @ts as ISO 8601 UTC, "2026-12-04T16:34:50.123456Z" */
const char *fmt_time_iso_utc(char *buf, size_t len, const struct timespec *ts);
/* wall-clock @ts as local time of day, "16:34:50.123456" */
const char *fmt_time_local(char *buf, size_t len, const struct timespec *ts);
/* seconds to 10 ms, no trailing zeros: "1 s", "2.5 s", "0.25 s" */
const char *fmt_secs(char *buf, size_t len, double secs);
/*
 * How many bytes of @s fill at most @cols terminal columns: one column
 * a character (a UTF-8 sequence counts once, never cut).
 */
size_t fmt_fit_columns(const char *s, int cols);
const char *mremap_class_name(unsigned int class);
const char *mremap_class_desc(unsigned int class);

#endif
