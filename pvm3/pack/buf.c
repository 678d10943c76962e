/*
 * buf.c - the message-buffer calls of the PVM API (pvm_mkbuf, pvm_initsend,
 * pvm_freebuf, get/set of the send and receive buffers, pvm_bufinfo,
 * pvm_getminfo/pvm_setminfo), with stock return values.
 */
#include <stddef.h>
#include <pvm3.h>
#include "pmsg.h"
#include "perr.h"
#include "trace.h"
#include "compat.h"

static int valid_enc(int enc)
{
    return enc == PvmDataDefault || enc == PvmDataRaw ||
           enc == PvmDataInPlace || enc == PvmDataTrace;
}

int pvm_mkbuf(int enc)
{
    PVMI_TEV(pvmi_tev_buf1(TEV_MKBUF, enc));
    if (!valid_enc(enc))
        return pvmi_err("pvm_mkbuf", PvmBadParam);
    struct pmsg *m = pmsg_new(enc);
    if (!m)
        return pvmi_err("pvm_mkbuf", PvmNoMem);
    return m->mid;
}

int pvm_freebuf(int mid)
{
    PVMI_TEV(pvmi_tev_buf1(TEV_FREEBUF, mid));
    if (mid < 0)
        return pvmi_err("pvm_freebuf", PvmBadParam);
    if (mid == 0)
        return 0;
    struct pmsg *m = pmsg_find(mid);
    if (!m)
        return pvmi_err("pvm_freebuf", PvmNoSuchBuf);
    pmsg_free(m);   /* also clears it as current send/receive buffer */
    return 0;
}

int pvm_initsend(int enc)
{
    PVMI_TEV(pvmi_tev_buf1(TEV_INITSEND, enc));
    if (!valid_enc(enc))
        return pvmi_err("pvm_initsend", PvmBadParam);
    struct pmsg *old = pmsg_sbuf();
    if (old)
        pmsg_free(old);
    struct pmsg *m = pmsg_new(enc);
    if (!m)
        return pvmi_err("pvm_initsend", PvmNoMem);
    pmsgi_set_sbuf(m->mid);
    return m->mid;
}

int pvm_getsbuf(void)
{
    PVMI_TEV(pvmi_tev_buf0(TEV_GETSBUF));
    struct pmsg *m = pmsg_sbuf();
    return m ? m->mid : 0;
}

int pvm_getrbuf(void)
{
    PVMI_TEV(pvmi_tev_buf0(TEV_GETRBUF));
    struct pmsg *m = pmsg_rbuf();
    return m ? m->mid : 0;
}

/* A buffer is either the send or the receive buffer, not both. */
int pvm_setsbuf(int mid)
{
    PVMI_TEV(pvmi_tev_buf1(TEV_SETSBUF, mid));
    if (mid < 0)
        return pvmi_err("pvm_setsbuf", PvmBadParam);
    if (mid > 0 && !pmsg_find(mid))
        return pvmi_err("pvm_setsbuf", PvmNoSuchBuf);
    if (mid > 0 && pvm_getrbuf() == mid)
        pmsgi_set_rbuf(0);
    return pmsgi_set_sbuf(mid);
}

int pvm_setrbuf(int mid)
{
    PVMI_TEV(pvmi_tev_buf1(TEV_SETRBUF, mid));
    if (mid < 0)
        return pvmi_err("pvm_setrbuf", PvmBadParam);
    struct pmsg *m = NULL;
    if (mid > 0 && !(m = pmsg_find(mid)))
        return pvmi_err("pvm_setrbuf", PvmNoSuchBuf);
    if (mid > 0 && pvm_getsbuf() == mid)
        pmsgi_set_sbuf(0);
    return pmsgi_set_rbuf(mid);
}

int pvm_bufinfo(int mid, int *len, int *tag, int *tid)
{
    PVMI_TEV(pvmi_tev_bufinfo(mid, len, tag, tid));
    if (mid <= 0)
        return pvmi_err("pvm_bufinfo", PvmBadParam);
    struct pmsg *m = pmsg_find(mid);
    if (!m)
        return pvmi_err("pvm_bufinfo", PvmNoSuchBuf);
    if (len)
        *len = (int)m->len;
    if (tag)
        *tag = m->tag;
    if (tid)
        *tid = m->src;
    return 0;
}

int pvm_getminfo(int mid, struct pvmminfo *mi)
{
    PVMI_TEV(pvmi_tev_minfo(TEV_GETMINFO, mid, mi, 0));
    if (mid <= 0 || !mi)
        return pvmi_err("pvm_getminfo", PvmBadParam);
    struct pmsg *m = pmsg_find(mid);
    if (!m)
        return pvmi_err("pvm_getminfo", PvmNoSuchBuf);
    mi->len = (int)m->len;
    mi->ctx = m->ctx;
    mi->tag = m->tag;
    mi->wid = m->wid;
    mi->enc = (int)m->encword;
    mi->crc = m->crc;
    mi->src = m->src;
    mi->dst = m->dst;
    return 0;
}

int pvm_setminfo(int mid, struct pvmminfo *mi)
{
    PVMI_TEV(pvmi_tev_minfo(TEV_SETMINFO, mid, mi, 0));
    if (mid <= 0 || !mi)
        return pvmi_err("pvm_setminfo", PvmBadParam);
    struct pmsg *m = pmsg_find(mid);
    if (!m)
        return pvmi_err("pvm_setminfo", PvmNoSuchBuf);
    m->ctx = mi->ctx;
    m->tag = mi->tag;
    m->wid = mi->wid;
    m->crc = mi->crc;
    m->src = mi->src;
    m->dst = mi->dst;
    if ((uint32_t)mi->enc != m->encword)
        pmsg_set_encword(m, (uint32_t)mi->enc);
    return 0;
}

/* The wait id of a message (pvm_getmwid/pvm_setmwid): kept with it and
 * sent in its header. */
int pvm_getmwid(int bufid)
{
    PVMI_TEV(pvmi_tev_minfo(TEV_GETMWID, bufid, NULL, 0));
    struct pmsg *m = pmsg_find(bufid);
    if (bufid <= 0)
        return pvmi_err("pvm_getmwid", PvmBadParam);
    if (!m)
        return pvmi_err("pvm_getmwid", PvmNoSuchBuf);
    return m->wid;
}

int pvm_setmwid(int bufid, int waitid)
{
    PVMI_TEV(pvmi_tev_minfo(TEV_SETMWID, bufid, NULL, waitid));
    struct pmsg *m = pmsg_find(bufid);
    if (bufid <= 0)
        return pvmi_err("pvm_setmwid", PvmBadParam);
    if (!m)
        return pvmi_err("pvm_setmwid", PvmNoSuchBuf);
    m->wid = waitid;
    return 0;
}
