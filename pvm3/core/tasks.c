/*
 * tasks.c - task and machine queries and control through the pvmd:
 * pvm_kill, pvm_sendsig, pvm_pstat, pvm_mstat, pvm_config, pvm_tasks,
 * pvm_tidtohost, pvm_halt, pvm_tickle, pvm_archcode, contexts.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "compat.h"
#include "trace.h"

/* One request with an int-only body and an int status reply. */
static int call_ints(const char *fn, int tag, const int *args, int n, int *status)
{
    int rc = pvmi_enter(fn);
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf(), *rep;
    if (req)
        pvmi_put_ints(req, args, n);
    if ((rc = pvmi_tm_ask(fn, tag, req, &rep)) < 0)
        return rc;
    if (status && pvmi_get_int(rep, status) < 0)
        rc = pvmi_err(fn, PvmSysErr);
    pmsg_free(rep);
    return rc;
}

int pvm_sendsig(int tid, int signum)
{
    PVMI_TEV(pvmi_tev_sendsig(tid, signum));
    /* the pvmd drops requests for non-task tids without a reply */
    if (!PVMI_IS_TASK(tid))
        return pvmi_err("pvm_sendsig", PvmBadParam);
    int a[2] = { tid, signum };
    return call_ints("pvm_sendsig", TM_SENDSIG, a, 2, NULL);
}

int pvm_kill(int tid)
{
    PVMI_TEV(pvmi_tev_tid1(TEV_KILL, tid));
    if (!PVMI_IS_TASK(tid))
        return pvmi_err("pvm_kill", PvmBadParam);
    int a[2] = { tid, SIGTERM };
    return call_ints("pvm_kill", TM_SENDSIG, a, 2, NULL);
}

int pvm_pstat(int tid)
{
    PVMI_TEV(pvmi_tev_tid1(TEV_PSTAT, tid));
    if (!PVMI_IS_TASK(tid))
        return pvmi_err("pvm_pstat", PvmBadParam);
    int st;
    int rc = call_ints("pvm_pstat", TM_PSTAT, &tid, 1, &st);
    /* PvmNoTask is an answer, not a failure worth printing */
    return rc < 0 ? rc : st;
}

int pvm_mstat(char *host)
{
    PVMI_TEV(pvmi_tev_mstat(host));
    int rc = pvmi_enter("pvm_mstat");
    if (rc < 0)
        return rc;
    if (!host || !*host)
        return pvmi_err("pvm_mstat", PvmBadParam);
    struct pmsg *req = pvmi_xbuf(), *rep;
    if (req)
        pvmi_put_str(req, host);
    if ((rc = pvmi_tm_ask("pvm_mstat", TM_MSTAT, req, &rep)) < 0)
        return rc;
    int st = PvmSysErr;
    pvmi_get_int(rep, &st);
    pmsg_free(rep);
    return st;
}

static struct pvmhostinfo *hosts;
static int nhosts;

static void free_hosts(void)
{
    for (int i = 0; i < nhosts; i++) {
        free(hosts[i].hi_name);
        free(hosts[i].hi_arch);
    }
    free(hosts);
    hosts = NULL;
    nhosts = 0;
}

int pvm_config(int *nhostp, int *narchp, struct pvmhostinfo **hostp)
{
    PVMI_TEV(pvmi_tev_config(nhostp, narchp, hostp));
    struct pmsg *rep;
    int rc = pvmi_enter("pvm_config");
    if (rc < 0 || (rc = pvmi_tm_ask("pvm_config", TM_CONFIG, pvmi_xbuf(), &rep)) < 0)
        return rc;
    int nh, na;
    free_hosts();
    rc = PvmSysErr;
    if (pvmi_get_int(rep, &nh) < 0 || pvmi_get_int(rep, &na) < 0 || nh < 0 || nh > 4096)
        goto out;
    hosts = calloc((size_t)(nh ? nh : 1), sizeof *hosts);
    if (!hosts)
        goto out;
    for (int i = 0; i < nh; i++) {
        struct pvmhostinfo *h = &hosts[i];
        nhosts = i + 1;
        if (pvmi_get_int(rep, &h->hi_tid) < 0 || !(h->hi_name = pvmi_get_strdup(rep)) ||
            !(h->hi_arch = pvmi_get_strdup(rep)) || pvmi_get_int(rep, &h->hi_speed) < 0 ||
            pvmi_get_int(rep, &h->hi_dsig) < 0)
            goto out;
    }
    if (nhostp) *nhostp = nh;
    if (narchp) *narchp = na;
    if (hostp) *hostp = hosts;
    rc = 0;
out:
    pmsg_free(rep);
    return pvmi_err("pvm_config", rc);
}

/* The pvmd's task flag for "connected": a task it has spawned carries
 * only its forked flag (0x2) until the task's first request, then this
 * bit too (seen with the Debian pvmd 3.4.6: 0x2, then 0x6; a task started
 * from a shell has 0x4). */
#define TASK_CONNECTED 0x4

int pvmi_task_connected(int tid)
{
    struct pmsg *req = pvmi_xbuf(), *rep;
    if (!req)
        return PvmNoMem;
    pvmi_put_int(req, tid);
    int rc = pvmi_tm_call(TM_TASK, req, &rep);
    pmsg_free(req);
    if (rc < 0)
        return rc;
    int st, f[4];
    if (pvmi_get_int(rep, &st) < 0)
        st = PvmSysErr;
    else if (st >= 0 && pvmi_get_ints(rep, f, 4) < 0)
        st = PvmNoTask;   /* no record: the task is gone */
    else if (st >= 0)
        st = f[0] == tid ? !!(f[3] & TASK_CONNECTED) : PvmNoTask;
    pmsg_free(rep);
    return st;
}

static struct pvmtaskinfo *tinfo;
static int ntinfo;

int pvm_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
    PVMI_TEV(pvmi_tev_tasks(where, ntaskp, taskp));
    int rc = pvmi_enter("pvm_tasks");
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf(), *rep;
    if (req)
        pvmi_put_int(req, where);
    if ((rc = pvmi_tm_ask("pvm_tasks", TM_TASK, req, &rep)) < 0)
        return rc;
    for (int i = 0; i < ntinfo; i++)
        free(tinfo[i].ti_a_out);
    free(tinfo);
    tinfo = NULL;
    ntinfo = 0;
    int st;
    if (pvmi_get_int(rep, &st) < 0)
        st = PvmSysErr;
    int cap = 0;
    while (st >= 0 && pmsg_unread(rep) >= 24) {
        if (ntinfo == cap) {
            cap = cap ? cap * 2 : 16;
            struct pvmtaskinfo *t = realloc(tinfo, sizeof *t * (size_t)cap);
            if (!t) {
                st = PvmNoMem;
                break;
            }
            tinfo = t;
        }
        struct pvmtaskinfo *t = &tinfo[ntinfo];
        memset(t, 0, sizeof *t);
        if (pvmi_get_int(rep, &t->ti_tid) < 0 || pvmi_get_int(rep, &t->ti_ptid) < 0 ||
            pvmi_get_int(rep, &t->ti_host) < 0 || pvmi_get_int(rep, &t->ti_flag) < 0 ||
            !(t->ti_a_out = pvmi_get_strdup(rep)) || pvmi_get_int(rep, &t->ti_pid) < 0) {
            free(t->ti_a_out);
            st = PvmSysErr;
            break;
        }
        ntinfo++;
    }
    pmsg_free(rep);
    if (st < 0)
        return pvmi_err("pvm_tasks", st);
    if (ntaskp) *ntaskp = ntinfo;
    if (taskp) *taskp = tinfo;
    return 0;
}

int pvm_tidtohost(int tid)
{
    return tid & PVMI_TIDHOST;
}

/* As stock: the request is a call whose answer never comes.  The pvmd
 * ends every task, this one included (SIGTERM), and exits; we keep
 * reading its socket until then, so output or messages it still writes
 * to us never meet a closed connection (which would drop the halt with
 * it).  Only a caller that survives SIGTERM sees the call return: 0 once
 * the pvmd has gone, as stock. */
int pvm_halt(void)
{
    PVMI_TEV(pvmi_tev_halt());
    int rc = pvmi_enter("pvm_halt");
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf(), *rep = NULL;
    if (!req)
        return pvmi_err("pvm_halt", PvmNoMem);
    rc = pvmi_tm_call(TM_HALT, req, &rep);
    pmsg_free(req);
    pmsg_free(rep);
    pvmi.dead = 1;
    if (rc == 0)   /* a pvmd that answered did not halt */
        return pvmi_err("pvm_halt", PvmSysErr);
    return 0;
}

int pvm_tickle(int narg, int *argp, int *nresp, int *resp)
{
    PVMI_TEV(pvmi_tev_tickle(narg, argp, nresp, resp));
    if (narg < 1 || narg > 10 || !argp)
        return pvmi_err("pvm_tickle", PvmBadParam);
    int rc = pvmi_enter("pvm_tickle");
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf(), *rep;
    if (req) {
        pvmi_put_int(req, narg);
        pvmi_put_ints(req, argp, narg);
    }
    if ((rc = pvmi_tm_ask("pvm_tickle", TM_TICKLE, req, &rep)) < 0)
        return rc;
    int n = 0;
    pvmi_get_int(rep, &n);
    for (int i = 0; i < n && i < 10; i++)
        if (resp)
            pvmi_get_int(rep, &resp[i]);
    if (nresp)
        *nresp = n;
    pmsg_free(rep);
    return 0;
}

/* Same data representation = same code: the dsig of a host of that arch.
 * From a host list of its own: the one pvm_config handed the caller stays
 * valid across this call, as with stock. */
int pvm_archcode(char *arch)
{
    PVMI_TEV(pvmi_tev_archcode(arch));
    if (!arch)
        return pvmi_err("pvm_archcode", PvmBadParam);
    struct pmsg *rep;
    int rc = pvmi_enter("pvm_archcode");
    if (rc < 0 || (rc = pvmi_tm_ask("pvm_archcode", TM_CONFIG, pvmi_xbuf(), &rep)) < 0)
        return rc;
    int nh, na, h[3];
    rc = PvmNotFound;
    if (pvmi_get_int(rep, &nh) < 0 || pvmi_get_int(rep, &na) < 0)
        nh = 0;
    for (int i = 0; i < nh && rc == PvmNotFound; i++) {
        char *name = NULL, *a = NULL;
        if (pvmi_get_int(rep, &h[0]) < 0 || !(name = pvmi_get_strdup(rep)) ||
            !(a = pvmi_get_strdup(rep)) || pvmi_get_ints(rep, &h[1], 2) < 0)
            rc = PvmSysErr;
        else if (!strcmp(a, arch))
            rc = h[2];
        free(name);
        free(a);
    }
    pmsg_free(rep);
    return pvmi_err("pvm_archcode", rc);
}

int pvm_getcontext(void)
{
    PVMI_TEV(pvmi_tev_buf0(TEV_GETCONTEXT));
    int rc = pvmi_enter("pvm_getcontext");
    return rc < 0 ? rc : pvmi.ctx;
}

int pvm_setcontext(int ctx)
{
    PVMI_TEV(pvmi_tev_buf1(TEV_SETCONTEXT, ctx));
    int rc = pvmi_enter("pvm_setcontext");
    if (rc < 0)
        return rc;
    int old = pvmi.ctx;
    pvmi.ctx = ctx;
    pvmmyctx = ctx;   /* stock's variable (compat.h) */
    return old;
}

int pvm_newcontext(void)
{
    PVMI_TEV(pvmi_tev_newcontext());
    int zero = 0, cid;
    int rc = call_ints("pvm_newcontext", TM_CONTEXT, &zero, 1, &cid);
    if (rc < 0)
        return rc;
    return cid < 0 ? pvmi_err("pvm_newcontext", cid) : cid;
}

int pvm_freecontext(int ctx)
{
    PVMI_TEV(pvmi_tev_freecontext(ctx));
    if (ctx == 0)
        return pvmi_err("pvm_freecontext", PvmBadParam);
    int st;
    int rc = call_ints("pvm_freecontext", TM_CONTEXT, &ctx, 1, &st);
    if (rc < 0)
        return rc;
    return st < 0 ? pvmi_err("pvm_freecontext", st) : 0;
}
