/*
 * tr_ucx.c - the ucx transport: AMs over UCX's ucp layer, which picks the
 * wire itself (shared memory, tcp, InfiniBand/RoCE verbs, ...; UCX_TLS and
 * the other UCX_* settings reach UCX unchanged).  Reliable and ordered per
 * endpoint, so libam's protocol (am_send.c, am_poll.c) keeps no copies or
 * timers.
 *
 * One ucp context and worker per interface.  The printable address is
 *     ucx:<IPv4, 8 hex>:<sender id, 16 hex>:<packed worker address, base64url>
 * (the IPv4 only names the host for am_hostname; the worker address is what
 * ucp_ep_create needs).  There are no connections of ours: connect and
 * accept both create a ucp endpoint to the peer's worker and return, as on
 * udp.  Each AM is one ucp_am_send_nbx: its UCX header is the 32-byte AM
 * header, the sender's id (so the receiver knows which endpoint it came
 * from: UCX does not say) and the first payload bytes (all of a small AM,
 * AM_PLACE_HEAD_MAX bytes of a big one, so the receiver can ask a placer
 * before the body is fetched); the rest is UCX's data, sent from the
 * caller's memory (zero-copy where UCX does it).  A small AM that UCX's
 * short path takes at once goes as UCX's data alone, without a UCX header
 * (ucx_put_small: UCX copies one piece less).  A send waits, progressing
 * the worker, until UCX is done with the caller's memory: libam's sends
 * return with the data reusable (am.h), and reliable transports keep no
 * lent pieces (am_request_lend_ep).
 *
 * Receiving (libam/ucx/recv.c): UCX calls amx_ucx_on_am inside
 * ucp_worker_progress, where no handler may run (a handler's reply may
 * have to progress the worker to complete, which UCX forbids there).  So
 * amx_ucx_on_am only queues the AM: a small one copied, a rendezvous one
 * (UCP_AM_RECV_ATTR_FLAG_RNDV) fetched at once with ucp_am_recv_data_nbx,
 * into the placer's buffer when amx_offer_place gives one, else into a
 * buffer of ours.  Fetching at once is what keeps two tasks that send big
 * AMs to each other from waiting for each other: each one's send
 * completes when the other's worker progresses, and every wait here
 * progresses the worker (see amx_ucx_wait_req, libam/ucx/endpoint.c).
 * The queue is handed to amx_input, in arrival order, from the recv op.
 *
 * Who may send: every AM carries the receiver's secret, checked (and
 * counted) before anything is kept.  An AM with the secret from a sender
 * id no endpoint has yet (the peer connected and sent before we accepted:
 * the libam tests do that) is held, like tcp's parked connections, at most
 * connect_timeout_ms and at most MAX_EARLY of them, and handed to the
 * endpoint that accept or connect makes for that id.  A stranger, without
 * the secret, can thus make libam keep nothing: no slot, no endpoint, no
 * buffer.  (UCX itself keeps wire-up state for any worker that contacts
 * ours, which needs our worker address, i.e. the capability; that is
 * UCX's, bounded by UCX.)
 *
 * A peer's death: UCX's endpoint error callback (UCP_ERR_HANDLING_MODE_PEER)
 * marks the endpoint, and the recv op declares it dead once everything it
 * sent before has been handed in.  Without UCX_KEEPALIVE_INTERVAL in the
 * environment the keepalive follows timeout_max_us, so a silent peer on a
 * connection-less wire (shared memory) is noticed as soon as over tcp.
 *
 * UCX is not fork-safe: an interface serves only the process that made it
 * (a child's calls that need UCX fail with AM_ERR_NOTSUP; its shutdown
 * leaves UCX alone).
 *
 * This file is the ops: sending, polling and the event fd; the others
 * are under libam/ucx/ (ucx.h lists them).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "ucx/ucx.h"

/* ---- sending ------------------------------------------------------------ */

/* An AM as one buffer at b: its header (iov[0] starts with it), our
 * sender id, then the payload. */
static void flatten(const struct ucx *u, char *b, const struct iovec *iov, int n)
{
    char *p = b + WIRE_HDR;
    memcpy(b, iov[0].iov_base, AMX_HDR);
    memcpy(b + AMX_HDR, &u->id, 8);
    size_t skip = AMX_HDR;
    for (int i = 0; i < n; i++) {
        size_t l = iov[i].iov_len, sk = skip < l ? skip : l;
        memcpy(p, (const char *)iov[i].iov_base + sk, l - sk);
        p += l - sk;
        skip -= sk;
    }
}

static void sent_small(void *req, ucs_status_t st, void *arg)
{
    struct sbuf *sb = arg;
    sb->next = sb->u->sfree;
    sb->u->sfree = sb;
    ucp_request_free(req);
}

/* A small AM (header, sender id and payload, all as UCX's header: UCX's
 * fastest path) from an sbuf: one UCX cannot send at once is then
 * finished later, without a wait here.  A send that waited for UCX would
 * need the peer's worker to progress, which is not always a separate
 * process (two interfaces of one task, the libam tests). */
static int send_small(struct ucx *u, struct ucx_ep *ue, const struct iovec *iov, int n, size_t len)
{
    struct sbuf *sb = u->sfree;
    if (sb)
        u->sfree = sb->next;
    else if (!(sb = malloc(sizeof *sb)))
        return AM_ERR_NOMEM;
    sb->u = u;
    flatten(u, sb->b, iov, n);
    /* all as header if the worker takes it (it takes some 8 KiB) */
    size_t hl = WIRE_HDR + len <= u->max_hdr ? WIRE_HDR + len : WIRE_HDR;
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                                                UCP_OP_ATTR_FIELD_CALLBACK |
                                                UCP_OP_ATTR_FIELD_USER_DATA,
                                .datatype = ucp_dt_make_contig(1),
                                .cb.send = sent_small, .user_data = sb };
    ucs_status_ptr_t r = ucp_am_send_nbx(ue->uep, UCX_AM_ID, sb->b, hl, sb->b + hl,
                                         WIRE_HDR + len - hl, &prm);
    if (UCS_PTR_IS_PTR(r))
        return AM_OK;   /* sent_small takes sb back */
    sb->next = u->sfree;
    u->sfree = sb;
    return r == NULL ? AM_OK : AM_ERR_DEAD;
}

/* A small AM (am_send.c's put_small): header, sender id and payload
 * packed once, on the stack, as UCX's data without a UCX header (UCX then
 * copies two pieces, its own header and ours, not three; recv.c's
 * amx_ucx_on_am takes either form), and given to UCX's short path only
 * (UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL: done at once, or UCS_ERR_NO_RESOURCE
 * and nothing sent, ucp.h), so no sbuf, no callback and no UCX request:
 * the cheapest send UCX has, as ucx_perftest's.  Not now (no room, an
 * endpoint not wired up yet or failed, or any error): AMX_PUT_LATER, and
 * ucx_send's send_small sends it (or reports the error). */
static int ucx_put_small(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                         const struct iovec *iov, int n)
{
    struct ucx *u = ifc->trd;
    struct ucx_ep *ue = ep->tp;
    char b[WIRE_HDR + AMX_PACK_MAX] __attribute__((aligned(16)));
    /* am_send.c offers up to AMX_PUT_MAX; the short path here, and recv.c's
     * direct handling, are for AMX_PACK_MAX */
    if (h->len > AMX_PACK_MAX || !ue->uep || ue->failed || WIRE_HDR + h->len > u->max_hdr)
        return AMX_PUT_LATER;
    amx_pack_hdr(b, h);
    memcpy(b + AMX_HDR, &u->id, 8);
    char *p = b + WIRE_HDR;
    for (int i = 0; i < n; i++) {
        memcpy(p, iov[i].iov_base, iov[i].iov_len);
        p += iov[i].iov_len;
    }
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FLAG_FORCE_IMM_CMPL };
    ucs_status_ptr_t r = ucp_am_send_nbx(ue->uep, UCX_AM_ID, NULL, 0, b, (size_t)(p - b), &prm);
    return r == NULL ? AM_OK : AMX_PUT_LATER;
}

static void sent_bounce(void *req, ucs_status_t st, void *arg)
{
    free(arg);
    ucp_request_free(req);
}

/* A bigger AM sent from inside amx_ucx_on_am (a handler's reply, see
 * recv.c's direct), where no send may wait: from a copy, freed when UCX
 * is done with it. */
static int send_bounce(struct ucx *u, struct ucx_ep *ue, const struct iovec *iov, int n, size_t len)
{
    if (len > u->ifc->cfg.max_payload)
        return AM_ERR_TOOBIG;
    char *b = malloc(WIRE_HDR + len);
    if (!b)
        return AM_ERR_NOMEM;
    flatten(u, b, iov, n);
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE |
                                                UCP_OP_ATTR_FIELD_CALLBACK |
                                                UCP_OP_ATTR_FIELD_USER_DATA,
                                .datatype = ucp_dt_make_contig(1),
                                .cb.send = sent_bounce, .user_data = b };
    ucs_status_ptr_t r = ucp_am_send_nbx(ue->uep, UCX_AM_ID, b, WIRE_HDR, b + WIRE_HDR, len, &prm);
    if (UCS_PTR_IS_PTR(r))
        return AM_OK;   /* sent_bounce frees b */
    free(b);
    return r == NULL ? AM_OK : AM_ERR_DEAD;
}

static int ucx_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    struct ucx *u = ifc->trd;
    struct ucx_ep *ue = ep->tp;
    if (ue->failed && !ifc->in_handler)
        amx_ucx_dispatch(ifc);   /* what it sent before comes first (am_task_ended) */
    if (!ue->uep || ue->failed || ep->dead)
        return AM_ERR_DEAD;
    /* iov[0] starts with the AM header (a small AM: all of it) */
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    len -= AMX_HDR;
    if (len <= AMX_PACK_MAX)
        return send_small(u, ue, iov, n, len);
    if (u->in_cb)
        return send_bounce(u, ue, iov, n, len);
    char hdr[WIRE_HDR + AM_PLACE_HEAD_MAX];
    size_t hl = len >= HEAD_MIN && WIRE_HDR + AM_PLACE_HEAD_MAX <= u->max_hdr ? AM_PLACE_HEAD_MAX : 0;
    memcpy(hdr, iov[0].iov_base, AMX_HDR);
    memcpy(hdr + AMX_HDR, &u->id, 8);
    /* the first hl payload bytes into the header, the rest as data */
    ucp_dt_iov_t dv[65];
    int nd = 0;
    size_t skip = AMX_HDR, got = 0;
    for (int i = 0; i < n; i++) {
        const char *b = iov[i].iov_base;
        size_t l = iov[i].iov_len;
        size_t sk = skip < l ? skip : l;
        b += sk;
        l -= sk;
        skip -= sk;
        size_t take = hl - got < l ? hl - got : l;
        memcpy(hdr + WIRE_HDR + got, b, take);
        got += take;
        b += take;
        l -= take;
        if (l)
            dv[nd++] = (ucp_dt_iov_t){ (void *)b, l };
    }
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                                .datatype = ucp_dt_make_contig(1) };
    const void *buf = NULL;
    size_t count = 0;
    if (nd == 1) {
        buf = dv[0].buffer;
        count = dv[0].length;
    } else if (nd > 1) {
        prm.datatype = ucp_dt_make_iov();
        buf = dv;
        count = (size_t)nd;
    }
    ucs_status_ptr_t r = ucp_am_send_nbx(ue->uep, UCX_AM_ID, hdr, WIRE_HDR + hl, buf, count, &prm);
    if (r == NULL)
        return AM_OK;
    if (UCS_PTR_IS_ERR(r))
        return AM_ERR_DEAD;
    /* the header and the caller's memory are UCX's until it is done */
    return amx_ucx_wait_req(ifc, ue, r) == UCS_OK ? AM_OK : AM_ERR_DEAD;
}

/* ---- progress ----------------------------------------------------------- */

/* ucx_recv's rarer work, kept out of its empty poll's way (the registers
 * saved and restored for it cost that poll about a tenth of its time). */
static __attribute__((noinline)) void clear_wake(struct ucx *u)
{
    uint64_t v;
    u->woken = 0;
    if (read(u->evfd, &v, sizeof v) < 0) {
        /* nothing to clear */
    }
}

static __attribute__((noinline)) int recv_rest(am_interface_t *ifc, int n)
{
    struct ucx *u = ifc->trd;
    if (u->q.head)
        n += amx_ucx_dispatch(ifc);
    if (u->nfailed)
        amx_ucx_reap_failed(ifc);
    if (u->nearly)
        amx_ucx_expire_early(ifc);
    return n;
}

static int ucx_recv(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    if (u->woken)
        clear_wake(u);
    /* Progress until UCX has nothing more, or a handler ran: its caller
     * is waiting for it (a ping-pong's next send), and one more progress
     * call that finds nothing would stand between the two (the next poll
     * takes the rest). */
    u->ndirect = 0;
    u->polling = 1;
    for (int i = 0; i < 64 && ucp_worker_progress(u->w) && !u->ndirect; i++)
        ;
    u->polling = 0;
    if (u->q.head || u->nfailed || u->nearly)
        return recv_rest(ifc, u->ndirect);
    return u->ndirect;
}

/* am_take_ep: progress as ucx_recv does, with the first AM that comes
 * offered to take if it is ep's next small request (recv.c's took).  UCX
 * hands AMs in inside its progress, so nothing can be left where it is,
 * as shm leaves a ring's record: one the taker does not take (another
 * peer's, a reply, another tag), and all that come after a take in the
 * same progress, are queued as they came, no handler or placer run, and
 * the progress stops; the caller's poll next (AM_TAKE_POLL) or later
 * hands them in.  ucx_recv's own work (the queue, a wake-up, endpoints
 * failed, AMs held for an endpoint not made yet) first: AM_TAKE_POLL. */
static int ucx_take_ep(am_interface_t *ifc, am_endpoint_t *ep, am_take_fn take, void *arg)
{
    struct ucx *u = ifc->trd;
    if (u->q.head || u->woken || u->nfailed || u->nearly)
        return AM_TAKE_POLL;
    u->take_ep = ep;
    u->take = take;
    u->take_arg = arg;
    u->ndirect = 0;
    u->polling = 1;
    for (int i = 0; i < 64 && ucp_worker_progress(u->w) && !u->taken && !u->q.head; i++)
        ;
    u->polling = 0;
    u->take_ep = NULL;
    if (u->taken) {
        u->taken = 0;
        return 1;
    }
    return u->q.head || u->nearly ? AM_TAKE_POLL : 0;
}

/* Before the caller blocks: arm the worker; if it has work already (or
 * our queue has), make the fd readable so the caller does not sleep. */
static int ucx_event_fd(const am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    if (!ucx_forked(u) && !u->woken &&
        ((u->q.head && !u->q.head->fetching) || u->nfailed || ucp_worker_arm(u->w) != UCS_OK)) {
        uint64_t one = 1;
        if (write(u->evfd, &one, sizeof one) == sizeof one)
            u->woken = 1;
    }
    return u->epfd;
}

/* The place of a body still being fetched is withdrawn: let the fetch
 * land (it cannot be redirected), and the place is not written after
 * this returns; the handler still runs. */
static void ucx_placement_discard(am_endpoint_t *ep)
{
    struct ucx *u = ep->ifc->trd;
    for (struct item *it = u->q.head; it; it = it->next)
        if (it->ep == ep && it->place)
            amx_ucx_settle(u, it);
}

const struct am_transport_ops amx_tr_ucx = {
    .name = "ucx",
    .reliable = 1,
    .default_payload = 1u << 20,
    .max_payload = 64u << 20,
    .init = amx_ucx_init,
    .shutdown = amx_ucx_shutdown,
    .ep_new = amx_ucx_ep_new,
    .ep_free = amx_ucx_ep_free,
    .peer = amx_ucx_peer,
    .host = amx_ucx_host,
    .connect = amx_ucx_connect,
    .accept = amx_ucx_connect,
    .send = ucx_send,
    .recv = ucx_recv,
    .event_fd = ucx_event_fd,
    .close_ep = amx_ucx_close_ep,
    .placement_discard = ucx_placement_discard,
    .put_small = ucx_put_small,
    .take_ep = ucx_take_ep,
};
