/*
 * ucx.h - what the files of the ucx transport share (inside libam only).
 * The transport (the top of libam/tr_ucx.c says how it works) is:
 *   libam/tr_ucx.c         the ops: sending, polling, the event fd
 *   libam/ucx/worker.c     the interface: ucp context and worker, fds
 *   libam/ucx/endpoint.c   endpoints: ucp endpoints, their errors, closing,
 *                          and the wait for a UCX request (every wait here)
 *   libam/ucx/recv.c       receiving: on_am, the rendezvous fetches, the
 *                          queue handed to amx_input, early AMs, dead peers
 *   libam/ucx/addr.c       the printable address, made and read
 *   libam/ucx/dl.c         UCX itself, loaded with dlopen (dl.h)
 * Calls go from tr_ucx.c down to the others, from worker.c and endpoint.c
 * to recv.c and addr.c, never back up: no circle of files.
 */
#ifndef UCX_UCX_H
#define UCX_UCX_H

#include <netinet/in.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>
#include <ucp/api/ucp.h>
#include "am_int.h"
#include "dl.h"   /* UCX through pointers, loaded at the first interface */

#define UCX_AM_ID 7                     /* our ucp AM handler id */
#define WIRE_HDR (AMX_HDR + 8)          /* AM header + sender id */
#define HEAD_MIN ((size_t)AM_PLACE_MIN + AM_PLACE_HEAD_MAX)   /* big: head in the header */
#define MAX_EARLY 256                   /* AMs held for an endpoint not made yet */

struct item {
    struct item *next;
    am_endpoint_t *ep;         /* NULL: early (held), see sender */
    uint64_t sender, since_us;
    struct amx_hdr h;
    void *desc;                /* a rendezvous AM not fetched yet: UCX's descriptor */
    size_t hl, dlen;           /* ...its payload bytes in inl (the head), to fetch */
    int fetching;              /* a rendezvous fetch is under way (recv.c's ucx_fetched ends it) */
    int failed;                /* ...and it failed: the AM is dropped */
    char *place;               /* the placer's buffer, or NULL */
    size_t phl;                /* with place: the placer's head length */
    char *buf;                 /* the payload (or, placed, the head) */
    char inl[AMX_PACK_MAX];    /* buf for small ones */
};

struct queue { struct item *head, *tail; };

/* A small AM whose send UCX could not finish at once: UCX reads its header
 * and data until it is done, so they live here until then (tr_ucx.c's sent_small). */
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
    int polling;               /* ucx_recv progresses the worker: amx_ucx_on_am may hand in */
    int in_cb;                 /* a handler runs inside amx_ucx_on_am (see direct) */
    int ndirect;               /* AMs direct handed in during this poll */
    /* a take under way (tr_ucx.c's ucx_take_ep): ep's next small request
     * is offered to take(take_arg, ...) before any handler; taken: it was */
    am_endpoint_t *take_ep;
    am_take_fn take;
    void *take_arg;
    int taken;
    struct sbuf *sfree;        /* spare sbufs */
    am_interface_t *ifc;
    am_endpoint_t *last_ep;    /* recv.c's by_id: the last sender found */
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

/* A child's copy of the interface is its parent's UCX (the top of tr_ucx.c). */
static inline int ucx_forked(const struct ucx *u) { return getpid() != u->pid; }

/* worker.c: the ops init and shutdown. */
int amx_ucx_init(am_interface_t *ifc);
void amx_ucx_shutdown(am_interface_t *ifc);

/* endpoint.c: the ops of endpoints (accept is connect). */
int amx_ucx_ep_new(am_interface_t *ifc, am_endpoint_t *ep);
void amx_ucx_ep_free(am_interface_t *ifc, am_endpoint_t *ep);
int amx_ucx_connect(am_interface_t *ifc, am_endpoint_t *ep);
void amx_ucx_close_ep(am_interface_t *ifc, am_endpoint_t *ep);
/* Progress the worker until the UCX request req is done (ue: the endpoint
 * it is for, or NULL); frees req. */
ucs_status_t amx_ucx_wait_req(am_interface_t *ifc, struct ucx_ep *ue, void *req);

/* addr.c: our address ("ucx:" ip, sender id, worker address) into buf;
 * -1 if it does not fit.  The ops peer and host. */
int amx_ucx_self_addr(char *buf, size_t size, struct in_addr ip, uint64_t id,
                      const void *wa, size_t wlen);
int amx_ucx_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name);
void amx_ucx_host(const am_endpoint_t *ep, char *buf, size_t size);

/* recv.c: UCX's AM handler (inside ucp_worker_progress). */
ucs_status_t amx_ucx_on_am(void *arg, const void *header, size_t hlen, void *data, size_t len,
                           const ucp_am_recv_param_t *param);
/* Hand in the queue, in order, up to an AM still being fetched. */
int amx_ucx_dispatch(am_interface_t *ifc);
void amx_ucx_start_all(struct ucx *u);      /* every fetch left for later */
void amx_ucx_settle(struct ucx *u, struct item *it);   /* its fetch has landed */
void amx_ucx_reap_failed(am_interface_t *ifc);
void amx_ucx_expire_early(am_interface_t *ifc);
void amx_ucx_claim_early(struct ucx *u, am_endpoint_t *ep);
void amx_ucx_drop_queue(struct ucx *u, struct queue *q);
void amx_ucx_forget_items(struct ucx *u, am_endpoint_t *ep);

#endif /* UCX_UCX_H */
