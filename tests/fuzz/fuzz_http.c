// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the exporter's HTTP request path: the bytes are
 * one raw request, written to the in-process server (src/export/httpd.c, with
 * libmicrohttpd) on 127.0.0.1 and followed by a half-close; the answer is
 * read until the server closes.  The page is a fixed string, no BPF.
 *
 *   clang -g -O1 -fsanitize=fuzzer,address,undefined -Iinclude -Isrc \
 *	tests/fuzz/fuzz_http.c src/export/httpd.c -o fuzz_http -lmicrohttpd
 *   ./fuzz_http tests/fuzz/corpus/http
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include "export/httpd.h"

#define STEPS_MAX	3000	/* 1 ms each: past the request deadline */

static const char page[] = "# TYPE fuzz_up gauge\nfuzz_up 1\n";
static struct pts_httpd *server;
static struct sockaddr_in server_addr;

static char *fake_page(void *ctx, size_t *len)
{
	char *p = strdup(page);

	*len = p ? strlen(p) : 0;
	return p;
}

static void start_server(void)
{
	socklen_t len = sizeof(server_addr);
	int fd;

	server_addr.sin_family = AF_INET;
	server_addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&server_addr, len) ||
	    listen(fd, 16) ||
	    getsockname(fd, (struct sockaddr *)&server_addr, &len)) {
		perror("fuzz_http: listening on 127.0.0.1");
		abort();
	}
	server = httpd_start(fd, fake_page, NULL, "text/plain", false);
	if (!server)
		abort();
}

/* a reply, if any, is HTTP */
static void check_reply(const char *head, size_t len)
{
	if (len && (len < 9 || memcmp(head, "HTTP/1.", 7))) {
		fprintf(stderr, "fuzz_http: not an HTTP reply: %.*s\n",
			(int)(len < 16 ? len : 16), head);
		abort();
	}
}

/* write @data, half-close, read until the server closes or gives up */
static void exchange(int fd, const uint8_t *data, size_t size)
{
	char head[16], buf[4096];
	size_t sent = 0, got = 0;
	bool shut = false;
	ssize_t n;
	int step;

	for (step = 0; step < STEPS_MAX; step++) {
		if (httpd_step(server, 1, NULL) && errno != EINTR)
			break;
		if (sent < size) {
			n = send(fd, data + sent, size - sent,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (n < 0 && errno != EAGAIN)
				break;	/* the server hung up early */
			if (n > 0)
				sent += (size_t)n;
		}
		if (sent == size && !shut)
			shut = !shutdown(fd, SHUT_WR);
		n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n > 0 && got < sizeof(head))
			memcpy(head + got, buf, (size_t)n < sizeof(head) - got ?
			       (size_t)n : sizeof(head) - got);
		if (n > 0)
			got += (size_t)n;
	}
	check_reply(head, got);
	httpd_step(server, 0, NULL);	/* let it clean up */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd;

	if (!server)
		start_server();
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		abort();
	if (connect(fd, (struct sockaddr *)&server_addr, sizeof(server_addr)) &&
	    errno != EINPROGRESS)
		abort();
	exchange(fd, data, size);
	close(fd);
	return 0;
}
