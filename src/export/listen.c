// SPDX-License-Identifier: GPL-2.0
/*
 * --listen ADDR:PORT through getaddrinfo(3), numeric only: no name
 * service decides where the exporter listens.  glibc is more lenient
 * than the option's contract (inet_aton() forms such as "1.2.3", ports
 * "+80", " 80" or 65536 taken modulo 2^16), so the port and the IPv4
 * form are checked first.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdbool.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "export/listen.h"

#define LISTEN_HOST_MAX	64	/* an IPv6 address with a scope id fits */

static int listen_error(char *err, size_t errlen, const char *listen,
			const char *why)
{
	snprintf(err, errlen, "--listen %s: %s (want ADDR:PORT, e.g. "
		 "127.0.0.1:9477 or [::1]:9477)", listen, why);
	return -EINVAL;
}

/* 1 to 65535 in decimal digits only */
static bool port_ok(const char *s)
{
	size_t n = strlen(s);
	unsigned long v;

	if (!n || n > 5 || strspn(s, "0123456789") != n)
		return false;
	v = strtoul(s, NULL, 10);
	return v >= 1 && v <= 65535;
}

/* @host (bracketed: IPv6) resolved without the name service; 0 or -EINVAL */
static int resolve(const char *host, size_t len, const char *port,
		   struct sockaddr_storage *addr, socklen_t *addrlen)
{
	struct addrinfo hints = {
		.ai_socktype = SOCK_STREAM,
		.ai_flags = AI_NUMERICHOST | AI_NUMERICSERV | AI_PASSIVE,
		.ai_family = AF_INET,
	};
	struct addrinfo *res;
	struct in_addr in;
	char buf[LISTEN_HOST_MAX];

	if (host[0] == '[') {
		if (len < 2 || host[len - 1] != ']')
			return -EINVAL;
		hints.ai_family = AF_INET6;
		host++;
		len -= 2;
	}
	if (len >= sizeof(buf))
		return -EINVAL;
	memcpy(buf, host, len);
	buf[len] = '\0';
	if (hints.ai_family == AF_INET && !strcmp(buf, "localhost"))
		strcpy(buf, "127.0.0.1");	/* not looked up: fixed */
	/* a dotted quad, not "1.2.3" or "0x7f.1" */
	if (hints.ai_family == AF_INET && inet_pton(AF_INET, buf, &in) != 1)
		return -EINVAL;
	if (getaddrinfo(buf, port, &hints, &res))
		return -EINVAL;
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;
}

int listen_parse(const char *listen, struct sockaddr_storage *addr,
		 socklen_t *addrlen, char *err, size_t errlen)
{
	const char *colon = strrchr(listen, ':');
	size_t len;

	memset(addr, 0, sizeof(*addr));
	if (!colon)
		return listen_error(err, errlen, listen, "no port");
	if (!port_ok(colon + 1))
		return listen_error(err, errlen, listen,
				    "the port must be a number from 1 to 65535");
	len = (size_t)(colon - listen);
	if (!len)
		return listen_error(err, errlen, listen, "no address");
	if (listen[0] != '[' && memchr(listen, ':', len))
		return listen_error(err, errlen, listen,
				    "IPv6 addresses go in brackets");
	if (resolve(listen, len, colon + 1, addr, addrlen))
		return listen_error(err, errlen, listen, listen[0] == '[' ?
				    "not an IPv6 address" :
				    "not an IPv4 address (or localhost)");
	return 0;
}
