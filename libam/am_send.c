/*
 * am_send.c - the sending half of the request/reply protocol of thesis
 * section 5 (see the comment in am_int.h): requests, which take a free
 * request instance (waiting in am_poll.c's am_wait while all are in
 * flight), replies, the copies an unreliable transport keeps for
 * retransmission, and the blank replies owed to a peer.  An AM leaves
 * through amx_send, or a small one through the transport's put_small.
 * Transport-independent: sockets live in tr_*.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "am_int.h"

/* Every AM but put_small's leaves through here: the loss knob
 * (am_config.fault_drop_ppm, refused by am_init on reliable transports)
 * drops some as the network would, before the transport sees them. */
int amx_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
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
    if (!ifc->reliable || h->len > AMX_PUT_MAX || !ifc->tr->put_small)
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
    if (rc < 0 || (rc = amx_send(ifc, ep, v, nv)) < 0 || !copy)
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
void amx_send_blank(am_interface_t *ifc, am_endpoint_t *ep, uint8_t inst, uint32_t seq,
                    uint8_t nblank)
{
    am_token_t tok = { .ifc = ifc, .ep = ep, .is_request = 1, .inst = inst, .seq = seq,
                       .nblank = nblank };
    am_reply(&tok, AMX_BLANK, NULL, 0);
}

static int request(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                   const struct iovec *iov, int iovcnt, int lend)
{
    if (!ifc || !ep || (unsigned)handler >= AMX_BLANK || (unsigned)iovcnt > 64 ||
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
    /* inflight < depth <= 64: a free slot's bit is clear */
    unsigned i = (unsigned)__builtin_ctzll(~ep->busy);
    struct amx_slot *s = &ep->slot[i];
    struct amx_hdr h = { .len = (uint32_t)len, .seq = ep->next_seq, .type = AMX_REQ,
                         .inst = (uint8_t)i, .handler = (uint16_t)handler };
    /* every half window, and when it is full (am_base.c, acknow_at);
     * inflight < depth <= 64 here */
    if ((ifc->acknow_at >> ep->inflight) & 1)
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
        ep->owe_now = 0;
    }
    ep->next_seq++;
    ep->busy |= 1ull << i;
    s->seq = h.seq;
    if (!ifc->reliable) {
        s->timeout_us = ifc->cfg.timeout_us;
        s->deadline_us = 0;   /* the next timer run stamps it */
    }
    ep->inflight++;
    ifc->outstanding++;
    s->nlent = 0;
    int rc = put_small(ifc, ep, &h, iov, iovcnt);
    if (rc == AMX_PUT_LATER) {
        ifc->tx_lent = lend;   /* the transport may leave the pieces to am_reclaim */
        rc = send_am(ifc, ep, &h, iov, iovcnt, ifc->reliable ? NULL : &s->copy, &s->copy_len,
                     &s->copy_cap, lend ? s : NULL);
        ifc->tx_lent = 0;
    }
    if (rc >= 0 && h.pb) {
        ep->st.replies_sent++;
        ifc->st.replies_sent++;
    }
    if (rc < 0) {
        if (rc == AM_ERR_DEAD || rc == AM_ERR_SYS)   /* frees every instance; the
                                                        transport noted why */
            amx_declare_dead(ifc, ep, AM_DEATH_SYS, rc == AM_ERR_SYS ? errno : 0,
                             "a send failed");
        if (ep->dead)
            return AM_ERR_DEAD;
        if (amx_slot_busy(ep, i) && s->seq == h.seq) {   /* not sent: as if never tried */
            ep->busy &= ~(1ull << i);
            ep->inflight--;
            ifc->outstanding--;
            ep->next_seq--;
        }
        if (h.pb && !ep->owe) {   /* owed again, and at once (it may have been asked for) */
            ep->owe = 1;
            ep->owe_now = 1;
            ifc->owe_now = 1;
            ep->owe_inst = h.pb_inst;
            ep->owe_seq = h.pb_seq;
            ep->owe_n = h.nblank;
        } else if (h.pb) {   /* newer ones are owed now: these go alone */
            amx_send_blank(ifc, ep, h.pb_inst, h.pb_seq, h.nblank);
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

/* Wait until the transport no longer reads lent pieces (shm: the peer's
 * copy of a BIG payload), then copy what retransmission still needs of
 * the lent payloads to ep, after the first pieces already there (send_am
 * made the room). */
int am_reclaim(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    if (ifc->tr->reclaim && !ep->dead && ifc->tr->reclaim(ifc, ep) < 0)
        return AM_ERR_DEAD;
    for (unsigned i = 0; !ifc->reliable && ep->inflight && i < ifc->cfg.depth; i++) {
        struct amx_slot *s = &ep->slot[i];
        if (!amx_slot_busy(ep, i) || !s->nlent)
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

/* ---- owed blank replies ------------------------------------------------- */

/* Send the blank reply owed to ep now, if any. */
void amx_pay_owed(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (!ep->owe)
        return;
    ep->owe = 0;
    ep->owe_now = 0;
    amx_send_blank(ifc, ep, ep->owe_inst, ep->owe_seq, ep->owe_n);
}

void amx_pay_all(am_interface_t *ifc)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        amx_pay_owed(ifc, ep);
}

void amx_pay_acknow(am_interface_t *ifc)
{
    ifc->owe_now = 0;
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        if (ep->owe_now)
            amx_pay_owed(ifc, ep);
}

/* The timer run of am_poll: stamp what became owed since the last run,
 * pay what has been owed for AMX_ACK_DELAY_US. */
void amx_pay_due(am_interface_t *ifc)
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
