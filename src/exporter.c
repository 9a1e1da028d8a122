// SPDX-License-Identifier: GPL-2.0
/*
 * The Prometheus endpoint of export and top --listen.  GET /metrics reads the BPF maps
 * (collector_read) on each scrape and renders them with prom_render(); the
 * counters are cumulative and never reset, so any number of scrapers can
 * share one exporter.  One thread does everything: it accepts
 * connections and hands each to libmicrohttpd (run from the same loop)
 * once its request line is well formed; libmicrohttpd 0.9.75 hangs up on
 * a malformed one without answering, the exporter answers 400 instead.
 * The caller's loop runs it until a deadline or Ctrl-C.
 */
#define _GNU_SOURCE	/* accept4, ppoll */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <microhttpd.h>
#include "collector.h"
#include "exporter.h"
#include "prom.h"

#define EXPORT_BACKLOG		64
#define EXPORT_MAX_CONNECTIONS	32u
#define EXPORT_TIMEOUT_S	10u	/* idle or slow clients are dropped */
#define GATE_MAX_PENDING	64	/* connections without a request line */
#define GATE_SHORT_TICK_MS	50
#define GATE_LINE_MAX		4096	/* longest request line accepted */

/* a connection waiting for its request line, before libmicrohttpd */
struct gate_conn {
	int fd;
	double since;
	bool partial;		/* part of a request line came */
	struct sockaddr_storage addr;
	socklen_t addrlen;
};

struct gate {
	int listen_fd;
	struct MHD_Daemon *daemon;
	int server_fd;		/* libmicrohttpd's epoll fd */
	struct gate_conn conns[GATE_MAX_PENDING];
	int nr;
	bool backoff;		/* accept failed: rest the listener */
};

struct pts_exporter {
	struct pts_session *s;
	struct prom_prog *progs;	/* names and run-time statistics */
	int *prog_fds;
	size_t nr_progs;
	int stats_fd;		/* keeps BPF run-time statistics on, or -1 */
	const char *collapse_names[PTS_COLLAPSE_STATUSES];	/* from BTF */
	struct gate g;
	bool started;		/* the server runs, the stop signals are blocked */
	sigset_t old_mask;	/* the signal mask before exporter_start() */
	const char *listen_arg;	/* the option's ADDR:PORT */
};

static void explain_listen_failure(const char *listen_arg, int err)
{
	const char *hint;

	switch (err) {
	case EADDRINUSE:
		hint = "address already in use (another exporter?); pick a "
		       "free port with --listen ADDR:PORT";
		break;
	case EACCES:
		hint = "permission denied; ports below 1024 need root";
		break;
	case EADDRNOTAVAIL:
		hint = "no such address on this host; use one of its "
		       "addresses, e.g. 127.0.0.1";
		break;
	default:
		hint = strerror(err);
		break;
	}
	fprintf(stderr, "ptscope: cannot listen on %s: %s\n", listen_arg, hint);
}

/* 0 with a listening socket in @fd_out, or the exit code after saying why */
static int open_listener(const char *listen_arg, int *fd_out)
{
	struct sockaddr_storage addr;
	socklen_t addrlen = 0;
	char err[256];
	int fd, one = 1, saved;

	if (prom_parse_listen(listen_arg, &addr, &addrlen, err, sizeof(err))) {
		fprintf(stderr, "ptscope: %s\n", err);
		return 2;
	}
	fd = socket(addr.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
		    0);
	if (fd < 0) {
		fprintf(stderr, "ptscope: cannot create a socket: %s\n",
			strerror(errno));
		return 1;
	}
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&addr, addrlen) ||
	    listen(fd, EXPORT_BACKLOG)) {
		saved = errno;
		close(fd);
		explain_listen_failure(listen_arg, saved);
		return saved == EADDRNOTAVAIL ? 2 : 1;
	}
	*fd_out = fd;
	return 0;
}

static size_t count_loaded_programs(const struct pts_objects *objs)
{
	struct bpf_program *prog;
	size_t n = 0;
	int i;

	for (i = 0; i < PTS_NR_OBJS; i++) {
		if (!objs->obj[i])
			continue;
		bpf_object__for_each_program(prog, objs->obj[i])
			if (bpf_program__fd(prog) >= 0)
				n++;
	}
	return n;
}

/* the engine's loaded programs: their names now, their statistics later */
static int collect_programs(struct pts_exporter *ex)
{
	const struct pts_objects *objs = &ex->s->eng.objs;
	struct bpf_program *prog;
	size_t n = count_loaded_programs(objs), k = 0;
	int i;

	ex->progs = calloc(n ? n : 1, sizeof(*ex->progs));
	ex->prog_fds = calloc(n ? n : 1, sizeof(*ex->prog_fds));
	if (!ex->progs || !ex->prog_fds)
		return -ENOMEM;
	for (i = 0; i < PTS_NR_OBJS; i++) {
		if (!objs->obj[i])
			continue;
		bpf_object__for_each_program(prog, objs->obj[i]) {
			if (bpf_program__fd(prog) < 0 || k == n)
				continue;
			snprintf(ex->progs[k].name, sizeof(ex->progs[k].name),
				 "%s", bpf_program__name(prog));
			ex->prog_fds[k++] = bpf_program__fd(prog);
		}
	}
	ex->nr_progs = k;
	return 0;
}

/* run_time_ns and run_cnt only grow while someone holds this fd open */
static void enable_run_stats(struct pts_exporter *ex)
{
	ex->stats_fd = bpf_enable_stats(BPF_STATS_RUN_TIME);
	if (ex->stats_fd < 0)
		fprintf(stderr, "ptscope: BPF run-time statistics unavailable "
			"(%s); ptscope_bpf_program_* metrics left out\n",
			strerror(errno));
}

/* libbpf 1.1 (Debian 12) has no bpf_prog_get_info_by_fd() yet */
static void read_program_stats(struct pts_exporter *ex)
{
	struct bpf_prog_info info;
	__u32 len;
	size_t i;

	for (i = 0; i < ex->nr_progs; i++) {
		memset(&info, 0, sizeof(info));
		len = sizeof(info);
		if (bpf_obj_get_info_by_fd(ex->prog_fds[i], &info, &len))
			continue;	/* keep the last values */
		ex->progs[i].run_time_ns = info.run_time_ns;
		ex->progs[i].run_cnt = info.run_cnt;
	}
}

/* BTF lookups scan every type: done once here, not on each scrape */
static void cache_collapse_names(struct pts_exporter *ex)
{
	int st;

	for (st = 0; st < PTS_COLLAPSE_STATUSES; st++)
		ex->collapse_names[st] = caps_enum_name(&ex->s->caps,
							"scan_result", st);
}

static const char *collapse_name(const void *ctx, int status)
{
	const struct pts_exporter *ex = ctx;

	return ex->collapse_names[status];
}

static enum MHD_Result send_text(struct MHD_Connection *conn,
				 unsigned int status, const char *text)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;

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

/* the page, or NULL after logging why */
static char *render_page(struct pts_exporter *ex, size_t *len)
{
	struct pts_objects objs = ex->s->eng.objs;
	struct pts_snapshot snap;
	struct prom_buf buf;
	struct prom_input in = {
		.eng = &ex->s->eng,
		.snap = &snap,
		.page_size = ex->s->rep.page_size,
		.collapse_name = collapse_name,
		.name_ctx = ex,
		.progs = ex->stats_fd >= 0 ? ex->progs : NULL,
		.nr_progs = ex->nr_progs,
	};
	int err;

	objs.procs_fd = -1;	/* no per-process series: skip that map */
	err = collector_read(&objs, &snap);
	if (err) {
		fprintf(stderr, "ptscope: reading BPF maps failed: %s\n",
			strerror(-err));
		snapshot_free(&snap);
		return NULL;
	}
	if (in.progs)
		read_program_stats(ex);
	prom_buf_init(&buf);
	err = prom_render(&in, &buf);
	snapshot_free(&snap);
	if (err) {
		fprintf(stderr, "ptscope: rendering metrics: %s\n",
			strerror(-err));
		prom_buf_free(&buf);
		return NULL;
	}
	*len = buf.len;
	return buf.data;
}

static enum MHD_Result send_metrics(struct pts_exporter *ex,
				    struct MHD_Connection *conn)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t len = 0;
	char *page;

	page = render_page(ex, &len);
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
				PROM_CONTENT_TYPE);
	/* one request per connection: each request line passes the gate */
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, MHD_HTTP_OK, resp);
	MHD_destroy_response(resp);
	return ret;
}

/*
 * Errors are answered on the first call, before any request body is read
 * (libmicrohttpd then closes the connection).  A GET or HEAD of /metrics
 * is answered on the second call, once the request is complete (a body
 * sent with it is ignored).  Malformed requests never get here: the gate
 * or libmicrohttpd answers them with 4xx.
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
	return send_metrics(cls, conn);
}

/* driven from the main loop: no server thread, one epoll fd to watch */
static struct MHD_Daemon *start_server(struct pts_exporter *ex, bool verbose)
{
	unsigned int flags = MHD_USE_EPOLL | MHD_USE_NO_LISTEN_SOCKET;

	if (verbose)
		flags |= MHD_USE_ERROR_LOG;
	return MHD_start_daemon(flags, 0, NULL, NULL, answer, ex,
				MHD_OPTION_CONNECTION_LIMIT, EXPORT_MAX_CONNECTIONS,
				MHD_OPTION_CONNECTION_TIMEOUT, EXPORT_TIMEOUT_S,
				MHD_OPTION_END);
}

static void gate_remove(struct gate *g, int i)
{
	g->conns[i] = g->conns[--g->nr];
}

static void gate_accept(struct gate *g)
{
	struct gate_conn *c = &g->conns[g->nr];
	int fd;

	c->addrlen = sizeof(c->addr);
	fd = accept4(g->listen_fd, (struct sockaddr *)&c->addr, &c->addrlen,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0) {
		/* out of descriptors and the like: pause accepting a moment */
		g->backoff = errno != EAGAIN && errno != EINTR &&
			     errno != ECONNABORTED;
		return;
	}
	c->fd = fd;
	c->since = mono_seconds();
	c->partial = false;
	g->nr++;
}

/* answer a malformed request ourselves, then hang up */
static void gate_reject(struct gate *g, int i, const char *status)
{
	static const char body[] = "ptscope: malformed HTTP request\n";
	char resp[256], junk[4096];
	int fd = g->conns[i].fd, n, rounds = 0;

	/* read what was sent, so close() does not turn into a reset */
	while (recv(fd, junk, sizeof(junk), MSG_DONTWAIT) > 0 && ++rounds < 16)
		;
	n = snprintf(resp, sizeof(resp), "HTTP/1.1 %s\r\nContent-Type: "
		     "text/plain; charset=utf-8\r\nContent-Length: %zu\r\n"
		     "Connection: close\r\n\r\n%s", status, sizeof(body) - 1,
		     body);
	if (send(fd, resp, (size_t)n, MSG_DONTWAIT | MSG_NOSIGNAL) == n)
		shutdown(fd, SHUT_WR);
	close(fd);
	gate_remove(g, i);
}

/* hand a connection to libmicrohttpd once its request line looks right */
static void gate_check(struct gate *g, int i, short revents)
{
	struct gate_conn *c = &g->conns[i];
	bool hangup = revents & (POLLHUP | POLLERR | POLLRDHUP);
	char line[GATE_LINE_MAX];
	enum prom_line verdict;
	ssize_t n;

	n = recv(c->fd, line, sizeof(line), MSG_PEEK | MSG_DONTWAIT);
	if (n < 0 && (errno == EAGAIN || errno == EINTR) && !hangup)
		return;
	if (n <= 0)
		goto drop;	/* the client went away */
	verdict = prom_check_request_line(line, (size_t)n, sizeof(line));
	switch (verdict) {
	case PROM_LINE_MORE:
		if (hangup)
			goto drop;
		c->partial = true;	/* peeked data keeps POLLIN set */
		return;
	case PROM_LINE_BAD:
		gate_reject(g, i, "400 Bad Request");
		return;
	case PROM_LINE_TOO_LONG:
		gate_reject(g, i, "414 URI Too Long");
		return;
	case PROM_LINE_OK:
		break;
	}
	/* closes the socket itself when it fails */
	MHD_add_connection(g->daemon, c->fd, (struct sockaddr *)&c->addr,
			   c->addrlen);
	gate_remove(g, i);
	MHD_run(g->daemon);
	return;
drop:
	close(c->fd);
	gate_remove(g, i);
}

static void gate_expire(struct gate *g)
{
	double now = mono_seconds();
	int i;

	for (i = g->nr - 1; i >= 0; i--) {
		if (now - g->conns[i].since < EXPORT_TIMEOUT_S)
			continue;
		close(g->conns[i].fd);
		gate_remove(g, i);
	}
}

/*
 * Pending connections, then the listener if there is room, then the
 * server's epoll fd.  A partial request line stays readable: those are
 * only watched for a hang-up and peeked at again on a short tick.
 */
static int gate_pollfds(struct gate *g, struct pollfd *pfds, int *listen_at)
{
	int i, n = 0;

	for (i = 0; i < g->nr; i++)
		pfds[n++] = (struct pollfd){
			.fd = g->conns[i].fd,
			.events = g->conns[i].partial ? POLLRDHUP : POLLIN,
		};
	*listen_at = -1;
	if (g->nr < GATE_MAX_PENDING && !g->backoff) {
		*listen_at = n;
		pfds[n++] = (struct pollfd){ .fd = g->listen_fd, .events = POLLIN };
	}
	pfds[n++] = (struct pollfd){ .fd = g->server_fd, .events = POLLIN };
	return n;
}

/* how long to sleep: the gate's tick, or less when the server or the
 * caller's deadline says so */
static struct timespec gate_tick(const struct gate *g, double deadline)
{
	MHD_UNSIGNED_LONG_LONG server_ms;
	long ms = 1000, left_ms;
	int i;

	if (g->backoff)
		ms = GATE_SHORT_TICK_MS;
	for (i = 0; i < g->nr; i++)
		if (g->conns[i].partial)
			ms = GATE_SHORT_TICK_MS;
	if (MHD_get_timeout(g->daemon, &server_ms) == MHD_YES &&
	    server_ms < (MHD_UNSIGNED_LONG_LONG)ms)
		ms = (long)server_ms;
	if (deadline > 0) {
		left_ms = (long)((deadline - mono_seconds()) * 1000) + 1;
		if (left_ms < ms)
			ms = left_ms > 0 ? left_ms : 0;
	}
	return (struct timespec){ .tv_sec = ms / 1000,
				  .tv_nsec = (ms % 1000) * 1000000L };
}

/*
 * Accept on the caller's thread until @deadline or Ctrl-C: the stop
 * signals are unblocked only inside ppoll(), so they can never be missed.
 */
static int gate_run(struct gate *g, const sigset_t *unblocked, double deadline)
{
	struct pollfd pfds[GATE_MAX_PENDING + 2];
	struct timespec tick;
	int i, n, pending, listen_at;

	while (!pts_stop_requested) {
		if (deadline > 0 && mono_seconds() >= deadline)
			break;
		tick = gate_tick(g, deadline);
		g->backoff = false;
		pending = g->nr;
		n = gate_pollfds(g, pfds, &listen_at);
		if (ppoll(pfds, (nfds_t)n, &tick, unblocked) < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		/* backwards: gate_remove() moves the last one into the gap */
		for (i = pending - 1; i >= 0; i--)
			if (pfds[i].revents || g->conns[i].partial)
				gate_check(g, i, pfds[i].revents);
		if (listen_at >= 0 && (pfds[listen_at].revents & POLLIN))
			gate_accept(g);
		gate_expire(g);
		MHD_run(g->daemon);	/* answers scrapes, drops idle clients */
	}
	return 0;
}

static void gate_close(struct gate *g)
{
	int i;

	for (i = 0; i < g->nr; i++)
		close(g->conns[i].fd);
	g->nr = 0;
	if (g->listen_fd >= 0)
		close(g->listen_fd);
	g->listen_fd = -1;
}

/* blocked outside ppoll(), so a Ctrl-C can never slip past the check */
static void block_stop_signals(sigset_t *old)
{
	sigset_t stop;

	sigemptyset(&stop);
	sigaddset(&stop, SIGINT);
	sigaddset(&stop, SIGTERM);
	sigaddset(&stop, SIGHUP);
	sigprocmask(SIG_BLOCK, &stop, old);
	signal(SIGPIPE, SIG_IGN);	/* a scraper hanging up is no error */
}

/* listen before attaching, so a taken port fails fast; 0 or the exit code */
static int exporter_listen(struct pts_exporter **exp, const char *listen_arg)
{
	struct pts_exporter *ex;
	int ret;

	ex = calloc(1, sizeof(*ex));
	if (!ex) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	ex->listen_arg = listen_arg;
	ex->stats_fd = -1;
	ex->g.listen_fd = -1;
	ret = open_listener(listen_arg, &ex->g.listen_fd);
	if (ret) {
		exporter_close(ex);
		return ret;
	}
	*exp = ex;
	return 0;
}

/* serve @s's maps; blocks the stop signals until exporter_close() */
static int exporter_start(struct pts_exporter *ex, struct pts_session *s,
			  bool verbose)
{
	const union MHD_DaemonInfo *info;

	ex->s = s;
	if (collect_programs(ex)) {
		fprintf(stderr, "ptscope: out of memory\n");
		return 1;
	}
	if (ex->nr_progs)
		enable_run_stats(ex);
	cache_collapse_names(ex);
	block_stop_signals(&ex->old_mask);
	ex->started = true;
	ex->g.daemon = start_server(ex, verbose);
	info = ex->g.daemon ? MHD_get_daemon_info(ex->g.daemon,
						  MHD_DAEMON_INFO_EPOLL_FD) :
			      NULL;
	if (!info) {
		fprintf(stderr, "ptscope: starting the HTTP server failed; "
			"rerun with -v for libmicrohttpd's log\n");
		return 1;
	}
	ex->g.server_fd = info->epoll_fd;
	fprintf(stderr, "ptscope: serving http://%s/metrics\n", ex->listen_arg);
	return 0;
}

int exporter_serve(struct pts_exporter *ex, double deadline)
{
	int err = gate_run(&ex->g, &ex->old_mask, deadline);

	if (err) {
		fprintf(stderr, "ptscope: waiting for connections failed: %s\n",
			strerror(-err));
		return 1;
	}
	return 0;
}

void exporter_close(struct pts_exporter *ex)
{
	if (!ex)
		return;
	if (ex->g.daemon)
		MHD_stop_daemon(ex->g.daemon);
	gate_close(&ex->g);
	if (ex->started)
		sigprocmask(SIG_SETMASK, &ex->old_mask, NULL);
	if (ex->stats_fd >= 0)
		close(ex->stats_fd);
	free(ex->progs);
	free(ex->prog_fds);
	free(ex);
}

int exporter_session_start(struct pts_session *s,
			   const struct pts_options *opts, bool serve,
			   struct pts_exporter **exp)
{
	struct pts_exporter *ex = NULL;
	int ret;

	*exp = NULL;
	if (serve) {
		ret = exporter_listen(&ex, opts->listen);
		if (ret)
			return ret;
	}
	ret = session_start(s, opts, false);
	if (ret) {
		exporter_close(ex);
		return ret;
	}
	if (ex) {
		ret = exporter_start(ex, s, opts->verbose);
		if (ret) {
			exporter_close(ex);
			session_stop(s);
			return ret;
		}
	}
	*exp = ex;
	return 0;
}
