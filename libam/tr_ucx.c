/*
 * tr_ucx.c - the ucx transport: AMs over UCX's ucp layer, which picks the
 * wire itself (shared memory, tcp, InfiniBand/RoCE verbs, ...; UCX_TLS and
 * the other UCX_* settings reach UCX unchanged).  Reliable and ordered per
 * endpoint, so am_proto.c keeps no copies or timers.
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
 * caller's memory (zero-copy where UCX does it).  A send waits, progressing
 * the worker, until UCX is done with the caller's memory: libam's sends
 * return with the data reusable (am.h), and reliable transports keep no
 * lent pieces (am_request_lend_ep).
 *
 * Receiving: UCX calls on_am inside ucp_worker_progress, where no handler
 * may run (a handler's reply may have to progress the worker to complete,
 * which UCX forbids there).  So on_am only queues the AM: a small one
 * copied, a rendezvous one (UCP_AM_RECV_ATTR_FLAG_RNDV) fetched at once
 * with ucp_am_recv_data_nbx, into the placer's buffer when amx_offer_place
 * gives one, else into a buffer of ours.  Fetching at once is what keeps
 * two tasks that send big AMs to each other from waiting for each other:
 * each one's send completes when the other's worker progresses, and every
 * wait here progresses the worker (see ucx_wait_req).  The queue is handed
 * to amx_input, in arrival order, from the recv op.
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>
#include "am_net.h"

#define UCX_AM_ID 7                     /* our ucp AM handler id */
#define WIRE_HDR (AMX_HDR + 8)          /* AM header + sender id */
#define HEAD_MIN ((size_t)AM_PLACE_MIN + AM_PLACE_HEAD_MAX)   /* big: head in the header */
#define MAX_EARLY 256                   /* AMs held for an endpoint not made yet */
#define SPIN_US 50                      /* a waiting send spins this long, then blocks */

struct item {
    struct item *next;
    am_endpoint_t *ep;         /* NULL: early (held), see sender */
    uint64_t sender, since_us;
    struct amx_hdr h;
    void *desc;                /* a rendezvous AM not fetched yet: UCX's descriptor */
    size_t hl, dlen;           /* ...its payload bytes in inl (the head), to fetch */
    int fetching;              /* a rendezvous fetch is under way (ucx_fetched ends it) */
    int failed;                /* ...and it failed: the AM is dropped */
    char *place;               /* the placer's buffer, or NULL */
    size_t phl;                /* with place: the placer's head length */
    char *buf;                 /* the payload (or, placed, the head) */
    char inl[AMX_PACK_MAX];    /* buf for small ones */
};

struct queue { struct item *head, *tail; };

/* A small AM whose send UCX could not finish at once: UCX reads its header
 * and data until it is done, so they live here until then (sent_small). */
struct sbuf {
    struct sbuf *next;
    struct ucx *u;
    char b[WIRE_HDR + AMX_PACK_MAX];
};

struct ucx {
    ucp_context_h ctx;
    ucp_worker_h w;
    pid_t pid;                 /* who made it (see the top: fork) */
    uint64_t id;               /* our sender id */
    int efd, epfd, evfd;       /* UCX's, ours (both watched), the wake-up we write */
    int woken;                 /* evfd was written */
    size_t max_hdr;            /* the largest UCX header the worker takes */
    struct queue q;            /* arrived, in order, for amx_input */
    struct queue early;        /* held for an endpoint not made yet */
    int nearly;
    int nfailed;               /* endpoints UCX reported failed, not yet dead */
    int dispatching;
    int polling;               /* ucx_recv progresses the worker: on_am may hand in */
    int in_cb;                 /* a handler runs inside on_am (see direct) */
    int ndirect;               /* AMs direct handed in during this poll */
    struct sbuf *sfree;        /* spare sbufs */
    am_interface_t *ifc;
};

/* Per endpoint (ep->tp). */
struct ucx_ep {
    ucp_ep_h uep;
    struct in_addr ip;
    uint64_t id;               /* the peer's sender id */
    unsigned char *waddr;      /* its worker address */
    size_t wlen;
    int failed;                /* UCX said the peer is gone */
};

/* ---- addresses ---------------------------------------------------------- */

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64_val(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

/* base64url without padding: no '#', ':' or space (am_auth.c, pvmam/addrs.c) */
static int b64_put(char *out, size_t room, const unsigned char *in, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        size_t k = n - i >= 3 ? 4 : n - i + 1;
        if (o + k >= room)
            return -1;
        for (size_t j = 0; j < k; j++)
            out[o++] = b64[v >> (18 - 6 * j) & 63];
    }
    out[o] = '\0';
    return 0;
}

static long b64_get(const char *s, unsigned char *out, size_t room)
{
    size_t n = strlen(s), o = 0;
    if (n % 4 == 1)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        size_t k = n - i >= 4 ? 4 : n - i;
        for (size_t j = 0; j < 4; j++) {
            int d = j < k ? b64_val(s[i + j]) : 0;
            if (d < 0)
                return -1;
            v = v << 6 | (uint32_t)d;
        }
        for (size_t j = 0; j + 1 < k; j++) {
            if (o == room)
                return -1;
            out[o++] = (unsigned char)(v >> (16 - 8 * j));
        }
    }
    return (long)o;
}

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

static am_endpoint_t *by_id(am_interface_t *ifc, uint64_t id)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        const struct ucx_ep *ue = ep->tp;
        if (ue && ue->uep && ue->id == id && !ep->dead)
            return ep;
    }
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
 * (valid until on_am returns), handed to amx_input from on_am without a
 * queue item, when nothing waits before it (the queue and the held AMs
 * empty) and on_am runs from ucx_recv's progress outside any handler.
 * UCX forbids progressing the worker here, and a handler cannot make us:
 * it may only reply (am_proto.c refuses requests and polls in handlers),
 * a reply that UCX cannot finish at once is sent from a copy (send_small,
 * send_bounce) instead of waited for, and an endpoint closed meanwhile
 * is not waited for either (close_uep).  A small payload is copied from
 * UCX's header (const) to the stack; a bigger eager one is used where
 * UCX has it. */
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

/* An AM arrived (inside ucp_worker_progress): check it and hand it in
 * (direct) or queue it. */
static ucs_status_t on_am(void *arg, const void *header, size_t hlen, void *data, size_t len,
                          const ucp_am_recv_param_t *param)
{
    struct ucx *u = arg;
    am_interface_t *ifc = u->ifc;
    int rndv = (param->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV) != 0;
    struct amx_hdr h;
    uint64_t sender;
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
    if (ep && !rndv && u->polling && !u->q.head && !u->nearly && !ifc->in_handler &&
        h.len < HEAD_MIN && (hl == 0 || (hl == h.len && hl <= AMX_PACK_MAX))) {
        direct(u, ep, &h, head, hl, data);
        return UCS_OK;
    }
    struct item *it = malloc(sizeof *it);
    if (!it)
        goto drop;
    memset(it, 0, offsetof(struct item, inl));
    it->ep = ep;
    it->sender = sender;
    it->h = h;
    it->hl = hl;
    if (rndv && ep && ep_queued(u, ep)) {
        /* earlier AMs of ep's wait: fetch when this one is next, so a
         * placer can take it (start_fetch), or when a send waits */
        memcpy(it->inl, head, hl);
        it->desc = data;
        it->dlen = len;
        q_push(&u->q, it);
        return UCS_INPROGRESS;
    }
    char *dst = NULL;
    if (ep && h.len >= HEAD_MIN)   /* nothing of ep's waits before it */
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

/* Fetch a rendezvous AM that on_am left for later: into a placer's
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
 * waiting for these to be fetched (see ucx_wait_req). */
static void start_all(struct ucx *u)
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
static void settle(struct ucx *u, struct item *it)
{
    while (it->fetching)
        ucp_worker_progress(u->w);
}

/* Hand in the queue, in order, up to an AM still being fetched. */
static int dispatch(am_interface_t *ifc)
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
static void reap_failed(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    for (am_endpoint_t *ep = ifc->eps; u->nfailed && ep; ep = ep->next) {
        struct ucx_ep *ue = ep->tp;
        if (ue->failed == 1 && !ep_queued(u, ep)) {
            ue->failed = 2;
            u->nfailed--;
            amx_declare_dead(ifc, ep);
        }
    }
}

/* Early AMs held past connect_timeout_ms are dropped (as tcp's parked
 * connections are closed). */
static void expire_early(am_interface_t *ifc)
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
static void claim_early(struct ucx *u, am_endpoint_t *ep)
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

/* ---- interface ---------------------------------------------------------- */

static int forked(const struct ucx *u) { return getpid() != u->pid; }

static int ucx_init(am_interface_t *ifc)
{
    struct ucx *u = calloc(1, sizeof *u);
    ucp_config_t *cfg = NULL;
    ucp_address_t *wa = NULL;
    size_t wlen;
    struct in_addr ip;
    int rc = AM_ERR_NOMEM;
    if (!u)
        return rc;
    u->ifc = ifc;
    u->pid = getpid();
    u->efd = u->epfd = u->evfd = -1;
    rc = AM_ERR_SYS;
    if (amx_key_new(&u->id) < 0 || amx_self_ip(ifc->cfg.bind_host, &ip) < 0)
        goto fail;
    rc = AM_ERR_NOTSUP;
    if (ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
        goto fail;
    /* UCX's own messages (UCX_LOG_LEVEL, default "warn") would reach the
     * program's stderr whenever a peer has just gone, which libam reports
     * itself (AM_ERR_DEAD): only fatal ones, unless the user says. */
    if (!getenv("UCX_LOG_LEVEL"))
        ucs_global_opts_set_value("LOG_LEVEL", "fatal");
    /* A keepalive that notices a silent peer within timeout_max_us. */
    if (!getenv("UCX_KEEPALIVE_INTERVAL")) {   /* the user's setting wins */
        char ka[32];
        snprintf(ka, sizeof ka, "%uus", ifc->cfg.timeout_max_us / 4 ? ifc->cfg.timeout_max_us / 4 : 1);
        ucp_config_modify(cfg, "KEEPALIVE_INTERVAL", ka);
    }
    /* Shared memory that takes part in peer failure handling: UCX's default
     * leaves posix and sysv out of UCP_ERR_HANDLING_MODE_PEER, so UCX_TLS=sm
     * would find no transport.  Those are read from the environment only
     * (ucp_config_modify does not reach them), so they are put there while
     * the worker is made, unless the user set them, and taken out again. */
    const char *const env_def[] = { "UCX_POSIX_ERROR_HANDLING", "UCX_SYSV_ERROR_HANDLING" };
    int env_set[2] = { 0, 0 };
    for (int i = 0; i < 2; i++)
        env_set[i] = !getenv(env_def[i]) && setenv(env_def[i], "y", 0) == 0;
    ucp_params_t prm = { .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME,
                         .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
                         .name = "libam" };
    ucs_status_t st = ucp_init(&prm, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK) {
        for (int i = 0; i < 2; i++)
            if (env_set[i])
                unsetenv(env_def[i]);
        goto fail;
    }
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    st = ucp_worker_create(u->ctx, &wp, &u->w);
    for (int i = 0; i < 2; i++)
        if (env_set[i])
            unsetenv(env_def[i]);
    if (st != UCS_OK)
        goto fail_ctx;
    ucp_worker_attr_t wat = { .field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER };
    if (ucp_worker_query(u->w, &wat) != UCS_OK || wat.max_am_header < WIRE_HDR)
        goto fail_worker;
    u->max_hdr = wat.max_am_header;
    /* whole messages only: on_am never sees a fragment (direct) */
    ucp_am_handler_param_t hp = { .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                                UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                                                UCP_AM_HANDLER_PARAM_FIELD_CB |
                                                UCP_AM_HANDLER_PARAM_FIELD_ARG,
                                  .id = UCX_AM_ID, .flags = UCP_AM_FLAG_WHOLE_MSG,
                                  .cb = on_am, .arg = u };
    if (ucp_worker_set_am_recv_handler(u->w, &hp) != UCS_OK ||
        ucp_worker_get_efd(u->w, &u->efd) != UCS_OK)
        goto fail_worker;
    rc = AM_ERR_SYS;
    if ((u->epfd = amx_epoll_with(u->efd)) < 0)
        goto fail_worker;
    u->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN };
    if (u->evfd < 0 || epoll_ctl(u->epfd, EPOLL_CTL_ADD, u->evfd, &ev) < 0)
        goto fail_fds;
    rc = AM_ERR_NOTSUP;
    if (ucp_worker_get_address(u->w, &wa, &wlen) != UCS_OK)
        goto fail_fds;
    int n = snprintf(ifc->self_addr, sizeof ifc->self_addr, "ucx:%08x:%016llx:",
                     (unsigned)ntohl(ip.s_addr), (unsigned long long)u->id);
    /* too long: UCX offers too many devices (UCX_NET_DEVICES, UCX_TLS narrow it) */
    if (b64_put(ifc->self_addr + n, sizeof ifc->self_addr - (size_t)n,
                (const unsigned char *)wa, wlen) < 0)
        goto fail_addr;
    ucp_worker_release_address(u->w, wa);
    ifc->trd = u;
    return AM_OK;
fail_addr:
    ucp_worker_release_address(u->w, wa);
fail_fds:
    if (u->evfd >= 0)
        close(u->evfd);
    close(u->epfd);
fail_worker:
    ucp_worker_destroy(u->w);
fail_ctx:
    ucp_cleanup(u->ctx);
fail:
    free(u);
    return rc;
}

static void drop_queue(struct ucx *u, struct queue *q)
{
    while (q->head) {
        struct item *it = q->head;
        settle(u, it);
        q->head = it->next;
        item_free(u, it);
    }
    q->tail = NULL;
}

static void ucx_shutdown(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    if (!forked(u)) {   /* a child's copy is the parent's UCX: leave it */
        drop_queue(u, &u->q);
        drop_queue(u, &u->early);
        ucp_worker_destroy(u->w);
        ucp_cleanup(u->ctx);
    }
    while (u->sfree) {
        struct sbuf *sb = u->sfree;
        u->sfree = sb->next;
        free(sb);
    }
    close(u->evfd);
    close(u->epfd);
    free(u);
}

/* ---- endpoints ---------------------------------------------------------- */

static int ucx_ep_new(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (forked(ifc->trd))
        return AM_ERR_NOTSUP;
    struct ucx_ep *ue = calloc(1, sizeof *ue);
    if (!ue)
        return AM_ERR_NOMEM;
    ep->tp = ue;
    return AM_OK;
}

static int ucx_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    struct ucx_ep *ue = ep->tp;
    unsigned ip;
    unsigned long long id;
    int off = 0;
    if (strncmp(name, "ucx:", 4) || sscanf(name + 4, "%8x:%16llx:%n", &ip, &id, &off) != 2 ||
        off != 26 || name[4 + 8] != ':' || name[4 + 8 + 1 + 16] != ':')
        return AM_ERR_BADADDR;
    const char *w = name + 4 + off;
    size_t room = strlen(w) / 4 * 3 + 3;
    unsigned char *wa = malloc(room);
    long wl = wa ? b64_get(w, wa, room) : -1;
    if (wl <= 0) {
        free(wa);
        return AM_ERR_BADADDR;
    }
    free(ue->waddr);
    ue->waddr = wa;
    ue->wlen = (size_t)wl;
    ue->ip.s_addr = htonl(ip);
    ue->id = id;
    return AM_OK;
}

static void ucx_host(const am_endpoint_t *ep, char *buf, size_t size)
{
    const struct ucx_ep *ue = ep->tp;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = ue->ip };
    amx_addr_host(&sa, buf, size);
}

static void on_ep_error(void *arg, ucp_ep_h uep, ucs_status_t status)
{
    am_endpoint_t *ep = arg;
    struct ucx_ep *ue = ep->tp;
    if (!ue->failed) {
        ue->failed = 1;
        ((struct ucx *)ep->ifc->trd)->nfailed++;
    }
}

/* connect and accept alike: a ucp endpoint to the peer's worker (UCX
 * wires it up when the first AM goes). */
static int ucx_connect(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct ucx *u = ifc->trd;
    struct ucx_ep *ue = ep->tp;
    if (forked(u))
        return AM_ERR_NOTSUP;
    if (ue->uep)
        return AM_OK;
    ucp_ep_params_t p = {
        .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS | UCP_EP_PARAM_FIELD_ERR_HANDLING_MODE |
                      UCP_EP_PARAM_FIELD_ERR_HANDLER,
        .address = (const ucp_address_t *)ue->waddr,
        .err_mode = UCP_ERR_HANDLING_MODE_PEER,
        .err_handler = { .cb = on_ep_error, .arg = ep } };
    if (ucp_ep_create(u->w, &p, &ue->uep) != UCS_OK) {
        ue->uep = NULL;
        return AM_ERR_DEAD;
    }
    claim_early(u, ep);
    return AM_OK;
}

/* Progress the worker until req is done.  Spins briefly, then blocks on
 * the worker's event fd, 1 ms at a time with a wait hook (the caller's
 * other interfaces) or 100 ms.  No cycle of waits can form: this wait
 * needs only the peer's worker to progress, and every wait of this
 * transport progresses it, fetching what arrives (on_am). */
static void close_uep(am_interface_t *ifc, struct ucx_ep *ue);

static ucs_status_t ucx_wait_req(am_interface_t *ifc, struct ucx_ep *ue, void *req)
{
    struct ucx *u = ifc->trd;
    uint64_t spin_end = 0;
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        if (ucp_worker_progress(u->w))
            continue;
        start_all(u);
        if (ue && ue->failed && ue->uep)
            close_uep(ifc, ue);   /* the peer is gone: UCX gives the request back */
        amx_wait_hook(ifc);
        uint64_t now = amx_now_us();
        if (!spin_end)
            spin_end = now + (ifc->cfg.wait == AM_WAIT_BLOCK ? 0 : SPIN_US);
        if (now < spin_end) {
            if (ifc->cfg.wait == AM_WAIT_YIELD)
                sched_yield();
            continue;
        }
        if (ucp_worker_arm(u->w) == UCS_OK) {
            struct pollfd p = { .fd = u->efd, .events = POLLIN };
            poll(&p, 1, ifc->wait_hook ? 1 : 100);
        }
    }
    ucp_request_free(req);
    return st;
}

static void close_uep(am_interface_t *ifc, struct ucx_ep *ue)
{
    struct ucx *u = ifc->trd;
    if (!ue->uep)
        return;
    ucp_ep_h uep = ue->uep;
    ue->uep = NULL;
    if (forked(u))
        return;
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                .flags = UCP_EP_CLOSE_FLAG_FORCE };
    ucs_status_ptr_t r = ucp_ep_close_nbx(uep, &prm);
    if (UCS_PTR_IS_PTR(r) && u->in_cb)
        ucp_request_free(r);   /* no waiting in on_am: UCX finishes it */
    else if (UCS_PTR_IS_PTR(r))
        ucx_wait_req(ifc, NULL, r);
}

/* ---- sending ------------------------------------------------------------ */

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
    char *p = sb->b;
    memcpy(p, iov[0].iov_base, AMX_HDR);
    memcpy(p + AMX_HDR, &u->id, 8);
    p += WIRE_HDR;
    size_t skip = AMX_HDR;
    for (int i = 0; i < n; i++) {
        size_t l = iov[i].iov_len, sk = skip < l ? skip : l;
        memcpy(p, (const char *)iov[i].iov_base + sk, l - sk);
        p += l - sk;
        skip -= sk;
    }
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

static void sent_bounce(void *req, ucs_status_t st, void *arg)
{
    free(arg);
    ucp_request_free(req);
}

/* A bigger AM sent from inside on_am (a handler's reply, see direct),
 * where no send may wait: from a copy, freed when UCX is done with it. */
static int send_bounce(struct ucx *u, struct ucx_ep *ue, const struct iovec *iov, int n, size_t len)
{
    if (len > u->ifc->cfg.max_payload)
        return AM_ERR_TOOBIG;
    char *b = malloc(WIRE_HDR + len);
    if (!b)
        return AM_ERR_NOMEM;
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
        dispatch(ifc);   /* what it sent before comes first (am_task_ended) */
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
    return ucx_wait_req(ifc, ue, r) == UCS_OK ? AM_OK : AM_ERR_DEAD;
}

/* ---- progress ----------------------------------------------------------- */

static int ucx_recv(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    if (u->woken) {
        uint64_t v;
        u->woken = 0;
        if (read(u->evfd, &v, sizeof v) < 0) {
            /* nothing to clear */
        }
    }
    u->ndirect = 0;
    u->polling = 1;
    for (int i = 0; i < 64 && ucp_worker_progress(u->w); i++)
        ;
    u->polling = 0;
    int n = u->ndirect + dispatch(ifc);
    if (u->nfailed)
        reap_failed(ifc);
    if (u->nearly)
        expire_early(ifc);
    return n;
}

/* Before the caller blocks: arm the worker; if it has work already (or
 * our queue has), make the fd readable so the caller does not sleep. */
static int ucx_event_fd(const am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    if (!forked(u) && !u->woken &&
        ((u->q.head && !u->q.head->fetching) || u->nfailed || ucp_worker_arm(u->w) != UCS_OK)) {
        uint64_t one = 1;
        if (write(u->evfd, &one, sizeof one) == sizeof one)
            u->woken = 1;
    }
    return u->epfd;
}

/* Items of ep's still queued or held go (their fetches settled first). */
static void forget_items(struct ucx *u, am_endpoint_t *ep)
{
    struct queue *qs[2] = { &u->q, &u->early };
    for (int k = 0; k < 2; k++) {
        struct item **pp = &qs[k]->head, *last = NULL;
        while (*pp) {
            struct item *it = *pp;
            if (it->ep == ep) {
                settle(u, it);
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

static void ucx_close_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct ucx_ep *ue = ep->tp;
    close_uep(ifc, ue);
    if (ue->failed == 1) {
        ue->failed = 2;
        ((struct ucx *)ifc->trd)->nfailed--;
    }
}

static void ucx_ep_free(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct ucx *u = ifc->trd;
    struct ucx_ep *ue = ep->tp;
    if (!ue)
        return;
    ucx_close_ep(ifc, ep);
    if (!forked(u))
        forget_items(u, ep);
    free(ue->waddr);
    free(ue);
    ep->tp = NULL;
}

/* The place of a body still being fetched is withdrawn: let the fetch
 * land (it cannot be redirected), and the place is not written after
 * this returns; the handler still runs. */
static void ucx_placement_discard(am_endpoint_t *ep)
{
    struct ucx *u = ep->ifc->trd;
    for (struct item *it = u->q.head; it; it = it->next)
        if (it->ep == ep && it->place)
            settle(u, it);
}

const struct am_transport_ops amx_tr_ucx = {
    .name = "ucx",
    .reliable = 1,
    .default_payload = 1u << 20,
    .max_payload = 64u << 20,
    .init = ucx_init,
    .shutdown = ucx_shutdown,
    .ep_new = ucx_ep_new,
    .ep_free = ucx_ep_free,
    .peer = ucx_peer,
    .host = ucx_host,
    .connect = ucx_connect,
    .accept = ucx_connect,
    .send = ucx_send,
    .recv = ucx_recv,
    .event_fd = ucx_event_fd,
    .close_ep = ucx_close_ep,
    .placement_discard = ucx_placement_discard,
};
