// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <ptscope/ptscope.h>
#include "data/format.h"

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char *const units[] = { "B", "KiB", "MiB", "GiB", "TiB" };
	double v = (double)bytes;
	int u = 0;

	/* 1048575 is "1.00 MiB", not "1024 KiB": compare after rounding */
	while (v >= 1023.995 && u < 4) {
		v /= 1024;
		u++;
	}
	if (u == 0)
		snprintf(buf, len, "%llu B", (unsigned long long)bytes);
	else
		snprintf(buf, len, "%.*f %s", v < 10 ? 2 : v < 100 ? 1 : 0, v,
			 units[u]);
	return buf;
}

const char *fmt_ns(char *buf, size_t len, double ns)
{
	if (ns < 1e3)
		snprintf(buf, len, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.2f s", ns / 1e9);
	return buf;
}

const char *fmt_order_size(char *buf, size_t len, unsigned int order,
			   uint64_t page_size)
{
	uint64_t kb = (page_size << order) / 1024;

	if (kb >= 1024 && kb % 1024 == 0)
		snprintf(buf, len, "%lluM", (unsigned long long)(kb / 1024));
	else
		snprintf(buf, len, "%lluK", (unsigned long long)kb);
	return buf;
}

/*
 * Bytes of the well-formed UTF-8 sequence at @s (1 to 4), 0 when there is
 * none: no overlong forms, surrogates or code points above U+10FFFF, which
 * a terminal might decode into something else.
 */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char lo = 0x80, hi = 0xbf;
	size_t n, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		n = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		n = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		n = 4;
	else
		return 0;
	if (s[0] == 0xe0)
		lo = 0xa0;
	else if (s[0] == 0xed)
		hi = 0x9f;
	else if (s[0] == 0xf0)
		lo = 0x90;
	else if (s[0] == 0xf4)
		hi = 0x8f;
	if (s[1] < lo || s[1] > hi)
		return 0;
	for (i = 2; i < n; i++)	/* stops at the NUL: 0 is no continuation */
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return n;
}

enum char_kind {
	CHAR_TEXT,	/* printable: ASCII or well-formed UTF-8 */
	CHAR_CONTROL,	/* C0, DEL, or C1 (U+0080-U+009F, 0xc2 0x80-0x9f) */
	CHAR_INVALID,	/* a byte of no well-formed sequence */
};

/* the character at @s, @n bytes long */
static enum char_kind char_at(const unsigned char *s, size_t *n)
{
	*n = utf8_len(s);
	if (!*n) {
		*n = 1;
		return CHAR_INVALID;
	}
	if (*n == 1 && (s[0] < 0x20 || s[0] == 0x7f))
		return CHAR_CONTROL;
	if (*n == 2 && s[0] == 0xc2 && s[1] <= 0x9f)
		return CHAR_CONTROL;
	return CHAR_TEXT;
}

/* one character of @s as fmt_escape prints it, in @piece */
static size_t escape_char(const unsigned char *s, size_t n,
			  enum char_kind kind, char *piece)
{
	if (kind == CHAR_TEXT && s[0] == '\\')
		return (size_t)sprintf(piece, "\\\\");
	if (kind == CHAR_TEXT) {
		memcpy(piece, s, n);
		return n;
	}
	if (n == 2)
		return (size_t)sprintf(piece, "\\x%02x\\x%02x", s[0], s[1]);
	return (size_t)sprintf(piece, "\\x%02x", s[0]);
}

const char *fmt_escape(char *buf, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t used = 0, n, plen;
	enum char_kind kind;
	char piece[16];

	if (!len)
		return buf;
	for (; *s; s += n) {
		kind = char_at(s, &n);
		plen = escape_char(s, n, kind, piece);
		if (used + plen >= len)
			break;
		memcpy(buf + used, piece, plen);
		used += plen;
	}
	buf[used] = '\0';
	return buf;
}

/*
 * json-c escapes C0 controls but writes DEL, C1 and bytes of no UTF-8
 * sequence as they are: a terminal obeys the first two and JSON readers
 * reject the last.  This serializer writes them as \u007f, \u0080-\u009f
 * and U+FFFD.
 */
static int json_safe_string(json_object *jso, struct printbuf *pb, int level,
			    int flags)
{
	const unsigned char *s = (const unsigned char *)json_object_get_string(jso);
	size_t n;

	printbuf_strappend(pb, "\"");
	for (; *s; s += n) {
		switch (char_at(s, &n)) {
		case CHAR_TEXT:
			if (*s == '"' || *s == '\\')
				sprintbuf(pb, "\\%c", *s);
			else
				printbuf_memappend(pb, (const char *)s, (int)n);
			break;
		case CHAR_CONTROL:	/* C1 U+0080 + x is 0xc2 0x80 + x */
			sprintbuf(pb, "\\u%04x", n == 2 ? s[1] : s[0]);
			break;
		case CHAR_INVALID:
			printbuf_strappend(pb, "\\ufffd");
			break;
		}
	}
	printbuf_strappend(pb, "\"");
	return 0;
}

json_object *fmt_json_string(const char *s)
{
	json_object *o = json_object_new_string(s);

	if (o)
		json_object_set_serializer(o, json_safe_string, NULL, NULL);
	return o;
}

static const char *const class_names[PTS_MREMAP_CLASSES] = {
	[PTS_MREMAP_PUD] = "pud",
	[PTS_MREMAP_PMD] = "pmd",
	[PTS_MREMAP_PTE] = "pte",
	[PTS_MREMAP_INPLACE] = "in_place",
	[PTS_MREMAP_FAILED] = "failed",
};

static const char *const class_descs[PTS_MREMAP_CLASSES] = {
	[PTS_MREMAP_PUD] = "moved, PUD moves possible",
	[PTS_MREMAP_PMD] = "moved, PMD moves possible",
	[PTS_MREMAP_PTE] = "moved, PTE level only",
	[PTS_MREMAP_INPLACE] = "resized in place",
	[PTS_MREMAP_FAILED] = "failed",
};

const char *fmt_time_iso_utc(char *buf, size_t len, const struct timespec *ts)
{
	struct tm tm;

	gmtime_r(&ts->tv_sec, &tm);
	snprintf(buf, len, "%04d-%02d-%02dT%02d:%02d:%02d.%06ldZ",
		 tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		 tm.tm_min, tm.tm_sec, ts->tv_nsec / 1000);
	return buf;
}

const char *fmt_time_local(char *buf, size_t len, const struct timespec *ts)
{
	struct tm tm;

	localtime_r(&ts->tv_sec, &tm);
	snprintf(buf, len, "%02d:%02d:%02d.%06ld", tm.tm_hour, tm.tm_min,
		 tm.tm_sec, ts->tv_nsec / 1000);
	return buf;
}

const char *fmt_secs(char *buf, size_t len, double secs)
{
	char num[32], *end;

	/* to 10 ms (the shortest -i), without trailing zeros */
	snprintf(num, sizeof(num), "%.2f", secs);
	end = num + strlen(num) - 1;
	while (*end == '0')
		*end-- = '\0';
	if (*end == '.')
		*end = '\0';
	snprintf(buf, len, "%s s", num);
	return buf;
}

size_t fmt_fit_columns(const char *s, int cols)
{
	size_t i = 0;

	while (s[i] && cols > 0) {
		i++;
		/* continuation bytes 10xxxxxx belong to the same character */
		while (((unsigned char)s[i] & 0xc0) == 0x80)
			i++;
		cols--;
	}
	return i;
}

const char *mremap_class_name(unsigned int class)
{
	return class < PTS_MREMAP_CLASSES ? class_names[class] : "?";
}

const char *mremap_class_desc(unsigned int class)
{
	return class < PTS_MREMAP_CLASSES ? class_descs[class] : "?";
}

int fmt_wrap_word(FILE *out, int col, int indent, int width, const char *word,
		  int n)
{
	if (col > indent && col + 1 + n > width) {
		fprintf(out, "\n%*s", indent, "");
		col = indent;
	} else if (col > indent) {
		fputc(' ', out);
		col++;
	}
	fprintf(out, "%.*s", n, word);
	return col + n;
}

int fmt_wrap(FILE *out, int col, int indent, int width, const char *text)
{
	int n;

	for (text += strspn(text, " "); *text; text += strspn(text, " ")) {
		n = strcspn(text, " ");
		col = fmt_wrap_word(out, col, indent, width, text, n);
		text += n;
	}
	return col;
}
