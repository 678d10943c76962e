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
/* pvm_psend messages up to this go as one fragment of header and bytes */
#define PVMX_SMALL 224

static void put32(unsigned char *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }
static uint32_t get32(const unsigned char *p) { uint32_t v; memcpy(&v, p, 4); return ntohl(v); }

/* The fields of the first fragment's header. */
struct first {
    int tag, ctx, wid, crc;
    uint32_t encword;
    size_t len;
};

/* The first fragment's header (HDR_FIRST bytes at h). */
static void put_first(unsigned char *h, uint32_t flags, const struct first *f)
{
    put32(h, flags);
    put32(h + 4, (uint32_t)f->tag);
    put32(h + 8, (uint32_t)f->ctx);
    put32(h + 12, f->encword);
    put32(h + 16, (uint32_t)f->wid);
    put32(h + 20, (uint32_t)f->crc);
    put32(h + 24, (uint32_t)((uint64_t)f->len >> 32));
    put32(h + 28, (uint32_t)f->len);
}

int pvmx_frag_failed(struct pvmx_peer *p, int rc)
{
    if (rc == AM_ERR_DEAD)
        pvmx_link_die(p, p->ep ? am_task_dead_reason(p->ep) : NULL);
    pvmx_log("send to t%x failed: %s%s%s", p->tid, am_strerror(rc), p->why[0] ? ": " : "",
             p->why);
    return rc == AM_ERR_DEAD ? PvmNoTask : PvmSysErr;
}

static int send_frags(struct pvmx_peer *p, const struct first *f, struct pmsg_slicer *sl)
{
    size_t maxp = am_max_payload(p->ifc);
    unsigned char h[HDR_FIRST];
    int first = 1;
    do {
        struct iovec iov[MAX_IOV];
        size_t hl = first ? HDR_FIRST : HDR_NEXT, body = 0;
        iov[0] = (struct iovec){ h, hl };
        int n = 1 + pmsg_slice(sl, maxp - hl, iov + 1, MAX_IOV - 1, &body);
        size_t left = pmsg_slice_left(sl);
        uint32_t flags = (first ? F_SOM : 0) | (left == 0 ? F_EOM : 0);
        if (first)
            put_first(h, flags, f);
        else
            put32(h, flags);
        /* the message's bytes are ours until we return: lent, not copied */
        int rc = am_request_lend_ep(p->ifc, p->ep, pvmx.h_frag, iov, n);
        if (rc < 0) {
            am_reclaim(p->ifc, p->ep);
            return pvmx_frag_failed(p, rc);
        }
        first = 0;
    } while (pmsg_slice_left(sl) > 0);
    p->st.am_msgs_sent++;
    p->st.am_bytes_sent += f->len;
    if (pvmx.batch) {   /* a multicast: the other peers first */
        if (!p->lent) {
            p->lent = 1;
            p->lent_next = pvmx.lent;
            pvmx.lent = p;
        }
        return 0;
    }
    int rc = am_reclaim(p->ifc, p->ep);   /* over shm: the peer has copied it */
    return rc < 0 ? pvmx_frag_failed(p, rc) : 0;
}

/* A multicast's sends (route.h batch) lend the message to every peer
 * and leave am_reclaim to its end: over shm each peer copies a big body
 * from our memory, and they all copy at once instead of one after the
 * other while we wait for each.  The message is the caller's until on = 0
 * returns.  A peer that died meanwhile is told as a failed send would be
 * (its link dies); the multicast itself does not fail, as stock's does not
 * for a task that is gone. */
void pvmx_frag_batch(int on)
{
    pvmx.batch = on;
    if (on)
        return;
    while (pvmx.lent) {
        struct pvmx_peer *p = pvmx.lent;
        pvmx.lent = p->lent_next;
        p->lent = 0;
        p->lent_next = NULL;
        int rc = p->ep ? am_reclaim(p->ifc, p->ep) : AM_OK;
        if (rc < 0)
            pvmx_frag_failed(p, rc);
    }
}

int pvmx_frag_send(struct pvmx_peer *p, struct pmsg *m)
{
    struct first f = { m->tag, m->ctx, m->wid, m->crc, m->encword, m->len };
    struct pmsg_slicer sl;
    pmsg_slice_start(m, &sl);
    return send_frags(p, &f, &sl);
}

/* pvm_psend's bytes, sliced straight from the user's array; a small
 * message is one fragment of two pieces, without the slicer. */
int pvmx_frag_send_bytes(struct pvmx_peer *p, int tag, int ctx, const void *buf, size_t len)
{
    struct first f = { tag, ctx, 0, 0, pmsg_encword(PvmDataRaw), len };
    if (len <= PVMX_SMALL && HDR_FIRST + len <= am_max_payload(p->ifc)) {
        unsigned char h[HDR_FIRST];
        put_first(h, F_SOM | F_EOM, &f);
        struct iovec iov[2] = { { h, HDR_FIRST }, { (void *)buf, len } };
        int rc = am_request_vdata_ep(p->ifc, p->ep, pvmx.h_frag, iov, len ? 2 : 1);
        if (rc < 0)
            return pvmx_frag_failed(p, rc);
        p->st.am_msgs_sent++;
        p->st.am_bytes_sent += len;
        return 0;
    }
    struct pvm_seg seg;
    struct pmsg_slicer sl;
    pvmi_slice_bytes(&sl, &seg, buf, len);
    return send_frags(p, &f, &sl);
}

/* Drop a half-received message (peer gone or protocol error). */
static void drop_partial(struct pvmx_peer *p)
{
    if (p->rtoken)
        pvmi_sink_cancel(p->rtoken, p->rm);
    else
        pmsg_free(p->rm);
    p->rbusy = 0;
    p->rstarted = 0;
    if (pvmx.placing == p)
        pvmx.placing = NULL;
    p->rm = NULL;
    p->rtoken = 0;
    p->rblock = NULL;
}

/* The link ended: a message it had not finished is lost with it, but
 * whole ones held for its SWITCH or READY are not (pvmx_release_held). */
void pvmx_peer_drop_partial(struct pvmx_peer *p) { drop_partial(p); }

void pvmx_peer_drop_rx(struct pvmx_peer *p)
{
    drop_partial(p);
    struct pmsg *m;
    while ((m = pvmi_msgq_take(&p->hold)))
        pmsg_free(m);
}

void pvmx_release_held(struct pvmx_peer *p)
{
    struct pmsg *m;
    while ((m = pvmi_msgq_take(&p->hold)))
        pvmi_deliver(m);
}

static int start_msg(struct pvmx_peer *p, const unsigned char *h)
{
    int tag = (int)get32(h + 4), ctx = (int)get32(h + 8);
    uint32_t encword = get32(h + 12);
    p->rtotal = ((size_t)get32(h + 24) << 32) | get32(h + 28);
    p->roff = 0;
    p->rm = NULL;
    p->rblock = NULL;
    p->rtoken = 0;
    /* Only a message that may be delivered now can land in a precv; one
     * that lands needs no message buffer at all. */
    if (pvmx_link_rx(p) && pvmi_msgq_empty(&p->hold))
        p->rtoken = pvmi_sink_claim(p->tid, tag, ctx, encword);
    if (p->rtoken) {
        p->rbusy = 1;
        return 0;
    }
    struct pmsg *m = pmsg_new_rx();
    if (!m)
        return -1;
    m->tag = tag;
    m->ctx = ctx;
    pmsg_set_encword(m, encword);
    m->wid = (int)get32(h + 16);
    m->crc = (int)get32(h + 20);
    m->src = p->tid;
    m->dst = pvmx.mytid;
    m->flags |= PMSG_ROUTED;
    if (p->rtotal > 0) {
        p->rblock = pmsg_blk_alloc(p->rtotal);
        if (!p->rblock || pmsg_append_seg(m, p->rblock, p->rblock, p->rtotal) < 0) {
            pmsg_blk_free(p->rblock);
            p->rblock = NULL;
            pmsg_free(m);
            return -1;
        }
    }
    p->rm = m;
    p->rbusy = 1;
    return 0;
}

static void put_data(struct pvmx_peer *p, const char *d, size_t n)
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

static void finish_msg(struct pvmx_peer *p)
{
    struct pmsg *m = p->rm;
    p->rm = NULL;
    p->rbusy = 0;
    p->st.am_msgs_recv++;
    p->st.am_bytes_recv += p->rtotal;
    if (p->rtoken) {
        pvmi_sink_complete(p->rtoken, m);
        p->rtoken = 0;
        return;
    }
    pmsg_rewind(m);
    if (pvmx_link_rx(p) && pvmi_msgq_empty(&p->hold))
        pvmi_deliver(m);
    else
        pvmi_msgq_put(&p->hold, m);   /* its daemon-route messages are not all in yet */
}

void pvmx_frag_handler(const am_token_t *tok, void *data, size_t len)
{
    struct pvmx_peer *p = pvmx_peer_find(am_token_tid(tok));
    const unsigned char *h = data;
    if (!p || len < HDR_NEXT)
        return;
    uint32_t flags = get32(h);
    /* a whole message in one fragment for a waiting pvm_precv: straight
     * into its buffer, no message state (as start_msg would let it) */
    if (flags == (F_SOM | F_EOM) && len >= HDR_FIRST && !p->rbusy && !p->rstarted &&
        pvmx_link_rx(p) && pvmi_msgq_empty(&p->hold) &&
        ((size_t)get32(h + 24) << 32 | get32(h + 28)) == len - HDR_FIRST &&
        !am_token_placed(tok) &&
        pvmi_sink_put(p->tid, (int)get32(h + 4), (int)get32(h + 8), get32(h + 12),
                      h + HDR_FIRST, len - HDR_FIRST)) {
        p->st.am_msgs_recv++;
        p->st.am_bytes_recv += len - HDR_FIRST;
        return;
    }
    if (flags & F_SOM) {
        if (len < HDR_FIRST)
            return;
        if (p->rstarted) {   /* frag_place began this message already */
            p->rstarted = 0;
        } else {
            if (p->rbusy) {   /* the previous message never ended: protocol error */
                pvmx_log("t%x: message cut short (%zu of %zu bytes); dropped", p->tid,
                          p->roff, p->rtotal);
                drop_partial(p);
            }
            if (start_msg(p, h) < 0)
                return;
        }
        h += HDR_FIRST;
        len -= HDR_FIRST;
    } else {
        if (!p->rbusy) {
            pvmx_log("t%x: fragment without a message start; dropped", p->tid);
            return;
        }
        h += HDR_NEXT;
        len -= HDR_NEXT;
    }
    put_data(p, (const char *)h, len);
    size_t placed = am_token_placed(tok);
    if (pvmx.placing == p)
        pvmx.placing = NULL;
    if (placed) {   /* already where frag_place said: just count it */
        if (p->rtoken)
            pvmi_sink_wrote(p->rtoken, placed);
        p->roff += placed;
    }
    if (flags & F_EOM)
        finish_msg(p);
}

/* libam asks where the body of a big fragment should go (am_set_placer):
 * straight into the message's block, or into the waiting pvm_precv's
 * buffer, so it is read off the socket once and never copied.  The head
 * is HDR_FIRST bytes: a first fragment's header, or a later fragment's
 * header and the first body bytes, which the handler copies itself. */
static void *frag_place(const am_token_t *tok, const void *head, size_t hl, size_t total)
{
    struct pvmx_peer *p = pvmx_peer_find(am_token_tid(tok));
    const unsigned char *h = head;
    if (!p || hl != HDR_FIRST)
        return NULL;
    size_t pre;   /* body bytes inside the head */
    if (get32(h) & F_SOM) {
        if (p->rbusy || start_msg(p, h) < 0)
            return NULL;   /* the handler sorts it out */
        p->rstarted = 1;
        pre = 0;
    } else {
        if (!p->rbusy)
            return NULL;
        pre = HDR_FIRST - HDR_NEXT;
    }
    size_t n = total - hl;
    if (p->roff + pre + n > p->rtotal)
        return NULL;   /* a lying sender: the handler clips it */
    if (p->rtoken) {
        size_t room;
        char *dst = pvmi_sink_dest(p->rtoken, &room);
        if (!dst || room < pre + n)
            return NULL;
        pvmx.placing = p;
        return dst + pre;
    }
    return p->rblock ? p->rblock + p->roff + pre : NULL;
}

/* libam reads a placed fragment across several polls.  If the pvm_precv
 * whose buffer it goes to has returned in between (an error), the buffer
 * is the user's again: the rest must not be written there. */
void pvmx_frag_check_place(void)
{
    struct pvmx_peer *p = pvmx.placing;
    if (p->rtoken && !pvmi_sink_live(p->rtoken)) {
        am_placement_discard(p->ep);
        pvmx.placing = NULL;
    }
}

int pvmx_frag_bind(void)
{
    int id = am_address_to_id(pvmx_frag_handler);
    if (id >= 0)
        am_set_placer(id, frag_place, HDR_FIRST);
    return id;
}
