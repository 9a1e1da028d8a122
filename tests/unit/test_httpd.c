// SPDX-License-Identifier: GPL-2.0
/*
 * The HTTP side (src/export/httpd.c) on 127.0.0.1 with a fixed page: what
 * libmicrohttpd 0.9.75 does not do by itself and httpd.c's workaround
 * adds.  Each case fails with the workaround taken out: a malformed
 * request line gets no answer, a half-closed half request waits for the
 * idle timeout, a trickling client is never cut off.
 */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include "export/httpd.h"

#define STEP_MS		10
#define IDLE_STEPS	(long)(HTTPD_IDLE_TIMEOUT_S * 1000 / STEP_MS)

static struct pts_httpd *server;
static struct sockaddr_in addr;

static char *fake_page(void *ctx, size_t *len)
{
	*len = 3;
	return strdup("up\n");
}

static int setup(void **state)
{
	socklen_t len = sizeof(addr);
	int fd;

	addr.sin_family = AF_INET;
	addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&addr, len) ||
	    listen(fd, 16) || getsockname(fd, (struct sockaddr *)&addr, &len))
		return -1;
	server = httpd_start(fd, fake_page, NULL, "text/plain", false);
	return server ? 0 : -1;
}

static int teardown(void **state)
{
	httpd_stop(server);
	return 0;
}

/*
 * Send @req (then half-close with @shut), serve until the server closes;
 * the status code of the answer (0: none), *@steps: how many steps it took.
 */
static int exchange(const char *req, bool shut, long *steps)
{
	char reply[512] = "";
	size_t got = 0;
	ssize_t n;
	int fd;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
	assert_true(fd >= 0);
	assert_true(!connect(fd, (struct sockaddr *)&addr, sizeof(addr)) ||
		    errno == EINPROGRESS);
	httpd_step(server, STEP_MS, NULL);
	assert_int_equal(send(fd, req, strlen(req), MSG_NOSIGNAL),
			 (ssize_t)strlen(req));
	if (shut)
		shutdown(fd, SHUT_WR);
	/* past the idle timeout: the deadline must come first */
	for (*steps = 0; *steps < IDLE_STEPS; (*steps)++) {
		httpd_step(server, STEP_MS, NULL);
		n = recv(fd, reply + got, sizeof(reply) - 1 - got, MSG_DONTWAIT);
		if (n == 0 || (n < 0 && errno != EAGAIN))
			break;
		if (n > 0)
			got += (size_t)n;
	}
	close(fd);
	if (strncmp(reply, "HTTP/1.1 ", 9))
		return 0;
	return atoi(reply + 9);
}

static void test_malformed_line(void **state)
{
	long steps;

	assert_int_equal(exchange("GARBAGE\r\n\r\n", false, &steps), 400);
	assert_int_equal(exchange("GET\r\n\r\n", false, &steps), 400);
}

static void test_half_close(void **state)
{
	long steps;

	assert_int_equal(exchange("GET /metr", true, &steps), 400);
	assert_int_equal(exchange("GET /metrics HTTP/1.0\r\n\r\n", true,
				  &steps), 200);
}

/* a request that never ends is cut off at the deadline, not when idle */
static void test_deadline(void **state)
{
	long steps;

	assert_int_equal(exchange("GET /metrics HTTP/1.1\r\nX-Slow: a", false,
				  &steps), 408);
	assert_true(steps < IDLE_STEPS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_malformed_line),
		cmocka_unit_test(test_half_close),
		cmocka_unit_test(test_deadline),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
