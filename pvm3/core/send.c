/*
 * send.c - pvm_send, pvm_psend and pvm_mcast.  Each message leaves through
 * the first route that reaches its destination (route.c); multicast sends
 * per peer on other routes and lets the pvmd replicate the rest.
 */
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "route_int.h"
#include "trace.h"

static int check_dst(int tid)
{
    if (PVMI_IS_TASK(tid))
        return 0;
    /* pvmds and multicast addresses only with reserved tids allowed */
    return pvmi.resvtids ? 0 : PvmBadParam;
}

int pvm_send(int tid, int tag)
{
    PVMI_TEV(pvmi_tev_send(tid, tag));
    int rc = pvmi_enter("pvm_send");
    if (rc < 0)
        return rc;
    struct pmsg *m = pmsg_sbuf();
    if (!m)
        return pvmi_err("pvm_send", PvmNoBuf);
    if ((tag < 0 && !pvmi.resvtids) || check_dst(tid) < 0)
        return pvmi_err("pvm_send", PvmBadParam);
    m->tag = tag;
    m->ctx = pvmi.ctx;
    m->wid = 0;
    m->src = pvmi.tid;
    m->dst = tid;
    return pvmi_err("pvm_send", pvmi_send_msg(tid, m));
}

static const size_t psend_size[] = {
    [PVM_STR] = 1, [PVM_BYTE] = 1, [PVM_SHORT] = sizeof(short),
    [PVM_INT] = sizeof(int), [PVM_FLOAT] = sizeof(float),
    [PVM_CPLX] = 2 * sizeof(float), [PVM_DOUBLE] = sizeof(double),
    [PVM_DCPLX] = 2 * sizeof(double), [PVM_LONG] = sizeof(long),
    [PVM_USHORT] = sizeof(short), [PVM_UINT] = sizeof(int),
    [PVM_ULONG] = sizeof(long),
};

size_t pvmi_psend_size(int type)
{
    if (type < 0 || type > PVM_ULONG)
        return 0;
    return psend_size[type];
}

/* Raw bytes straight from the user's array: no packing, no copy. */
int pvm_psend(int tid, int tag, void *buf, int len, int type)
{
    PVMI_TEV(pvmi_tev_psend(tid, tag, buf, len, type));
    int rc = pvmi_enter("pvm_psend");
    if (rc < 0)
        return rc;
    size_t es = pvmi_psend_size(type);
    if (!es || len < 0 || (len > 0 && !buf) || (tag < 0 && !pvmi.resvtids) ||
        check_dst(tid) < 0)
        return pvmi_err("pvm_psend", PvmBadParam);
    int sent;
    rc = pvmi_routes_send_bytes(tid, tag, pvmi.ctx, buf, es * (size_t)len, &sent);
    if (sent < 0 && pvmi_routes_settle(tid, es * (size_t)len))
        rc = pvmi_routes_send_bytes(tid, tag, pvmi.ctx, buf, es * (size_t)len, &sent);
    if (sent > 0)
        return pvmi_err("pvm_psend", rc);
    struct pmsg *m = pmsg_new(PvmDataRaw);
    if (!m)
        return pvmi_err("pvm_psend", PvmNoMem);
    if (len > 0)
        rc = pmsg_append_seg(m, NULL, buf, es * (size_t)len);
    m->tag = tag;
    m->ctx = pvmi.ctx;
    m->src = pvmi.tid;
    m->dst = tid;
    if (rc >= 0)
        rc = sent < 0 ? pvmi_send_via_daemon(tid, m) : pvmi_send_msg(tid, m);
    pmsg_free(m);
    return pvmi_err("pvm_psend", rc);
}

static int cmp_int(const void *a, const void *b)
{
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int pvmi_mcast_pvmd(const int *tids, int n, struct pmsg *m)
{
    if (n <= 0)
        return 0;
    struct pmsg *req = pvmi_xbuf();
    if (!req)
        return PvmNoMem;
    pvmi_put_int(req, n);
    pvmi_put_ints(req, tids, n);
    int rc = pvmi_tm_send(TM_MCA, req);
    pmsg_free(req);
    if (rc >= 0)
        rc = pvmi_conn_send(&pvmi.pvmd, PVMI_TIDGID | pvmi.tid, m, 1u << 20);
    if (rc < 0)
        pvmi.dead = 1;
    return rc;
}

/* Sorted, unique, without self: the pvmd's multicast rules. */
static int mcast_set(const int *in, int n, int **out)
{
    int *t = malloc(sizeof *t * (size_t)(n ? n : 1));
    if (!t)
        return PvmNoMem;
    memcpy(t, in, sizeof *t * (size_t)n);
    if (n > 32) {
        qsort(t, (size_t)n, sizeof *t, cmp_int);
    } else {   /* a group's few members: no calls through qsort's comparator */
        for (int i = 1; i < n; i++) {
            int v = t[i], j = i;
            for (; j > 0 && t[j - 1] > v; j--)
                t[j] = t[j - 1];
            t[j] = v;
        }
    }
    int k = 0;
    for (int i = 0; i < n; i++)
        if (t[i] != pvmi.tid && (k == 0 || t[k - 1] != t[i]))
            t[k++] = t[i];
    *out = t;
    return k;
}

int pvmi_mcast(const int *tids, int n, struct pmsg *m)
{
    int *set;
    int k = mcast_set(tids, n, &set);
    if (k < 0)
        return k;
    int rc = 0, rest = 0;
    unsigned want = 0;
    /* m stays as it is until the batch ends: the routes' receivers may
     * read it all at once (route.h, batch) */
    pvmi_routes_batch(1);
    for (int i = 0; i < k && rc >= 0; i++) {
        int sent;
        rc = pvmi_routes_send(set[i], m, &sent);
        /* A receiver that is gone is skipped, as stock's pvmd drops the
         * copy for a task that no longer exists and pvm_mcast returns 0:
         * the others, and the daemon route's rest, still get theirs
         * (a gone peer's route says PvmNoTask: pvmam/am_route.c). */
        if (rc == PvmNoTask)
            rc = 0;
        if (!sent) {
            want |= pvmi_routes_sent_daemon(set[i], m);
            set[rest++] = set[i];
        }
    }
    pvmi_routes_batch(0);
    if (rc >= 0)
        rc = pvmi_mcast_pvmd(set, rest, m);
    pvmi_routes_poll_wanted(want);
    free(set);
    return rc;
}

int pvm_mcast(int *tids, int ntask, int tag)
{
    PVMI_TEV(pvmi_tev_mcast(tids, ntask, tag));
    int rc = pvmi_enter("pvm_mcast");
    if (rc < 0)
        return rc;
    struct pmsg *m = pmsg_sbuf();
    if (!m)
        return pvmi_err("pvm_mcast", PvmNoBuf);
    if (ntask < 0 || (ntask > 0 && !tids) || (tag < 0 && !pvmi.resvtids))
        return pvmi_err("pvm_mcast", PvmBadParam);
    for (int i = 0; i < ntask; i++)
        if (check_dst(tids[i]) < 0)
            return pvmi_err("pvm_mcast", PvmBadParam);
    m->tag = tag;
    m->ctx = pvmi.ctx;
    m->wid = 0;
    m->src = pvmi.tid;
    return pvmi_err("pvm_mcast", pvmi_mcast(tids, ntask, m));
}
