/*
 * recv.c - the ucx transport's receiving (libam/ucx/ucx.h): UCX's AM
 * handler, which hands an AM in at once or queues it, fetching a
 * rendezvous one at once (why: the top of libam/tr_ucx.c); the queue
 * handed to amx_input in arrival order; AMs held for an endpoint not made
 * yet; endpoints UCX reported failed.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include "ucx.h"

/* ---- the receive queue -------------------------------------------------- */

static void q_push(struct queue *q, struct item *it)
{
    it->next = NULL;
    if (q->tail)
        q->tail->next = it;
    else
        q->head = it;
    q->tail = it;
}

static void item_free(struct ucx *u, struct item *it)
{
    if (it->desc)
        ucp_am_data_release(u->w, it->desc);
    if (it->buf != it->inl)
        free(it->buf);
    free(it);
}

static int is_sender(const am_endpoint_t *ep, uint64_t id)
{
    const struct ucx_ep *ue = ep->tp;
    return ue && ue->uep && ue->id == id && !ep->dead;
}

/* The endpoint of a sender id: the last one found first (a stream or a
 * ping-pong), else a walk of every endpoint, which grows with the peers.
 * amx_ucx_ep_free forgets the last one. */
static am_endpoint_t *by_id(am_interface_t *ifc, uint64_t id)
{
    struct ucx *u = ifc->trd;
    if (u->last_ep && is_sender(u->last_ep, id))
        return u->last_ep;
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        if (is_sender(ep, id))
            return u->last_ep = ep;
    return NULL;
}

static int ep_queued(const struct ucx *u, const am_endpoint_t *ep)
{
    for (const struct item *it = u->q.head; it; it = it->next)
        if (it->ep == ep)
            return 1;
    return 0;
}

static void ucx_fetched(void *req, ucs_status_t st, size_t len, void *arg)
{
    struct item *it = arg;
    it->fetching = 0;
    it->failed = st != UCS_OK;
    ucp_request_free(req);
}

/* Fetch a rendezvous AM's data (n bytes) to dst. */
static void fetch(struct ucx *u, struct item *it, void *desc, char *dst, size_t n)
{
    ucp_request_param_t prm = {
        .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_USER_DATA,
        .cb.recv_am = ucx_fetched, .user_data = it };
    it->fetching = 1;
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(u->w, desc, dst, n, &prm);
    if (!UCS_PTR_IS_PTR(r)) {   /* done already, or failed */
        it->fetching = 0;
        it->failed = UCS_PTR_STATUS(r) != UCS_OK;
    }
}

/* The fast path: an AM whose payload is all here, UCX's header or data
 * (valid until amx_ucx_on_am returns), handed to amx_input from amx_ucx_on_am without a
 * queue item, when nothing waits before it (the queue and the held AMs
 * empty) and amx_ucx_on_am runs from ucx_recv's progress outside any handler.
 * UCX forbids progressing the worker here, and a handler cannot make us:
 * it may only reply (am_send.c refuses requests and am_poll.c polls in
 * handlers), a reply that UCX cannot finish at once is sent from a copy
 * (tr_ucx.c's send_small, send_bounce) instead of waited for, and an
 * endpoint closed meanwhile is not waited for either (endpoint.c's
 * close_uep).  A small payload in UCX's header (const, send_small's) is
 * copied to the stack; one in UCX's data (ucx_put_small's) and a bigger
 * eager one are used where UCX has it. */
static void direct(struct ucx *u, am_endpoint_t *ep, const struct amx_hdr *h, const char *head,
                   size_t hl, void *data)
{
    char tmp[AMX_PACK_MAX] __attribute__((aligned(16)));
    char *p = data;
    if (hl || !data) {
        memcpy(tmp, head, hl);
        p = tmp;
    }
    u->ifc->rx_read += h->len;
    u->in_cb = 1;
    u->ndirect += amx_input(u->ifc, ep, h, p);
    u->in_cb = 0;
}

/* A take under way (tr_ucx.c's ucx_take_ep) is offered ep's AM h (its
 * payload at p, as direct would hand it in), the first AM of the take:
 * the ones after it, and it if declined, are queued untouched.  Taken:
 * accounted as a request whose handler sent no reply (amx_input_taken; a
 * blank reply it pays is sent as a handler's reply is here, never waited
 * for). */
static int took(struct ucx *u, am_endpoint_t *ep, const struct amx_hdr *h, const char *p)
{
    if (ep != u->take_ep || !amx_take_ok(u->ifc, ep, h) ||
        !u->take(u->take_arg, h->handler, p, h->len))
        return 0;
    u->ifc->rx_read += h->len;
    u->taken = 1;
    u->in_cb = 1;
    amx_input_taken(u->ifc, ep, h);
    u->in_cb = 0;
    return 1;
}

/* An AM arrived (inside ucp_worker_progress): check it and hand it in
 * (direct) or queue it. */
ucs_status_t amx_ucx_on_am(void *arg, const void *header, size_t hlen, void *data, size_t len,
                          const ucp_am_recv_param_t *param)
{
    struct ucx *u = arg;
    am_interface_t *ifc = u->ifc;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    /* tr_ucx.c's ucx_put_small sends all of a small AM as UCX's data */
    int whole = hlen == 0 && !rndv;
    struct amx_hdr h;
    uint64_t sender;
    if (whole) {
        header = data;
        hlen = len;
        len = 0;
    }
    if (hlen < WIRE_HDR || amx_parse(header, AMX_HDR, &h) < 0 || h.type == AMX_HELLO ||
        h.len != hlen - WIRE_HDR + len || h.len > ifc->cfg.max_payload) {
        ifc->st.drops++;   /* garbage: for a rendezvous one, UCX drops the data */
        return UCS_OK;
    }
    memcpy(&sender, (const char *)header + AMX_HDR, 8);
    am_endpoint_t *ep = by_id(ifc, sender);
    if (!amx_key_ok(ifc, &h) || (!ep && u->nearly >= MAX_EARLY)) {
        amx_input(ifc, ep, &h, NULL);   /* counts the drop; runs nothing */
        return UCS_OK;
    }
    const char *head = (const char *)header + WIRE_HDR;
    size_t hl = hlen - WIRE_HDR;   /* payload bytes in the header */
    /* A take runs no handler and no placer (pvm3/core/recv.c's quick look
     * relies on it: nothing it has not seen may be queued meanwhile), so
     * in one what the taker does not take is queued as it came, for the
     * next poll, and so is all that follows a take */
    if (ep && !rndv && u->polling && !u->q.head && !u->nearly && !ifc->in_handler &&
        !u->taken && h.len < HEAD_MIN && (hl == 0 || (hl == h.len && hl <= AMX_PACK_MAX))) {
        if (u->take_ep) {
            if (took(u, ep, &h, whole ? (char *)data + WIRE_HDR : hl || !data ? head : data))
                return UCS_OK;
        } else if (whole) {   /* in UCX's receive buffer, writable as data is */
            direct(u, ep, &h, NULL, 0, (char *)data + WIRE_HDR);
            return UCS_OK;
        } else {
            direct(u, ep, &h, head, hl, data);
            return UCS_OK;
        }
    }
    struct item *it = malloc(sizeof *it);
    if (!it)
        goto drop;
    memset(it, 0, offsetof(struct item, inl));
    it->ep = ep;
    it->sender = sender;
    it->h = h;
    it->hl = hl;
    if (rndv && ep && (u->take_ep || ep_queued(u, ep))) {
        /* earlier AMs of ep's wait (or a take runs, which asks no
         * placer): fetch when this one is next, so a placer can take it
         * (start_fetch), or when a send waits */
        memcpy(it->inl, head, hl);
        it->desc = data;
        it->dlen = len;
        q_push(&u->q, it);
        return UCS_INPROGRESS;
    }
    char *dst = NULL;
    if (ep && h.len >= HEAD_MIN && !u->take_ep)   /* nothing of ep's waits before it */
        dst = amx_offer_place(ifc, ep, &h, head, hl, &it->phl);
    if (dst) {
        it->place = dst;
        it->buf = it->inl;
        memcpy(it->buf, head, it->phl);
        memcpy(dst, head + it->phl, hl - it->phl);
        dst += hl - it->phl;
    } else {
        it->buf = h.len <= sizeof it->inl ? it->inl : malloc(h.len);
        if (!it->buf) {
            free(it);
            goto drop;
        }
        memcpy(it->buf, head, hl);
        dst = it->buf + hl;
    }
    ifc->rx_read += hl;
    if (rndv)
        fetch(u, it, data, dst, len);
    else if (len)
        memcpy(dst, data, len);
    ifc->rx_read += len;   /* counted when asked for: am_bytes_read says "flowing" */
    if (ep) {
        q_push(&u->q, it);
    } else {
        it->since_us = amx_now_us();
        q_push(&u->early, it);
        u->nearly++;
    }
    return UCS_OK;
drop:
    ifc->st.drops++;
    return UCS_OK;   /* a rendezvous one is dropped by UCX then */
}

/* Fetch a rendezvous AM that amx_ucx_on_am left for later: into a placer's
 * buffer if it may (the first of its endpoint's AMs in the queue, so the
 * next in order), else into a buffer of ours.  0, or -1 without memory
 * (it stays for later). */
static int start_fetch(struct ucx *u, struct item *it, int may_place)
{
    am_interface_t *ifc = u->ifc;
    char *dst = NULL;
    if (may_place && it->h.len >= HEAD_MIN)
        dst = amx_offer_place(ifc, it->ep, &it->h, it->inl, it->hl, &it->phl);
    if (dst) {
        it->place = dst;
        it->buf = it->inl;
        memmove(dst, it->inl + it->phl, it->hl - it->phl);
        dst += it->hl - it->phl;
    } else {
        if (!(it->buf = malloc(it->h.len)))
            return -1;
        memcpy(it->buf, it->inl, it->hl);
        dst = it->buf + it->hl;
    }
    void *desc = it->desc;
    it->desc = NULL;
    ifc->rx_read += it->hl;
    fetch(u, it, desc, dst, it->dlen);
    return 0;
}

/* Start every fetch left for later: a send waits, and its peer may be
 * waiting for these to be fetched (see amx_ucx_wait_req, endpoint.c). */
void amx_ucx_start_all(struct ucx *u)
{
    for (struct item *it = u->q.head; it; it = it->next) {
        if (!it->desc)
            continue;
        int first = 1;
        for (struct item *o = u->q.head; o != it; o = o->next)
            first &= o->ep != it->ep;
        start_fetch(u, it, first);
    }
}

/* Wait until no fetch into it is under way (progressing the worker). */
void amx_ucx_settle(struct ucx *u, struct item *it)
{
    while (it->fetching)
        ucp_worker_progress(u->w);
}

/* Hand in the queue, in order, up to an AM still being fetched. */
int amx_ucx_dispatch(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    int n = 0;
    if (u->dispatching)
        return 0;
    u->dispatching = 1;
    struct item *it;
    while ((it = u->q.head) && !it->fetching) {
        if (it->desc) {   /* next in order now: fetch (maybe into place) */
            if (start_fetch(u, it, 1) < 0 || it->fetching)
                break;
            continue;
        }
        u->q.head = it->next;
        if (!u->q.head)
            u->q.tail = NULL;
        if (it->failed) {
            it->ep->st.drops++;
            ifc->st.drops++;
        } else if (it->place) {
            struct amx_hdr h = it->h;
            h.len = (uint32_t)it->phl;
            n += amx_input_placed(ifc, it->ep, &h, it->buf, it->h.len - it->phl);
        } else {
            n += amx_input(ifc, it->ep, &it->h, it->buf);
        }
        item_free(u, it);
    }
    u->dispatching = 0;
    return n;
}

/* Endpoints UCX reported failed become dead once what they sent is in. */
void amx_ucx_reap_failed(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    for (am_endpoint_t *ep = ifc->eps; u->nfailed && ep; ep = ep->next) {
        struct ucx_ep *ue = ep->tp;
        if (ue->failed == 1 && !ep_queued(u, ep)) {
            ue->failed = 2;
            u->nfailed--;
            amx_declare_dead(ifc, ep, AM_DEATH_TRANSPORT, 0,
                             "UCX reported the endpoint failed");
        }
    }
}

/* Early AMs held past connect_timeout_ms are dropped (as tcp's parked
 * connections are closed). */
void amx_ucx_expire_early(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    uint64_t limit = (uint64_t)ifc->cfg.connect_timeout_ms * 1000u, now = amx_now_us();
    struct item **pp = &u->early.head, *last = NULL;
    while (*pp) {
        struct item *it = *pp;
        if (!it->fetching && now - it->since_us > limit) {
            *pp = it->next;
            u->nearly--;
            ifc->st.drops++;
            item_free(u, it);
        } else {
            last = it;
            pp = &it->next;
        }
    }
    u->early.tail = last;
}

/* ep now exists for its id: its early AMs join the queue, oldest first
 * (nothing of ep's can be there yet: by_id did not know it). */
void amx_ucx_claim_early(struct ucx *u, am_endpoint_t *ep)
{
    const struct ucx_ep *ue = ep->tp;
    struct item **pp = &u->early.head, *last = NULL;
    while (*pp) {
        struct item *it = *pp;
        if (it->sender == ue->id) {
            *pp = it->next;
            u->nearly--;
            it->ep = ep;
            q_push(&u->q, it);
        } else {
            last = it;
            pp = &it->next;
        }
    }
    u->early.tail = last;
}

void amx_ucx_drop_queue(struct ucx *u, struct queue *q)
{
    while (q->head) {
        struct item *it = q->head;
        amx_ucx_settle(u, it);
        q->head = it->next;
        item_free(u, it);
    }
    q->tail = NULL;
}

/* Items of ep's still queued or held go (their fetches settled first). */
void amx_ucx_forget_items(struct ucx *u, am_endpoint_t *ep)
{
    struct queue *qs[2] = { &u->q, &u->early };
    for (int k = 0; k < 2; k++) {
        struct item **pp = &qs[k]->head, *last = NULL;
        while (*pp) {
            struct item *it = *pp;
            if (it->ep == ep) {
                amx_ucx_settle(u, it);
                *pp = it->next;
                item_free(u, it);
            } else {
                last = it;
                pp = &it->next;
            }
        }
        qs[k]->tail = last;
    }
}
