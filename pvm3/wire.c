/*
 * wire.c - PVM fragments on a stream socket (pvm-protocol.md 3): writing a
 * message as fragments with writev, straight from its segments, and
 * reading fragments into per-source reassembly, each payload read into its
 * own block that becomes a segment of the message (no copy).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/uio.h>
#include "lpvm.h"

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
        ssize_t w = writev(c->fd, iov, n);
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

    struct pvm_seg *seg = m->head;
    size_t off = 0;          /* offset in seg */
    size_t left = m->len;
    int first = 1;
    do {
        unsigned char fh[PVMI_FRAGHDR];
        struct iovec iov[MAX_IOV + 2];
        int n = 0;
        size_t body = 0;
        iov[n++] = (struct iovec){ fh, sizeof fh };
        if (first)
            iov[n++] = (struct iovec){ mh, sizeof mh };
        while (left > 0 && body < fragbody && n < MAX_IOV + 2) {
            while (seg && off >= seg->len) {
                seg = seg->next;
                off = 0;
            }
            size_t k = seg->len - off;
            if (k > fragbody - body)
                k = fragbody - body;
            iov[n++] = (struct iovec){ seg->base + off, k };
            off += k;
            body += k;
            left -= k;
        }
        int flags = (first ? PVMI_FFSOM : 0) | (left == 0 ? PVMI_FFEOM : 0);
        put32(fh, (uint32_t)dst);
        put32(fh + 4, (uint32_t)src);
        put32(fh + 8, (uint32_t)(body + (first ? PVMI_MSGHDR : 0)));
        put32(fh + 12, (uint32_t)flags << 24);
        int rc = write_all(c, iov, n);
        if (rc < 0)
            return rc;
        first = 0;
    } while (left > 0);
    return 0;
}

/* ---- input ------------------------------------------------------------- */

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
    pmsg_free(r->m);
    free(r);
}

/* One whole fragment is in c->buf: reassemble; 1 if a message completed. */
static int frag_done(struct pvmi_conn *c)
{
    int dst = (int)get32(c->hdr);
    int src = (int)get32(c->hdr + 4);
    int flags = c->hdr[12];
    char *buf = c->buf;
    size_t len = c->blen;
    c->buf = NULL;
    c->hgot = c->blen = c->bgot = 0;

    struct pvmi_rasm **pp = rasm_find(c, src);
    struct pmsg *m;
    if (flags & PVMI_FFSOM) {
        if (len < PVMI_MSGHDR) {
            free(buf);
            return PvmBadMsg;
        }
        if (*pp) { /* a message from src never finished: drop it */
            rasm_drop(pp);
            bad_frags++;
        }
        m = pmsg_new_rx();
        if (!m) {
            free(buf);
            return PvmNoMem;
        }
        const unsigned char *h = (const unsigned char *)buf;
        pmsg_set_encword(m, get32(h));
        m->tag = (int)get32(h + 4);
        m->ctx = (int)get32(h + 8);
        m->wid = (int)get32(h + 16);
        m->crc = (int)get32(h + 20);
        m->src = src;
        m->dst = dst;
        if (len > PVMI_MSGHDR)
            pmsg_append_seg(m, buf, buf + PVMI_MSGHDR, len - PVMI_MSGHDR);
        else
            free(buf);
        if (!(flags & PVMI_FFEOM)) {
            struct pvmi_rasm *r = malloc(sizeof *r);
            if (!r) {
                pmsg_free(m);
                return PvmNoMem;
            }
            r->src = src;
            r->m = m;
            r->next = c->rasm;
            c->rasm = r;
            return 0;
        }
    } else {
        if (!*pp) {       /* continuation without a start: malformed */
            free(buf);
            return PvmBadMsg;
        }
        m = (*pp)->m;
        if (len > 0)
            pmsg_append_seg(m, buf, buf, len);
        else
            free(buf);
        if (!(flags & PVMI_FFEOM))
            return 0;
        struct pvmi_rasm *r = *pp;
        *pp = r->next;
        free(r);
    }
    pmsg_rewind(m);
    pvmi_deliver(m);
    return 1;
}

int pvmi_conn_input(struct pvmi_conn *c)
{
    int done = 0;
    while (c->fd >= 0) {
        ssize_t r;
        if (c->hgot < PVMI_FRAGHDR)
            r = read(c->fd, c->hdr + c->hgot, PVMI_FRAGHDR - c->hgot);
        else
            r = read(c->fd, c->buf + c->bgot, c->blen - c->bgot);
        if (r < 0) {
            if (errno == EINTR)
                continue;
            if (errno == EAGAIN || errno == EWOULDBLOCK)
                return done;
            return PvmSysErr;
        }
        if (r == 0)
            return PvmSysErr;  /* EOF */
        if (c->hgot < PVMI_FRAGHDR) {
            c->hgot += (size_t)r;
            if (c->hgot < PVMI_FRAGHDR)
                continue;
            uint32_t len = get32(c->hdr + 8);
            if (len > MAX_FRAG_LEN)
                return PvmBadMsg;   /* garbage stream: caller closes it */
            c->blen = len;
            c->bgot = 0;
            c->buf = malloc(len ? len : 1);
            if (!c->buf)
                return PvmNoMem;
        } else {
            c->bgot += (size_t)r;
        }
        if (c->bgot == c->blen) {
            /* a malformed fragment is dropped; the stream stays in sync */
            int rc = frag_done(c);
            if (rc > 0)
                done += rc;
            else if (rc == PvmBadMsg)
                bad_frags++;
        }
    }
    return done;
}

void pvmi_conn_close(struct pvmi_conn *c)
{
    if (c->fd >= 0)
        close(c->fd);
    c->fd = -1;
    free(c->buf);
    c->buf = NULL;
    c->hgot = c->blen = c->bgot = 0;
    while (c->rasm)
        rasm_drop(&c->rasm);
}
