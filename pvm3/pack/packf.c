/*
 * packf.c - pvm_packf / pvm_unpackf: printf-like packing.
 * Format (pvm_packf(3PVM)): '%' ['+'] [count|'*'] ['.' (stride|'*')]
 * {h|l|u} ('c'|'d'|'f'|'x'|'s').  "%+" is an initsend taking an int.
 * With a count the argument is an address; without one, pvm_packf takes
 * the value itself (pvm_unpackf always takes addresses).
 */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "pack.h"
#include "perr.h"
#include "trace.h"
#include "compat.h"

struct fspec {
    int count, stride;  /* count -1: none given */
    int h, l, u;
    char conv;
};

/* Parse one directive after '%'; returns the char after it, NULL on error. */
static const char *parse(const char *f, va_list *ap, struct fspec *sp)
{
    memset(sp, 0, sizeof *sp);
    sp->count = -1;
    sp->stride = 1;
    if (*f == '*') {
        sp->count = va_arg(*ap, int);
        f++;
    } else if (*f >= '0' && *f <= '9') {
        sp->count = (int)strtol(f, (char **)&f, 10);
    }
    if (*f == '.') {
        f++;
        if (*f == '*') {
            sp->stride = va_arg(*ap, int);
            f++;
        } else {
            sp->stride = (int)strtol(f, (char **)&f, 10);
        }
    }
    for (;; f++) {
        if (*f == 'h') sp->h = 1;
        else if (*f == 'l') sp->l = 1;
        else if (*f == 'u') sp->u = 1;
        else break;
    }
    if (!*f || !strchr("cdfxs", *f))
        return NULL;
    sp->conv = *f;
    return f + 1;
}

static enum pvmi_type type_of(const struct fspec *sp)
{
    switch (sp->conv) {
    case 'c': return PVMI_BYTE;
    case 'f': return sp->l ? PVMI_DOUBLE : PVMI_FLOAT;
    case 'x': return sp->l ? PVMI_DCPLX : PVMI_CPLX;
    default:
        if (sp->h) return sp->u ? PVMI_USHORT : PVMI_SHORT;
        if (sp->l) return sp->u ? PVMI_ULONG : PVMI_LONG;
        return sp->u ? PVMI_UINT : PVMI_INT;
    }
}

static int pack_value(enum pvmi_type t, va_list *ap)
{
    union { char c; short s; unsigned short us; int i; unsigned u; long l;
            unsigned long ul; float f; double d; } v;
    switch (t) {
    case PVMI_BYTE: v.c = (char)va_arg(*ap, int); break;
    case PVMI_SHORT: v.s = (short)va_arg(*ap, int); break;
    case PVMI_USHORT: v.us = (unsigned short)va_arg(*ap, int); break;
    case PVMI_INT: v.i = va_arg(*ap, int); break;
    case PVMI_UINT: v.u = va_arg(*ap, unsigned); break;
    case PVMI_LONG: v.l = va_arg(*ap, long); break;
    case PVMI_ULONG: v.ul = va_arg(*ap, unsigned long); break;
    case PVMI_FLOAT: v.f = (float)va_arg(*ap, double); break;
    case PVMI_DOUBLE: v.d = va_arg(*ap, double); break;
    default:  /* complex values cannot be passed by value */
        return pvmi_pk("pvm_packf", t, va_arg(*ap, void *), 1, 1);
    }
    return pvmi_pk("pvm_packf", t, &v, 1, 1);
}

/* Stock exports the va_list forms too (pvm_vpackf, pvm_vunpackf). */
int pvm_vpackf(const char *fmt, va_list args)
{
    PVMI_TEV(pvmi_tev_packf(TEV_PACKF, fmt, args));
    va_list ap;
    int rc = 0;
    struct fspec sp;
    if (!fmt)
        return pvmi_err("pvm_packf", PvmBadParam);
    va_copy(ap, args);
    for (const char *f = fmt; *f && rc >= 0;) {
        if (*f++ != '%')
            continue;
        if (*f == '+') {
            rc = pvm_initsend(va_arg(ap, int));
            f++;
            continue;
        }
        if (!(f = parse(f, &ap, &sp))) {
            rc = pvmi_err("pvm_packf", PvmBadParam);
            break;
        }
        if (sp.conv == 's') {
            rc = pvm_pkstr(va_arg(ap, char *));
        } else if (sp.count < 0) {
            rc = pack_value(type_of(&sp), &ap);
        } else {
            void *p = va_arg(ap, void *);
            rc = pvmi_pk("pvm_packf", type_of(&sp), p, sp.count, sp.stride);
        }
    }
    va_end(ap);
    return rc < 0 ? rc : 0;
}

int pvm_packf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pvm_vpackf(fmt, ap);
    va_end(ap);
    return rc;
}

int pvm_vunpackf(const char *fmt, va_list args)
{
    PVMI_TEV(pvmi_tev_packf(TEV_UNPACKF, fmt, args));
    va_list ap;
    int rc = 0;
    struct fspec sp;
    if (!fmt)
        return pvmi_err("pvm_unpackf", PvmBadParam);
    va_copy(ap, args);
    for (const char *f = fmt; *f && rc >= 0;) {
        if (*f++ != '%')
            continue;
        if (!(f = parse(f, &ap, &sp))) {
            rc = pvmi_err("pvm_unpackf", PvmBadParam);
            break;
        }
        void *p = va_arg(ap, void *);
        if (sp.conv == 's')
            rc = pvm_upkstr(p);
        else
            rc = pvmi_upk("pvm_unpackf", type_of(&sp), p,
                          sp.count < 0 ? 1 : sp.count, sp.stride);
    }
    va_end(ap);
    return rc < 0 ? rc : 0;
}

int pvm_unpackf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pvm_vunpackf(fmt, ap);
    va_end(ap);
    return rc;
}
