/*
 * opts.c - pvm_setopt / pvm_getopt.  Most options are library-local; the
 * "self" output and trace sinks are the pvmd's business (TM_SETOPT).
 */
#include <stdio.h>
#include "lpvm.h"
#include "compat.h"
#include "trace.h"

static int tm_setopt(int what, int val)
{
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    char hex[16];
    snprintf(hex, sizeof hex, "%x", (unsigned)val);
    struct pmsg *req = pvmi_xbuf(), *rep = NULL;
    pvmi_put_int(req, what);
    pvmi_put_str(req, hex);
    rc = pvmi_tm_call(TM_SETOPT, req, &rep);
    pmsg_free(req);
    pmsg_free(rep);
    return rc;
}

/* Address of the int behind a plain stored option, NULL if none. */
static int *slot(int what)
{
    switch (what) {
    case PvmDebugMask: return &pvmi.debugmask;
    case PvmOutputTid: return &pvmi.c_outtid;
    case PvmOutputCode: return &pvmi.c_outtag;
    case PvmOutputContext: return &pvmi.c_outctx;
    case PvmTraceTid: return &pvmi.c_trctid;
    case PvmTraceCode: return &pvmi.c_trctag;
    case PvmTraceContext: return &pvmi.c_trcctx;
    case PvmTraceBuffer: return &pvmi.c_trcbuf;
    case PvmTraceOptions: return &pvmi.c_trcopt;
    case PvmSelfTraceBuffer: return &pvmi.s_trcbuf;
    case PvmSelfTraceOptions: return &pvmi.s_trcopt;
    case PvmShowTids: return &pvmi.showtids;
    case PvmPollType: return &pvmi.polltype;
    case PvmPollTime: return &pvmi.polltime;
    case PvmNoReset: return &pvmi.noreset;
    case PvmResvTids: return &pvmi.resvtids;
    default: return NULL;
    }
}

static int setopt(int what, int val)
{
    int old, rc, *p;
    switch (what) {
    case PvmRoute:
        if (val < PvmDontRoute || val > PvmRouteDirect)
            return pvmi_err("pvm_setopt", PvmBadParam);
        old = pvmi.route;
        pvmi.route = val;
        return old;
    case PvmAutoErr:
        old = pvmi_autoerr;
        pvmi_autoerr = pvmi.autoerr = val;
        return old;
    case PvmFragSize:
        if (val < 52 || val > 1048576)
            return pvmi_err("pvm_setopt", PvmBadParam);
        old = pvmi_frag_size();
        pvmi.fragsize = val;
        return old;
    case PvmSelfOutputTid:
    case PvmSelfOutputCode:
    case PvmSelfOutputContext:
    case PvmSelfTraceTid:
    case PvmSelfTraceCode:
    case PvmSelfTraceContext: {
        static const struct { int opt, ts; int *field; } map[] = {
            { PvmSelfOutputTid, TS_OUTTID, &pvmi.outtid },
            { PvmSelfOutputCode, TS_OUTTAG, &pvmi.outtag },
            { PvmSelfOutputContext, TS_OUTCTX, &pvmi.outctx },
            { PvmSelfTraceTid, TS_TRCTID, &pvmi.trctid },
            { PvmSelfTraceCode, TS_TRCTAG, &pvmi.trctag },
            { PvmSelfTraceContext, TS_TRCCTX, &pvmi.trcctx },
        };
        for (unsigned i = 0; i < sizeof map / sizeof map[0]; i++) {
            if (map[i].opt != what)
                continue;
            if ((rc = tm_setopt(map[i].ts, val)) < 0)
                return pvmi_err("pvm_setopt", rc);
            old = *map[i].field;
            *map[i].field = val;
            return old;
        }
        break;
    }
    default:
        if ((p = slot(what))) {
            old = *p;
            *p = val;
            return old;
        }
    }
    return pvmi_err("pvm_setopt", PvmBadParam);
}

/* Stock's option variables (compat.h) follow every change. */
int pvm_setopt(int what, int val)
{
    PVMI_TEV(pvmi_tev_opt(1, what, val));
    int old = setopt(what, val);
    pvmi_compat_publish();
    return old;
}

int pvm_getopt(int what)
{
    PVMI_TEV(pvmi_tev_opt(0, what, 0));
    int *p;
    switch (what) {
    case PvmRoute: return pvmi.route;
    case PvmAutoErr: return pvmi_autoerr;
    case PvmFragSize: return pvmi_frag_size();
    case PvmSelfOutputTid: return pvmi.outtid;
    case PvmSelfOutputCode: return pvmi.outtag;
    case PvmSelfOutputContext: return pvmi.outctx;
    case PvmSelfTraceTid: return pvmi.trctid;
    case PvmSelfTraceCode: return pvmi.trctag;
    case PvmSelfTraceContext: return pvmi.trcctx;
    default:
        if ((p = slot(what)))
            return *p;
    }
    return pvmi_err("pvm_getopt", PvmBadParam);
}
