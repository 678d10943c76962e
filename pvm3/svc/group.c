/*
 * group.c - dynamic groups through the real pvmgs server (the group half
 * of stock libgpvm3, in libpvm3am itself): pvm_joingroup, pvm_lvgroup,
 * pvm_getinst, pvm_gettid, pvm_gsize, pvm_barrier, pvm_bcast,
 * pvm_freezegroup, pvm_gsdump.
 *
 * pvmgs is found through the mailbox (class "pvmgs", index 0: its tid).
 * When it is absent we spawn "pvmgs" as stock does (output and trace
 * sinks off) and, if the pvmd cannot find that name, its installed path;
 * then wait for it to register.  Requests and replies are XDR messages in
 * context SYSCTX_DG with the request code as tag, sent from internal
 * buffers so the caller's buffers and context are never touched.  Frozen
 * groups are answered from the map pvmgs sends with them (group_cache.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "group.h"
#include "trace.h"

int pvmi_mbox_get(const char *name, int index, int flags, struct pmsg **out);

static int gstid = -1;
static int gs_for;     /* our tid when gstid was learnt */

static int lookup(void)
{
    struct pmsg *m;
    int rc = pvmi_mbox_get("pvmgs", 0, PvmMboxDefault, &m);
    if (rc < 0)
        return rc;
    int tid = PvmSysErr;
    pmsg_rewind(m);
    pvmi_get_int(m, &tid);
    pmsg_free(m);
    return tid;
}

static int spawn_gs(void)
{
    /* the bare name (pvmd's exec path) first, as stock; then where the
     * Debian package installs it */
    char p1[512], p2[512];
    const char *root = getenv("PVM_ROOT"), *arch = getenv("PVM_ARCH");
    root = root && *root ? root : "/usr/lib/pvm3";
    snprintf(p1, sizeof p1, "%s/bin/%s/pvmgs", root, arch && *arch ? arch : "LINUX64");
    snprintf(p2, sizeof p2, "%s/lib/pvmgs", root);
    const char *const where[] = { "pvmgs", p1, p2, "/usr/bin/pvmgs" };
    int otid = pvmi.c_outtid, ttid = pvmi.c_trctid, ae = pvmi_autoerr;
    pvmi.c_outtid = pvmi.c_trctid = 0;
    pvmi_autoerr = 0;
    int tid = PvmNoFile;
    for (unsigned i = 0; i < sizeof where / sizeof where[0]; i++) {
        if (pvm_spawn((char *)where[i], NULL, PvmMppFront, NULL, 1, &tid) == 1)
            break;
        if (tid != PvmNoFile)
            break;
    }
    pvmi.c_outtid = otid;
    pvmi.c_trctid = ttid;
    pvmi_autoerr = ae;
    return tid;
}

/* Tid of pvmgs, starting it if needed. */
static int gs_tid(void)
{
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    if (gstid > 0 && gs_for == pvmi.tid)
        return gstid;
    int tid = lookup();
    if (tid == PvmNotFound) {
        int sp = spawn_gs();
        if (sp < 0)
            return sp;
        /* it registers itself shortly; a rival server may win instead */
        time_t end = time(NULL) + 30;
        while ((tid = lookup()) == PvmNotFound && time(NULL) < end)
            if (pvmi_progress(20) < 0)
                return PvmSysErr;
    }
    if (tid < 0)
        return tid == PvmNotFound ? PvmSysErr : tid;
    gstid = tid;
    gs_for = pvmi.tid;
    return gstid;
}

int pvmi_grp_send(int dst, int tag, int ctx, struct pmsg *m)
{
    m->tag = tag;
    m->ctx = ctx;
    m->wid = 0;
    m->src = pvmi.tid;
    m->dst = dst;
    return pvmi_send_msg(dst, m);
}

int pvmi_grp_recv(int src, int tag, int ctx, struct pmsg **out)
{
    for (;;) {
        struct pmsg *m = pvmi_rxq_match(src, tag, ctx);
        if (m) {
            pvmi_rxq_remove(m);
            pmsg_rewind(m);
            *out = m;
            return 0;
        }
        int rc = pvmi_progress(-1);
        if (rc < 0)
            return rc;
    }
}

int pvmi_gs_call(const char *group, int req, const int *args, int nargs, struct pmsg **rep)
{
    *rep = NULL;
    if (!group || !*group)
        return PvmNullGroup;
    int gs = gs_tid();
    if (gs < 0)
        return PvmSysErr;
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return PvmNoMem;
    pvmi_put_str(m, group);
    pvmi_put_ints(m, args, nargs);
    int rc = pvmi_grp_send(gs, req, SYSCTX_DG, m);
    pmsg_free(m);
    if (rc >= 0)
        rc = pvmi_grp_recv(gs, req, SYSCTX_DG, rep);
    return rc;
}

/* A frozen group's map answers these without asking pvmgs (stock too). */
static int cached_int(const char *group, int req, const int *args)
{
    switch (req) {
    case GS_GETTID: return pvmi_gcache_gettid(group, args[0]);
    case GS_GETINST: return pvmi_gcache_getinst(group, args[0]);
    case GS_GSIZE: return pvmi_gcache_gsize(group);
    default: return PvmNoGroup;
    }
}

int pvmi_gs_int(const char *group, int req, const int *args, int nargs)
{
    struct pmsg *rep;
    int v = cached_int(group, req, args);
    if (v >= 0)
        return v;
    int rc = pvmi_gs_call(group, req, args, nargs, &rep);
    if (rc < 0)
        return rc;
    if (pvmi_get_int(rep, &v) < 0)
        v = PvmSysErr;
    /* these replies carry the group state word (and the map if frozen) */
    if (v >= 0 && (req == GS_GETTID || req == GS_GETINST || req == GS_GSIZE
                || req == GS_STATICGROUP))
        pvmi_gcache_take(rep);
    pmsg_free(rep);
    return v;
}

int pvmi_gs_tids(const char *group, int req, int **tids, int *ntids)
{
    struct pmsg *rep;
    *tids = NULL;
    if (pvmi_gcache_tids(group, req == GS_TIDLIST, tids, ntids) == 0)
        return 0;
    int rc = pvmi_gs_call(group, req, NULL, 0, &rep);
    if (rc < 0)
        return rc;
    int n = PvmSysErr;
    pvmi_get_int(rep, &n);
    if (n <= 0 || (size_t)n * 4 > pmsg_unread(rep)) {
        pmsg_free(rep);
        return n < 0 ? n : n == 0 ? PvmNoInst : PvmSysErr;
    }
    int *t = malloc(sizeof *t * (size_t)n);
    if (!t) {
        pmsg_free(rep);
        return PvmNoMem;
    }
    for (int i = 0; i < n; i++)
        pvmi_get_int(rep, &t[i]);
    pvmi_gcache_take(rep);
    pmsg_free(rep);
    *tids = t;
    *ntids = n;
    return 0;
}

/* Stock group calls report through pvm_errno without printing. */
static int quiet(int rc)
{
    if (rc < 0)
        pvm_errno = rc;
    return rc;
}

int pvm_joingroup(char *group)
{
    PVMI_TEV(pvmi_tev_group(TEV_JOINGROUP, group, 0));
    return quiet(pvmi_gs_int(group, GS_JOIN, NULL, 0));
}

/* Leaving forgets our frozen map of the group, as stock does. */
int pvm_lvgroup(char *group)
{
    PVMI_TEV(pvmi_tev_group(TEV_LVGROUP, group, 0));
    pvmi_gcache_drop(group);
    return quiet(pvmi_gs_int(group, GS_LEAVE, NULL, 0));
}

int pvm_getinst(char *group, int tid)
{
    PVMI_TEV(pvmi_tev_group(TEV_GETINST, group, tid));
    return quiet(pvmi_gs_int(group, GS_GETINST, &tid, 1));
}

int pvm_gettid(char *group, int inst)
{
    PVMI_TEV(pvmi_tev_group(TEV_GETTID, group, inst));
    return quiet(pvmi_gs_int(group, GS_GETTID, &inst, 1));
}

int pvm_gsize(char *group)
{
    PVMI_TEV(pvmi_tev_group(TEV_GSIZE, group, 0));
    return quiet(pvmi_gs_int(group, GS_GSIZE, NULL, 0));
}

/* pvmgs answers a barrier by multicasting the count to all waiters. */
int pvm_barrier(char *group, int count)
{
    PVMI_TEV(pvmi_tev_group(TEV_BARRIER, group, count));
    int rc = pvmi_gs_int(group, GS_BARRIER, &count, 1);
    return quiet(rc > 0 ? 0 : rc);
}

/* The reply to STATICGROUP is multicast once all members have called. */
int pvm_freezegroup(char *group, int size)
{
    return quiet(pvmi_gs_int(group, GS_STATICGROUP, &size, 1));
}

/* The user's send buffer to every member but us, in the user's context.
 * The tids it went to stay in *sent (the caller frees them) when asked:
 * the traced call reports them (trace_group.c). */
int pvmi_bcast(char *group, int tag, int **sent, int *nsent)
{
    int *tids, n;
    int rc = pvmi_gs_tids(group, GS_BCAST, &tids, &n);
    if (rc < 0)
        return quiet(rc);
    int k = 0;
    for (int i = 0; i < n; i++)
        if (tids[i] != pvmi.tid)
            tids[k++] = tids[i];
    if (k == 0)
        rc = PvmNoInst;
    else if ((rc = pvm_mcast(tids, k, tag)) > 0)
        rc = 0;
    if (sent) {
        *sent = tids;
        *nsent = k;
    } else {
        free(tids);
    }
    return quiet(rc);
}

int pvm_bcast(char *group, int tag)
{
    PVMI_TEV(pvmi_tev_bcast(group, tag));
    return pvmi_bcast(group, tag, NULL, NULL);
}

/* Ask pvmgs to print its state (on its own output); no reply. */
void pvm_gsdump(void)
{
    int gs = gs_tid();
    struct pmsg *m = gs > 0 ? pvmi_xbuf() : NULL;
    if (!m)
        return;
    pvmi_grp_send(gs, GS_DUMP, SYSCTX_DG, m);
    pmsg_free(m);
}
