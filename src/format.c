// SPDX-License-Identifier: GPL-2.0
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <ptscope/ptscope.h>
#include "format.h"

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

static bool is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7f;
}

/* U+0080-U+009F in UTF-8: 0xc2 then 0x80-0x9f (0x9b is CSI) */
static bool is_c1(const unsigned char *s)
{
	return s[0] == 0xc2 && s[1] >= 0x80 && s[1] <= 0x9f;
}

const char *fmt_escape(char *buf, size_t len, const char *src)
{
	const unsigned char *s = (const unsigned char *)src;
	size_t used = 0;
	char piece[9];

	if (!len)
		return buf;
	for (; *s; s++) {
		if (*s == '\\')
			snprintf(piece, sizeof(piece), "\\\\");
		else if (is_control(*s))
			snprintf(piece, sizeof(piece), "\\x%02x", *s);
		else if (is_c1(s))
			snprintf(piece, sizeof(piece), "\\x%02x\\x%02x", s[0], s[1]);
		else
			snprintf(piece, sizeof(piece), "%c", *s);
		if (used + strlen(piece) >= len)
			break;
		memcpy(buf + used, piece, strlen(piece));
		used += strlen(piece);
		if (is_c1(s))
			s++;
	}
	buf[used] = '\0';
	return buf;
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

const char *mremap_class_name(unsigned int class)
{
	return class < PTS_MREMAP_CLASSES ? class_names[class] : "?";
}

const char *mremap_class_desc(unsigned int class)
{
	return class < PTS_MREMAP_CLASSES ? class_descs[class] : "?";
}
