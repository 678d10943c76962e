/*
 * wire.c - PVM fragments on a stream socket (docs/protocol.md): writing a
 * message as fragments with sendmsg, straight from its segments, and
 * reading fragments into per-source reassembly, each payload read into its
 * own block that becomes a segment of the message (no copy).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include "lpvm.h"
#include "route_int.h"

#define MAX_IOV 64
/* Refuse fragments beyond this: PvmFragSize is at most 1 MiB, so anything
 * larger is garbage, not a message. */
#define MAX_FRAG_LEN (64u << 20)

/* Malformed fragments dropped so far (tests read it). */
static unsigned long bad_frags;
unsigned long pvmi_bad_fragments(void) { return bad_frags; }

static void put32(unsigned char *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }

/* Write the whole iovec, servicing input on c while the socket is full so
 * two peers sending large messages to each other cannot deadlock. */
static int write_all(struct pvmi_conn *c, struct iovec *iov, int n)
{
    while (n > 0) {
        /* never SIGPIPE: a vanished peer is an error code, not a death */
        struct msghdr mh = { .msg_iov = iov, .msg_iovlen = (size_t)n };
        ssize_t w = sendmsg(c->fd, &mh, MSG_NOSIGNAL);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            if (errno != EAGAIN && errno != EWOULDBLOCK)
                return PvmSysErr;
            struct pollfd p = { .fd = c->fd, .events = POLLOUT | POLLIN };
            if (poll(&p, 1, 1000) < 0 && errno != EINTR)
                return PvmSysErr;
            if ((p.revents & POLLIN) && pvmi_conn_input(c) < 0)
                return PvmSysErr;
            if (p.revents & (POLLERR | POLLHUP | POLLNVAL))
                return PvmSysErr;
            continue;
        }
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
    return 0;
}

int pvmi_conn_send(struct pvmi_conn *c, int dst, struct pmsg *m, size_t fragbody)
{
    if (c->fd < 0)
        return PvmSysErr;
    if (fragbody < 4)
        fragbody = 4;
    int src = pvmi.connecting ? -1 : pvmi.tid;
    unsigned char mh[PVMI_MSGHDR];
    memset(mh, 0, sizeof mh);
    put32(mh, m->encword);
    put32(mh + 4, (uint32_t)m->tag);
    put32(mh + 8, (uint32_t)m->ctx);
    put32(mh + 16, (uint32_t)m->wid);
    put32(mh + 20, (uint32_t)m->crc);

    struct pmsg_slicer sl;
    pmsg_slice_start(m, &sl);
    int first = 1;
    do {
        unsigned char fh[PVMI_FRAGHDR];
        struct iovec iov[MAX_IOV + 2];
        int n = 0;
        size_t body = 0;
        iov[n++] = (struct iovec){ fh, sizeof fh };
        if (first)
            iov[n++] = (struct iovec){ mh, sizeof mh };
        n += pmsg_slice(&sl, fragbody, iov + n, MAX_IOV, &body);
        size_t left = pmsg_slice_left(&sl);
        int flags = (first ? PVMI_FFSOM : 0) | (left == 0 ? PVMI_FFEOM : 0);
        put32(fh, (uint32_t)dst);
        put32(fh + 4, (uint32_t)src);
        put32(fh + 8, (uint32_t)(body + (first ? PVMI_MSGHDR : 0)));
        put32(fh + 12, (uint32_t)flags << 24);
        int rc = write_all(c, iov, n);
        if (rc < 0)
            return rc;
        first = 0;
    } while (pmsg_slice_left(&sl) > 0);
    return 0;
}

/* ---- input ------------------------------------------------------------- */

enum { PH_HDR, PH_MHDR, PH_BODY, PH_LAND };

#define IB_SIZE ((size_t)64 << 10)
/* Pieces at least this big skip the read buffer when it is empty. */
#define DIRECT_MIN ((size_t)8 << 10)


static struct pvmi_rasm **rasm_find(struct pvmi_conn *c, int src)
{
    struct pvmi_rasm **pp = &c->rasm;
    while (*pp && (*pp)->src != src)
        pp = &(*pp)->next;
    return pp;
}

static void rasm_drop(struct pvmi_rasm **pp)
{
    struct pvmi_rasm *r = *pp;
    *pp = r->next;
    if (r->token)
        pvmi_sink_cancel(r->token, r->m);
    else
        pmsg_free(r->m);
    free(r);
}

static void expect(struct pvmi_conn *c, int phase, size_t n)
{
    c->phase = phase;
    c->want = n;
    c->got = 0;
}

/* The message of c->cur is complete: hand it on.  Returns 1. */
static int msg_done(struct pvmi_conn *c)
{
    struct pvmi_rasm *r = c->cur;
    struct pvmi_rasm **pp = rasm_find(c, r->src);
    *pp = r->next;
    c->cur = NULL;
    struct pmsg *m = r->m;
    if (r->token) {
        pvmi_sink_complete(r->token, m);
    } else {
        pmsg_rewind(m);
        pvmi_deliver(m);
    }
    free(r);
    return 1;
}

/* The payload piece of a fragment is complete. */
static int body_done(struct pvmi_conn *c)
{
    if (c->phase == PH_BODY && c->want > 0) {
        if (pmsg_append_seg(c->cur->m, c->buf, c->buf, c->want) < 0) {
            pmsg_blk_free(c->buf);
            c->buf = NULL;
            return PvmNoMem;
        }
    } else if (c->phase == PH_BODY) {
        pmsg_blk_free(c->buf);
    }
    c->buf = NULL;
    int eom = c->hdr[12] & PVMI_FFEOM;
    expect(c, PH_HDR, PVMI_FRAGHDR);
    if (!eom) {
        c->cur = NULL;
        return 0;
    }
    return msg_done(c);
}

static int start_payload(struct pvmi_conn *c, size_t n)
{
    if (c->cur->token) {
        expect(c, PH_LAND, n);
        return 0;
    }
    expect(c, PH_BODY, n);
    c->buf = pmsg_blk_alloc(n);
    return c->buf ? 0 : PvmNoMem;
}

/* A fragment header is complete: decide what its payload is. */
static int hdr_done(struct pvmi_conn *c)
{
    uint32_t len = get32(c->hdr + 8);
    int src = (int)get32(c->hdr + 4);
    if (len > MAX_FRAG_LEN)
        return PvmBadMsg;   /* garbage stream: caller closes it */
    if (c->hdr[12] & PVMI_FFSOM) {
        if (len < PVMI_MSGHDR) {   /* malformed: skip it */
            bad_frags++;
            c->cur = NULL;
            expect(c, PH_LAND, len);
            return 0;
        }
        expect(c, PH_MHDR, PVMI_MSGHDR);
        return 0;
    }
    struct pvmi_rasm **pp = rasm_find(c, src);
    c->cur = *pp;
    if (!c->cur) {            /* continuation without a start: skip it */
        bad_frags++;
        expect(c, PH_LAND, len);
        return 0;
    }
    return start_payload(c, len);
}

/* The message header of a first fragment is complete. */
static int mhdr_done(struct pvmi_conn *c)
{
    int dst = (int)get32(c->hdr);
    int src = (int)get32(c->hdr + 4);
    size_t len = get32(c->hdr + 8) - PVMI_MSGHDR;
    struct pvmi_rasm **pp = rasm_find(c, src);
    if (*pp) {   /* a message from src never finished: drop it */
        rasm_drop(pp);
        bad_frags++;
    }
    struct pvmi_rasm *r = calloc(1, sizeof *r);
    struct pmsg *m = pmsg_new_rx();
    if (!r || !m) {
        free(r);
        pmsg_free(m);
        return PvmNoMem;
    }
    const unsigned char *h = c->mhdr;
    pmsg_set_encword(m, get32(h));
    m->tag = (int)get32(h + 4);
    m->ctx = (int)get32(h + 8);
    m->wid = (int)get32(h + 16);
    m->crc = (int)get32(h + 20);
    m->src = src;
    m->dst = dst;
    r->src = src;
    r->m = m;
    r->token = pvmi_sink_claim(src, m->tag, m->ctx, m->encword);
    r->next = c->rasm;
    c->rasm = r;
    c->cur = r;
    return start_payload(c, len);
}

/* Where the next bytes of the current piece go (NULL: thrown away) and how
 * many of them fit there. */
static char *piece_dest(struct pvmi_conn *c, size_t *room)
{
    size_t left = c->want - c->got;
    switch (c->phase) {
    case PH_HDR:
        *room = left;
        return (char *)c->hdr + c->got;
    case PH_MHDR:
        *room = left;
        return (char *)c->mhdr + c->got;
    case PH_BODY:
        *room = left;
        return c->buf + c->got;
    default: {   /* PH_LAND: into a precv buffer, or skipped */
        char *d = c->cur ? pvmi_sink_dest(c->cur->token, room) : NULL;
        if (!d || *room > left)
            *room = left;
        return d;
    }
    }
}

static void piece_wrote(struct pvmi_conn *c, size_t n)
{
    c->got += n;
    if (c->phase == PH_LAND && c->cur)
        pvmi_sink_wrote(c->cur->token, n);
}

/* The current piece is complete: next state; >0 messages completed. */
static int piece_done(struct pvmi_conn *c)
{
    switch (c->phase) {
    case PH_HDR:
        return hdr_done(c);
    case PH_MHDR:
        return mhdr_done(c);
    default:
        if (!c->cur) {   /* a skipped malformed fragment */
            expect(c, PH_HDR, PVMI_FRAGHDR);
            return 0;
        }
        return body_done(c);
    }
}

int pvmi_conn_input(struct pvmi_conn *c)
{
    int done = 0, drained = 0;
    if (c->fd >= 0 && !c->ib) {
        c->ib = malloc(IB_SIZE);
        if (!c->ib)
            return PvmNoMem;
        expect(c, PH_HDR, PVMI_FRAGHDR);
    }
    while (c->fd >= 0) {
        if (c->got == c->want) {
            int rc = piece_done(c);
            if (rc < 0)
                return rc;
            done += rc;
            continue;
        }
        size_t room;
        char *d = piece_dest(c, &room);
        if (c->ib_off < c->ib_len) {   /* serve from the read buffer */
            size_t n = c->ib_len - c->ib_off;
            if (n > room)
                n = room;
            if (d)
                memcpy(d, c->ib + c->ib_off, n);
            c->ib_off += n;
            piece_wrote(c, n);
            continue;
        }
        /* A short read emptied the socket: the rest comes later (poll is
         * level-triggered), so skip the read that would say EAGAIN. */
        if (drained)
            return done;
        ssize_t r;
        int direct = d && room >= DIRECT_MIN;
        size_t asked = direct ? room : IB_SIZE;
        r = read(c->fd, direct ? d : c->ib, asked);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return done;
            return PvmSysErr;
        }
        if (r == 0)
            return PvmSysErr;  /* EOF */
        if (direct) {
            piece_wrote(c, (size_t)r);
        } else {
            c->ib_off = 0;
            c->ib_len = (size_t)r;
        }
        drained = (size_t)r < asked;
    }
    return done;
}

void pvmi_conn_close(struct pvmi_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    pmsg_blk_free(c->buf);
    c->buf = NULL;
    free(c->ib);
    c->ib = NULL;
    c->ib_off = c->ib_len = 0;
    c->cur = NULL;
    expect(c, PH_HDR, PVMI_FRAGHDR);
    while (c->rasm)
        rasm_drop(&c->rasm);
}
