/*
 * am_proto.c - the request/reply protocol of thesis section 5 (see the
 * comment in am_int.h), in-order delivery, retransmission, polling and
 * waiting.  Transport-independent: sockets live in tr_*.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "am_int.h"

uint64_t amx_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void amx_pack_hdr(char *b, const struct amx_hdr *h)
{
    uint32_t w[8] = { htonl(h->len), htonl(h->seq),
                      htonl((uint32_t)h->type << 24 | (uint32_t)h->inst << 16 | h->handler),
                      htonl(AMX_MAGIC), htonl(h->pb_seq),
                      htonl((uint32_t)h->nblank << 16 | (uint32_t)h->flags << 8 |
                            (h->pb ? 0x100u : 0) | h->pb_inst),
                      htonl((uint32_t)(h->key >> 32)), htonl((uint32_t)h->key) };
    memcpy(b, w, AMX_HDR);
}

void amx_put_hdr(const am_interface_t *ifc, char *b, const struct amx_hdr *h)
{
    if (ifc->tr->host_order)
        memcpy(b, h, AMX_HDR);
    else
        amx_pack_hdr(b, h);
}

int amx_parse(const void *buf, size_t len, struct amx_hdr *h)
{
    uint32_t w[8];
    if (len < AMX_HDR)
        return AM_ERR_INVAL;
    memcpy(w, buf, AMX_HDR);
    if (ntohl(w[3]) != AMX_MAGIC)
        return AM_ERR_INVAL;
    h->len = ntohl(w[0]);
    h->seq = ntohl(w[1]);
    uint32_t x = ntohl(w[2]);
    h->type = (uint8_t)(x >> 24);
    h->inst = (uint8_t)(x >> 16);
    h->handler = (uint16_t)x;
    h->pb_seq = ntohl(w[4]);
    x = ntohl(w[5]);
    h->pb = (x & 0x100) != 0;
    h->pb_inst = (uint8_t)x;
    h->flags = (uint8_t)(x >> 8) & AMX_F_ACKNOW;
    h->nblank = (uint8_t)(x >> 16);
    h->key = (uint64_t)ntohl(w[6]) << 32 | ntohl(w[7]);
    if (h->type < AMX_REQ || h->type > AMX_HELLO)
        return AM_ERR_INVAL;
    return AM_OK;
}

void amx_declare_dead(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (ep->dead)
        return;
    ep->dead = 1;
    ifc->outstanding -= ep->inflight;
    ep->inflight = 0;
    for (unsigned i = 0; i < ifc->cfg.depth; i++)
        ep->slot[i].busy = 0;
    ep->st.timeouts++;
    ifc->st.timeouts++;
    ifc->tr->close_ep(ifc, ep);
    if (ifc->dead_fn)
        ifc->dead_fn(ifc, ep->tid, ifc->dead_arg);
}

/* Every AM leaves through here: the loss knob (am_config.fault_drop_ppm,
 * refused by am_init on reliable transports) drops some as the network
 * would, before the transport sees them. */
static int tr_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    if (ifc->cfg.fault_drop_ppm) {
        ifc->drop_rnd = ifc->drop_rnd * 1103515245u + 12345u;
        if ((ifc->drop_rnd >> 8) % 1000000u < ifc->cfg.fault_drop_ppm)
            return AM_OK;
    }
    return ifc->tr->send(ifc, ep, iov, n);
}

static size_t iov_total(const struct iovec *iov, int n)
{
    size_t t = 0;
    for (int i = 0; i < n; i++)
        t += iov[i].iov_len;
    return t;
}

/* Room to keep an AM of len bytes (grow only: the next AM likely fits),
 * and for a lent one the list of its pieces.  Made before the AM leaves:
 * an AM sent but not kept could never be retransmitted.  A lent AM gets
 * its whole length too, so that am_reclaim only copies. */
static int keep_room(char **copy, size_t *copy_cap, size_t len, struct amx_slot *lend)
{
    if (len > *copy_cap) {
        char *c = realloc(*copy, len);
        if (!c)
            return AM_ERR_NOMEM;
        *copy = c;
        *copy_cap = len;
    }
    if (lend && !lend->lent && !(lend->lent = malloc(sizeof *lend->lent * (1 + 64))))
        return AM_ERR_NOMEM;
    return AM_OK;
}

/* A small AM on a reliable transport that writes it in place itself
 * (put_small): no staging, no generic send.  (The loss knob is only on
 * unreliable ones.)  AMX_PUT_LATER: not this way, use send_am. */
static inline int put_small(am_interface_t *ifc, am_endpoint_t *ep, struct amx_hdr *h,
                            const struct iovec *iov, int n)
{
    if (!ifc->reliable || h->len > AMX_PACK_MAX || !ifc->tr->put_small)
        return AMX_PUT_LATER;
    h->key = ep->key;
    return ifc->tr->put_small(ifc, ep, h, iov, n);
}

/* Send header + payload iovecs as one AM, with the peer's secret.  An
 * unreliable interface keeps it for retransmission, copied after it left
 * (hot in the cache then) into *copy; or, when lend is given and the AM
 * is big, by reference: the AM header and the first piece (callers build
 * that on their stack) are copied, the other pieces pointed at until
 * am_reclaim. */
static int send_am(am_interface_t *ifc, am_endpoint_t *ep, struct amx_hdr *h,
                   const struct iovec *iov, int n, char **copy, size_t *copy_len,
                   size_t *copy_cap, struct amx_slot *lend)
{
    struct iovec v[1 + 64];
    char hb[AMX_HDR + AMX_PACK_MAX];
    if (n > 64)
        return AM_ERR_INVAL;
    h->key = ep->key;
    amx_put_hdr(ifc, hb, h);
    v[0].iov_base = hb;
    v[0].iov_len = AMX_HDR;
    int nv = n + 1;
    if (h->len <= AMX_PACK_MAX) {   /* small: one buffer is one cheaper call */
        for (int i = 0; i < n; i++) {
            memcpy(hb + v[0].iov_len, iov[i].iov_base, iov[i].iov_len);
            v[0].iov_len += iov[i].iov_len;
        }
        nv = 1;
        lend = NULL;
    } else {
        memcpy(v + 1, iov, sizeof *iov * (size_t)n);
    }
    size_t len = AMX_HDR + h->len;
    int rc = copy ? keep_room(copy, copy_cap, len, lend) : AM_OK;
    if (rc < 0 || (rc = tr_send(ifc, ep, v, nv)) < 0 || !copy)
        return rc;
    *copy_len = len;
    if (lend) {
        memcpy(*copy, hb, AMX_HDR);
        memcpy(*copy + AMX_HDR, iov[0].iov_base, iov[0].iov_len);
        lend->lent[0] = (struct iovec){ *copy, AMX_HDR + iov[0].iov_len };
        memcpy(lend->lent + 1, iov + 1, sizeof *iov * (size_t)(n - 1));
        lend->nlent = n;
        return AM_OK;
    }
    memcpy(*copy, hb, v[0].iov_len);   /* a small AM is whole in hb */
    size_t off = v[0].iov_len;
    for (int i = nv == 1 ? n : 0; i < n; i++) {
        memcpy(*copy + off, iov[i].iov_base, iov[i].iov_len);
        off += iov[i].iov_len;
    }
    return AM_OK;
}

/* The blank reply for the request (inst, seq) and the nblank - 1 before it. */
static void send_blank(am_interface_t *ifc, am_endpoint_t *ep, uint8_t inst, uint32_t seq,
                       uint8_t nblank)
{
    am_token_t tok = { .ifc = ifc, .ep = ep, .is_request = 1, .inst = inst, .seq = seq,
                       .nblank = nblank };
    am_reply(&tok, AMX_BLANK, NULL, 0);
}

static int request(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                   const struct iovec *iov, int iovcnt, int lend)
{
    if (!ifc || !ep || handler < 0 || handler >= AMX_BLANK || iovcnt < 0 || iovcnt > 64 ||
        (iovcnt > 0 && !iov))
        return AM_ERR_INVAL;
    if (ifc->in_handler)
        return AM_ERR_STATE;   /* handlers may only reply */
    size_t len = iov_total(iov, iovcnt);
    if (len > ifc->cfg.max_payload)
        return AM_ERR_TOOBIG;
    if (ep->dead)
        return AM_ERR_DEAD;
    if (!ep->connected)
        return AM_ERR_STATE;
    /* all instances in flight: service the network until one frees */
    while (ep->inflight >= ifc->cfg.depth) {
        amx_wait_hook(ifc);
        int rc = am_wait(ifc, ifc->wait_hook ? 1 : 100);
        if (ep->dead)
            return AM_ERR_DEAD;
        if (rc < 0 && rc != AM_ERR_TIMEOUT)
            return rc;
    }
    unsigned i = 0;
    while (ep->slot[i].busy)
        i++;
    struct amx_slot *s = &ep->slot[i];
    struct amx_hdr h = { .len = (uint32_t)len, .seq = ep->next_seq, .type = AMX_REQ,
                         .inst = (uint8_t)i, .handler = (uint16_t)handler };
    /* every half window, and when it is full, the receiver should not sit
     * on replies (only then: flagging every request past the half would
     * bring back one reply per request) */
    unsigned half = (ifc->cfg.depth + 1) / 2, after = ep->inflight + 1;
    if (half < 2)
        half = 2;
    /* after <= depth <= 2 * half: no division needed */
    if (after == ifc->cfg.depth || after == half || after == 2 * half)
        h.flags = AMX_F_ACKNOW;
    /* A transport may service input while it sends (shm waits while its
     * peer copies a big payload), so the reply can come back, and newer
     * blank replies be owed, before the send returns: take the instance
     * and settle the owed replies first. */
    if (ep->owe) {   /* the blank replies we owe ride along */
        h.pb = 1;
        h.pb_inst = ep->owe_inst;
        h.pb_seq = ep->owe_seq;
        h.nblank = ep->owe_n;
        ep->owe = 0;
    }
    ep->next_seq++;
    s->busy = 1;
    s->seq = h.seq;
    if (!ifc->reliable) {
        s->timeout_us = ifc->cfg.timeout_us;
        s->deadline_us = 0;   /* the next timer run stamps it */
    }
    ep->inflight++;
    ifc->outstanding++;
    s->nlent = 0;
    int rc = put_small(ifc, ep, &h, iov, iovcnt);
    if (rc == AMX_PUT_LATER)
        rc = send_am(ifc, ep, &h, iov, iovcnt, ifc->reliable ? NULL : &s->copy, &s->copy_len,
                     &s->copy_cap, lend ? s : NULL);
    if (rc >= 0 && h.pb) {
        ep->st.replies_sent++;
        ifc->st.replies_sent++;
    }
    if (rc < 0) {
        if (rc == AM_ERR_DEAD || rc == AM_ERR_SYS)
            amx_declare_dead(ifc, ep);   /* frees every instance */
        if (ep->dead)
            return AM_ERR_DEAD;
        if (s->busy && s->seq == h.seq) {   /* not sent: as if never tried */
            s->busy = 0;
            ep->inflight--;
            ifc->outstanding--;
            ep->next_seq--;
        }
        if (h.pb && !ep->owe) {   /* owed again */
            ep->owe = 1;
            ep->owe_inst = h.pb_inst;
            ep->owe_seq = h.pb_seq;
            ep->owe_n = h.nblank;
        } else if (h.pb) {   /* newer ones are owed now: these go alone */
            send_blank(ifc, ep, h.pb_inst, h.pb_seq, h.nblank);
        }
        return rc;
    }
    if (ep->dead)          /* died while we serviced input inside send */
        return AM_ERR_DEAD;
    ep->st.requests_sent++;
    ifc->st.requests_sent++;
    ep->st.bytes_sent += len;
    ifc->st.bytes_sent += len;
    return AM_OK;
}

int am_request_vdata_ep(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                        const struct iovec *iov, int iovcnt)
{
    return request(ifc, ep, handler, iov, iovcnt, 0);
}

int am_request_lend_ep(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                       const struct iovec *iov, int iovcnt)
{
    return request(ifc, ep, handler, iov, iovcnt, 1);
}

/* Copy what retransmission still needs of the lent payloads to ep, after
 * the first pieces already there (send_am made the room). */
int am_reclaim(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    for (unsigned i = 0; !ifc->reliable && ep->inflight && i < ifc->cfg.depth; i++) {
        struct amx_slot *s = &ep->slot[i];
        if (!s->busy || !s->nlent)
            continue;
        size_t off = s->lent[0].iov_len;
        for (int k = 1; k < s->nlent; k++) {
            memcpy(s->copy + off, s->lent[k].iov_base, s->lent[k].iov_len);
            off += s->lent[k].iov_len;
        }
        s->nlent = 0;
    }
    return AM_OK;
}

int am_request_ep(am_interface_t *ifc, am_endpoint_t *ep, int handler, const void *data, size_t len)
{
    struct iovec v = { (void *)data, len };
    return am_request_vdata_ep(ifc, ep, handler, &v, len ? 1 : 0);
}

int am_request_vdata(am_interface_t *ifc, int32_t tid, int handler,
                     const struct iovec *iov, int iovcnt)
{
    am_endpoint_t *ep = am_find_task(ifc, tid);
    if (!ep)
        return ifc ? AM_ERR_NOTASK : AM_ERR_INVAL;
    return am_request_vdata_ep(ifc, ep, handler, iov, iovcnt);
}

int am_request(am_interface_t *ifc, int32_t tid, int handler, const void *data, size_t len)
{
    struct iovec v = { (void *)data, len };
    return am_request_vdata(ifc, tid, handler, &v, len ? 1 : 0);
}

int am_reply_vdata(const am_token_t *ctok, int handler, const struct iovec *iov, int iovcnt)
{
    am_token_t *tok = (am_token_t *)ctok;
    if (!tok || handler < 0 || handler > AMX_BLANK || iovcnt < 0 || iovcnt > 64 ||
        (iovcnt > 0 && !iov))
        return AM_ERR_INVAL;
    if (!tok->is_request || tok->replied)
        return AM_ERR_STATE;
    am_interface_t *ifc = tok->ifc;
    am_endpoint_t *ep = tok->ep;
    size_t len = iov_total(iov, iovcnt);
    if (len > ifc->cfg.max_payload)
        return AM_ERR_TOOBIG;
    tok->replied = 1;
    if (ep->dead)
        return AM_ERR_DEAD;
    struct amx_hdr h = { .len = (uint32_t)len, .seq = tok->seq, .type = AMX_REP,
                         .inst = tok->inst, .handler = (uint16_t)handler,
                         .nblank = handler == AMX_BLANK ? tok->nblank : 0 };
    struct amx_rslot *r = ep->rslot ? &ep->rslot[tok->inst] : NULL;   /* unreliable only */
    int rc = put_small(ifc, ep, &h, iov, iovcnt);
    if (rc == AMX_PUT_LATER)
        rc = send_am(ifc, ep, &h, iov, iovcnt, r ? &r->rep_pkt : NULL, r ? &r->rep_len : NULL,
                     r ? &r->rep_cap : NULL, NULL);
    if (rc < 0)
        return rc;
    if (r) {
        r->replied = 1;
        r->rep_seq = tok->seq;
    }
    ep->st.replies_sent++;
    ifc->st.replies_sent++;
    return AM_OK;
}

int am_reply(const am_token_t *tok, int handler, const void *data, size_t len)
{
    struct iovec v = { (void *)data, len };
    return am_reply_vdata(tok, handler, &v, len ? 1 : 0);
}

/* ---- input --------------------------------------------------------------- */

/* Send the blank reply owed to ep now, if any. */
void amx_pay_owed(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (!ep->owe)
        return;
    ep->owe = 0;
    send_blank(ifc, ep, ep->owe_inst, ep->owe_seq, ep->owe_n);
}

void amx_pay_all(am_interface_t *ifc)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        amx_pay_owed(ifc, ep);
}

static void pay_due(am_interface_t *ifc)
{
    uint64_t now = 0;   /* read the clock only if something is owed */
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        if (!ep->owe)
            continue;
        if (!now)
            now = amx_now_us();
        if (!ep->owe_deadline_us)   /* owed since the last timer run */
            ep->owe_deadline_us = now + AMX_ACK_DELAY_US;
        else if (ep->owe_deadline_us <= now)
            amx_pay_owed(ifc, ep);
    }
}

/* Owe the blank reply for (inst, seq): the range owed grows when seq
 * follows it, else the old range is paid and a new one starts. */
static void owe_blank(am_interface_t *ifc, am_endpoint_t *ep, uint8_t inst, uint32_t seq)
{
    if (ep->owe && seq == ep->owe_seq + 1 && ep->owe_n < AMX_MAX_DEPTH) {
        ep->owe_n++;
    } else {
        amx_pay_owed(ifc, ep);
        ep->owe = 1;
        ep->owe_n = 1;
        ep->owe_deadline_us = 0;   /* the next timer run stamps it */
    }
    ep->owe_inst = inst;
    ep->owe_seq = seq;
}

static void deliver(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p)
{
    uint8_t inst = h->inst;
    uint32_t seq = h->seq;
    uint16_t handler = h->handler;
    size_t len = h->len;
    am_token_t tok = { .ifc = ifc, .ep = ep, .is_request = 1, .inst = inst, .seq = seq,
                       .placed = ifc->rx_placed };
    am_handler_fn fn = am_id_to_address(handler);
    ifc->rx_placed = 0;
    ep->expect_seq = seq + 1;
    ep->st.requests_recv++;
    ifc->st.requests_recv++;
    ep->st.bytes_recv += len + tok.placed;
    ifc->st.bytes_recv += len + tok.placed;
    if (fn) {
        ifc->in_handler++;
        fn(&tok, p, len);
        ifc->in_handler--;
    } else {
        ep->st.drops++;   /* unknown handler: still acknowledged */
        ifc->st.drops++;
    }
    if (!tok.replied && !ep->dead)
        owe_blank(ifc, ep, inst, seq);   /* the next request to ep may carry it */
    if (h->flags & AMX_F_ACKNOW)
        amx_pay_owed(ifc, ep);
}

/* Is a blank reply for seq still owed (inside the owed range)? */
static int owed(const am_endpoint_t *ep, uint32_t seq)
{
    return ep->owe && (int32_t)(ep->owe_seq - seq) >= 0 &&
           (int32_t)(ep->owe_seq - seq) < (int32_t)ep->owe_n;
}

/* Unreliable transports: a request seen before (seq below the next one
 * expected) lost its reply on the way back; send that reply again.  A
 * stale copy (its instance has since carried a newer request, so the
 * sender has its reply) gets nothing: a blank reply here would also take
 * the newer request's saved reply, and a retransmission of that one would
 * then be answered blank, its handler never run. */
static void on_duplicate(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h)
{
    struct amx_rslot *r = &ep->rslot[h->inst];
    ep->st.duplicates++;
    ifc->st.duplicates++;
    if (r->replied && (int32_t)(r->rep_seq - h->seq) > 0)
        return;
    if (r->replied && r->rep_seq == h->seq) {   /* the saved reply */
        struct iovec v = { r->rep_pkt, r->rep_len };
        tr_send(ifc, ep, &v, 1);
    } else if (!owed(ep, h->seq)) {
        send_blank(ifc, ep, h->inst, h->seq, 1);   /* it rode on a lost request */
    } else {   /* still owed: pay it now */
        amx_pay_owed(ifc, ep);
    }
}

/* Unreliable transports: a request ahead of its turn (d places early)
 * waits in its instance's rslot until its predecessors are delivered. */
static void hold_early(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                       const char *p, int32_t d)
{
    struct amx_rslot *r = &ep->rslot[h->inst];
    if (d >= (int32_t)ifc->cfg.depth || (r->held && r->held_seq == h->seq)) {
        ep->st.duplicates++;   /* beyond the window, or held already */
        ifc->st.duplicates++;
        return;
    }
    char *c = realloc(r->held_pkt, AMX_HDR + h->len);
    if (!c)
        return;   /* dropped: the sender retransmits it */
    amx_pack_hdr(c, h);
    memcpy(c + AMX_HDR, p, h->len);
    r->held_pkt = c;
    r->held_len = AMX_HDR + h->len;
    ep->nheld += !r->held;
    r->held = 1;
    r->held_seq = h->seq;
    ep->st.reordered++;
    ifc->st.reordered++;
}

/* Deliver the held requests that are now next in order; returns how many. */
static int release_held(am_interface_t *ifc, am_endpoint_t *ep)
{
    int n = 0;
    for (int found = ep->nheld > 0; found && !ep->dead;) {
        found = 0;
        for (unsigned i = 0; i < ifc->cfg.depth; i++) {
            struct amx_rslot *q = &ep->rslot[i];
            if (q->held && q->held_seq == ep->expect_seq) {
                struct amx_hdr hh;
                amx_parse(q->held_pkt, q->held_len, &hh);
                q->held = 0;
                ep->nheld--;
                deliver(ifc, ep, &hh, q->held_pkt + AMX_HDR);
                n++;
                found = ep->nheld > 0;
                break;
            }
        }
    }
    return n;
}

/* A request: deliver it in order (a reliable stream is in order already),
 * else it is a duplicate or early.  Returns the requests delivered. */
static int on_request(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p)
{
    if (h->inst >= ifc->cfg.depth)
        return 0;
    if (ifc->reliable) {
        if (h->seq != ep->expect_seq)   /* a reliable stream never skips */
            return 0;
        deliver(ifc, ep, h, p);
        return 1;
    }
    int32_t d = (int32_t)(h->seq - ep->expect_seq);
    if (d < 0) {
        on_duplicate(ifc, ep, h);
        return 0;
    }
    if (d > 0) {
        hold_early(ifc, ep, h, p, d);
        return 0;
    }
    deliver(ifc, ep, h, p);
    return 1 + release_held(ifc, ep);
}

static void free_slot(am_interface_t *ifc, am_endpoint_t *ep, struct amx_slot *s)
{
    s->busy = 0;
    ep->inflight--;
    ifc->outstanding--;
    ep->st.replies_recv++;
    ifc->st.replies_recv++;
}

/* A blank reply standing for the requests seq - nblank + 1 .. seq: free
 * those still in flight (ones freed before are duplicates).  Returns 1
 * if it freed any. */
static int on_blank_range(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h)
{
    int freed = 0;
    for (unsigned i = 0; i < ifc->cfg.depth && ep->inflight; i++) {
        struct amx_slot *s = &ep->slot[i];
        uint32_t back = h->seq - s->seq;
        if (s->busy && (int32_t)back >= 0 && back < h->nblank) {
            free_slot(ifc, ep, s);
            freed = 1;
        }
    }
    if (!freed) {
        ep->st.duplicates++;
        ifc->st.duplicates++;
    }
    return freed;
}

static int on_reply(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p)
{
    if (h->handler == AMX_BLANK && h->nblank > 1)
        return on_blank_range(ifc, ep, h);
    struct amx_slot *s = h->inst < ifc->cfg.depth ? &ep->slot[h->inst] : NULL;
    if (!s || !s->busy || s->seq != h->seq) {
        ep->st.duplicates++;
        ifc->st.duplicates++;
        return 0;
    }
    free_slot(ifc, ep, s);
    ep->st.bytes_recv += h->len;
    ifc->st.bytes_recv += h->len;
    am_handler_fn fn = h->handler == AMX_BLANK ? NULL : am_id_to_address(h->handler);
    if (fn) {
        am_token_t tok = { .ifc = ifc, .ep = ep, .is_request = 0, .inst = h->inst, .seq = h->seq };
        ifc->in_handler++;
        fn(&tok, p, h->len);
        ifc->in_handler--;
    }
    return 1;
}

int amx_input(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p)
{
    /* first: nothing below, and no handler, sees an AM without our secret */
    if (!amx_auth(ifc, ep, h))
        return 0;
    if (!ep) {   /* our secret but no endpoint: a late copy from a closed one */
        ifc->st.drops++;
        return 0;
    }
    if (ep->dead)
        return 0;
    int n = 0;
    if (h->pb && h->type == AMX_REQ) {
        struct amx_hdr b = { .seq = h->pb_seq, .type = AMX_REP, .inst = h->pb_inst,
                             .handler = AMX_BLANK, .nblank = h->nblank };
        n = on_reply(ifc, ep, &b, p);
    }
    if (h->type == AMX_REQ)
        return n + on_request(ifc, ep, h, p);
    if (h->type == AMX_REP)
        return on_reply(ifc, ep, h, p);
    return 0;
}

int amx_input_placed(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p,
                     size_t placed)
{
    ifc->rx_placed = placed;
    int n = amx_input(ifc, ep, h, p);
    ifc->rx_placed = 0;
    return n;
}

char *amx_offer_place(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                      const char *p, size_t have, size_t *hl)
{
    am_place_fn place = amx_placer(h->handler, hl);
    /* the next in order: on udp too, neither a duplicate nor early */
    if (!place || h->len < *hl + AM_PLACE_MIN || have < *hl || ep->dead ||
        h->type != AMX_REQ || h->inst >= ifc->cfg.depth || h->seq != ep->expect_seq ||
        !amx_key_ok(ifc, h))
        return NULL;
    /* not a request token: a placer cannot reply */
    am_token_t tok = { .ifc = ifc, .ep = ep, .inst = h->inst, .seq = h->seq };
    return place(&tok, p, *hl, h->len);
}

/* ---- progress -------------------------------------------------------------- */

static void retransmit(am_interface_t *ifc)
{
    if (!ifc->outstanding)
        return;
    uint64_t now = amx_now_us();
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        for (unsigned i = 0; ep->inflight && i < ifc->cfg.depth; i++) {
            struct amx_slot *s = &ep->slot[i];
            if (s->busy && !s->deadline_us)   /* sent since the last timer run */
                s->deadline_us = now + s->timeout_us;
            if (!s->busy || s->deadline_us > now)
                continue;
            if ((uint64_t)s->timeout_us * 2 > ifc->cfg.timeout_max_us) {
                amx_declare_dead(ifc, ep);
                break;
            }
            s->timeout_us *= 2;
            s->deadline_us = now + s->timeout_us;
            struct iovec v = { s->copy, s->copy_len };
            if (tr_send(ifc, ep, s->nlent ? s->lent : &v, s->nlent ? s->nlent : 1) ==
                AM_ERR_DEAD) {   /* e.g. its port is closed */
                amx_declare_dead(ifc, ep);
                break;
            }
            ep->st.retransmits++;
            ifc->st.retransmits++;
        }
    }
}

int am_poll(am_interface_t *ifc)
{
    if (!ifc)
        return AM_ERR_INVAL;
    if (ifc->in_handler)
        return AM_ERR_STATE;
    int n = ifc->tr->recv(ifc);
    /* The timers need the clock, which costs as much as the rest of a
     * poll: one that handled input skips them (its caller is about to
     * answer and polls again), never more than AMX_TIMER_SKIP in a row,
     * so a busy stream cannot starve them. */
    if (n > 0 && ++ifc->timer_skips < AMX_TIMER_SKIP)
        return n;
    ifc->timer_skips = 0;
    if (!ifc->reliable)
        retransmit(ifc);
    pay_due(ifc);
    return n;
}

int am_next_timeout_ms(const am_interface_t *ifc)
{
    if (!ifc)
        return -1;
    uint64_t now = amx_now_us(), best = UINT64_MAX;
    /* a deadline of 0 is not stamped yet: it runs from now */
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        uint64_t d = ep->owe_deadline_us ? ep->owe_deadline_us : now + AMX_ACK_DELAY_US;
        if (ep->owe && d < best)
            best = d;
    }
    for (am_endpoint_t *ep = ifc->eps; !ifc->reliable && ifc->outstanding && ep; ep = ep->next)
        for (unsigned i = 0; ep->inflight && i < ifc->cfg.depth; i++) {
            const struct amx_slot *s = &ep->slot[i];
            uint64_t d = s->deadline_us ? s->deadline_us : now + s->timeout_us;
            if (s->busy && d < best)
                best = d;
        }
    if (best == UINT64_MAX)
        return -1;
    return best <= now ? 0 : (int)((best - now + 999) / 1000);
}

#define SPIN_US 50

/* Spin briefly (waking a sleeper on the other core costs ~20 us), giving
 * the core away at every poll unless told to keep it (am_config.wait). */
int am_wait(am_interface_t *ifc, int timeout_ms)
{
    if (!ifc)
        return AM_ERR_INVAL;
    uint64_t start = amx_now_us();
    uint64_t end = timeout_ms < 0 ? UINT64_MAX : start + (uint64_t)timeout_ms * 1000u;
    uint64_t spin = ifc->cfg.wait == AM_WAIT_BLOCK ? 0 : SPIN_US;
    for (;;) {
        int n = am_poll(ifc);
        if (n != 0)
            return n;
        uint64_t now = amx_now_us();
        if (now >= end)
            return 0;
        if (now - start < spin) {
            if (ifc->cfg.wait == AM_WAIT_YIELD)
                sched_yield();
            continue;
        }
        int fd = am_event_fd(ifc);
        int ms = timeout_ms < 0 ? -1 : (int)((end - now + 999) / 1000);
        int rt = am_next_timeout_ms(ifc);
        if (rt >= 0 && (ms < 0 || rt < ms))
            ms = rt;
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        if (poll(&pf, 1, ms) < 0 && errno != EINTR)
            return AM_ERR_SYS;
    }
}
