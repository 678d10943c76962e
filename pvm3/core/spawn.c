/*
 * spawn.c - pvm_spawn (TM_SPAWN, docs/protocol.md) and pvm_siblings.
 * Like stock, the parent multicasts TC_SIBLINGS to the new tasks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "trace.h"

extern char **environ;

/* The environment stock passes to children: trace settings, context and
 * the variables named in PVM_EXPORT. */
static int put_env(struct pmsg *req)
{
    char buf[4][64];
    const char *tmask = pvmi.tmask[0] ? pvmi.tmask : "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@";
    snprintf(buf[0], sizeof buf[0], "PVMTMASK=%s", tmask);
    snprintf(buf[1], sizeof buf[1], "PVMTRCBUF=%d", pvmi.c_trcbuf);
    snprintf(buf[2], sizeof buf[2], "PVMTRCOPT=%d", pvmi.c_trcopt);
    snprintf(buf[3], sizeof buf[3], "PVMCTX=0x%x", pvmi.ctx);
    const char *exp = getenv("PVM_EXPORT");
    char *names = exp ? strdup(exp) : NULL;
    const char *vals[64];
    int nv = 0;
    if (names) {
        for (char *tok = strtok(names, ":"); tok && nv < 63; tok = strtok(NULL, ":")) {
            size_t l = strlen(tok);
            for (char **e = environ; e && *e; e++)
                if (!strncmp(*e, tok, l) && (*e)[l] == '=' && strncmp(tok, "PVM_EXPORT", 11)) {
                    vals[nv++] = *e;
                    break;
                }
        }
    }
    char expbuf[1024];
    int has_exp = exp != NULL;
    if (has_exp)
        snprintf(expbuf, sizeof expbuf, "PVM_EXPORT=%s", exp);
    pvmi_put_int(req, 4 + has_exp + nv);
    for (int i = 0; i < 4; i++)
        pvmi_put_str(req, buf[i]);
    if (has_exp)
        pvmi_put_str(req, expbuf);
    for (int i = 0; i < nv; i++)
        pvmi_put_str(req, vals[i]);
    free(names);
    return 0;
}

static void send_siblings(const int *tids, int n)
{
    int *ok = malloc(sizeof *ok * (size_t)n);
    int k = 0;
    if (!ok)
        return;
    for (int i = 0; i < n; i++)
        if (tids[i] > 0)
            ok[k++] = tids[i];
    struct pmsg *m = k ? pvmi_xbuf() : NULL;
    if (m) {
        pvmi_put_int(m, k);
        pvmi_put_ints(m, ok, k);
        m->tag = TC_SIBLINGS;
        m->ctx = SYSCTX_TC;
        pvmi_mcast(ok, k, m);
        pmsg_free(m);
    }
    free(ok);
}

int pvm_spawn(char *file, char **argv, int flags, char *where, int count, int *tids)
{
    PVMI_TEV(pvmi_tev_spawn(file, argv, flags, where, count, tids));
    int rc = pvmi_enter("pvm_spawn");
    if (rc < 0)
        return rc;
    const char *ft = getenv("PVMTASK");
    if (ft)
        flags |= (int)strtol(ft, NULL, 0);
    if (!file || !*file || count < 1 ||
        ((flags & (PvmTaskHost | PvmTaskArch)) && (!where || !*where)))
        return pvmi_err("pvm_spawn", PvmBadParam);
    int nargs = 0;
    while (argv && argv[nargs])
        nargs++;
    struct pmsg *req = pvmi_xbuf(), *rep = NULL;
    if (!req)
        return pvmi_err("pvm_spawn", PvmNoMem);
    pvmi_put_str(req, file);
    pvmi_put_int(req, flags);
    pvmi_put_str(req, where ? where : "");
    pvmi_put_int(req, count);
    pvmi_put_int(req, nargs);
    for (int i = 0; i < nargs; i++)
        pvmi_put_str(req, argv[i]);
    int sinks[6] = { pvmi.c_outtid, pvmi.c_outctx, pvmi.c_outtag,
                     pvmi.c_trctid, pvmi.c_trcctx, pvmi.c_trctag };
    pvmi_put_ints(req, sinks, 6);
    put_env(req);
    rc = pvmi_tm_call(TM_SPAWN, req, &rep);
    pmsg_free(req);
    if (rc < 0)
        return pvmi_err("pvm_spawn", rc);
    int n, started = 0;
    int *got = NULL;
    if (pvmi_get_int(rep, &n) < 0 || n < 0 || n > count ||
        !(got = malloc(sizeof *got * (size_t)(n ? n : 1)))) {
        pmsg_free(rep);
        return pvmi_err("pvm_spawn", n < 0 ? n : PvmSysErr);
    }
    for (int i = 0; i < n; i++) {
        got[i] = PvmSysErr;
        pvmi_get_int(rep, &got[i]);
        if (got[i] > 0)
            started++;
        if (tids)
            tids[i] = got[i];
    }
    pmsg_free(rep);
    if (started)
        send_siblings(got, n);
    free(got);
    /* like stock: the count started (maybe 0); the reasons are in tids[] */
    return started;
}

int pvm_siblings(int **tids)
{
    PVMI_TEV(pvmi_tev_siblings_call(tids));
    int rc = pvmi_enter("pvm_siblings");
    if (rc < 0)
        return rc;
    /* a task the pvmd did not start for a parent gets no TC_SIBLINGS */
    if (pvmi.nsiblings < 0 && (pvmi.ptid == 0 || pvmi.ptid == PvmParentNotSet)) {
        static int self;
        self = pvmi.tid;
        if (tids)
            *tids = &self;
        return 1;
    }
    while (pvmi.nsiblings < 0) {
        rc = pvmi_progress(-1);
        if (rc < 0)
            return pvmi_err("pvm_siblings", rc);
    }
    if (tids)
        *tids = pvmi.siblings;
    return pvmi.nsiblings;
}
