/*
 * am_net.h - helpers shared by the socket transports (tr_tcp.c, tr_udp.c):
 * IPv4 addresses and their printable form "<transport>:AAAAAAAA:PPPP".
 * The generic layer never includes this: to it, addresses are text.
 */
#ifndef LIBAM_AM_NET_H
#define LIBAM_AM_NET_H

#include <stddef.h>
#include <netinet/in.h>
#include "am_int.h"

int amx_self_ip(const char *bind_host, struct in_addr *out);
int amx_addr_parse(const char *prefix, const char *text, struct sockaddr_in *sa);
int amx_addr_format(const char *prefix, const struct sockaddr_in *sa, char *text, size_t size);
/* The dotted IPv4 host of sa (am_hostname). */
void amx_addr_host(const struct sockaddr_in *sa, char *buf, size_t size);
/* A socket bound to the interface's address, whose printable form becomes
 * ifc->self_addr.  shared: SO_REUSEPORT, so per-peer sockets can take the
 * same port (udp). */
int amx_bound_socket(am_interface_t *ifc, int type, const char *prefix, int shared);
/* A new epoll fd watching fd for input (event data NULL), or -1. */
int amx_epoll_with(int fd);

#endif /* LIBAM_AM_NET_H */
