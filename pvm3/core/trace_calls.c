/*
 * trace_calls.c - the traced versions of the API calls (trace.h): the
 * entry event with the arguments, the call itself (untraced), the exit
 * event with its result, each with the fields and in the order stock
 * PVM 3.4.6 uses, so that the console, tracer and trcsort decode them.
 */
#include <sys/time.h>
#include "lpvm.h"
#include "pack.h"
#include "trace.h"

#define ENTRY(kind) (t && pvmi_tev_begin((kind), TEV_EVENT_ENTRY))
#define EXIT(kind) (t && pvmi_tev_begin((kind), TEV_EVENT_EXIT))
#define FIN pvmi_tev_fin()
#define I(did, v) pvmi_tev_int(TEV_DID_##did, (v))

int pvmi_tev_mytid(void)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_MYTID))
        FIN;
    int cc = pvm_mytid();
    if (EXIT(TEV_MYTID)) {
        I(MT, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_parent(void)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_PARENT))
        FIN;
    int cc = pvm_parent();
    if (EXIT(TEV_PARENT)) {
        I(PT, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

/* Only an entry event: the task has left when the call returns.  What is
 * buffered goes before the task leaves. */
int pvmi_tev_exit(void)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_EXIT))
        FIN;
    if (t)
        pvmi_tev_flush();
    int cc = pvm_exit();
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_config(int *nhp, int *nap, struct pvmhostinfo **hp)
{
    int t = pvmi_tev_in(), nh = 0, na = 0;
    if (ENTRY(TEV_CONFIG))
        FIN;
    int cc = pvm_config(&nh, &na, hp);
    if (nhp)
        *nhp = nh;
    if (nap)
        *nap = na;
    if (EXIT(TEV_CONFIG)) {
        I(NH, nh);
        I(NA, na);
        I(CC, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_spawn(char *file, char **argv, int flags, char *where, int count, int *tids)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_SPAWN)) {
        pvmi_tev_str(TEV_DID_SE, file);
        pvmi_tev_str(TEV_DID_SW, where);
        I(SF, flags);
        I(SC, count);
        FIN;
    }
    int cc = pvm_spawn(file, argv, flags, where, count, tids);
    if (EXIT(TEV_SPAWN)) {
        I(CC, cc);
        pvmi_tev_ints(TEV_DID_STL, tids, cc > 0 && tids ? cc : 0);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

static int sbuf_bytes(void)
{
    struct pmsg *m = pmsg_sbuf();
    return m ? (int)m->len : 0;
}

int pvmi_tev_send(int tid, int tag)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_SEND)) {
        I(MNB, sbuf_bytes());
        I(DST, tid);
        I(MC, tag);
        I(MCX, pvmi.ctx);
        FIN;
    }
    int cc = pvm_send(tid, tag);
    if (EXIT(TEV_SEND)) {
        I(CC, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_psend(int tid, int tag, void *buf, int len, int type)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_PSEND)) {
        I(DST, tid);
        I(MC, tag);
        I(MCX, pvmi.ctx);
        pvmi_tev_long(TEV_DID_PDA, (long)(size_t)buf);
        I(PC, len);
        I(PDT, type);
        FIN;
    }
    int cc = pvm_psend(tid, tag, buf, len, type);
    if (EXIT(TEV_PSEND)) {
        I(CC, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_mcast(int *tids, int n, int tag)
{
    int t = pvmi_tev_in();
    if (ENTRY(TEV_MCAST)) {
        I(MNB, sbuf_bytes());
        I(MC, tag);
        I(MCX, pvmi.ctx);
        pvmi_tev_ints(TEV_DID_MDL, tids, tids && n > 0 ? n : 0);
        FIN;
    }
    int cc = pvm_mcast(tids, n, tag);
    if (EXIT(TEV_MCAST)) {
        I(CC, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

/* recv, nrecv, trecv and probe: what is asked; the message found (probe:
 * only the result). */
int pvmi_tev_recv(int kind, int tid, int tag, const struct timeval *tmout)
{
    int t = pvmi_tev_in();
    if (ENTRY(kind)) {
        I(RST, tid);
        I(RMC, tag);
        I(RCX, pvmi.ctx);
        if (kind == TEV_TRECV) {
            I(MTS, tmout ? (int)tmout->tv_sec : -1);
            I(MTU, tmout ? (int)tmout->tv_usec : -1);
        }
        FIN;
    }
    int cc;
    switch (kind) {
    case TEV_NRECV: cc = pvm_nrecv(tid, tag); break;
    case TEV_TRECV: cc = pvm_trecv(tid, tag, (struct timeval *)tmout); break;
    case TEV_PROBE: cc = pvm_probe(tid, tag); break;
    default: cc = pvm_recv(tid, tag); break;
    }
    if (kind == TEV_PROBE) {   /* stock: the result only */
        if (EXIT(kind)) {
            I(CC, cc);
            FIN;
        }
    } else if (EXIT(kind)) {
        struct pmsg *m = cc > 0 ? pmsg_find(cc) : NULL;
        I(MB, cc);
        I(MNB, m ? (int)m->len : -1);
        I(MC, m ? m->tag : -1);
        I(MCX, pvmi.ctx);   /* stock: the caller's context, not the message's */
        I(SRC, m ? m->src : -1);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_precv(int tid, int tag, void *buf, int len, int type, int *rtid, int *rtag,
                   int *rlen)
{
    int t = pvmi_tev_in(), src = -1, mc = -1, nb = -1;
    if (ENTRY(TEV_PRECV)) {
        I(RST, tid);
        I(RMC, tag);
        I(RCX, pvmi.ctx);
        pvmi_tev_long(TEV_DID_PDA, (long)(size_t)buf);
        I(PC, len);
        I(PDT, type);
        FIN;
    }
    int cc = pvm_precv(tid, tag, buf, len, type, &src, &mc, &nb);
    if (rtid)
        *rtid = src;
    if (rtag)
        *rtag = mc;
    if (rlen)
        *rlen = nb;
    if (EXIT(TEV_PRECV)) {
        I(CC, cc);
        I(MNB, cc < 0 ? -1 : nb);
        I(MC, cc < 0 ? -1 : mc);
        I(MCX, pvmi.ctx);
        I(SRC, cc < 0 ? -1 : src);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

/* Buffer and context calls with one argument: its did and the result's. */
int pvmi_tev_buf1(int kind, int arg)
{
    int t = pvmi_tev_in(), did_in = TEV_DID_MB, did_out = TEV_DID_CC, cc;
    switch (kind) {
    case TEV_INITSEND: did_in = TEV_DID_ME; did_out = TEV_DID_MSB; break;
    case TEV_MKBUF: did_in = TEV_DID_ME; did_out = TEV_DID_MB; break;
    case TEV_SETSBUF: did_out = TEV_DID_MSB; break;
    case TEV_SETRBUF: did_out = TEV_DID_MRB; break;
    case TEV_SETCONTEXT: did_in = TEV_DID_CXS; break;
    default: break;
    }
    if (ENTRY(kind)) {
        pvmi_tev_int(did_in, arg);
        FIN;
    }
    switch (kind) {
    case TEV_INITSEND: cc = pvm_initsend(arg); break;
    case TEV_MKBUF: cc = pvm_mkbuf(arg); break;
    case TEV_SETSBUF: cc = pvm_setsbuf(arg); break;
    case TEV_SETRBUF: cc = pvm_setrbuf(arg); break;
    case TEV_SETCONTEXT: cc = pvm_setcontext(arg); break;
    default: cc = pvm_freebuf(arg); break;
    }
    if (EXIT(kind)) {
        pvmi_tev_int(did_out, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_buf0(int kind)
{
    int t = pvmi_tev_in(), cc, did;
    if (ENTRY(kind))
        FIN;
    switch (kind) {
    case TEV_GETSBUF: cc = pvm_getsbuf(); did = TEV_DID_MSB; break;
    case TEV_GETRBUF: cc = pvm_getrbuf(); did = TEV_DID_MRB; break;
    default: cc = pvm_getcontext(); did = TEV_DID_CXC; break;
    }
    if (EXIT(kind)) {
        pvmi_tev_int(did, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_bufinfo(int mid, int *len, int *tag, int *tid)
{
    int t = pvmi_tev_in(), l = -1, g = -1, s = -1;
    if (ENTRY(TEV_BUFINFO)) {
        I(MB, mid);
        FIN;
    }
    int cc = pvm_bufinfo(mid, &l, &g, &s);
    if (cc >= 0) {
        if (len)
            *len = l;
        if (tag)
            *tag = g;
        if (tid)
            *tid = s;
    }
    if (EXIT(TEV_BUFINFO)) {   /* stock: the status in place of each on failure */
        I(CC, cc);
        I(INB, cc ? cc : l);
        I(IMC, cc ? cc : g);
        I(IST, cc ? cc : s);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

/* pvm_pk* / pvm_upk*: address, count, stride; the status. */
int pvmi_tev_pk(int kind, int unpack, void *p, int n, int stride)
{
    int t = pvmi_tev_in();
    if (ENTRY(kind)) {
        pvmi_tev_long(TEV_DID_PDA, (long)(size_t)p);
        I(PC, n);
        I(PSD, stride);
        FIN;
    }
    enum pvmi_type type = (enum pvmi_type)((unpack ? kind - TEV_UPKBYTE : kind - TEV_PKBYTE));
    static const enum pvmi_type by_kind[] = {
        PVMI_BYTE, PVMI_CPLX, PVMI_DCPLX, PVMI_DOUBLE, PVMI_FLOAT, PVMI_INT, PVMI_UINT,
        PVMI_LONG, PVMI_ULONG, PVMI_SHORT, PVMI_USHORT,
    };
    type = by_kind[type];
    static const char *const fn[2][PVMI_NTYPES] = {
        { "pvm_pkbyte", "pvm_pkshort", "pvm_pkushort", "pvm_pkint", "pvm_pkuint", "pvm_pklong",
          "pvm_pkulong", "pvm_pkfloat", "pvm_pkdouble", "pvm_pkcplx", "pvm_pkdcplx" },
        { "pvm_upkbyte", "pvm_upkshort", "pvm_upkushort", "pvm_upkint", "pvm_upkuint",
          "pvm_upklong", "pvm_upkulong", "pvm_upkfloat", "pvm_upkdouble", "pvm_upkcplx",
          "pvm_upkdcplx" },
    };
    int cc = unpack ? pvmi_upk(fn[1][type], type, p, n, stride)
                    : pvmi_pk(fn[0][type], type, p, n, stride);
    if (EXIT(kind)) {
        I(CC, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_pkstr(int kind, char *s)
{
    int t = pvmi_tev_in();
    if (ENTRY(kind)) {
        pvmi_tev_long(TEV_DID_PDA, (long)(size_t)s);
        FIN;
    }
    int cc = kind == TEV_PKSTR ? pvm_pkstr(s) : pvm_upkstr(s);
    if (EXIT(kind)) {
        I(CC, cc);
        FIN;
    }
    pvmi_tev_out();
    return cc;
}
