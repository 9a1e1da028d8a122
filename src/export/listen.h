/* SPDX-License-Identifier: GPL-2.0 */
/* The --listen ADDR:PORT value of export and top --listen. */
#ifndef PTSCOPE_LISTEN_H
#define PTSCOPE_LISTEN_H

#include <stddef.h>
#include <sys/socket.h>

/*
 * "127.0.0.1:9477", "[::1]:9477" or "localhost:9477" into a socket
 * address; 0, or -EINVAL with the reason in @err.
 */
int listen_parse(const char *listen, struct sockaddr_storage *addr,
		 socklen_t *addrlen, char *err, size_t errlen);

#endif
