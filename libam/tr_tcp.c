/*
 * tr_tcp.c - the tcp transport: one stream connection per endpoint, all
 * watched by one epoll fd (the interface's event fd).  Reliable and
 * ordered, so am_proto.c keeps no copies or timers (thesis section 10).
 * The connector opens with a HELLO AM naming its own address, so the
 * acceptor can match connections to endpoints whatever order they come
 * in; connections nobody has claimed yet are parked.
 */
#define _GNU_SOURCE  /* accept4 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/tcp.h>
#include <sys/epoll.h>
#include "am_net.h"

/* Connections accepted before their endpoint is (the peer's CONN is still
 * on its way through the pvmd) wait here under the name their HELLO gave,
 * at most connect_timeout_ms; nothing is read from them meanwhile. */
#define MAX_PARKED 1024   /* a sanity bound, far above any real burst */

struct parked {
    int fd;
    uint64_t since_us;
    char name[AMX_ADDRLEN];
};

/* Connections whose HELLO is still arriving: read as its bytes come and
 * never waited for, so one that says nothing (a stranger) costs the task
 * a slot for at most HELLO_WAIT_US, not a stall.  In the epoll set as
 * GREET_TAG(fd) (endpoints are pointers, even; the listener is 0). */
#define MAX_GREET 64          /* full: the oldest goes */
#define HELLO_WAIT_US 1000000u   /* a real connector says hello at once */
#define GREET_TAG(fd) ((uint64_t)(fd) << 1 | 1)

struct greeting {
    int fd;
    uint64_t since_us;
    size_t got;
    char buf[AMX_HDR + AMX_ADDRLEN];
};

struct tcp {
    int lfd, epfd;
    struct parked *park;
    int npark, park_cap;
    struct greeting greet[MAX_GREET];
    int ngreet;
    unsigned polls;
};

/* Per endpoint (ep->tp): the connection and its receive and send state. */
struct tcp_ep {
    int fd;
    struct sockaddr_in sa;         /* the peer's listening address */
    char *rx;                      /* buffer for the AM being read */
    size_t rx_cap, rx_got;
    int writing;                   /* in the middle of a write */
    int dispatching;               /* a handler of an AM read from here runs */
    /* a request whose payload is being read into a placer's buffer */
    size_t land_left, land_total;  /* bytes still to read, all placed bytes */
    char *land_dst;                /* where the next ones go */
    int land_discard;              /* the place went away: read into rx, drop */
    struct amx_hdr land_h;         /* its header, len = the head only */
    char land_head[AM_PLACE_HEAD_MAX];
    char *outq;                    /* replies queued during a write or a handler */
    size_t outq_len, outq_cap;
};

/* TCP_USER_TIMEOUT: a peer whose host went silent (crashed, cable out)
 * leaves our data unacknowledged; the kernel would retransmit for about 15
 * minutes before the connection failed.  With the interface's dead-peer
 * limit instead, its endpoint dies (and sends to it fail) as over udp. */
static void tune(am_interface_t *ifc, int fd)
{
    int one = 1;
    unsigned ms = ifc->cfg.timeout_max_us / 1000u;
    setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    if (ms)
        setsockopt(fd, IPPROTO_TCP, TCP_USER_TIMEOUT, &ms, sizeof ms);
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
}

static int tcp_init(am_interface_t *ifc)
{
    struct tcp *t = calloc(1, sizeof *t);
    if (!t)
        return AM_ERR_NOMEM;
    int rc = t->lfd = amx_bound_socket(ifc, SOCK_STREAM, "tcp", 0);
    if (rc < 0)
        goto fail;
    rc = AM_ERR_SYS;
    if (listen(t->lfd, 128) < 0)
        goto fail_lfd;
    if ((t->epfd = amx_epoll_with(t->lfd)) < 0)
        goto fail_lfd;
    ifc->trd = t;
    return AM_OK;
fail_lfd:
    close(t->lfd);
fail:
    free(t);
    return rc;
}

static int tcp_ep_new(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = calloc(1, sizeof *te);
    if (!te)
        return AM_ERR_NOMEM;
    te->fd = -1;
    ep->tp = te;
    return AM_OK;
}

static int tcp_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    struct tcp_ep *te = ep->tp;
    return amx_addr_parse("tcp", name, &te->sa);
}

static void tcp_host(const am_endpoint_t *ep, char *buf, size_t size)
{
    const struct tcp_ep *te = ep->tp;
    amx_addr_host(&te->sa, buf, size);
}

static int attach(am_interface_t *ifc, am_endpoint_t *ep, int fd)
{
    struct tcp *t = ifc->trd;
    struct tcp_ep *te = ep->tp;
    te->rx_cap = ifc->cfg.max_payload + AMX_HDR;
    if (!(te->rx = malloc(te->rx_cap)))
        return AM_ERR_NOMEM;
    te->rx_got = 0;
    te->fd = fd;
    struct epoll_event ev = { .events = EPOLLIN, .data.ptr = ep };
    if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) < 0)
        return AM_ERR_SYS;
    return AM_OK;
}

static int tcp_connect(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    int fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return AM_ERR_SYS;
    uint64_t deadline = amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    if (connect(fd, (struct sockaddr *)&te->sa, sizeof te->sa) < 0) {
        if (errno != EINPROGRESS)
            goto fail;
        struct pollfd p = { .fd = fd, .events = POLLOUT };
        int err = 0;
        socklen_t el = sizeof err;
        if (poll(&p, 1, (int)ifc->cfg.connect_timeout_ms) <= 0 ||
            getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0 || err)
            goto fail;
    }
    tune(ifc, fd);
    /* HELLO: who we are, so the acceptor can match us, with its secret
     * (am_auth.c): without that it would not keep the connection */
    char pkt[AMX_HDR + AMX_ADDRLEN];
    size_t nl = strlen(ifc->self_addr) + 1;
    struct amx_hdr h = { .len = (uint32_t)nl, .type = AMX_HELLO, .key = ep->key };
    amx_pack_hdr(pkt, &h);
    memcpy(pkt + AMX_HDR, ifc->self_addr, nl);
    size_t off = 0;
    while (off < AMX_HDR + nl) {
        ssize_t w = send(fd, pkt + off, AMX_HDR + nl - off, MSG_NOSIGNAL);
        if (w < 0 && (errno == EAGAIN || errno == EINTR) && amx_now_us() < deadline) {
            struct pollfd p = { .fd = fd, .events = POLLOUT };
            poll(&p, 1, 10);
            continue;
        }
        if (w < 0)
            goto fail;
        off += (size_t)w;
    }
    if (attach(ifc, ep, fd) < 0)
        goto fail;
    return AM_OK;
fail:
    close(fd);
    te->fd = -1;
    return AM_ERR_DEAD;
}

static void greet_drop(am_interface_t *ifc, struct tcp *t, int i, int count)
{
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, t->greet[i].fd, NULL);
    close(t->greet[i].fd);
    t->greet[i] = t->greet[--t->ngreet];
    if (count)
        ifc->st.drops++;
}

/* Close parked connections nobody claimed in time (their connector sees
 * the end of its stream and keeps the daemon route, docs/link-setup.md),
 * and connections whose HELLO did not come in time. */
static void expire_waiting(am_interface_t *ifc, struct tcp *t)
{
    uint64_t now = amx_now_us(), limit = (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    for (int i = 0; i < t->ngreet;) {
        if (now - t->greet[i].since_us > HELLO_WAIT_US)
            greet_drop(ifc, t, i, 1);
        else
            i++;
    }
    for (int i = 0; i < t->npark;) {
        if (now - t->park[i].since_us > limit) {
            close(t->park[i].fd);
            t->park[i] = t->park[--t->npark];
            ifc->st.drops++;
        } else {
            i++;
        }
    }
}

static int park(struct tcp *t, int fd, const char *name)
{
    if (t->npark == t->park_cap) {
        int cap = t->park_cap ? t->park_cap * 2 : 16;
        if (cap > MAX_PARKED)
            return -1;
        struct parked *np = realloc(t->park, sizeof *np * (size_t)cap);
        if (!np)
            return -1;
        t->park = np;
        t->park_cap = cap;
    }
    struct parked *pk = &t->park[t->npark++];
    pk->fd = fd;
    pk->since_us = amx_now_us();
    snprintf(pk->name, sizeof pk->name, "%s", name);
    return 0;
}

/* Read what has come of greeting i's HELLO; once it is whole, park the
 * connection under the name it gives.  Its first AM must be a HELLO with
 * our secret: a connection without it is closed before anything more is
 * read from it (auth_drops). */
static void greet_input(am_interface_t *ifc, struct tcp *t, int i)
{
    struct greeting *g = &t->greet[i];
    struct amx_hdr h;
    for (;;) {
        size_t want = AMX_HDR;
        if (g->got >= AMX_HDR) {
            if (amx_parse(g->buf, AMX_HDR, &h) < 0)
                goto drop;   /* garbage */
            if (!amx_auth(ifc, NULL, &h))
                goto refuse;   /* counted there */
            if (h.type != AMX_HELLO || h.len == 0 || h.len > AMX_ADDRLEN)
                goto drop;
            want += h.len;
        }
        if (g->got == want)
            break;
        ssize_t r = recv(g->fd, g->buf + g->got, want - g->got, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return;   /* the rest later */
        if (r <= 0)
            goto drop;
        ifc->rx_read += (uint64_t)r;
        g->got += (size_t)r;
    }
    if (g->buf[g->got - 1] != '\0')
        goto drop;
    /* parked connections are not watched: nothing is read until claimed */
    epoll_ctl(t->epfd, EPOLL_CTL_DEL, g->fd, NULL);
    if (park(t, g->fd, g->buf + AMX_HDR) < 0) {
        close(g->fd);   /* too many waiting */
        ifc->st.drops++;
    }
    t->greet[i] = t->greet[--t->ngreet];
    return;
drop:
    greet_drop(ifc, t, i, 1);
    return;
refuse:
    greet_drop(ifc, t, i, 0);
}

static int greet_find(const struct tcp *t, int fd)
{
    for (int i = 0; i < t->ngreet; i++)
        if (t->greet[i].fd == fd)
            return i;
    return -1;
}

/* Accept one pending connection and read its HELLO as far as it has come. */
static void accept_one(am_interface_t *ifc)
{
    struct tcp *t = ifc->trd;
    int fd = accept4(t->lfd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0)
        return;
    tune(ifc, fd);
    if (t->ngreet == MAX_GREET) {   /* the oldest has had the longest to speak */
        int old = 0;
        for (int i = 1; i < t->ngreet; i++)
            if (t->greet[i].since_us < t->greet[old].since_us)
                old = i;
        greet_drop(ifc, t, old, 1);
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = GREET_TAG(fd) };
    if (epoll_ctl(t->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        close(fd);
        ifc->st.drops++;
        return;
    }
    struct greeting *g = &t->greet[t->ngreet++];
    g->fd = fd;
    g->since_us = amx_now_us();
    g->got = 0;
    greet_input(ifc, t, t->ngreet - 1);   /* a real connector's HELLO is there already */
}

/* Wait up to ms for connections and HELLOs, and take them in. */
static void wait_greetings(am_interface_t *ifc, struct tcp *t, int ms)
{
    struct pollfd p[1 + MAX_GREET];
    int n = 0;
    p[n++] = (struct pollfd){ .fd = t->lfd, .events = POLLIN };
    for (int i = 0; i < t->ngreet; i++)
        p[n++] = (struct pollfd){ .fd = t->greet[i].fd, .events = POLLIN };
    if (poll(p, (nfds_t)n, ms) <= 0)
        return;
    for (int k = 1; k < n; k++) {
        int i = p[k].revents ? greet_find(t, p[k].fd) : -1;
        if (i >= 0)
            greet_input(ifc, t, i);
    }
    if (p[0].revents)
        accept_one(ifc);
}

static int tcp_accept(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp *t = ifc->trd;
    uint64_t deadline = amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    for (;;) {
        for (int i = 0; i < t->npark; i++) {
            if (!strcmp(t->park[i].name, ep->name)) {
                int fd = t->park[i].fd;
                t->park[i] = t->park[--t->npark];
                return attach(ifc, ep, fd) < 0 ? AM_ERR_SYS : AM_OK;
            }
        }
        uint64_t now = amx_now_us();
        if (now >= deadline)
            return AM_ERR_TIMEOUT;
        expire_waiting(ifc, t);
        int ms = (int)((deadline - now) / 1000 + 1);
        wait_greetings(ifc, t, ms > 100 ? 100 : ms);   /* wake to expire greetings */
    }
}

static int flush_out(am_interface_t *ifc, am_endpoint_t *ep);

/* Reads take at most this much at a time while no AM is being placed, so
 * a big AM that a placer wants is mostly read straight into place. */
#define RX_CHUNK ((size_t)64 << 10)

/* Go on reading a placed request's payload into its place; deliver it when
 * complete.  Returns messages handled, 0 while more is to come (or the
 * socket is drained), -1 if the stream broke. */
static int land_more(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    while (te->land_left) {
        /* rx is free while landing: it takes what a discarded place would */
        size_t want = te->land_discard && te->land_left > te->rx_cap ? te->rx_cap : te->land_left;
        ssize_t r = recv(te->fd, te->land_discard ? te->rx : te->land_dst, want, MSG_DONTWAIT);
        if (r > 0) {
            ifc->rx_read += (uint64_t)r;
            if (!te->land_discard)
                te->land_dst += r;
            te->land_left -= (size_t)r;
        } else if (r < 0 && errno == EINTR) {
            continue;
        } else if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            return 0;
        } else {
            return -1;
        }
    }
    te->land_dst = NULL;
    te->land_discard = 0;
    te->dispatching++;   /* the handler reads land_h and land_head */
    int n = amx_input_placed(ifc, ep, &te->land_h, te->land_head, te->land_total);
    te->dispatching--;
    return n;
}

/* The AM at p (header h, `have` payload bytes here, more to come) may go
 * to its handler's placer.  Returns 1 if it is now being placed (the bytes
 * here are used up), 0 to receive it the ordinary way. */
static int try_place(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                     const char *p, size_t have)
{
    struct tcp_ep *te = ep->tp;
    size_t hl;
    char *dst = amx_offer_place(ifc, ep, h, p, have, &hl);
    if (!dst)
        return 0;
    size_t body = h->len - hl;
    memcpy(dst, p + hl, have - hl);
    te->land_h = *h;
    te->land_h.len = (uint32_t)hl;
    memcpy(te->land_head, p, hl);
    te->land_total = body;
    te->land_dst = dst + (have - hl);
    te->land_left = body - (have - hl);
    return 1;
}

/* Read what the socket has (one read, usually), then dispatch every whole
 * AM in the buffer; a partial one is kept at the front for next time.
 * The buffer holds one largest AM, so a partial one always fits. */
static int read_in(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    int handled = 0;
    while (te->fd >= 0 && !ep->dead) {
        if (te->land_dst) {
            int n = land_more(ifc, ep);
            if (n < 0)
                goto broken;
            handled += n;
            if (te->land_dst || te->fd < 0 || ep->dead)
                return handled;
        }
        size_t room = te->rx_cap - te->rx_got;
        if (room > RX_CHUNK)
            room = RX_CHUNK;
        /* recv, not read: the socket call skips the file layer's checks */
        ssize_t r = recv(te->fd, te->rx + te->rx_got, room, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return handled;
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            goto broken;
        ifc->rx_read += (uint64_t)r;
        te->rx_got += (size_t)r;
        size_t off = 0;
        while (te->rx_got - off >= AMX_HDR && !ep->dead) {
            struct amx_hdr h;
            if (amx_parse(te->rx + off, AMX_HDR, &h) < 0 || h.len > ifc->cfg.max_payload ||
                h.type == AMX_HELLO) {
                ep->st.drops++;   /* a garbled stream cannot be resynchronised */
                ifc->st.drops++;
                goto broken;
            }
            size_t have = te->rx_got - off - AMX_HDR;
            if (have < h.len) {
                if (try_place(ifc, ep, &h, te->rx + off + AMX_HDR, have))
                    off = te->rx_got;
                break;
            }
            te->dispatching++;   /* the handler reads rx: nothing may read into it */
            handled += amx_input(ifc, ep, &h, te->rx + off + AMX_HDR);
            te->dispatching--;
            off += AMX_HDR + h.len;
        }
        if (off) {
            memmove(te->rx, te->rx + off, te->rx_got - off);
            te->rx_got -= off;
        }
        if ((size_t)r < room && !te->land_dst)   /* drained: skip the read that says EAGAIN */
            return handled;
    }
    return handled;
broken:
    amx_declare_dead(ifc, ep);
    return handled;
}

/* read_in, then send what handlers queued because the socket was full
 * (write_all): on every way out, since the peer may wait for those
 * replies before it sends anything more. */
static int read_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    int handled = read_in(ifc, ep);
    if (te->outq_len && te->fd >= 0 && !ep->dead && !te->writing && !te->dispatching &&
        flush_out(ifc, ep) < 0)
        amx_declare_dead(ifc, ep);
    return handled;
}

static int queue_out(struct tcp_ep *te, const struct iovec *iov, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    if (te->outq_len + len > te->outq_cap) {
        size_t cap = (te->outq_len + len) * 2;
        char *q = realloc(te->outq, cap);
        if (!q)
            return AM_ERR_NOMEM;
        te->outq = q;
        te->outq_cap = cap;
    }
    for (int i = 0; i < n; i++) {
        memcpy(te->outq + te->outq_len, iov[i].iov_base, iov[i].iov_len);
        te->outq_len += iov[i].iov_len;
    }
    return AM_OK;
}

/* Write it all; while the socket is full, read from the peer so two
 * tasks sending big AMs to each other cannot deadlock.  Not from inside a
 * handler of an AM read from this socket: a read then would go under the
 * AM being handled (it is still in rx).  There the rest is queued, and
 * read_ep sends it once the handler is done. */
#define WRITE_SPIN_US 200
static int write_all(am_interface_t *ifc, am_endpoint_t *ep, struct iovec *iov, int n)
{
    struct tcp_ep *te = ep->tp;
    uint64_t spin_end = 0;
    while (n > 0) {
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        /* one buffer (small AMs arrive packed): send skips the iovec import */
        ssize_t w = n == 1 ? send(te->fd, iov->iov_base, iov->iov_len, MSG_NOSIGNAL)
                           : sendmsg(te->fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return AM_ERR_DEAD;
            if (te->dispatching)
                return queue_out(te, iov, n);
            /* The socket is full: the peer is reading (on another core),
             * so look again at once for a while before sleeping, since a
             * wake-up costs more than the wait usually lasts. */
            amx_wait_hook(ifc);
            uint64_t now = amx_now_us();
            if (!spin_end)   /* am_config.wait says how to spin */
                spin_end = now + (ifc->cfg.wait == AM_WAIT_BLOCK ? 0 : WRITE_SPIN_US);
            int wait_ms = now < spin_end ? 0 : ifc->wait_hook ? 1 : 100;
            if (!wait_ms && ifc->cfg.wait == AM_WAIT_YIELD)
                sched_yield();   /* the reader may need this core */
            if (wait_ms)   /* about to sleep: owed blank replies go first (am_event_fd) */
                amx_pay_all(ifc);
            struct pollfd p = { .fd = te->fd, .events = POLLOUT | POLLIN };
            poll(&p, 1, wait_ms);
            if (p.revents & POLLIN)
                read_ep(ifc, ep);
            if (ep->dead || te->fd < 0)
                return AM_ERR_DEAD;
            continue;
        }
        spin_end = 0;   /* it moves: spin again next time it fills */
        while (n > 0 && (size_t)w >= iov->iov_len) {
            w -= (ssize_t)iov->iov_len;
            iov++;
            n--;
        }
        if (n > 0) {
            iov->iov_base = (char *)iov->iov_base + w;
            iov->iov_len -= (size_t)w;
        }
    }
    return AM_OK;
}

/* Send what is queued, oldest first (the caller holds `writing`); stops
 * while a handler of this socket's input runs (write_all queues again). */
static int flush_out(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    int rc = AM_OK, was = te->writing;
    te->writing = 1;
    while (rc == AM_OK && te->outq_len && !te->dispatching) {
        char *q = te->outq;
        size_t len = te->outq_len;
        te->outq = NULL;
        te->outq_len = te->outq_cap = 0;
        struct iovec qv = { q, len };
        rc = write_all(ifc, ep, &qv, 1);
        free(q);
    }
    te->writing = was;
    return rc;
}

static int tcp_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    struct tcp_ep *te = ep->tp;
    if (te->fd < 0 || ep->dead)
        return AM_ERR_DEAD;
    /* a reply made by a handler while we were writing, or anything behind
     * bytes still queued: the stream keeps its order */
    if (te->writing || (te->outq_len && te->dispatching))
        return queue_out(te, iov, n);
    te->writing = 1;
    int rc = flush_out(ifc, ep);
    if (rc == AM_OK && te->outq_len) {
        rc = queue_out(te, iov, n);
    } else if (rc == AM_OK) {
        struct iovec v[65];
        memcpy(v, iov, sizeof *iov * (size_t)n);
        rc = write_all(ifc, ep, v, n);
        if (rc == AM_OK)
            rc = flush_out(ifc, ep);
    }
    te->writing = 0;
    return rc;
}

static int tcp_recv(am_interface_t *ifc)
{
    struct tcp *t = ifc->trd;
    struct epoll_event evs[32];
    int handled = 0;
    /* Fast path for few peers: try them directly, one read each, and only
     * ask epoll (which also watches the listener) every few polls. */
    if (++t->polls % 256) {
        int k = 0;
        am_endpoint_t *ep = ifc->eps;
        for (; ep && k < 4; ep = ep->next)
            if (((struct tcp_ep *)ep->tp)->fd >= 0 && !ep->dead) {
                handled += read_ep(ifc, ep);
                k++;
            }
        if (handled || !ep)   /* all tried: epoll only for the listener, now and then */
            return handled;
    }
    if (t->npark || t->ngreet)
        expire_waiting(ifc, t);
    int n = epoll_wait(t->epfd, evs, 32, 0);
    for (int i = 0; i < n; i++) {
        if (evs[i].data.u64 & 1) {   /* GREET_TAG */
            int g = greet_find(t, (int)(evs[i].data.u64 >> 1));
            if (g >= 0)
                greet_input(ifc, t, g);
            continue;
        }
        am_endpoint_t *ep = evs[i].data.ptr;
        if (!ep)
            accept_one(ifc);
        else if (((struct tcp_ep *)ep->tp)->fd >= 0)
            handled += read_ep(ifc, ep);
    }
    return handled;
}

static int tcp_event_fd(const am_interface_t *ifc) { return ((struct tcp *)ifc->trd)->epfd; }

static void tcp_close_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp *t = ifc->trd;
    struct tcp_ep *te = ep->tp;
    te->land_dst = NULL;   /* a placement under way is abandoned */
    te->land_discard = 0;
    te->land_left = 0;
    if (te->fd >= 0) {
        epoll_ctl(t->epfd, EPOLL_CTL_DEL, te->fd, NULL);
        close(te->fd);
        te->fd = -1;
    }
}

static void tcp_ep_free(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    tcp_close_ep(ifc, ep);
    free(te->rx);
    free(te->outq);
    free(te);
    ep->tp = NULL;
}

static void tcp_placement_discard(am_endpoint_t *ep)
{
    struct tcp_ep *te = ep->tp;
    if (te->land_dst)
        te->land_discard = 1;
}

static void tcp_shutdown(am_interface_t *ifc)
{
    struct tcp *t = ifc->trd;
    for (int i = 0; i < t->npark; i++)
        close(t->park[i].fd);
    for (int i = 0; i < t->ngreet; i++)
        close(t->greet[i].fd);
    free(t->park);
    close(t->lfd);
    close(t->epfd);
    free(t);
}

const struct am_transport_ops amx_tr_tcp = {
    .name = "tcp",
    .reliable = 1,
    .default_payload = 1u << 20,
    .max_payload = 64u << 20,
    .init = tcp_init,
    .shutdown = tcp_shutdown,
    .ep_new = tcp_ep_new,
    .ep_free = tcp_ep_free,
    .peer = tcp_peer,
    .host = tcp_host,
    .connect = tcp_connect,
    .accept = tcp_accept,
    .send = tcp_send,
    .recv = tcp_recv,
    .event_fd = tcp_event_fd,
    .close_ep = tcp_close_ep,
    .placement_discard = tcp_placement_discard,
};
