// SPDX-License-Identifier: GPL-2.0
/*
 * libmicrohttpd serving one page, driven from the caller's thread: its
 * epoll fd is waited on with ppoll(), so the caller's stop signals and
 * deadline stay in charge.  libmicrohttpd owns the listening socket and
 * the connections: it accepts, limits them in total and per client
 * address, caps each one's memory and closes idle ones.
 *
 * libmicrohttpd 0.9.75 (Debian 12) has no option for three things the
 * exporter promises (tests/host/test_export.sh, test_export_slow.sh, the
 * fuzz_http corpus); they are added below, in the section marked
 * "0.9.75 workaround", through its connection notifications and the
 * connection's socket:
 *
 * - a total deadline per request: MHD_OPTION_CONNECTION_TIMEOUT is an
 *   idle timeout that each byte resets, so a client trickling a byte
 *   every 0.5 s holds a connection for ever (slow_clients.py).  Past
 *   HTTPD_REQUEST_DEADLINE_S it is answered 408 and shut down;
 * - a 400 for a malformed request line ("GARBAGE", "GET"): 0.9.75 closes
 *   those without a word (RFC 9112 3: a server SHOULD answer 400);
 * - a 400 for an unfinished request after a half-close ("GET /metr",
 *   SHUT_WR): on edge-triggered epoll 0.9.75 misses an end of stream
 *   that came with the last bytes and waits for the idle timeout.
 */
#define _GNU_SOURCE	/* ppoll */
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include <linux/tcp.h>
#include <microhttpd.h>
#include "export/httpd.h"

#define HTTPD_MEMORY_LIMIT	(16 * 1024)	/* per connection: request */
#define HTTPD_TICK_MS		1000L

/* 0.9.75 workaround: a connection libmicrohttpd is serving */
struct httpd_conn {
	struct MHD_Connection *conn;
	int fd;
	double since;
	bool line_ok;		/* the request line parsed */
	bool complete;		/* the whole request came, answered */
	bool expired;		/* shut down at the deadline */
};

struct pts_httpd {
	struct MHD_Daemon *daemon;
	int epoll_fd;
	httpd_page_fn page;
	void *ctx;
	const char *content_type;
	struct httpd_conn conns[HTTPD_MAX_CONNECTIONS];	/* 0.9.75 workaround */
};

/*
 * ---- 0.9.75 workaround (see the top of this file) ----
 * Each connection is noted when libmicrohttpd starts it; after each
 * MHD_run() those still waiting for a whole request are checked for a
 * half-close and their deadline.  The socket is written only when
 * libmicrohttpd has not answered on it, so an answer is never doubled.
 */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static struct httpd_conn *conn_of(struct MHD_Connection *conn)
{
	const union MHD_ConnectionInfo *info;

	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
	return info ? info->socket_context : NULL;
}

/* no deadline for the answer: libmicrohttpd's idle timeout covers it */
static void mark_complete(struct MHD_Connection *conn)
{
	struct httpd_conn *c = conn_of(conn);

	if (c)
		c->complete = true;
}

/* called once the request line parsed */
static void *line_parsed(void *cls, const char *uri,
			 struct MHD_Connection *conn)
{
	struct httpd_conn *c = conn_of(conn);

	if (c)
		c->line_ok = true;
	return NULL;
}

/* whether libmicrohttpd already answered on @fd (a 414, a 505...) */
static bool answered(int fd)
{
	struct tcp_info ti;
	socklen_t len = sizeof(ti);

	memset(&ti, 0, sizeof(ti));
	if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &ti, &len))
		return true;	/* not TCP: leave it alone */
	return ti.tcpi_bytes_sent || ti.tcpi_bytes_acked;
}

/* answer @status ("400 Bad Request") on @fd unless libmicrohttpd did */
static void reject(int fd, const char *status)
{
	static const char body[] = "ptscope: malformed or unfinished HTTP "
				   "request\n";
	char resp[256], junk[4096];
	int n, rounds = 0;

	if (answered(fd))
		return;
	/* read what is left, so close() does not turn into a reset */
	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0 && ++rounds < 16)
		;
	n = snprintf(resp, sizeof(resp), "HTTP/1.1 %s\r\nContent-Type: "
		     "text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n%s", status, sizeof(body) - 1,
		     body);
	send(fd, resp, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL);
}

static void conn_started(struct pts_httpd *h, struct MHD_Connection *conn,
			 void **socket_context)
{
	const union MHD_ConnectionInfo *info;
	unsigned int i;

	info = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CONNECTION_FD);
	for (i = 0; i < HTTPD_MAX_CONNECTIONS; i++) {
		if (h->conns[i].conn)
			continue;
		h->conns[i] = (struct httpd_conn){
			.conn = conn,
			.fd = info ? info->connect_fd : -1,
			.since = now_s(),
		};
		*socket_context = &h->conns[i];
		return;
	}
}

static void notify(void *cls, struct MHD_Connection *conn,
		   void **socket_context, enum MHD_ConnectionNotificationCode toe)
{
	struct httpd_conn *c = *socket_context;

	if (toe == MHD_CONNECTION_NOTIFY_STARTED) {
		conn_started(cls, conn, socket_context);
		return;
	}
	if (!c)
		return;
	/* libmicrohttpd hangs up on a bad request line: answer it first */
	if (!c->line_ok && !c->expired && c->fd >= 0)
		reject(c->fd, "400 Bad Request");
	c->conn = NULL;
	*socket_context = NULL;
}

static bool waiting(const struct httpd_conn *c)
{
	return c->conn && !c->complete && !c->expired && c->fd >= 0;
}

/* answer @c with @status and shut it down: libmicrohttpd sees the end of
 * the stream and closes it */
static void cut_short(struct httpd_conn *c, const char *status)
{
	c->expired = true;
	reject(c->fd, status);
	shutdown(c->fd, SHUT_RDWR);
}

/* the peer has finished sending, and libmicrohttpd has read all of it */
static bool drained(int fd)
{
	char c;

	return recv(fd, &c, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

/*
 * Cut short connections whose peer half-closed before a whole request
 * (400) or that are past their deadline (408); ms until the next deadline.
 */
static long expire(struct pts_httpd *h)
{
	double now = now_s(), left, next = HTTPD_TICK_MS / 1e3;
	struct httpd_conn *c;
	unsigned int i;

	for (i = 0; i < HTTPD_MAX_CONNECTIONS; i++) {
		c = &h->conns[i];
		if (!waiting(c))
			continue;
		left = c->since + HTTPD_REQUEST_DEADLINE_S - now;
		if (drained(c->fd))
			cut_short(c, "400 Bad Request");
		else if (left <= 0)
			cut_short(c, "408 Request Timeout");
		else if (left < next)
			next = left;
	}
	return (long)(next * 1000) + 1;
}

/* ---- end of the 0.9.75 workaround ---- */

static enum MHD_Result send_text(struct MHD_Connection *conn,
				 unsigned int status, const char *text)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

	mark_complete(conn);
	resp = MHD_create_response_from_buffer(strlen(text), (void *)text,
					       MHD_RESPMEM_PERSISTENT);
	if (!resp)
		return MHD_NO;
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				"text/plain; charset=utf-8");
	if (status == MHD_HTTP_METHOD_NOT_ALLOWED)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result send_page(struct pts_httpd *h,
				 struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len = 0;
	char *page;

	mark_complete(conn);
	page = h->page(h->ctx, &len);
	if (!page)
		return send_text(conn, MHD_HTTP_INTERNAL_SERVER_ERROR,
				 "ptscope: could not read the metrics, see "
				 "the exporter's stderr\n");
	resp = MHD_create_response_from_buffer(len, page, MHD_RESPMEM_MUST_FREE);
	if (!resp) {
		free(page);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE,
				h->content_type);
	/* one request per connection: the deadline covers each request */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * Errors are answered on the first call, before any request body is read
 * (libmicrohttpd then closes the connection).  A GET or HEAD of /metrics
 * is answered on the second call, once the request is complete (a body
 * sent with it is ignored).
 */
static enum MHD_Result answer(void *cls, struct MHD_Connection *conn,
			      const char *url, const char *method,
			      const char *version, const char *upload_data,
			      size_t *upload_data_size, void **con_cls)
{
	static int request_seen;

	if (strcmp(url, "/metrics"))
		return send_text(conn, MHD_HTTP_NOT_FOUND,
				 "ptscope: not found; metrics are at /metrics\n");
	if (strcmp(method, MHD_HTTP_METHOD_GET) &&
	    strcmp(method, MHD_HTTP_METHOD_HEAD))
		return send_text(conn, MHD_HTTP_METHOD_NOT_ALLOWED,
				 "ptscope: only GET and HEAD are served\n");
	if (!*con_cls) {
		*con_cls = &request_seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0;	/* a body on a GET: ignored */
		return MHD_YES;
	}
	return send_page(cls, conn);
}

struct pts_httpd *httpd_start(int listen_fd, httpd_page_fn page, void *ctx,
			      const char *content_type, bool verbose)
{
	/* no internal thread: the caller waits on the epoll fd; TURBO leaves
	 * the socket open until after the "closed" notification (the 0.9.75
	 * workaround answers 400 there) */
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_TURBO;
	const union MHD_DaemonInfo *info;
	struct pts_httpd *h;

	h = calloc(1, sizeof(*h));
	if (!h) {
		fprintf(stderr, "ptscope: out of memory\n");
		return NULL;
	}
	h->page = page;
	h->ctx = ctx;
	h->content_type = content_type;
	if (verbose)
		flags |= MHD_USE_ERROR_LOG;
	h->daemon = MHD_start_daemon(flags, 0, NULL, NULL, answer, h,
		MHD_OPTION_LISTEN_SOCKET, listen_fd,
		MHD_OPTION_CONNECTION_LIMIT, HTTPD_MAX_CONNECTIONS,
		MHD_OPTION_PER_IP_CONNECTION_LIMIT, HTTPD_PER_IP_LIMIT,
		MHD_OPTION_CONNECTION_TIMEOUT, HTTPD_IDLE_TIMEOUT_S,
		MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t)HTTPD_MEMORY_LIMIT,
		MHD_OPTION_NOTIFY_CONNECTION, notify, h,
		MHD_OPTION_URI_LOG_CALLBACK, line_parsed, h,
		MHD_OPTION_END);
	info = h->daemon ? MHD_get_daemon_info(h->daemon,
					       MHD_DAEMON_INFO_EPOLL_FD) : NULL;
	if (!info) {
		fprintf(stderr, "ptscope: starting the HTTP server failed; "
			"rerun with -v for libmicrohttpd's log\n");
		httpd_stop(h);
		return NULL;
	}
	h->epoll_fd = info->epoll_fd;
	return h;
}

int httpd_step(struct pts_httpd *h, long timeout_ms, const sigset_t *unblocked)
{
	struct pollfd pfd = { .fd = h->epoll_fd, .events = POLLIN };
	MHD_UNSIGNED_LONG_LONG server_ms;
	struct timespec ts;
	long ms = expire(h);

	if (timeout_ms < ms)
		ms = timeout_ms > 0 ? timeout_ms : 0;
	if (MHD_get_timeout(h->daemon, &server_ms) == MHD_YES &&
	    server_ms < (MHD_UNSIGNED_LONG_LONG)ms)
		ms = (long)server_ms;
	ts = (struct timespec){ .tv_sec = ms / 1000,
				.tv_nsec = (ms % 1000) * 1000000L };
	if (ppoll(&pfd, 1, &ts, unblocked) < 0)
		return -errno;
	MHD_run(h->daemon);	/* answers, accepts, drops idle clients */
	expire(h);
	return 0;
}

void httpd_stop(struct pts_httpd *h)
{
	if (!h)
		return;
	if (h->daemon)
		MHD_stop_daemon(h->daemon);	/* closes the listener */
	free(h);
}
