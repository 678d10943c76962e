/*
 * tr_udp.c - the udp transport: one datagram per AM (thesis 5.3.2).
 * Unreliable: am_send.c keeps copies and am_poll.c retransmits.
 *
 * The interface's socket (bound to its port, SO_REUSEPORT) hears strangers
 * and early datagrams.  Each connected endpoint gets its own socket on the
 * same port, connected to the peer: the kernel then routes that peer's
 * datagrams to it and sends without a route lookup per datagram (an
 * unconnected sendto to this host's own address was measured 1.6 us slower
 * per datagram here).  If such a socket cannot be made, the endpoint falls
 * back to sendto on the interface's socket.
 *
 * Endpoint sockets join the epoll set only while someone may block on it
 * (am_event_fd was asked for lately) or there are too many to read one by
 * one: a socket in an epoll set costs every arriving datagram a wake-up
 * callback, measured at 0.5 us of one-way latency here.
 *
 * Placement: while a peer sends big datagrams, its socket is first peeked
 * at (header and the placer's head); a request that is next in order and
 * that its handler's placer takes is then read with its body straight
 * into place, so the kernel's copy is the only one, as with raw UDP.  The
 * peek is one more system call, so it is made only after a big datagram
 * from that peer (PEEK_MIN), never on the small-message latency path.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/uio.h>
#include "am_net.h"

struct udp {
    int fd, epfd;
    struct sockaddr_in local;   /* what fd is bound to */
    unsigned polls;
    int armed;                  /* endpoint sockets are in the epoll set */
    unsigned armed_at;          /* polls when am_event_fd last asked */
    int neps;                   /* endpoints with their own socket */
    char *rxbuf;                /* one datagram: header + largest payload */
    size_t rxbuf_cap;
};

/* Per endpoint (ep->tp). */
struct udp_ep {
    int fd;                     /* own socket connected to the peer, or -1 */
    struct sockaddr_in sa;      /* the peer's address */
    int peek;                   /* its last datagram was big: peek at the next */
};

/* Datagrams from this size on make the next one from that peer peeked at. */
#define PEEK_MIN (AMX_HDR + AM_PLACE_MIN)

static int ep_fd(const am_endpoint_t *ep) { return ((const struct udp_ep *)ep->tp)->fd; }

#define DIRECT_MAX 4        /* endpoints read one by one per poll */
#define ARM_POLLS 256       /* polls without a call for the event fd: disarm */

static void ep_watch(struct udp *u, am_endpoint_t *ep, int on)
{
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ep };
    epoll_ctl(u->epfd, on ? EPOLL_CTL_ADD : EPOLL_CTL_DEL, ep_fd(ep), &ev);
}

static void arm(am_interface_t *ifc, struct udp *u, int on)
{
    if (u->armed == on)
        return;
    u->armed = on;
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        if (ep_fd(ep) >= 0)
            ep_watch(u, ep, on);
}

#define SOCKBUF (4 << 20)   /* room for depth x max payload in bursts */

static void set_bufs(int fd)
{
    int sz = SOCKBUF;
    setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof sz);
    setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof sz);
}

static int udp_init(am_interface_t *ifc)
{
    struct udp *u = calloc(1, sizeof *u);
    if (!u)
        return AM_ERR_NOMEM;
    int rc = AM_ERR_NOMEM;
    u->rxbuf_cap = ifc->cfg.max_payload + AMX_HDR;
    if (!(u->rxbuf = malloc(u->rxbuf_cap)))
        goto fail_free;
    rc = u->fd = amx_bound_socket(ifc, SOCK_DGRAM, "udp", 1);
    if (rc < 0)
        goto fail_buf;
    socklen_t sl = sizeof u->local;
    rc = AM_ERR_SYS;
    if (getsockname(u->fd, (struct sockaddr *)&u->local, &sl) < 0)
        goto fail_close;
    if ((u->epfd = amx_epoll_with(u->fd)) < 0)
        goto fail_close;
    set_bufs(u->fd);
    ifc->trd = u;
    return AM_OK;
fail_close:
    close(u->fd);
fail_buf:
    free(u->rxbuf);
fail_free:
    free(u);
    return rc;
}

static int udp_ep_new(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct udp_ep *ue = calloc(1, sizeof *ue);
    if (!ue)
        return AM_ERR_NOMEM;
    ue->fd = -1;
    ep->tp = ue;
    return AM_OK;
}

static int udp_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    struct udp_ep *ue = ep->tp;
    return amx_addr_parse("udp", name, &ue->sa);
}

static void udp_host(const am_endpoint_t *ep, char *buf, size_t size)
{
    const struct udp_ep *ue = ep->tp;
    amx_addr_host(&ue->sa, buf, size);
}

/* Give ep its own socket connected to the peer (see the top).  Never
 * fails: without one, ep uses the interface's socket. */
static int udp_connect(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct udp *u = ifc->trd;
    struct udp_ep *ue = ep->tp;
    int one = 1;
    if (ue->fd >= 0)
        return AM_OK;
    int fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return AM_OK;
    if (setsockopt(fd, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
        bind(fd, (struct sockaddr *)&u->local, sizeof u->local) < 0 ||
        connect(fd, (struct sockaddr *)&ue->sa, sizeof ue->sa) < 0) {
        close(fd);
        return AM_OK;
    }
    set_bufs(fd);
    ue->fd = fd;
    u->neps++;
    if (u->armed)
        ep_watch(u, ep, 1);
    return AM_OK;
}

static int udp_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    struct udp *u = ifc->trd;
    struct udp_ep *ue = ep->tp;
    int own = ue->fd >= 0, fd = own ? ue->fd : u->fd;
    struct msghdr mh = { .msg_name = own ? NULL : &ue->sa,
                         .msg_namelen = own ? 0 : sizeof ue->sa,
                         .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };
    for (int tries = 0; tries < 100; tries++) {
        ssize_t w = n == 1 ? sendto(fd, iov->iov_base, iov->iov_len, MSG_NOSIGNAL,
                                    (const struct sockaddr *)mh.msg_name, mh.msg_namelen)
                           : sendmsg(fd, &mh, MSG_NOSIGNAL);
        if (w >= 0)
            return AM_OK;
        /* On the peer's own connected socket, ECONNREFUSED means an ICMP
         * said no socket holds the peer's port any more: it is gone, and
         * waiting for retransmissions to time out would only delay that.
         * Other errors: lost like any datagram; retransmission sorts it out. */
        if (own && errno == ECONNREFUSED) {
            amx_dead_note(ep, AM_DEATH_CLOSED, errno, "the peer's port is closed (ICMP, send)");
            return AM_ERR_DEAD;
        }
        if (errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOBUFS && errno != EINTR)
            return AM_OK;
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        poll(&p, 1, 10);
    }
    return AM_OK;
}

static am_endpoint_t *by_addr(am_interface_t *ifc, const struct sockaddr_in *from)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        const struct udp_ep *ue = ep->tp;
        if (ep->connected && ue->sa.sin_port == from->sin_port &&
            ue->sa.sin_addr.s_addr == from->sin_addr.s_addr)
            return ep;
    }
    return NULL;
}

/* ep's own socket, which was told a big datagram is likely: peek at the
 * next one and, if its handler's placer takes it, read it into place and
 * hand it in.  Returns the requests handled (amx_input), -2 when the
 * socket has nothing, or -1 when the datagram is to be read the ordinary
 * way (the socket still has it, or an error that the ordinary read sees). */
static int try_place(am_interface_t *ifc, int fd, am_endpoint_t *ep)
{
    char head[AMX_HDR + AM_PLACE_HEAD_MAX];
    ssize_t r = recv(fd, head, sizeof head, MSG_PEEK | MSG_DONTWAIT | MSG_TRUNC);
    if (r < 0 && errno == EAGAIN)
        return -2;
    struct amx_hdr h;
    size_t hl;
    char *dst;
    if (r < (ssize_t)sizeof head || amx_parse(head, sizeof head, &h) < 0 ||
        h.len != (size_t)r - AMX_HDR ||
        !(dst = amx_offer_place(ifc, ep, &h, head + AMX_HDR, sizeof head - AMX_HDR, &hl)))
        return -1;
    struct iovec v[2] = { { head, AMX_HDR + hl }, { dst, h.len - hl } };
    struct msghdr m = { .msg_iov = v, .msg_iovlen = 2 };
    ssize_t got;
    do
        got = recvmsg(fd, &m, MSG_DONTWAIT);
    while (got < 0 && errno == EINTR);
    if (got != r) {
        /* the datagram just peeked at is gone: nothing else reads this
         * socket, so this cannot happen; the placer has begun, so the
         * link cannot go on */
        amx_declare_dead(ifc, ep, AM_DEATH_SYS, got < 0 ? errno : 0,
                         "a datagram peeked at was gone");
        return 0;
    }
    ifc->rx_read += (uint64_t)got;
    h.len = (uint32_t)hl;   /* the payload here is the head; the body is placed */
    return amx_input_placed(ifc, ep, &h, head + AMX_HDR, (size_t)got - AMX_HDR - hl);
}

/* Read datagrams from fd: ep's own socket, or (ep NULL) the interface's,
 * whose senders are looked up.  Stops after the first one handled: the
 * caller polls again, and a further read would be an extra system call on
 * the latency path. */
static int read_sock(am_interface_t *ifc, int fd, am_endpoint_t *ep)
{
    struct udp *u = ifc->trd;
    struct udp_ep *ue = ep ? ep->tp : NULL;
    for (int i = 0; i < 64; i++) {   /* bounded, so callers stay responsive */
        if (ue && ue->peek) {
            int n = try_place(ifc, fd, ep);
            if (n != -1)   /* handled (or, 0, the link is gone), or nothing there */
                return n > 0 ? n : 0;
        }
        struct sockaddr_in from;
        socklen_t fl = sizeof from;
        ssize_t r = recvfrom(fd, u->rxbuf, u->rxbuf_cap, MSG_DONTWAIT | MSG_TRUNC,
                             ep ? NULL : (struct sockaddr *)&from, ep ? NULL : &fl);
        if (r < 0) {
            if (errno == ECONNREFUSED && ep) {   /* the peer's port is closed (see udp_send) */
                amx_declare_dead(ifc, ep, AM_DEATH_CLOSED, errno,
                                 "the peer's port is closed (ICMP, receive)");
                return 0;
            }
            if (errno == EINTR || errno == ECONNREFUSED)   /* shared socket: an old ICMP error */
                continue;
            return 0;
        }
        ifc->rx_read += (uint64_t)r;
        if (ue)
            ue->peek = r >= PEEK_MIN;
        struct amx_hdr h;
        if ((size_t)r > u->rxbuf_cap || amx_parse(u->rxbuf, (size_t)r, &h) < 0 ||
            h.len != (size_t)r - AMX_HDR || h.type == AMX_HELLO) {
            ifc->st.drops++;   /* garbage or truncated */
            continue;
        }
        /* a source address proves nothing (it can be forged): amx_input
         * checks the secret, and drops a stranger (src NULL) after that */
        am_endpoint_t *src = ep ? ep : by_addr(ifc, &from);
        int n = amx_input(ifc, src, &h, u->rxbuf + AMX_HDR);
        if (n)
            return n;
    }
    return 0;
}

static int udp_recv(am_interface_t *ifc)
{
    struct udp *u = ifc->trd;
    int handled = 0;
    /* Few peers: read their sockets directly, one read each; the shared
     * socket (strangers, early datagrams) and crowds go through epoll,
     * now and then or when the peers had nothing. */
    if (u->armed && u->neps <= DIRECT_MAX && u->polls - u->armed_at > ARM_POLLS)
        arm(ifc, u, 0);   /* spinning again, not blocking: leave epoll */
    if (++u->polls % 64) {
        int k = 0;
        am_endpoint_t *ep = ifc->eps;
        for (; ep && k < DIRECT_MAX; ep = ep->next)
            if (ep_fd(ep) >= 0) {
                handled += read_sock(ifc, ep_fd(ep), ep);
                k++;
            }
        if (handled || (!ep && k))
            return handled;
    }
    if (u->neps > DIRECT_MAX)
        arm(ifc, u, 1);   /* too many to read one by one */
    struct epoll_event evs[32];
    int n = epoll_wait(u->epfd, evs, 32, 0);
    for (int i = 0; i < n; i++) {
        am_endpoint_t *ep = evs[i].data.ptr;
        handled += read_sock(ifc, ep ? ep_fd(ep) : u->fd, ep);
    }
    return handled;
}

/* The caller may block on it now: every socket must be in the set. */
static int udp_event_fd(const am_interface_t *ifc)
{
    struct udp *u = ifc->trd;
    u->armed_at = u->polls;
    arm((am_interface_t *)ifc, u, 1);
    return u->epfd;
}

static void udp_close_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct udp *u = ifc->trd;
    struct udp_ep *ue = ep->tp;
    if (ue->fd >= 0) {
        if (u->armed)
            ep_watch(u, ep, 0);
        close(ue->fd);
        ue->fd = -1;
        u->neps--;
    }
}

static void udp_ep_free(am_interface_t *ifc, am_endpoint_t *ep)
{
    udp_close_ep(ifc, ep);
    free(ep->tp);
    ep->tp = NULL;
}

static void udp_shutdown(am_interface_t *ifc)
{
    struct udp *u = ifc->trd;
    close(u->epfd);
    close(u->fd);
    free(u->rxbuf);
    free(u);
}

/* Placement without placement_discard: a datagram is placed whole within
 * one call (try_place), so no placement is ever left under way. */
const struct am_transport_ops amx_tr_udp = {
    .name = "udp",
    .reliable = 0,
    .default_payload = 65507 - AMX_HDR,
    .max_payload = 65507 - AMX_HDR,
    .init = udp_init,
    .shutdown = udp_shutdown,
    .ep_new = udp_ep_new,
    .ep_free = udp_ep_free,
    .peer = udp_peer,
    .host = udp_host,
    .connect = udp_connect,
    .accept = udp_connect,
    .send = udp_send,
    .recv = udp_recv,
    .event_fd = udp_event_fd,
    .close_ep = udp_close_ep,
};
