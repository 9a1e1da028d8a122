// SPDX-License-Identifier: GPL-2.0
/* --listen ADDR:PORT (src/export/listen.c) */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include "export/listen.h"

static void assert_listen_ok(const char *arg, int family, const char *addr,
			     int port)
{
	struct sockaddr_storage ss;
	char err[256] = "", text[64];
	socklen_t len = 0;

	if (listen_parse(arg, &ss, &len, err, sizeof(err)))
		fail_msg("'%s' refused: %s", arg, err);
	assert_int_equal(ss.ss_family, family);
	if (family == AF_INET) {
		struct sockaddr_in *sin = (struct sockaddr_in *)&ss;

		assert_int_equal(len, sizeof(*sin));
		assert_int_equal(ntohs(sin->sin_port), port);
		inet_ntop(AF_INET, &sin->sin_addr, text, sizeof(text));
	} else {
		struct sockaddr_in6 *sin6 = (struct sockaddr_in6 *)&ss;

		assert_int_equal(len, sizeof(*sin6));
		assert_int_equal(ntohs(sin6->sin6_port), port);
		inet_ntop(AF_INET6, &sin6->sin6_addr, text, sizeof(text));
	}
	assert_string_equal(text, addr);
}

static void test_listen(void **state)
{
	static const char *const bad[] = {
		"127.0.0.1", "127.0.0.1:", "127.0.0.1:0", ":9477",
		"127.0.0.1:65536", "127.0.0.1:9x", "127.0.0.1:+80",
		"127.0.0.1: 80", "127.0.0.1:123456", "1.2.3:80", "::1:9477",
		"[::1:9477", "[zz]:80", "[]:80", "host.example:80",
		"256.0.0.1:80", "", "127.1:80", "0x7f.0.0.1:80",
		"[127.0.0.1]:80", "localhost6:80", "127.0.0.1:http",
	};
	struct sockaddr_storage ss;
	socklen_t len;
	char err[256];
	size_t i;

	assert_listen_ok("127.0.0.1:9477", AF_INET, "127.0.0.1", 9477);
	assert_listen_ok("0.0.0.0:1", AF_INET, "0.0.0.0", 1);
	assert_listen_ok("localhost:80", AF_INET, "127.0.0.1", 80);
	assert_listen_ok("[::1]:65535", AF_INET6, "::1", 65535);
	assert_listen_ok("[::]:9477", AF_INET6, "::", 9477);
	assert_listen_ok("[::ffff:127.0.0.1]:9477", AF_INET6,
			 "::ffff:127.0.0.1", 9477);
	for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		if (!listen_parse(bad[i], &ss, &len, err, sizeof(err)))
			fail_msg("'%s' accepted", bad[i]);
		assert_non_null(strstr(err, "--listen"));
		assert_non_null(strstr(err, "ADDR:PORT"));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listen),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
