/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The HTTP side of the exporter: libmicrohttpd on a listening socket,
 * driven from the caller's thread, serving one page at GET /metrics.
 * Knows nothing of BPF, so the fuzz target can run it with a fake page.
 */
#ifndef PTSCOPE_HTTPD_H
#define PTSCOPE_HTTPD_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#define HTTPD_MAX_CONNECTIONS	512u	/* all clients together */
#define HTTPD_PER_IP_LIMIT	16u	/* connections of one client address */
#define HTTPD_REQUEST_DEADLINE_S 2.0	/* to deliver a whole request */
#define HTTPD_IDLE_TIMEOUT_S	10u	/* while an answer is being sent */

struct pts_httpd;

/* the page to serve, malloc()ed, or NULL after logging why */
typedef char *(*httpd_page_fn)(void *ctx, size_t *len);

/* serve @listen_fd (nonblocking, listening; closed by httpd_stop()); NULL
 * after saying why */
struct pts_httpd *httpd_start(int listen_fd, httpd_page_fn page, void *ctx,
			      const char *content_type, bool verbose);
/* one round: wait up to @timeout_ms (with @unblocked as the signal mask
 * while waiting, NULL: unchanged), answer what is ready, close
 * connections past their deadline; 0 or -errno (-EINTR after a signal) */
int httpd_step(struct pts_httpd *h, long timeout_ms, const sigset_t *unblocked);
void httpd_stop(struct pts_httpd *h);

#endif
