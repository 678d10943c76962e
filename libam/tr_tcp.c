/*
 * tr_tcp.c - the tcp transport: one stream connection per endpoint, all
 * watched by one epoll fd (the interface's event fd).  Reliable and
 * ordered, so am_send.c keeps no copies or timers (thesis section 10).
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
#include "conn_park.h"

struct tcp {
    int lfd, epfd;
    struct amx_park pk;        /* connections before their endpoint (conn_park.c) */
    unsigned polls;
    int serving;               /* read_others runs: a nested write reads its peer only */
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
    int head_first;                /* the last AM placed was over a chunk: read the next one's head alone */
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

static const struct amx_park_ops tcp_park_ops;

static int tcp_init(am_interface_t *ifc)
{
    struct tcp *t = calloc(1, sizeof *t);
    if (!t)
        return AM_ERR_NOMEM;
    int rc = t->lfd = amx_bound_socket(ifc, SOCK_STREAM, "tcp", 0);
    if (rc < 0)
        goto fail;
    rc = AM_ERR_SYS;
    if (listen(t->lfd, AMX_BACKLOG) < 0)
        goto fail_lfd;
    if ((t->epfd = amx_epoll_with(t->lfd)) < 0)
        goto fail_lfd;
    amx_park_init(&t->pk, t->lfd, t->epfd, 0, &tcp_park_ops);   /* amx_epoll_with: 0 */
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

static int tcp_accepted(am_interface_t *ifc, struct amx_greeting *g)
{
    tune(ifc, g->fd);
    return 0;
}

/* Read what has come of g's HELLO.  Its first AM must be a HELLO with our
 * secret: a connection without it is closed before anything more is read
 * from it (auth_drops). */
static int tcp_hello(am_interface_t *ifc, struct amx_greeting *g, struct amx_parked *pk)
{
    struct amx_hdr h;
    for (;;) {
        size_t want = AMX_HDR;
        if (g->got >= AMX_HDR) {
            if (amx_parse(g->buf, AMX_HDR, &h) < 0)
                return AMX_HELLO_DROP;   /* garbage */
            if (!amx_auth(ifc, NULL, &h))
                return AMX_HELLO_REFUSED;   /* counted there */
            if (h.type != AMX_HELLO || h.len == 0 || h.len > AMX_ADDRLEN)
                return AMX_HELLO_DROP;
            want += h.len;
        }
        if (g->got == want)
            break;
        ssize_t r = recv(g->fd, g->buf + g->got, want - g->got, MSG_DONTWAIT);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return AMX_HELLO_MORE;   /* the rest later */
        if (r <= 0)
            return AMX_HELLO_DROP;
        ifc->rx_read += (uint64_t)r;
        g->got += (size_t)r;
    }
    if (g->buf[g->got - 1] != '\0')
        return AMX_HELLO_DROP;
    snprintf(pk->name, sizeof pk->name, "%s", g->buf + AMX_HDR);
    return AMX_HELLO_DONE;
}

static const struct amx_park_ops tcp_park_ops = {
    .accepted = tcp_accepted,
    .hello = tcp_hello,
};

static int tcp_accept(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct tcp *t = ifc->trd;
    struct amx_parked pk;
    int rc = amx_park_claim(ifc, &t->pk, ep->name, &pk);
    if (rc < 0)
        return rc;
    return attach(ifc, ep, pk.fd) < 0 ? AM_ERR_SYS : AM_OK;
}

static int flush_out(am_interface_t *ifc, am_endpoint_t *ep);

/* A header and a placer's head: what the read that ends a placed body
 * takes of the next AM (land_more). */
#define RX_HEAD (AMX_HDR + AM_PLACE_HEAD_MAX)
/* Reads take at most this much at a time while no AM is being placed, so
 * a big AM that a placer wants is mostly read straight into place: 64 KiB
 * and two heads, so that an AM of 64 KiB (a 64 KiB pvm_psend is one AM of
 * 64 KiB + 32) comes whole in one read with the next AM's head, and is
 * copied from rx to its place.  Not its head alone first with the body
 * read into place after it: that read acknowledged the data while the body
 * was still queued, advertising a window smaller by the body, and the next
 * AM's arrival then made the kernel acknowledge at once, in its input path,
 * which between namespace hosts runs on the sending CPU (veth, bridge,
 * netfilter): half the ACKs of a 64 KiB stream came that way (raw TCP's
 * receiver: 1 in 77), and am-tcp streamed 8-11% slower than with the copy
 * (docs/performance.md, 2026-11-28, "the receiver's head read").  After a
 * placed AM bigger than a chunk the head is still read alone (head_first):
 * there a chunk's copy would be paid for one ACK in many. */
#define RX_CHUNK (((size_t)64 << 10) + 2 * RX_HEAD)

/* Go on reading a placed request's payload into its place; deliver it when
 * complete.  Returns messages handled, 0 while more is to come (or the
 * socket is drained), -1 if the stream broke.  *drained: the last read
 * found the socket empty (it gave less than it was asked for). */
static int land_more(am_interface_t *ifc, am_endpoint_t *ep, int *drained)
{
    struct tcp_ep *te = ep->tp;
    while (te->land_left) {
        ssize_t r;
        if (te->land_discard) {   /* rx is free while landing: it takes what the place would */
            size_t want = te->land_left > te->rx_cap ? te->rx_cap : te->land_left;
            r = recv(te->fd, te->rx, want, MSG_DONTWAIT);
        } else {
            /* The rest of the body, and in the same call the next AM's
             * head behind it (into rx, empty while landing): in a stream
             * of big AMs it is there already, and read_in then needs no
             * read of its own for it (one read per AM, as raw TCP). */
            size_t head = te->rx_cap < RX_HEAD ? te->rx_cap : RX_HEAD;
            struct iovec v[2] = { { te->land_dst, te->land_left }, { te->rx, head } };
            struct msghdr mh = { .msg_iov = v, .msg_iovlen = 2 };
            r = recvmsg(te->fd, &mh, MSG_DONTWAIT);
            *drained = r < (ssize_t)(te->land_left + head);
            if (r > (ssize_t)te->land_left) {
                te->rx_got = (size_t)r - te->land_left;
                r = (ssize_t)te->land_left;
                ifc->rx_read += te->rx_got;
            }
        }
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
    te->head_first = AMX_HDR + (size_t)h->len > RX_CHUNK;
    return 1;
}

/* Dispatch every whole AM in rx; a partial one stays at the front, or
 * goes to its placer (try_place).  -1: the stream is garbled. */
static int parse_rx(am_interface_t *ifc, am_endpoint_t *ep, int *handled)
{
    struct tcp_ep *te = ep->tp;
    size_t off = 0;
    while (te->rx_got - off >= AMX_HDR && !ep->dead) {
        struct amx_hdr h;
        if (amx_parse(te->rx + off, AMX_HDR, &h) < 0 || h.len > ifc->cfg.max_payload ||
            h.type == AMX_HELLO) {
            ep->st.drops++;   /* a garbled stream cannot be resynchronised */
            ifc->st.drops++;
            return -1;
        }
        size_t have = te->rx_got - off - AMX_HDR;
        if (have < h.len) {
            if (try_place(ifc, ep, &h, te->rx + off + AMX_HDR, have))
                off = te->rx_got;
            break;
        }
        te->head_first = 0;   /* one that came whole: so will the next */
        te->dispatching++;   /* the handler reads rx: nothing may read into it */
        *handled += amx_input(ifc, ep, &h, te->rx + off + AMX_HDR);
        te->dispatching--;
        off += AMX_HDR + h.len;
    }
    if (off) {
        memmove(te->rx, te->rx + off, te->rx_got - off);
        te->rx_got -= off;
    }
    return 0;
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
            int drained = 1;
            int n = land_more(ifc, ep, &drained);
            if (n < 0)
                goto broken;
            handled += n;
            if (te->land_dst || te->fd < 0 || ep->dead)
                return handled;
            if (te->rx_got) {   /* the next AM's head came with the body */
                if (parse_rx(ifc, ep, &handled) < 0)
                    goto broken;
                if (drained && !te->land_dst)
                    return handled;
                continue;
            }
        }
        size_t room = te->rx_cap - te->rx_got;
        if (room > RX_CHUNK)
            room = RX_CHUNK;
        if (te->head_first && te->rx_got < RX_HEAD)
            room = RX_HEAD - te->rx_got;
        /* recv, not read: the socket call skips the file layer's checks */
        ssize_t r = recv(te->fd, te->rx + te->rx_got, room, MSG_DONTWAIT);
        if (r < 0 && (errno == EAGAIN || errno == EWOULDBLOCK))
            return handled;
        if (r < 0 && errno == EINTR)
            continue;
        if (r == 0) {
            amx_declare_dead(ifc, ep, AM_DEATH_CLOSED, 0,
                             "the peer closed the connection (read returned 0)");
            return handled;
        }
        if (r < 0) {
            int err = errno;
            amx_declare_dead(ifc, ep, err == ECONNRESET ? AM_DEATH_CLOSED : AM_DEATH_SYS, err,
                             "reading the connection failed");
            return handled;
        }
        ifc->rx_read += (uint64_t)r;
        te->rx_got += (size_t)r;
        if (parse_rx(ifc, ep, &handled) < 0)
            goto broken;
        if ((size_t)r < room && !te->land_dst)   /* drained: skip the read that says EAGAIN */
            return handled;
    }
    return handled;
broken:
    amx_declare_dead(ifc, ep, AM_DEATH_CORRUPT, 0, "the stream broke the protocol");
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
        amx_declare_dead(ifc, ep, AM_DEATH_SYS, 0, "sending queued replies failed");
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

/* A write to `busy` is stuck: read every other connection too.  Reading
 * the peer alone is not enough: it may itself be stuck writing to a third
 * task that is stuck writing to us (w0->w1->w2->w0, each socket full);
 * then nobody reads, and TCP_USER_TIMEOUT (tune) ends all three links as
 * if the peers were dead.  Not a connection whose AM is being handled up
 * the stack (dispatching: its rx is in use).  Replies that handlers here
 * queue (a full socket) go out at that connection's next read_ep.  Not
 * nested: a write from in here reads its own peer only, as before. */
static void read_others(am_interface_t *ifc, am_endpoint_t *busy)
{
    struct tcp *t = ifc->trd;
    if (t->serving)
        return;
    t->serving = 1;
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        struct tcp_ep *te = ep->tp;
        if (ep != busy && te->fd >= 0 && !ep->dead && !te->dispatching)
            read_in(ifc, ep);
    }
    t->serving = 0;
}

/* Write it all; while the socket is full, read from the peer so two
 * tasks sending big AMs to each other cannot deadlock, and from the
 * others (read_others) so a ring of them cannot either.  Not from inside a
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
            if (errno != EAGAIN && errno != EWOULDBLOCK) {
                int err = errno;
                amx_dead_note(ep, err == EPIPE || err == ECONNRESET ? AM_DEATH_CLOSED
                                                                    : AM_DEATH_SYS,
                              err, "writing to the connection failed");
                return AM_ERR_DEAD;
            }
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
            if (wait_ms) {   /* about to sleep: owed blank replies go first (am_event_fd) */
                amx_pay_all(ifc);
                read_others(ifc, ep);
                if (ep->dead || te->fd < 0)
                    return AM_ERR_DEAD;
            }
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
    amx_park_expire(ifc, &t->pk);
    int n = epoll_wait(t->epfd, evs, 32, 0);
    for (int i = 0; i < n; i++) {
        if (amx_greet_tagged(evs[i].data.u64)) {
            amx_park_greet_event(ifc, &t->pk, evs[i].data.u64);
            continue;
        }
        am_endpoint_t *ep = evs[i].data.ptr;
        if (!ep)
            amx_park_accept(ifc, &t->pk);
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
    amx_park_free(&t->pk);
    close(t->lfd);
    close(t->epfd);
    free(t);
}

const struct am_transport_ops amx_tr_tcp = {
    .name = "tcp",
    .reliable = 1,
    /* 1 MiB and the head a placer reads first (an upper layer's header:
     * pvmam/frag.c's is 32 bytes) in one AM.  With 1 MiB exactly, a 1 MiB
     * pvm_psend went as a big AM and one of 32 bytes: one more send call,
     * segment and handler per message (strace: as many sendto as sendmsg
     * calls), and half the window's instances spent on those stubs. */
    .default_payload = (1u << 20) + AM_PLACE_HEAD_MAX,
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
