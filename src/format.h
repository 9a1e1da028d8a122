/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PTSCOPE_FORMAT_H
#define PTSCOPE_FORMAT_H

#include <stddef.h>
#include <stdint.h>

const char *fmt_bytes(char *buf, size_t len, uint64_t bytes);
const char *fmt_ns(char *buf, size_t len, double ns);
/* folio size of @order with @page_size pages, "64K", "2M" */
const char *fmt_order_size(char *buf, size_t len, unsigned int order,
			   uint64_t page_size);
/*
 * @src safe to print on a terminal: control characters (C0, DEL, and C1
 * as UTF-8 U+0080-U+009F) become \xNN and a backslash \\; printable
 * ASCII and other UTF-8 are kept.  Truncated to @len, never inside an
 * escape.  For comm, command lines and every other string the kernel or a
 * recording hands us.
 */
const char *fmt_escape(char *buf, size_t len, const char *src);
/* a @buf that holds any escaped comm (PTS_COMM_LEN - 1 bytes, 4 each) */
#define FMT_COMM_LEN	64
const char *mremap_class_name(unsigned int class);
const char *mremap_class_desc(unsigned int class);

#endif
