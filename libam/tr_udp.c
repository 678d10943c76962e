/*
 * tr_udp.c - the udp transport: one datagram socket per interface, one
 * datagram per AM (thesis 5.3.2).  Unreliable: am_proto.c keeps copies and
 * retransmits.  connect/accept only resolve the peer's address.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "am_int.h"

struct udp {
    int fd;
    unsigned rnd;      /* fault-injection generator */
};

static int udp_init(am_interface_t *ifc)
{
    struct udp *u = calloc(1, sizeof *u);
    if (!u)
        return AM_ERR_NOMEM;
    int rc = u->fd = amx_bound_socket(ifc, SOCK_DGRAM, "udp");
    if (rc < 0) {
        free(u);
        return rc;
    }
    int sz = 4 << 20;   /* room for depth x max payload in bursts */
    setsockopt(u->fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    setsockopt(u->fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
    u->rnd = (unsigned)getpid() * 2654435761u;
    ifc->trd = u;
    return AM_OK;
}

static int udp_pkaddr(const char *text, struct sockaddr_in *sa) { return amx_addr_parse("udp", text, sa); }
static int udp_upkaddr(const struct sockaddr_in *sa, char *t, size_t n) { return amx_addr_format("udp", sa, t, n); }
static int udp_connect(am_interface_t *ifc, am_endpoint_t *ep) { return AM_OK; }

static int udp_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    struct udp *u = ifc->trd;
    if (ifc->cfg.fault_drop_ppm) {   /* test knob: lose this datagram */
        u->rnd = u->rnd * 1103515245u + 12345u;
        if ((u->rnd >> 8) % 1000000u < ifc->cfg.fault_drop_ppm)
            return AM_OK;
    }
    struct msghdr mh = { .msg_name = &ep->sa, .msg_namelen = sizeof ep->sa,
                         .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };
    for (int tries = 0; tries < 100; tries++) {
        ssize_t w = n == 1 ? sendto(u->fd, iov->iov_base, iov->iov_len, MSG_NOSIGNAL,
                                    (const struct sockaddr *)&ep->sa, sizeof ep->sa)
                           : sendmsg(u->fd, &mh, MSG_NOSIGNAL);
        if (w >= 0)
            return AM_OK;
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS && errno != EINTR)
            return AM_OK;   /* lost like any datagram: retransmission recovers */
        struct pollfd p = { .fd = u->fd, .events = POLLOUT };
        poll(&p, 1, 10);
    }
    return AM_OK;
}

static am_endpoint_t *by_addr(am_interface_t *ifc, const struct sockaddr_in *from)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        if (ep->connected && ep->sa.sin_port == from->sin_port &&
            ep->sa.sin_addr.s_addr == from->sin_addr.s_addr)
            return ep;
    return NULL;
}

static int udp_recv(am_interface_t *ifc)
{
    struct udp *u = ifc->trd;
    int handled = 0;
    for (int i = 0; i < 64; i++) {   /* bounded, so callers stay responsive */
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        ssize_t r = recvfrom(u->fd, ifc->rxbuf, ifc->rxbuf_cap, MSG_DONTWAIT | MSG_TRUNC,
                             (struct sockaddr *)&from, &fl);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        struct amx_hdr h;
        am_endpoint_t *ep;
        if ((size_t)r > ifc->rxbuf_cap || amx_parse(ifc->rxbuf, (size_t)r, &h) < 0 ||
            h.len != (size_t)r - AMX_HDR || h.type == AMX_HELLO ||
            !(ep = by_addr(ifc, &from))) {
            ifc->st.drops++;   /* garbage, truncated, or a stranger */
            continue;
        }
        handled += amx_input(ifc, ep, &h, ifc->rxbuf + AMX_HDR);
        if (handled)   /* the caller polls again; a further recv would be an
                        * extra system call on the latency path */
            break;
    }
    return handled;
}

static int udp_event_fd(const am_interface_t *ifc) { return ((struct udp *)ifc->trd)->fd; }
static void udp_close_ep(am_interface_t *ifc, am_endpoint_t *ep) {}

static void udp_shutdown(am_interface_t *ifc)
{
    struct udp *u = ifc->trd;
    close(u->fd);
    free(u);
}

const struct am_transport_ops amx_udp_ops = {
    .name = "udp",
    .reliable = 0,
    .default_payload = 8192,
    .max_payload = 65507 - AMX_HDR,
    .init = udp_init,
    .pkaddr = udp_pkaddr,
    .upkaddr = udp_upkaddr,
    .connect = udp_connect,
    .accept = udp_connect,
    .send = udp_send,
    .recv = udp_recv,
    .event_fd = udp_event_fd,
    .close_ep = udp_close_ep,
    .shutdown = udp_shutdown,
};
