/*
 * fuzz_upk.c - libFuzzer target: pvm_upk* over arbitrary message bodies
 * in every encoding (XDR, Raw, alien), as a receiver meets them.
 *
 * Input: byte 0 picks the encoding, byte 1 the number of unpack calls (up
 * to 16), then one byte per call (type in the low nibble, count-1 in the
 * high one), then the body.  Every call must return a PVM status and
 * never touch memory outside the buffers it was given.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "pmsg.h"
#include "perr.h"

#define MAXN 16

static void one(int type, int n, char *out, size_t outcap)
{
    int st = 1 + (type & 1);   /* strides 1 and 2 */
    if ((size_t)n * (size_t)st * 16 > outcap)
        return;
    switch (type % 14) {
    case 0: pvm_upkbyte(out, n, st); break;
    case 1: pvm_upkshort((short *)out, n, st); break;
    case 2: pvm_upkint((int *)out, n, st); break;
    case 3: pvm_upklong((long *)out, n, st); break;
    case 4: pvm_upkfloat((float *)out, n, st); break;
    case 5: pvm_upkdouble((double *)out, n, st); break;
    case 6: pvm_upkcplx((float *)out, n, st); break;
    case 7: pvm_upkdcplx((double *)out, n, st); break;
    case 8: pvm_upkuint((unsigned *)out, n, st); break;
    case 9: pvm_upkushort((unsigned short *)out, n, st); break;
    case 10: pvm_upkulong((unsigned long *)out, n, st); break;
    case 11: pvm_upkstr(out); break;   /* out holds the whole body: any string fits */
    case 12: {                          /* a message packed inside the message */
        int mid = pvm_upkmesg();
        if (mid > 0)
            pvm_freebuf(mid);
        break;
    }
    case 13: {
        int i = 0;
        double d = 0;
        pvm_unpackf("%d %lf", &i, &d);
        break;
    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2)
        return 0;
    pvmi_autoerr = 0;   /* errors are answers here, not complaints */
    int sel = data[0] % 3, nops = data[1] % (MAXN + 1);
    if (size < 2 + (size_t)nops)
        return 0;
    const uint8_t *ops = data + 2, *body = data + 2 + nops;
    size_t blen = size - 2 - nops;
    int mid = pvm_mkbuf(sel == 1 ? PvmDataRaw : PvmDataDefault);
    struct pmsg *m = pmsg_find(mid);
    if (!m)
        return 0;
    if (blen)
        pmsg_append(m, body, blen);
    if (sel == 2)
        pmsg_set_encword(m, 0x12345678u);   /* alien: bytes only */
    pmsg_rewind(m);
    int old = pvm_setrbuf(mid);
    size_t cap = blen + 16 * MAXN * 2 * 16 + 1;
    char *out = malloc(cap);
    for (int i = 0; out && i < nops; i++)
        one(ops[i] & 15, (ops[i] >> 4) + 1, out, cap);
    free(out);
    pvm_setrbuf(old);
    pvm_freebuf(mid);
    return 0;
}
