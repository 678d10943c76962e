/*
 * ctrl.c - TC_* control messages (docs/protocol.md): consumed inside
 * the library, never handed to user receives.  Runs at a safe point (not
 * inside another send), so a handler may send.
 */
#include <stdlib.h>
#include "lpvm.h"
#include "compat.h"
#include "route_int.h"

/* A stock peer asks for a direct route.  We answer at once with a polite
 * refusal (ack 1): the peer keeps the pvmd route and never blocks. */
static void conreq(struct pmsg *m)
{
    struct pmsg *r = pvmi_xbuf();
    if (!r)
        return;
    pvmi_put_int(r, TDPROTOCOL);
    pvmi_put_int(r, 1);
    pvmi_put_str(r, "");
    r->tag = TC_CONACK;
    r->ctx = SYSCTX_TC;
    pvmi_send_daemon(m->src, r);
    pmsg_free(r);
}

static void siblings(struct pmsg *m)
{
    int n;
    if (pvmi_get_int(m, &n) < 0 || n < 0 || (size_t)n * 4 > pmsg_unread(m))
        return;
    int *t = malloc(sizeof *t * (size_t)(n ? n : 1));
    if (!t)
        return;
    for (int i = 0; i < n; i++)
        pvmi_get_int(m, &t[i]);
    free(pvmi.siblings);
    pvmi.siblings = t;
    pvmi.nsiblings = n;
    pvmi_compat_publish();
    pvmi_tev_siblings(m, n);
}

void pvmi_ctrl(struct pmsg *m)
{
    switch (m->tag) {
    case TC_CONREQ:
        conreq(m);
        break;
    case TC_SIBLINGS:
        siblings(m);
        break;
    case TC_OUTPUT:
        if (pvmi.output_msg)   /* TC_OUTPUT comes only after pvm_catchout */
            pvmi.output_msg(m);
        break;
    default:
        /* TC_CONACK (we never ask), TC_TASKEXIT, TC_NOOP,
         * trace settings: nothing to do for a task that neither opens
         * direct routes nor traces. */
        break;
    }
}
