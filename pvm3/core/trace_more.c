/*
 * trace_more.c - traced versions (trace.h) of the host, task, option,
 * mailbox, handler, context, registration and misc calls: entry and exit
 * events with the fields, in the order, that stock PVM 3.4.6 sends them.
 * Calls stock never traces (pvm_perror, pvm_catchout, pvm_tidtohost,
 * pvm_gettmask, pvm_settmask, pvm_hostsync, pvm_version) are not here.
 */
#include <stdarg.h>
#include <sys/time.h>
#include "lpvm.h"
#include "trace.h"
#include "compat.h"


#define ENTRY(kind) (t && pvmi_tev_begin((kind), TEV_EVENT_ENTRY))
#define EXIT(kind) (t && pvmi_tev_begin((kind), TEV_EVENT_EXIT))
#define FIN pvmi_tev_fin()
#define I(did, v) pvmi_tev_int(TEV_DID_##did, (v))
#define S(did, s) pvmi_tev_str(TEV_DID_##did, (s))

/* The common exit: one int field, back to the top level. */
static int done1(int t, int kind, int did, int v, int cc)
{
    if (EXIT(kind)) {
        pvmi_tev_int(did, v);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

/* Entry events with one int, or none (did < 0). */
static void entry1(int t, int kind, int did, int v)
{
    if (ENTRY(kind)) {
        if (did >= 0)
            pvmi_tev_int(did, v);
        FIN;
    }
}

int pvmi_tev_hosts(int kind, char **names, int count, int *svp)
{
    int t = pvmi_tev_in();
    if (ENTRY(kind)) {
        pvmi_tev_strs(TEV_DID_HNL, names, names ? count : 0);
        FIN;
    }
    int cc = kind == TEV_ADDHOSTS ? pvm_addhosts(names, count, svp)
                                  : pvm_delhosts(names, count, svp);
    return done1(t, kind, TEV_DID_CC, cc, cc);
}

/* Only an entry: a halted machine answers nothing. */
int pvmi_tev_halt(void)
{
    int t = pvmi_tev_in();
    entry1(t, TEV_HALT, -1, 0);
    if (t)
        pvmi_tev_flush();
    int cc = pvm_halt();
    pvmi_tev_out();
    return cc;
}

/* pvm_kill, pvm_pstat (TT in; CC or TST out) */
int pvmi_tev_tid1(int kind, int tid)
{
    int t = pvmi_tev_in();
    entry1(t, kind, TEV_DID_TT, tid);
    int cc = kind == TEV_KILL ? pvm_kill(tid) : pvm_pstat(tid);
    return done1(t, kind, kind == TEV_KILL ? TEV_DID_CC : TEV_DID_TST, cc, cc);
}

int pvmi_tev_sendsig(int tid, int sig)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_SENDSIG)) {
        I(TT, tid);
        I(SN, sig);
        FIN;
    }
    int cc = pvm_sendsig(tid, sig);
    return done1(t, TEV_SENDSIG, TEV_DID_CC, cc, cc);
}

int pvmi_tev_mstat(char *host)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_MSTAT)) {
        S(HN, host);
        FIN;
    }
    int cc = pvm_mstat(host);
    return done1(t, TEV_MSTAT, TEV_DID_HS, cc, cc);
}

int pvmi_tev_notify(int what, int code, int count, int *vals)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_NOTIFY)) {
        I(NE, what);
        I(NMC, code);
        /* stock lists no tids for PvmHostAdd (compared with the flags) */
        pvmi_tev_ints(TEV_DID_NTL, vals, what != PvmHostAdd && vals && count > 0 ? count : 0);
        FIN;
    }
    int cc = pvm_notify(what, code, count, vals);
    return done1(t, TEV_NOTIFY, TEV_DID_CC, cc, cc);
}

int pvmi_tev_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp)
{
    int t = pvmi_tev_in(), n = 0;
    entry1(t, TEV_TASKS, TEV_DID_TW, where);
    int cc = pvm_tasks(where, &n, taskp);
    if (ntaskp)
        *ntaskp = n;
    if (EXIT(TEV_TASKS)) {
        I(CC, cc);
        I(TNT, n);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_tickle(int narg, int *argp, int *nresp, int *resp)
{
    int t = pvmi_tev_in(), nres = 0;
    if (ENTRY(TEV_TICKLE)) {
        pvmi_tev_ints(TEV_DID_TA, argp, argp && narg > 0 ? narg : 0);
        FIN;
    }
    int cc = pvm_tickle(narg, argp, &nres, resp);
    if (nresp)
        *nresp = nres;
    if (EXIT(TEV_TICKLE)) {
        I(CC, cc);
        pvmi_tev_ints(TEV_DID_TR, resp, resp && cc >= 0 && nres > 0 ? nres : 0);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_archcode(char *arch)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_ARCHCODE)) {
        S(AN, arch);
        FIN;
    }
    int cc = pvm_archcode(arch);
    return done1(t, TEV_ARCHCODE, TEV_DID_AC, cc, cc);
}

int pvmi_tev_newcontext(void)
{
    int t = pvmi_tev_in();
    entry1(t, TEV_NEWCONTEXT, -1, 0);
    int cc = pvm_newcontext();
    return done1(t, TEV_NEWCONTEXT, TEV_DID_CXN, cc, cc);
}

int pvmi_tev_freecontext(int ctx)
{
    int t = pvmi_tev_in();
    entry1(t, TEV_FREECONTEXT, TEV_DID_CXF, ctx);
    int cc = pvm_freecontext(ctx);
    return done1(t, TEV_FREECONTEXT, TEV_DID_CC, cc, cc);
}

/* pvm_getopt and pvm_setopt: OPT [OPV] in, OPV (the result) out. */
int pvmi_tev_opt(int set, int what, int val)
{
    int kind = set ? TEV_SETOPT : TEV_GETOPT;
    int t = pvmi_tev_in();
    if (ENTRY(kind)) {
        I(OPT, what);
        if (set)
            I(OPV, val);
        FIN;
    }
    int cc = set ? pvm_setopt(what, val) : pvm_getopt(what);
    return done1(t, kind, TEV_DID_OPV, cc, cc);
}

int pvmi_tev_addmhf(int src, int tag, int ctx, int (*f)(int))
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_ADDMHF)) {
        I(RST, src);
        I(RMC, tag);
        I(RCX, ctx);
        FIN;
    }
    int cc = pvm_addmhf(src, tag, ctx, f);
    return done1(t, TEV_ADDMHF, TEV_DID_MHI, cc, cc);
}

int pvmi_tev_delmhf(int mhid)
{
    int t = pvmi_tev_in();
    entry1(t, TEV_DELMHF, TEV_DID_MHI, mhid);
    int cc = pvm_delmhf(mhid);
    return done1(t, TEV_DELMHF, TEV_DID_CC, cc, cc);
}

/* Mailbox calls: class name, index, flags [, data] in. */
static void mbox_entry(int t, int kind, const char *name, int index, int flags, int data)
{
    if (ENTRY(kind)) {
        S(CN, name);
        I(CI, index);
        if (kind != TEV_INSERT && kind != TEV_LOOKUP && kind != TEV_DELETE)
            I(CF, flags);
        if (kind == TEV_PUTINFO || kind == TEV_INSERT)
            I(CD, data);
        FIN;
    }
}

/* stock reports -1 as the index of a put (the pvmd picks it) */
int pvmi_tev_putinfo(char *name, int mid, int flags)
{
    int t = pvmi_tev_in();
    mbox_entry(t, TEV_PUTINFO, name, -1, flags, mid);
    int cc = pvm_putinfo(name, mid, flags);
    return done1(t, TEV_PUTINFO, TEV_DID_CC, cc, cc);
}

/* pvm_recvinfo is stock's "getinfo" event: the status (the index found)
 * and the message. */
int pvmi_tev_recvinfo(char *name, int index, int flags)
{
    int t = pvmi_tev_in();
    mbox_entry(t, TEV_GETINFO, name, index, flags, 0);
    int cc = pvm_recvinfo(name, index, flags);
    if (EXIT(TEV_GETINFO)) {
        I(CC, cc < 0 ? cc : pvmi_mbox_index);
        I(CR, cc < 0 ? -1 : cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_delinfo(char *name, int index, int flags)
{
    int t = pvmi_tev_in();
    mbox_entry(t, TEV_DELINFO, name, index, flags, 0);
    int cc = pvm_delinfo(name, index, flags);
    return done1(t, TEV_DELINFO, TEV_DID_CC, cc, cc);
}

int pvmi_tev_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_GETMBOXINFO)) {
        S(CN, pattern);
        FIN;
    }
    int cc = pvm_getmboxinfo(pattern, nclasses, classes);
    return done1(t, TEV_GETMBOXINFO, TEV_DID_CC, cc, cc);
}

/* The 3.3 calls. */
int pvmi_tev_mbox33(int kind, char *name, int req, int data, int *datap)
{
    int t = pvmi_tev_in(), cc;
    mbox_entry(t, kind, name, req, 0, data);
    switch (kind) {
    case TEV_INSERT: cc = pvm_insert(name, req, data); break;
    case TEV_LOOKUP: cc = pvm_lookup(name, req, datap); break;
    default: cc = pvm_delete(name, req); break;
    }
    return done1(t, kind, TEV_DID_CC, cc, cc);
}

int pvmi_tev_siblings_call(int **tidsp)
{
    int t = pvmi_tev_in(), *tids = NULL;
    entry1(t, TEV_SIBLINGS, -1, 0);
    int cc = pvm_siblings(&tids);
    if (tidsp)
        *tidsp = tids;
    if (EXIT(TEV_SIBLINGS)) {
        pvmi_tev_ints(TEV_DID_SIB, tids, tids && cc > 0 ? cc : 0);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_getfds(int **fds)
{
    int t = pvmi_tev_in(), *l = NULL;
    entry1(t, TEV_GETFDS, -1, 0);
    int cc = pvm_getfds(&l);
    if (fds)
        *fds = l;
    if (EXIT(TEV_GETFDS)) {
        I(CC, cc);
        if (cc > 0)
            pvmi_tev_ints(TEV_DID_FDS, l, l ? cc : 0);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_start_pvmd(int argc, char **argv, int block)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_START_PVMD)) {
        I(BF, block);
        pvmi_tev_strs(TEV_DID_AS, argv, argv && argc > 0 ? argc : 0);
        FIN;
    }
    int cc = pvm_start_pvmd(argc, argv, block);
    return done1(t, TEV_START_PVMD, TEV_DID_CC, cc, cc);
}

/* pvm_packf, pvm_unpackf (their va_list forms): the format; the status. */
int pvmi_tev_packf(int kind, const char *fmt, va_list ap)
{
    int t = pvmi_tev_in();
    if (ENTRY(kind)) {
        S(PF, fmt);
        FIN;
    }
    int cc = kind == TEV_PACKF ? pvm_vpackf(fmt, ap) : pvm_vunpackf(fmt, ap);
    return done1(t, kind, TEV_DID_CC, cc, cc);
}

/* pvm_getminfo, pvm_setminfo, pvm_getmwid, pvm_setmwid: the buffer in. */
int pvmi_tev_minfo(int kind, int mid, struct pvmminfo *mi, int wid)
{
    int t = pvmi_tev_in(), cc, did = TEV_DID_CC;
    if (ENTRY(kind)) {
        I(MB, mid);
        if (kind == TEV_SETMWID)
            I(WID, wid);
        FIN;
    }
    switch (kind) {
    case TEV_GETMINFO: cc = pvm_getminfo(mid, mi); break;
    case TEV_SETMINFO: cc = pvm_setminfo(mid, mi); break;
    case TEV_GETMWID: cc = pvm_getmwid(mid); did = TEV_DID_WID; break;
    default: cc = pvm_setmwid(mid, wid); break;
    }
    return done1(t, kind, did, cc, cc);
}

/* pvm_reg_rm, pvm_reg_hoster, pvm_reg_tasker: nothing in, CC out. */
int pvmi_tev_reg0(int kind, struct pvmhostinfo **hip)
{
    int t = pvmi_tev_in(), cc;
    entry1(t, kind, -1, 0);
    switch (kind) {
    case TEV_REG_RM: cc = pvm_reg_rm(hip); break;
    case TEV_REG_HOSTER: cc = pvm_reg_hoster(); break;
    default: cc = pvm_reg_tasker(); break;
    }
    return done1(t, kind, TEV_DID_CC, cc, cc);
}

int pvmi_tev_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_REG_TRACER)) {
        I(TRC, tctx);
        I(TRT, ttag);
        I(TRX, octx);
        I(TRO, otag);
        S(TRM, tmask);
        I(TRB, tbuf);
        I(TRL, topt);
        FIN;
    }
    int cc = pvm_reg_tracer(tctx, ttag, octx, otag, tmask, tbuf, topt);
    return done1(t, TEV_REG_TRACER, TEV_DID_CC, cc, cc);
}

/* Both events without fields; pvm_recvf itself calls nothing, so both
 * go before it runs. */
void pvmi_tev_recvf(void)
{
    int t = pvmi_tev_in();
    entry1(t, TEV_RECVF, -1, 0);
    if (EXIT(TEV_RECVF))
        FIN;
    pvmi_tev_out();
}
