// SPDX-License-Identifier: GPL-2.0
/* libFuzzer target: the --listen ADDR:PORT parser (listen_parse). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include "export/listen.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct sockaddr_storage addr;
	socklen_t addrlen = 0;
	char err[256];
	char *arg;

	/* the option's value is a C string: it ends at the first NUL */
	arg = malloc(size + 1);
	if (!arg)
		return 0;
	memcpy(arg, data, size);
	arg[size] = '\0';
	err[0] = '\0';
	if (listen_parse(arg, &addr, &addrlen, err, sizeof(err)) == 0) {
		if (addrlen == 0 || addrlen > sizeof(addr))
			abort();
		if (addr.ss_family != AF_INET && addr.ss_family != AF_INET6)
			abort();
	} else if (!err[0]) {
		abort();	/* a rejection always says why */
	}
	free(arg);
	return 0;
}
