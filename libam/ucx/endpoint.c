/*
 * endpoint.c - the ucx transport's endpoints (libam/ucx/ucx.h): a ucp
 * endpoint to the peer's worker, UCX's report that the peer is gone,
 * closing, and amx_ucx_wait_req, the one wait of the transport.
 */
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include "ucx.h"

#define SPIN_US 50   /* a waiting send spins this long, then blocks */

int amx_ucx_ep_new(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (ucx_forked(ifc->trd))
        return AM_ERR_NOTSUP;
    struct ucx_ep *ue = calloc(1, sizeof *ue);
    if (!ue)
        return AM_ERR_NOMEM;
    ep->tp = ue;
    return AM_OK;
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
int amx_ucx_connect(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct ucx *u = ifc->trd;
    struct ucx_ep *ue = ep->tp;
    if (ucx_forked(u))
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
    amx_ucx_claim_early(u, ep);
    return AM_OK;
}

/* Progress the worker until req is done.  Spins while UCX moves (a big
 * AM's rendezvous over tcp has a progress call with nothing to do between
 * any two socket writes) and SPIN_US past the last move, then blocks on
 * the worker's event fd, 1 ms at a time with a wait hook (the caller's
 * other interfaces) or 100 ms.  (Counted from the first idle moment, the
 * spin ran out early in a 4 MiB send, and each later gap slept and woke
 * up again; ucx_perftest never sleeps.)  No cycle of waits can form: this
 * wait needs only the peer's worker to progress, and every wait of this
 * transport progresses it, fetching what arrives (amx_ucx_on_am). */
static void close_uep(am_interface_t *ifc, struct ucx_ep *ue);

ucs_status_t amx_ucx_wait_req(am_interface_t *ifc, struct ucx_ep *ue, void *req)
{
    struct ucx *u = ifc->trd;
    uint64_t spin_end = 0;
    ucs_status_t st;
    while ((st = ucp_request_check_status(req)) == UCS_INPROGRESS) {
        if (ucp_worker_progress(u->w)) {
            spin_end = 0;
            continue;
        }
        amx_ucx_start_all(u);
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
    if (ucx_forked(u))
        return;
    ucp_request_param_t prm = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                .flags = UCP_EP_CLOSE_FLAG_FORCE };
    ucs_status_ptr_t r = ucp_ep_close_nbx(uep, &prm);
    if (UCS_PTR_IS_PTR(r) && u->in_cb)
        ucp_request_free(r);   /* no waiting in amx_ucx_on_am: UCX finishes it */
    else if (UCS_PTR_IS_PTR(r))
        amx_ucx_wait_req(ifc, NULL, r);
}

void amx_ucx_close_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct ucx_ep *ue = ep->tp;
    close_uep(ifc, ue);
    if (ue->failed == 1) {
        ue->failed = 2;
        ((struct ucx *)ifc->trd)->nfailed--;
    }
}

void amx_ucx_ep_free(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct ucx *u = ifc->trd;
    struct ucx_ep *ue = ep->tp;
    if (!ue)
        return;
    amx_ucx_close_ep(ifc, ep);
    if (u->last_ep == ep)   /* recv.c's by_id */
        u->last_ep = NULL;
    if (!ucx_forked(u))
        amx_ucx_forget_items(u, ep);
    free(ue->waddr);
    free(ue);
    ep->tp = NULL;
}
