/*
 * am_net.c - address helpers shared by the socket transports.  Printable
 * addresses are "<transport>:AAAAAAAA:PPPP": the IPv4 address and port in
 * hex of their network-order values, so they travel as plain text (e.g.
 * inside PVM messages) and mean the same on every host.
 */
#include <arpa/inet.h>
#include <ifaddrs.h>
#include <netdb.h>
#include <net/if.h>
#include <sys/epoll.h>
#include <stdio.h>
#include <unistd.h>
#include <string.h>
#include "am_net.h"

static int usable(const struct ifaddrs *i)
{
    return i->ifa_addr && i->ifa_addr->sa_family == AF_INET && (i->ifa_flags & IFF_UP) &&
           !(i->ifa_flags & IFF_LOOPBACK);
}

/* Of several interfaces, the one this host's name resolves to: the address
 * the pvmd gives this host to the others (it takes it from gethostname()),
 * so the one they can reach; a bridge for containers or a VPN listed first
 * may not be.  Only asked with more than one candidate, so a host with one
 * interface never waits on a name lookup. */
static int named_ip(const struct ifaddrs *ifa, struct in_addr *out)
{
    char host[256];
    struct addrinfo hints = { .ai_family = AF_INET }, *res = NULL;
    if (gethostname(host, sizeof host) < 0)
        return 0;
    host[sizeof host - 1] = 0;
    if (getaddrinfo(host, NULL, &hints, &res) != 0)
        return 0;
    int found = 0;
    for (struct addrinfo *a = res; a && !found; a = a->ai_next) {
        struct in_addr ip = ((struct sockaddr_in *)a->ai_addr)->sin_addr;
        for (const struct ifaddrs *i = ifa; i && !found; i = i->ifa_next)
            if (usable(i) && ((struct sockaddr_in *)i->ifa_addr)->sin_addr.s_addr == ip.s_addr) {
                *out = ip;
                found = 1;
            }
    }
    freeaddrinfo(res);
    return found;
}

/* The address other hosts reach us at: bind_host if given, else the one
 * non-loopback IPv4 address, or of several the one the host's name
 * resolves to (else the first), else loopback. */
int amx_self_ip(const char *bind_host, struct in_addr *out)
{
    if (bind_host && *bind_host)
        return inet_pton(AF_INET, bind_host, out) == 1 ? AM_OK : AM_ERR_BADADDR;
    struct ifaddrs *ifa = NULL;
    out->s_addr = htonl(INADDR_LOOPBACK);
    if (getifaddrs(&ifa) < 0)
        return AM_OK;
    int n = 0;
    for (struct ifaddrs *i = ifa; i; i = i->ifa_next)
        if (usable(i) && n++ == 0)
            *out = ((struct sockaddr_in *)i->ifa_addr)->sin_addr;
    if (n > 1)
        named_ip(ifa, out);
    freeifaddrs(ifa);
    return AM_OK;
}

int amx_addr_parse(const char *prefix, const char *text, struct sockaddr_in *sa)
{
    size_t pl = strlen(prefix);
    unsigned ip, port;
    char end;
    if (!text || strncmp(text, prefix, pl) || text[pl] != ':' ||
        sscanf(text + pl + 1, "%8x:%4x%c", &ip, &port, &end) != 2 || port == 0)
        return AM_ERR_BADADDR;
    memset(sa, 0, sizeof *sa);
    sa->sin_family = AF_INET;
    sa->sin_addr.s_addr = htonl(ip);
    sa->sin_port = htons((uint16_t)port);
    return AM_OK;
}

int amx_addr_format(const char *prefix, const struct sockaddr_in *sa, char *text, size_t size)
{
    int n = snprintf(text, size, "%s:%08x:%04x", prefix, (unsigned)ntohl(sa->sin_addr.s_addr),
                     (unsigned)ntohs(sa->sin_port));
    return n > 0 && (size_t)n < size ? AM_OK : AM_ERR_INVAL;
}

void amx_addr_host(const struct sockaddr_in *sa, char *buf, size_t size)
{
    const unsigned char *ip = (const unsigned char *)&sa->sin_addr;
    snprintf(buf, size, "%u.%u.%u.%u", ip[0], ip[1], ip[2], ip[3]);
}

/* Open a nonblocking socket of `type` bound to the interface's address
 * (all addresses unless bind_host is set) on a free port, and publish its
 * printable address as the interface's own.  Returns the fd or a status. */
int amx_bound_socket(am_interface_t *ifc, int type, const char *prefix, int shared)
{
    struct sockaddr_in sa = { .sin_family = AF_INET };
    int rc = amx_self_ip(ifc->cfg.bind_host, &sa.sin_addr);
    if (rc < 0)
        return rc;
    struct sockaddr_in bind_sa = sa;
    if (!ifc->cfg.bind_host)
        bind_sa.sin_addr.s_addr = htonl(INADDR_ANY);
    int fd = socket(AF_INET, type | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return AM_ERR_SYS;
    int one = 1;
    socklen_t sl = sizeof bind_sa;
    if (bind(fd, (struct sockaddr *)&bind_sa, sizeof bind_sa) < 0 ||
        getsockname(fd, (struct sockaddr *)&bind_sa, &sl) < 0) {
        close(fd);
        return AM_ERR_SYS;
    }
    /* Shared: per-peer sockets will bind this port too.  SO_REUSEPORT only
     * after the bind: set before a bind to port 0, it lets the kernel hand
     * out a port another task's reuseport socket already holds (measured:
     * 301 of 3000 such sockets shared a port), and the two tasks then get
     * each other's datagrams.  Best effort: without it the transport sends
     * unconnected. */
    if (shared)
        setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one);
    sa.sin_port = bind_sa.sin_port;
    amx_addr_format(prefix, &sa, ifc->self_addr, sizeof ifc->self_addr);
    return fd;
}

int amx_epoll_with(int fd)
{
    int ep = epoll_create1(EPOLL_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = NULL };
    if (ep >= 0 && epoll_ctl(ep, EPOLL_CTL_ADD, fd, &ev) < 0) {
        close(ep);
        return -1;
    }
    return ep;
}
