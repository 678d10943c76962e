/*
 * short.c - a small whole message as one active message with a short
 * header: tag and context (8 bytes), then the body; the source is the
 * AM's sender, the length the AM's, and the encoding the handler's (one
 * handler per encoding that goes this way: raw, and XDR of pvm_send's
 * default).  frag.c's first fragment spends 32 bytes on the same
 * message; with this header an 8-byte pvm_psend is an AM of 16 bytes,
 * which libam's shm transport writes as one 64-byte line
 * (libam/shm/short.h).  The receiver copies it straight out of the AM
 * into a waiting pvm_precv's buffer (pvmi_sink_put), or into a message.
 * A pvm_precv waiting for the peer takes it before any handler runs
 * (route.h recv_bytes, libam's am_take_ep: pvmx_short_recv below), when
 * it is the next AM and on_short would land it in that buffer at once.
 *
 * Order with frag.c's messages to the same peer: both are requests on the
 * same endpoint, which libam hands to handlers in send order
 * (libam/am_int.h), and a sender finishes each message before the next,
 * so a short message never arrives inside a fragmented one; both handlers
 * deliver at once or hold behind the link's held messages by the same
 * rule (pvmx_link_rx and p->hold).  docs/architecture.md, "Short messages".
 */
#include <arpa/inet.h>
#include <string.h>
#include <sys/uio.h>
#include "pvmam_int.h"

#define SHORT_HDR PVMX_SHORT_HDR
#define MAX_IOV 16

static void put32(unsigned char *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }

static int send_short(struct pvmx_peer *p, int handler, int tag, int ctx, struct iovec *iov,
                      int n, size_t len)
{
    unsigned char h[SHORT_HDR];
    put32(h, (uint32_t)tag);
    put32(h + 4, (uint32_t)ctx);
    iov[0] = (struct iovec){ h, SHORT_HDR };
    int rc = am_request_vdata_ep(p->ifc, p->ep, handler, iov, n);
    if (rc < 0)
        return pvmx_frag_failed(p, rc);
    p->st.am_msgs_sent++;
    p->st.am_bytes_sent += len;
    return 0;
}

int pvmx_short_send_bytes(struct pvmx_peer *p, int tag, int ctx, const void *buf, size_t len)
{
    struct iovec iov[2] = { { 0 }, { (void *)buf, len } };
    return send_short(p, pvmx.h_short_raw, tag, ctx, iov, len ? 2 : 1, len);
}

/* A pvm_send message in the short form, or 1: it cannot go so (too big,
 * an encoding or a field the short header has no room for). */
int pvmx_short_send_msg(struct pvmx_peer *p, struct pmsg *m)
{
    int handler = m->encword == PVM_DSIG_NATIVE ? pvmx.h_short_raw
                : m->encword == PVM_ENC_XDR ? pvmx.h_short_xdr : -1;
    if (handler < 0 || m->len > PVMX_SHORT || m->wid || m->crc)
        return 1;
    struct iovec iov[MAX_IOV];
    struct pmsg_slicer sl;
    size_t got = 0;
    pmsg_slice_start(m, &sl);
    int n = 1 + pmsg_slice(&sl, m->len, iov + 1, MAX_IOV - 1, &got);
    if (pmsg_slice_left(&sl))
        return 1;   /* in more pieces than we take */
    return send_short(p, handler, m->tag, m->ctx, iov, n, m->len);
}

static void on_short(const am_token_t *tok, const unsigned char *d, size_t len, uint32_t enc)
{
    struct pvmx_peer *p = pvmx_peer_find(am_token_tid(tok));
    if (!p || len < SHORT_HDR)
        return;
    int tag = (int)get32(d), ctx = (int)get32(d + 4);
    d += SHORT_HDR;
    len -= SHORT_HDR;
    if (p->rbusy) {   /* a fragmented message never ended: protocol error, as frag.c */
        pvmx_log("t%x: message cut short (%zu of %zu bytes); dropped", p->tid, p->roff,
                  p->rtotal);
        pvmx_peer_drop_partial(p);
    }
    p->st.am_msgs_recv++;
    p->st.am_bytes_recv += len;
    int now = pvmx_link_rx(p) && pvmi_msgq_empty(&p->hold);
    if (now && pvmi_sink_put(p->tid, tag, ctx, enc, d, len))
        return;
    struct pmsg *m = pmsg_new_rx();
    if (!m)
        return;
    m->tag = tag;
    m->ctx = ctx;
    pmsg_set_encword(m, enc);
    m->src = p->tid;
    m->dst = pvmx.mytid;
    m->flags |= PMSG_ROUTED;
    if (len && pmsg_append(m, d, len) < 0) {
        pmsg_free(m);
        return;
    }
    pmsg_rewind(m);
    if (now)
        pvmi_deliver(m);
    else
        pvmi_msgq_put(&p->hold, m);   /* its daemon-route messages are not all in yet */
}

/* memcpy of n bytes, without a call for the few of a one-line AM
 * (libam/shm/short.h): two words or two half words that may overlap. */
static inline void copy_few(char *d, const unsigned char *s, size_t n)
{
    uint64_t a, b;
    uint32_t x, y;
    if (n > 16) {
        memcpy(d, s, n);
    } else if (n >= 8) {
        memcpy(&a, s, 8);
        memcpy(&b, s + n - 8, 8);
        memcpy(d, &a, 8);
        memcpy(d + n - 8, &b, 8);
    } else if (n >= 4) {
        memcpy(&x, s, 4);
        memcpy(&y, s + n - 4, 4);
        memcpy(d, &x, 4);
        memcpy(d + n - 4, &y, 4);
    } else {
        for (size_t i = 0; i < n; i++)
            d[i] = (char)s[i];
    }
}

/* A pvm_precv waiting for p's message (route.h recv_bytes). */
struct want {
    struct pvmx_peer *p;
    struct pvm_recv_bytes *rb;
};

/* am_take_ep's taker: a short message that on_short would land in the
 * waiting pvm_precv's buffer (pvmi_sink_put: its tag and context, raw, or
 * XDR when it takes bytes) goes there; anything else is on_short's. */
static int take(void *arg, int handler, const void *data, size_t len)
{
    const struct want *w = arg;
    struct pvm_recv_bytes *rb = w->rb;
    const unsigned char *d = data;
    if ((handler != pvmx.h_short_raw && (handler != pvmx.h_short_xdr || !rb->bytes_only)) ||
        len < SHORT_HDR)
        return 0;
    int tag = (int)get32(d), ctx = (int)get32(d + 4);
    if ((rb->tag != -1 && tag != rb->tag) || ctx != rb->msgctx)
        return 0;
    len -= SHORT_HDR;
    copy_few(rb->buf, d + SHORT_HDR, len < rb->cap ? len : rb->cap);
    rb->rtag = tag;
    rb->rlen = len;   /* what precv reports, even past its length */
    w->p->st.am_msgs_recv++;
    w->p->st.am_bytes_recv += len;
    return 1;
}

/* Only where on_short would land it at once: the link delivers, nothing
 * is held for it, and no fragmented message is cut short by it. */
int pvmx_short_recv(struct pvmx_peer *p, struct pvm_recv_bytes *rb)
{
    if (!pvmx_link_rx(p) || !pvmi_msgq_empty(&p->hold) || p->rbusy)
        return -1;
    struct want w = { p, rb };
    int rc = am_take_ep(p->ifc, p->ep, take, &w);
    return rc == 1 ? 1 : rc == 0 ? 0 : -1;
}

static void short_raw(const am_token_t *tok, void *data, size_t len)
{
    on_short(tok, data, len, PVM_DSIG_NATIVE);
}

static void short_xdr(const am_token_t *tok, void *data, size_t len)
{
    on_short(tok, data, len, PVM_ENC_XDR);
}

int pvmx_short_bind(void)
{
    int rc = pvmx.h_short_raw = am_address_to_id(short_raw);
    if (rc >= 0)
        rc = pvmx.h_short_xdr = am_address_to_id(short_xdr);
    return rc;
}
