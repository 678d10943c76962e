/*
 * frag.c - a PVM message as active messages: each fragment is one request
 * to the fragment handler (thesis appendix A, adapted).  The first carries
 * the message header and the total length, so the receiver allocates the
 * whole body once (or lands it in a waiting pvm_precv buffer) and copies
 * each fragment straight to its place.  libam delivers in order per peer,
 * and a sender finishes one message before the next, so fragments of one
 * message arrive contiguously.
 */
#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "pvmam_int.h"

#define F_SOM 1u
#define F_EOM 2u
#define HDR_FIRST 32   /* flags, tag, ctx, encword, wid, crc, total (2 words) */
#define HDR_NEXT  4    /* flags */
#define MAX_IOV   64

static void put32(unsigned char *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }

int pvmam_frag_send(struct pvmam_peer *p, struct pmsg *m)
{
    size_t maxp = am_max_payload(pvmam.ifc);
    unsigned char h[HDR_FIRST];
    struct pmsg_slicer sl;
    pmsg_slice_start(m, &sl);
    int first = 1;
    do {
        struct iovec iov[MAX_IOV];
        size_t hl = first ? HDR_FIRST : HDR_NEXT, body = 0;
        iov[0] = (struct iovec){ h, hl };
        int n = 1 + pmsg_slice(&sl, maxp - hl, iov + 1, MAX_IOV - 1, &body);
        size_t left = pmsg_slice_left(&sl);
        put32(h, (first ? F_SOM : 0) | (left == 0 ? F_EOM : 0));
        if (first) {
            put32(h + 4, (uint32_t)m->tag);
            put32(h + 8, (uint32_t)m->ctx);
            put32(h + 12, m->encword);
            put32(h + 16, (uint32_t)m->wid);
            put32(h + 20, (uint32_t)m->crc);
            put32(h + 24, (uint32_t)((uint64_t)m->len >> 32));
            put32(h + 28, (uint32_t)m->len);
        }
        int rc = am_request_vdata_ep(pvmam.ifc, p->ep, pvmam.h_frag, iov, n);
        if (rc < 0) {
            pvmam_log("send to t%x failed: %s", p->tid, am_strerror(rc));
            if (rc != AM_ERR_DEAD)
                return PvmSysErr;
            p->dead = 1;
            return PvmNoTask;
        }
        first = 0;
    } while (pmsg_slice_left(&sl) > 0);
    p->st.am_msgs_sent++;
    p->st.am_bytes_sent += m->len;
    return 0;
}

/* Drop a half-received message (peer gone or protocol error). */
static void drop_partial(struct pvmam_peer *p)
{
    if (p->rtoken)
        pvmi_sink_cancel(p->rtoken, p->rm);
    else
        pmsg_free(p->rm);
    p->rm = NULL;
    p->rtoken = 0;
    p->rblock = NULL;
}

void pvmam_peer_drop_rx(struct pvmam_peer *p)
{
    drop_partial(p);
    while (p->hold_head) {
        struct pmsg *m = p->hold_head;
        p->hold_head = m->qnext;
        pmsg_free(m);
    }
    p->hold_tail = NULL;
}

static void hold(struct pvmam_peer *p, struct pmsg *m)
{
    m->qnext = NULL;
    if (p->hold_tail)
        p->hold_tail->qnext = m;
    else
        p->hold_head = m;
    p->hold_tail = m;
}

void pvmam_release_held(struct pvmam_peer *p)
{
    while (p->hold_head) {
        struct pmsg *m = p->hold_head;
        p->hold_head = m->qnext;
        m->qnext = NULL;
        pvmi_deliver(m);
    }
    p->hold_tail = NULL;
}

static int start_msg(struct pvmam_peer *p, const unsigned char *h)
{
    struct pmsg *m = pmsg_new_rx();
    if (!m)
        return -1;
    m->tag = (int)get32(h + 4);
    m->ctx = (int)get32(h + 8);
    pmsg_set_encword(m, get32(h + 12));
    m->wid = (int)get32(h + 16);
    m->crc = (int)get32(h + 20);
    m->src = p->tid;
    m->dst = pvmam.mytid;
    m->flags |= PMSG_ROUTED;
    p->rtotal = ((size_t)get32(h + 24) << 32) | get32(h + 28);
    p->roff = 0;
    p->rm = m;
    p->rtoken = 0;
    p->rblock = NULL;
    /* Only a message that may be delivered now can land in a precv. */
    if (p->rx_open && !p->hold_head)
        p->rtoken = pvmi_sink_claim(p->tid, m->tag, m->ctx, m->encword);
    if (!p->rtoken && p->rtotal > 0) {
        p->rblock = pmsg_blk_alloc(p->rtotal);
        if (!p->rblock || pmsg_append_seg(m, p->rblock, p->rblock, p->rtotal) < 0) {
            pmsg_blk_free(p->rblock);
            p->rblock = NULL;
            pmsg_free(m);
            p->rm = NULL;
            return -1;
        }
    }
    return 0;
}

static void put_data(struct pvmam_peer *p, const char *d, size_t n)
{
    if (n > p->rtotal - p->roff)
        n = p->rtotal - p->roff;    /* a lying sender cannot overrun us */
    if (n == 0)
        return;                     /* an empty message has no block */
    if (p->rtoken) {
        while (n > 0) {
            size_t room;
            char *dst = pvmi_sink_dest(p->rtoken, &room);
            size_t k = dst ? (room < n ? room : n) : n;
            if (dst)
                memcpy(dst, d, k);
            pvmi_sink_wrote(p->rtoken, k);
            d += k;
            n -= k;
            p->roff += k;
        }
    } else {
        memcpy(p->rblock + p->roff, d, n);
        p->roff += n;
    }
}

static void finish_msg(struct pvmam_peer *p)
{
    struct pmsg *m = p->rm;
    p->rm = NULL;
    p->st.am_msgs_recv++;
    p->st.am_bytes_recv += p->rtotal;
    if (p->rtoken) {
        pvmi_sink_complete(p->rtoken, m);
        p->rtoken = 0;
        return;
    }
    pmsg_rewind(m);
    if (p->rx_open && !p->hold_head)
        pvmi_deliver(m);
    else
        hold(p, m);   /* its daemon-route messages are not all in yet */
}

void pvmam_frag_handler(const am_token_t *tok, void *data, size_t len)
{
    struct pvmam_peer *p = pvmam_peer_find(am_token_tid(tok));
    const unsigned char *h = data;
    if (!p || len < HDR_NEXT)
        return;
    uint32_t flags = get32(h);
    if (flags & F_SOM) {
        if (len < HDR_FIRST)
            return;
        if (p->rm) {   /* the previous message never ended: protocol error */
            pvmam_log("t%x: message cut short (%zu of %zu bytes); dropped", p->tid,
                      p->roff, p->rtotal);
            drop_partial(p);
        }
        if (start_msg(p, h) < 0)
            return;
        h += HDR_FIRST;
        len -= HDR_FIRST;
    } else {
        if (!p->rm) {
            pvmam_log("t%x: fragment without a message start; dropped", p->tid);
            return;
        }
        h += HDR_NEXT;
        len -= HDR_NEXT;
    }
    put_data(p, (const char *)h, len);
    if (flags & F_EOM)
        finish_msg(p);
}
