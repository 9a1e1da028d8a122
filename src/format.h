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
const char *mremap_class_name(unsigned int class);
const char *mremap_class_desc(unsigned int class);

#endif
