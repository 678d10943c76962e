/*
 * am_input.c - the receiving half of the request/reply protocol (see the
 * comment in am_int.h): a whole AM from a transport (amx_input) is handed
 * to its handler in send order; on unreliable transports early requests
 * are held and duplicates answered again; a reply frees its request
 * instance.  The answers it sends leave through am_send.c.
 */
#include <stdlib.h>
#include <string.h>
#include "am_int.h"

/* Owe the blank reply for (inst, seq): the range owed grows when seq
 * follows it, else the old range is paid and a new one starts. */
static void owe_blank(am_interface_t *ifc, am_endpoint_t *ep, uint8_t inst, uint32_t seq)
{
    if (ep->owe && seq == ep->owe_seq + 1 && ep->owe_n < AMX_MAX_DEPTH) {
        ep->owe_n++;
    } else {
        if (ep->owe)
            amx_pay_owed(ifc, ep);
        ep->owe = 1;
        ep->owe_n = 1;
        ep->owe_deadline_us = 0;   /* the next timer run stamps it */
    }
    ep->owe_inst = inst;
    ep->owe_seq = seq;
}

/* What delivering a request means besides its handler, before it and
 * after it (deliver, and amx_input_taken for one a taker took). */
static inline void delivered(am_interface_t *ifc, am_endpoint_t *ep, uint32_t seq, size_t len)
{
    ep->expect_seq = seq + 1;
    ep->st.requests_recv++;
    ifc->st.requests_recv++;
    ep->st.bytes_recv += len;
    ifc->st.bytes_recv += len;
}

static inline void handled(am_interface_t *ifc, am_endpoint_t *ep, uint8_t inst, uint32_t seq,
                           int replied, uint8_t flags)
{
    if (!replied && !ep->dead)
        owe_blank(ifc, ep, inst, seq);   /* the next request to ep may carry it */
    if ((flags & AMX_F_ACKNOW) && ep->owe) {   /* by the next poll (am_int.h) */
        ep->owe_now = 1;
        ifc->owe_now = 1;
    }
}

static void deliver(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p)
{
    uint8_t inst = h->inst, flags = h->flags;
    uint32_t seq = h->seq;
    uint16_t handler = h->handler;
    size_t len = h->len;
    am_token_t tok = { .ifc = ifc, .ep = ep, .is_request = 1, .inst = inst, .seq = seq,
                       .placed = ifc->rx_placed };
    am_handler_fn fn = am_id_to_address(handler);
    ifc->rx_placed = 0;
    delivered(ifc, ep, seq, len + tok.placed);
    if (fn) {
        ifc->in_handler++;
        fn(&tok, p, len);
        ifc->in_handler--;
    } else {
        ep->st.drops++;   /* unknown handler: still acknowledged */
        ifc->st.drops++;
    }
    handled(ifc, ep, inst, seq, tok.replied, flags);
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
        amx_send(ifc, ep, &v, 1);
    } else if (!owed(ep, h->seq)) {
        amx_send_blank(ifc, ep, h->inst, h->seq, 1);   /* it rode on a lost request */
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
        if (h->seq != ep->expect_seq) {   /* a reliable stream never skips: */
            ep->st.drops++;               /* counted, so a transport's lost or */
            ifc->st.drops++;              /* reordered AM shows (am_interface_stats) */
            return 0;
        }
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
    ep->busy &= ~(1ull << (s - ep->slot));
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
    for (uint64_t b = ep->busy; b; b &= b - 1) {   /* the busy slots only */
        struct amx_slot *s = &ep->slot[__builtin_ctzll(b)];
        uint32_t back = h->seq - s->seq;
        if ((int32_t)back >= 0 && back < h->nblank) {
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
    if (!s || !amx_slot_busy(ep, h->inst) || s->seq != h->seq) {
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

/* The blank reply a request carries (h->pb): free what it answers. */
static inline int take_pb(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                          char *p)
{
    if (h->nblank == 1 && h->pb_inst < ifc->cfg.depth && amx_slot_busy(ep, h->pb_inst) &&
        ep->slot[h->pb_inst].seq == h->pb_seq) {
        /* the usual piggybacked blank reply (a ping-pong's): on_reply's
         * work for it, without building its header */
        free_slot(ifc, ep, &ep->slot[h->pb_inst]);
        return 1;
    }
    struct amx_hdr b = { .seq = h->pb_seq, .type = AMX_REP, .inst = h->pb_inst,
                         .handler = AMX_BLANK, .nblank = h->nblank };
    return on_reply(ifc, ep, &b, p);
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
    if (h->pb && h->type == AMX_REQ)
        n = take_pb(ifc, ep, h, p);
    if (h->type == AMX_REQ)
        return n + on_request(ifc, ep, h, p);
    if (h->type == AMX_REP)
        return on_reply(ifc, ep, h, p);
    return 0;
}

/* Exactly the requests on_request would hand to deliver at once. */
int amx_take_ok(const am_interface_t *ifc, const am_endpoint_t *ep, const struct amx_hdr *h)
{
    return amx_key_ok(ifc, h) && !ep->dead && h->type == AMX_REQ && ifc->reliable &&
           h->inst < ifc->cfg.depth && h->seq == ep->expect_seq;
}

void amx_input_taken(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h)
{
    if (h->pb)
        take_pb(ifc, ep, h, NULL);
    delivered(ifc, ep, h->seq, h->len);
    handled(ifc, ep, h->inst, h->seq, 0, h->flags);
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
