/*
 * route.c - registered routes (see route.h) and the built-in daemon route.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "route_int.h"

#define MAX_ROUTES 4

static struct {
    const struct pvm_route_ops *ops;
    void *ctx;
} routes[MAX_ROUTES];
static int nroutes;

static int route_register(const struct pvm_route_ops *ops, void *ctx)
{
    if (!ops || !ops->reaches || !ops->send)
        return PvmBadParam;
    if (nroutes == MAX_ROUTES)
        return PvmOutOfRes;
    routes[nroutes].ops = ops;
    routes[nroutes].ctx = ctx;
    nroutes++;
    if (pvmi.tid > 0 && ops->on_connect)
        ops->on_connect(ctx);
    return 0;
}

void pvmi_routes_load(void)
{
    static int loaded;
    if (loaded)
        return;
    loaded = 1;
    for (int i = 0; pvmi_route_table[i]; i++)
        route_register(pvmi_route_table[i], NULL);
}

int pvmi_mytid(void) { return pvmi.tid; }


/* Returns a bit per route that wants its poll once the message is out
 * (pvmi_routes_poll_wanted): polling before would let a route change its
 * mind about tids whose messages are already bound for the daemon. */
unsigned pvmi_routes_sent_daemon(int tid, const struct pmsg *m)
{
    unsigned want = 0;
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->sent_daemon && routes[i].ops->sent_daemon(routes[i].ctx, tid, m))
            want |= 1u << i;
    return want;
}

void pvmi_routes_poll_wanted(unsigned want)
{
    for (int i = 0; want && i < nroutes; i++)
        if ((want & (1u << i)) && routes[i].ops->poll)
            routes[i].ops->poll(routes[i].ctx);
}

int pvmi_routes_settle(int tid, size_t len)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->settle && routes[i].ops->settle(routes[i].ctx, tid, len))
            return 1;
    return 0;
}

void pvmi_routes_batch(int on)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->batch)
            routes[i].ops->batch(routes[i].ctx, on);
}

int pvmi_routes_send(int tid, struct pmsg *m, int *sent)
{
    *sent = 0;
    for (int i = 0; i < nroutes; i++) {
        if (routes[i].ops->reaches(routes[i].ctx, tid)) {
            *sent = 1;
            return routes[i].ops->send(routes[i].ctx, tid, m);
        }
    }
    return 0;
}

/* pvm_psend's shortcut.  *sent: 1 sent; 0 the route that reaches tid
 * wants a message buffer (use pvmi_send_msg); -1 no route reaches tid
 * (use the daemon route). */
int pvmi_routes_send_bytes(int tid, int tag, int msgctx, const void *buf, size_t len, int *sent)
{
    for (int i = 0; i < nroutes; i++) {
        if (routes[i].ops->send_bytes) {
            int rc = routes[i].ops->send_bytes(routes[i].ctx, tid, tag, msgctx, buf, len);
            if (rc != PVM_ROUTE_NOT_HERE) {
                *sent = 1;
                return rc;
            }
        } else if (routes[i].ops->reaches(routes[i].ctx, tid)) {
            *sent = 0;
            return 0;
        }
    }
    *sent = -1;
    return 0;
}

int pvmi_routes_poll(void)
{
    int n = 0;
    for (int i = 0; i < nroutes; i++) {
        if (!routes[i].ops->poll)
            continue;
        int rc = routes[i].ops->poll(routes[i].ctx);
        if (rc > 0)
            n += rc;
    }
    return n;
}

/* pvm_precv's quick look (recv.c): the first route that polls tid alone
 * receives its next message straight into rb's buffer if it can (route.h
 * recv_bytes): 1 received, 0 nothing from tid there, -1 use poll_from. */
int pvmi_routes_recv_bytes(int tid, struct pvm_recv_bytes *rb)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->poll_from)
            return routes[i].ops->recv_bytes ? routes[i].ops->recv_bytes(routes[i].ctx, tid, rb)
                                             : -1;
    return -1;
}

/* The route that polls tid alone (route.h poll_from): > 0 progress, 0
 * none, -1 none can (use pvmi_routes_poll). */
int pvmi_routes_poll_from(int tid)
{
    for (int i = 0; i < nroutes; i++) {
        if (!routes[i].ops->poll_from)
            continue;
        /* a pvm_precv waiting for tid: its message straight in (sink.c) */
        int rc = routes[i].ops->recv_bytes ? pvmi_sink_pull(routes[i].ops, routes[i].ctx, tid)
                                           : -1;
        if (rc >= 0)
            return rc;
        rc = routes[i].ops->poll_from(routes[i].ctx, tid);
        if (rc >= 0)
            return rc;
    }
    return -1;
}

int pvmi_routes_fds(struct pollfd *fds, int max, int *timeout_ms)
{
    int n = 0;
    for (int i = 0; i < nroutes && n < max; i++)
        if (routes[i].ops->wait_fds)
            n += routes[i].ops->wait_fds(routes[i].ctx, fds + n, max - n, timeout_ms);
    return n;
}

int pvmi_routes_filter(struct pmsg *m)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->filter && routes[i].ops->filter(routes[i].ctx, m))
            return 1;
    return 0;
}

void pvmi_routes_connected(void)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->on_connect)
            routes[i].ops->on_connect(routes[i].ctx);
}

int pvmi_routes_own_name(const char *name)
{
    for (int i = 0; i < nroutes; i++) {
        const char *p = routes[i].ops->mbox_prefix;
        if (p && *p && !strncmp(name, p, strlen(p)))
            return 1;
    }
    return 0;
}

void pvmi_routes_flush(void)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->flush)
            routes[i].ops->flush(routes[i].ctx);
}

void pvmi_routes_exit(void)
{
    for (int i = 0; i < nroutes; i++)
        if (routes[i].ops->on_exit)
            routes[i].ops->on_exit(routes[i].ctx);
}

/* ---- the daemon route ------------------------------------------------ */

size_t pvmi_frag_body(void)
{
    /* A user-chosen PvmFragSize is honoured (minus the header room stock
     * reserves, docs/protocol.md).  By default a message of up to 16 MiB is
     * one fragment, as stock sends a pvm_psend: the pvmd forwards one
     * fragment at a fixed cost, stock receivers take any size, and several
     * big fragments in flight were measured to stall a fresh pvmd (about
     * 0.5 GB/s with 256 KiB fragments against 2-4 GB/s with one). */
    if (pvmi.fragsize > 0)
        return pvmi.fragsize > 52 ? (size_t)pvmi.fragsize - 48 : 4;
    const char *e = getenv("PVMI_FRAGBODY");
    return e ? (size_t)atol(e) : PVMI_DEFAULT_FRAGBODY;
}

/* What pvm_getopt(PvmFragSize) reports: the fragment size in use, its
 * body plus the header room (the inverse of the above). */
int pvmi_frag_size(void)
{
    if (pvmi.fragsize > 0)
        return pvmi.fragsize;
    size_t n = pvmi_frag_body() + 48;
    return n > INT_MAX ? INT_MAX : (int)n;
}

int pvmi_send_daemon(int dst, struct pmsg *m)
{
    if (pvmi.dead || pvmi.pvmd.fd < 0)
        return PvmSysErr;
    int rc = pvmi_conn_send(&pvmi.pvmd, dst, m, pvmi_frag_body());
    if (rc < 0)
        pvmi.dead = 1;
    return rc;
}

int pvmi_send_via_daemon(int dst, struct pmsg *m)
{
    unsigned want = pvmi_routes_sent_daemon(dst, m);
    int rc = pvmi_send_daemon(dst, m);
    pvmi_routes_poll_wanted(want);
    return rc;
}

int pvmi_send_msg(int dst, struct pmsg *m)
{
    int sent;
    int rc = pvmi_routes_send(dst, m, &sent);
    if (!sent && pvmi_routes_settle(dst, (size_t)m->len))
        rc = pvmi_routes_send(dst, m, &sent);
    return sent ? rc : pvmi_send_via_daemon(dst, m);
}
