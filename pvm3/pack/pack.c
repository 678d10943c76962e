/*
 * pack.c - the pvm_pk* / pvm_upk* entry points: argument checks shared by
 * every encoding, then the buffer's codec.
 */
#include <pvm3.h>
#include "pack.h"
#include "perr.h"
#include "trace.h"

const size_t pvmi_type_size[PVMI_NTYPES] = {
    [PVMI_BYTE] = 1, [PVMI_SHORT] = sizeof(short), [PVMI_USHORT] = sizeof(short),
    [PVMI_INT] = sizeof(int), [PVMI_UINT] = sizeof(int), [PVMI_LONG] = sizeof(long),
    [PVMI_ULONG] = sizeof(long), [PVMI_FLOAT] = sizeof(float),
    [PVMI_DOUBLE] = sizeof(double), [PVMI_CPLX] = 2 * sizeof(float),
    [PVMI_DCPLX] = 2 * sizeof(double),
};

const struct pvmi_codec *pvmi_codec_pk(const struct pmsg *m)
{
    switch (m->enc) {
    case PvmDataDefault: return &pvmi_codec_xdr;
    case PvmDataRaw: return &pvmi_codec_raw;
    case PvmDataInPlace: return &pvmi_codec_inplace;
    default: return &pvmi_codec_unsupported;
    }
}

const struct pvmi_codec *pvmi_codec_upk(const struct pmsg *m)
{
    if (m->flags & PMSG_ALIEN)
        return &pvmi_codec_alien;
    switch (m->enc) {
    case PvmDataDefault: return &pvmi_codec_xdr;
    case PvmDataRaw:
    case PvmDataInPlace: return &pvmi_codec_raw;
    default: return &pvmi_codec_unsupported;
    }
}

int pvmi_pk(const char *fn, enum pvmi_type t, const void *p, int n, int stride)
{
    struct pmsg *m = pmsg_sbuf();
    if (!m)
        return pvmi_err(fn, PvmNoBuf);
    if (n < 0 || stride < 0 || (!p && n > 0))
        return pvmi_err(fn, PvmBadParam);
    if (n == 0)
        return 0;
    return pvmi_err(fn, pvmi_codec_pk(m)->pk(m, t, p, n, stride));
}

int pvmi_upk(const char *fn, enum pvmi_type t, void *p, int n, int stride)
{
    struct pmsg *m = pmsg_rbuf();
    if (!m)
        return pvmi_err(fn, PvmNoBuf);
    if (n < 0 || stride < 0 || (!p && n > 0))
        return pvmi_err(fn, PvmBadParam);
    if (n == 0)
        return 0;
    return pvmi_err(fn, pvmi_codec_upk(m)->upk(m, t, p, n, stride));
}

#define PK_UPK(name, NAME, ctype, type)                                        \
    int pvm_pk##name(ctype *p, int n, int stride)                        \
    {                                                                    \
        PVMI_TEV(pvmi_tev_pk(TEV_PK##NAME, 0, p, n, stride));            \
        return pvmi_pk("pvm_pk" #name, type, p, n, stride);              \
    }                                                                    \
    int pvm_upk##name(ctype *p, int n, int stride)                       \
    {                                                                    \
        PVMI_TEV(pvmi_tev_pk(TEV_UPK##NAME, 1, p, n, stride));           \
        return pvmi_upk("pvm_upk" #name, type, p, n, stride);            \
    }

PK_UPK(byte, BYTE, char, PVMI_BYTE)
PK_UPK(short, SHORT, short, PVMI_SHORT)
PK_UPK(ushort, USHORT, unsigned short, PVMI_USHORT)
PK_UPK(int, INT, int, PVMI_INT)
PK_UPK(uint, UINT, unsigned int, PVMI_UINT)
PK_UPK(long, LONG, long, PVMI_LONG)
PK_UPK(ulong, ULONG, unsigned long, PVMI_ULONG)
PK_UPK(float, FLOAT, float, PVMI_FLOAT)
PK_UPK(double, DOUBLE, double, PVMI_DOUBLE)
PK_UPK(cplx, CPLX, float, PVMI_CPLX)
PK_UPK(dcplx, DCPLX, double, PVMI_DCPLX)

int pvm_pkstr(char *s)
{
    PVMI_TEV(pvmi_tev_pkstr(TEV_PKSTR, s));
    struct pmsg *m = pmsg_sbuf();
    if (!m)
        return pvmi_err("pvm_pkstr", PvmNoBuf);
    if (!s)
        return pvmi_err("pvm_pkstr", PvmBadParam);
    return pvmi_err("pvm_pkstr", pvmi_codec_pk(m)->pkstr(m, s));
}

int pvm_upkstr(char *s)
{
    PVMI_TEV(pvmi_tev_pkstr(TEV_UPKSTR, s));
    struct pmsg *m = pmsg_rbuf();
    if (!m)
        return pvmi_err("pvm_upkstr", PvmNoBuf);
    if (!s)
        return pvmi_err("pvm_upkstr", PvmBadParam);
    return pvmi_err("pvm_upkstr", pvmi_codec_upk(m)->upkstr(m, s));
}
