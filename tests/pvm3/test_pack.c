/*
 * test_pack.c - unit tests of pvm3 message buffers and packing.
 * libtirpc's XDR encoder is the oracle for PvmDataDefault; the byte
 * examples of docs/protocol.md (seen on the wire from stock
 * libpvm3) pin down the PVM-specific rules.
 */
#include <check.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <rpc/types.h>
#include <rpc/xdr.h>
#include <pvm3.h>
#include "pmsg.h"
#include "perr.h"

/* Body of buffer mid, flattened. */
static size_t body(int mid, unsigned char *out, size_t max)
{
    struct pmsg *m = pmsg_find(mid);
    size_t n = 0;
    ck_assert_ptr_nonnull(m);
    for (struct pvm_seg *s = m->head; s; s = s->next) {
        ck_assert_uint_le(n + s->len, max);
        memcpy(out + n, s->base, s->len);
        n += s->len;
    }
    ck_assert_uint_eq(n, m->len);
    return n;
}

static void setup(void) { pvmi_autoerr = 0; }

/* Make the send buffer the receive buffer, cursor at the start. */
static void flip(void)
{
    int mid = pvm_getsbuf();
    ck_assert_int_gt(mid, 0);
    pvm_setrbuf(mid);
    pmsg_rewind(pmsg_find(mid));
}

/* ---- XDR against libtirpc ------------------------------------------- */

START_TEST(xdr_matches_libtirpc)
{
    static unsigned char want[4096], got[4096];
    XDR x;
    xdrmem_create(&x, (char *)want, sizeof want, XDR_ENCODE);
    int mid = pvm_initsend(PvmDataDefault);
    ck_assert_int_gt(mid, 0);

    int iv[5] = { 0, 1, -1, 0x7fffffff, (int)0x80000000u };
    for (int i = 0; i < 5; i++) ck_assert(xdr_int(&x, &iv[i]));
    ck_assert_int_eq(pvm_pkint(iv, 5, 1), 0);

    unsigned uv[3] = { 0, 1, 0xffffffffu };
    for (int i = 0; i < 3; i++) ck_assert(xdr_u_int(&x, &uv[i]));
    ck_assert_int_eq(pvm_pkuint(uv, 3, 1), 0);

    short sv[4] = { 0, 1, -2, 32767 };   /* 4 bytes each, sign-extended */
    for (int i = 0; i < 4; i++) { int w = sv[i]; ck_assert(xdr_int(&x, &w)); }
    ck_assert_int_eq(pvm_pkshort(sv, 4, 1), 0);

    long lv[3] = { 0x0a0b0c0dL, -7L, 0x123456789L };  /* low 32 bits */
    for (int i = 0; i < 3; i++) { int w = (int)(uint32_t)lv[i]; ck_assert(xdr_int(&x, &w)); }
    ck_assert_int_eq(pvm_pklong(lv, 3, 1), 0);

    float fv[4] = { 1.0f, -2.5f, 3.25e-10f, 0.0f };
    for (int i = 0; i < 4; i++) ck_assert(xdr_float(&x, &fv[i]));
    ck_assert_int_eq(pvm_pkfloat(fv, 4, 1), 0);

    double dv[6] = { 1.0, -1e300, 3.141592653589793, 0.0, 5e-324, 2.0 };
    for (int i = 0; i < 6; i += 2) ck_assert(xdr_double(&x, &dv[i]));  /* stride 2 */
    ck_assert_int_eq(pvm_pkdouble(dv, 3, 2), 0);

    float cv[4] = { 1.5f, -1.5f, 2.5f, -2.5f };
    for (int i = 0; i < 4; i++) ck_assert(xdr_float(&x, &cv[i]));
    ck_assert_int_eq(pvm_pkcplx(cv, 2, 1), 0);

    double zv[2] = { 7.0, -8.0 };
    for (int i = 0; i < 2; i++) ck_assert(xdr_double(&x, &zv[i]));
    ck_assert_int_eq(pvm_pkdcplx(zv, 1, 1), 0);

    char bytes[7] = "abcdefg";                          /* padded to 8 */
    ck_assert(xdr_opaque(&x, bytes, 7));
    ck_assert_int_eq(pvm_pkbyte(bytes, 7, 1), 0);

    char *str = "hello, pvm";
    ck_assert(xdr_string(&x, &str, 100));               /* length word = strlen */
    ck_assert_int_eq(pvm_pkstr(str), 0);

    size_t wn = xdr_getpos(&x);
    size_t gn = body(mid, got, sizeof got);
    /* PVM's string length word counts the NUL, XDR's does not: compare
     * everything before the string exactly, then the string by hand. */
    size_t slen = strlen(str);
    size_t xdr_str = 4 + ((slen + 3) & ~3u);
    ck_assert_uint_eq(gn - (4 + ((slen + 1 + 3) & ~3u)), wn - xdr_str);
    ck_assert_mem_eq(got, want, wn - xdr_str);
    const unsigned char *ps = got + (wn - xdr_str);
    ck_assert_uint_eq(((uint32_t)ps[0] << 24 | ps[1] << 16 | ps[2] << 8 | ps[3]), slen + 1);
    ck_assert_mem_eq(ps + 4, str, slen + 1);
    xdr_destroy(&x);
}
END_TEST

/* Long contiguous runs (the 16-byte-at-a-time path of pack_xdr.c) and
 * their odd tails, against libtirpc, then unpacked back. */
START_TEST(xdr_long_runs)
{
    enum { N = 67 };
    static int iv[N], ib[N];
    static float fv[2 * N], fb[2 * N];
    static double dv[2 * N], db[2 * N];
    for (int i = 0; i < 2 * N; i++) {
        fv[i] = (float)(i * 1.5 - 40);
        dv[i] = i * -3.25e10 + 7;
        if (i < N)
            iv[i] = (int)(0x01020304u * (unsigned)i) ^ 0x55;
    }
    for (int n = 0; n <= N; n += n < 9 ? 1 : 29) {
        static unsigned char want[40 * N + 64], got[40 * N + 64];
        XDR x;
        xdrmem_create(&x, (char *)want, sizeof want, XDR_ENCODE);
        for (int i = 0; i < n; i++) ck_assert(xdr_int(&x, &iv[i]));
        for (int i = 0; i < n; i++) ck_assert(xdr_double(&x, &dv[i]));
        for (int i = 0; i < 2 * n; i++) ck_assert(xdr_float(&x, &fv[i]));    /* PVM_CPLX */
        for (int i = 0; i < 2 * n; i++) ck_assert(xdr_double(&x, &dv[i]));   /* PVM_DCPLX */
        size_t wn = xdr_getpos(&x);
        xdr_destroy(&x);
        pvm_initsend(PvmDataDefault);
        if (n) {
            pvm_pkint(iv, n, 1);
            pvm_pkdouble(dv, n, 1);
            pvm_pkcplx(fv, n, 1);
            pvm_pkdcplx(dv, n, 1);
        }
        ck_assert_uint_eq(body(pvm_getsbuf(), got, sizeof got), wn);
        ck_assert_mem_eq(got, want, wn);
        flip();
        memset(ib, 0, sizeof ib);
        memset(fb, 0, sizeof fb);
        memset(db, 0, sizeof db);
        if (n) {
            ck_assert_int_eq(pvm_upkint(ib, n, 1), 0);
            ck_assert_int_eq(pvm_upkdouble(db, n, 1), 0);
            ck_assert_mem_eq(ib, iv, sizeof *iv * (size_t)n);
            ck_assert_mem_eq(db, dv, sizeof *dv * (size_t)n);
            ck_assert_int_eq(pvm_upkcplx(fb, n, 1), 0);
            ck_assert_int_eq(pvm_upkdcplx(db, n, 1), 0);
            ck_assert_mem_eq(fb, fv, sizeof *fv * 2 * (size_t)n);
            ck_assert_mem_eq(db, dv, sizeof *dv * 2 * (size_t)n);
        }
    }
}
END_TEST

/* ---- exact bytes from the protocol spec ------------------------------ */

static void expect_body(const unsigned char *want, size_t n)
{
    unsigned char got[256];
    size_t gn = body(pvm_getsbuf(), got, sizeof got);
    ck_assert_uint_eq(gn, n);
    ck_assert_mem_eq(got, want, n);
}

START_TEST(xdr_spec_bytes)
{
    char b[5] = { 1, 2, 3, 4, 5 };
    pvm_initsend(PvmDataDefault);
    pvm_pkbyte(b, 5, 1);
    expect_body((const unsigned char[]){ 1, 2, 3, 4, 5, 0, 0, 0 }, 8);
    pvm_initsend(PvmDataDefault);
    pvm_pkbyte(b, 3, 2);
    expect_body((const unsigned char[]){ 1, 3, 5, 0 }, 4);
    unsigned short us = 0xfffe;
    pvm_initsend(PvmDataDefault);
    pvm_pkushort(&us, 1, 1);
    expect_body((const unsigned char[]){ 0xff, 0xff, 0xff, 0xfe }, 4);
    pvm_initsend(PvmDataDefault);
    pvm_pkstr("abc");
    expect_body((const unsigned char[]){ 0, 0, 0, 4, 'a', 'b', 'c', 0 }, 8);
    long big = 0x123456789L;
    pvm_initsend(PvmDataDefault);
    pvm_pklong(&big, 1, 1);
    expect_body((const unsigned char[]){ 0x23, 0x45, 0x67, 0x89 }, 4);
}
END_TEST

START_TEST(xdr_long_zero_extends)
{
    long v = -3, out = 0;
    unsigned long uo = 0;
    pvm_initsend(PvmDataDefault);
    pvm_pklong(&v, 1, 1);
    pvm_pklong(&v, 1, 1);
    flip();
    ck_assert_int_eq(pvm_upklong(&out, 1, 1), 0);
    ck_assert_int_eq(out, 4294967293L);
    ck_assert_int_eq(pvm_upkulong(&uo, 1, 1), 0);
    ck_assert_uint_eq(uo, 4294967293UL);
}
END_TEST

START_TEST(raw_spec_bytes)
{
    char b[5] = { 1, 2, 3, 4, 5 };
    short s[3] = { 1, -2, 0x1234 };
    int i[2] = { 0x01020304, -5 };
    long l[2] = { 0x0a0b0c0dL, -7L };
    pvm_initsend(PvmDataRaw);
    pvm_pkbyte(b, 5, 1);
    pvm_pkshort(s, 3, 1);
    pvm_pkint(i, 2, 1);
    pvm_pklong(l, 2, 1);
    static const unsigned char want[] = {
        1, 2, 3, 4, 5, 0x01, 0x00, 0xfe, 0xff, 0x34, 0x12,
        0x04, 0x03, 0x02, 0x01, 0xfb, 0xff, 0xff, 0xff,
        0x0d, 0x0c, 0x0b, 0x0a, 0, 0, 0, 0, 0xf9, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
    expect_body(want, sizeof want);
    ck_assert_uint_eq(pmsg_sbuf()->encword, 0x00408c41u);
}
END_TEST

/* ---- round trips: every type, encoding, stride ----------------------- */

static const int encs[3] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };

START_TEST(round_trip_all_types)
{
    int enc = encs[_i / 3];
    int stride = 1 + _i % 3;
    if (enc == PvmDataInPlace && stride != 1)
        return;  /* covered by inplace_rules */
    enum { N = 257 };
    static char b[N * 3], b2[N * 3];
    static short s[N * 3], s2[N * 3];
    static unsigned short us[N * 3], us2[N * 3];
    static int in[N * 3], in2[N * 3];
    static unsigned ui[N * 3], ui2[N * 3];
    static long lo[N * 3], lo2[N * 3];
    static unsigned long ul[N * 3], ul2[N * 3];
    static float f[N * 3 * 2], f2[N * 3 * 2];
    static double d[N * 3 * 2], d2[N * 3 * 2];
    srand(42 + _i);
    for (int k = 0; k < N * 3; k++) {
        b[k] = (char)rand();
        s[k] = (short)rand();
        us[k] = (unsigned short)rand();
        in[k] = rand() - RAND_MAX / 2;
        ui[k] = (unsigned)rand() * 2u;
        /* XDR carries longs as 32 bits: keep values in range */
        lo[k] = enc == PvmDataDefault ? (long)(uint32_t)rand() : (long)rand() * 1000003L - 7;
        ul[k] = enc == PvmDataDefault ? (unsigned long)(uint32_t)rand() : (unsigned long)rand() << 20;
    }
    for (int k = 0; k < N * 3 * 2; k++) {
        f[k] = (float)rand() / 7.0f;
        d[k] = (double)rand() / 3.0;
    }
    memset(b2, 0, sizeof b2); memset(s2, 0, sizeof s2); memset(us2, 0, sizeof us2);
    memset(in2, 0, sizeof in2); memset(ui2, 0, sizeof ui2); memset(lo2, 0, sizeof lo2);
    memset(ul2, 0, sizeof ul2); memset(f2, 0, sizeof f2); memset(d2, 0, sizeof d2);

    ck_assert_int_gt(pvm_initsend(enc), 0);
    ck_assert_int_eq(pvm_pkbyte(b, N, stride), 0);
    ck_assert_int_eq(pvm_pkshort(s, N, stride), 0);
    ck_assert_int_eq(pvm_pkushort(us, N, stride), 0);
    ck_assert_int_eq(pvm_pkint(in, N, stride), 0);
    ck_assert_int_eq(pvm_pkuint(ui, N, stride), 0);
    ck_assert_int_eq(pvm_pklong(lo, N, stride), 0);
    ck_assert_int_eq(pvm_pkulong(ul, N, stride), 0);
    ck_assert_int_eq(pvm_pkfloat(f, N, stride), 0);
    ck_assert_int_eq(pvm_pkdouble(d, N, stride), 0);
    ck_assert_int_eq(pvm_pkcplx(f, N, stride), 0);
    ck_assert_int_eq(pvm_pkdcplx(d, N, stride), 0);
    if (enc != PvmDataInPlace)
        ck_assert_int_eq(pvm_pkstr("round trip"), 0);
    flip();
    ck_assert_int_eq(pvm_upkbyte(b2, N, stride), 0);
    ck_assert_int_eq(pvm_upkshort(s2, N, stride), 0);
    ck_assert_int_eq(pvm_upkushort(us2, N, stride), 0);
    ck_assert_int_eq(pvm_upkint(in2, N, stride), 0);
    ck_assert_int_eq(pvm_upkuint(ui2, N, stride), 0);
    ck_assert_int_eq(pvm_upklong(lo2, N, stride), 0);
    ck_assert_int_eq(pvm_upkulong(ul2, N, stride), 0);
    for (int k = 0; k < N; k++) {
        size_t j = (size_t)k * stride;
        ck_assert_int_eq(b2[j], b[j]);
        ck_assert_int_eq(s2[j], s[j]);
        ck_assert_uint_eq(us2[j], us[j]);
        ck_assert_int_eq(in2[j], in[j]);
        ck_assert_uint_eq(ui2[j], ui[j]);
        ck_assert_int_eq(lo2[j], lo[j]);
        ck_assert_uint_eq(ul2[j], ul[j]);
    }
    ck_assert_int_eq(pvm_upkfloat(f2, N, stride), 0);
    for (int k = 0; k < N; k++)
        ck_assert(f2[(size_t)k * stride] == f[(size_t)k * stride]);
    ck_assert_int_eq(pvm_upkdouble(d2, N, stride), 0);
    for (int k = 0; k < N; k++)
        ck_assert(d2[(size_t)k * stride] == d[(size_t)k * stride]);
    memset(f2, 0, sizeof f2);
    memset(d2, 0, sizeof d2);
    ck_assert_int_eq(pvm_upkcplx(f2, N, stride), 0);
    ck_assert_int_eq(pvm_upkdcplx(d2, N, stride), 0);
    for (int k = 0; k < N; k++) {
        size_t j = (size_t)k * stride * 2;
        ck_assert(f2[j] == f[j] && f2[j + 1] == f[j + 1]);
        ck_assert(d2[j] == d[j] && d2[j + 1] == d[j + 1]);
    }
    if (enc != PvmDataInPlace) {
        char str[32];
        ck_assert_int_eq(pvm_upkstr(str), 0);
        ck_assert_str_eq(str, "round trip");
    }
    int extra;
    ck_assert_int_eq(pvm_upkint(&extra, 1, 1), PvmNoData);
}
END_TEST

/* Received messages are chains of fragments: items straddle them. */
START_TEST(unpack_across_fragments)
{
    enum { N = 1000 };
    static int iv[N], iv2[N];
    static double dv[N], dv2[N];
    for (int k = 0; k < N; k++) { iv[k] = k * 7919 - 3; dv[k] = k / 3.0; }
    int mid = pvm_initsend(PvmDataDefault);
    pvm_pkint(iv, N, 1);
    pvm_pkdouble(dv, N, 1);
    pvm_pkstr("tail");
    static unsigned char flat[N * 12 + 64];
    size_t n = body(mid, flat, sizeof flat);
    /* re-chain the bytes in odd-sized fragments */
    struct pmsg *r = pmsg_new_rx();
    size_t sizes[] = { 1, 3, 5, 4093, 7, 1 };
    size_t off = 0;
    for (int k = 0; off < n; k++) {
        size_t len = sizes[k % 6];
        if (len > n - off) len = n - off;
        char *blk = malloc(len);
        memcpy(blk, flat + off, len);
        ck_assert_int_eq(pmsg_append_seg(r, blk, blk, len), 0);
        off += len;
    }
    pmsg_set_encword(r, 0x10000000u);
    pvm_setrbuf(r->mid);
    pmsg_rewind(r);
    ck_assert_int_eq(pvm_upkint(iv2, N, 1), 0);
    ck_assert_int_eq(pvm_upkdouble(dv2, N, 1), 0);
    ck_assert_mem_eq(iv2, iv, sizeof iv);
    ck_assert_mem_eq(dv2, dv, sizeof dv);
    char s[8];
    ck_assert_int_eq(pvm_upkstr(s), 0);
    ck_assert_str_eq(s, "tail");
    pvm_freebuf(r->mid);
}
END_TEST

START_TEST(big_message_16mib)
{
    size_t n = (16u << 20) / sizeof(double);
    double *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (size_t k = 0; k < n; k++) a[k] = (double)k * 1.5 - 9.0;
    int mid = pvm_initsend(PvmDataDefault);
    ck_assert_int_eq(pvm_pkdouble(a, (int)n, 1), 0);
    int len;
    ck_assert_int_eq(pvm_bufinfo(mid, &len, NULL, NULL), 0);
    ck_assert_int_eq(len, 16 << 20);
    flip();
    ck_assert_int_eq(pvm_upkdouble(b, (int)n, 1), 0);
    ck_assert_mem_eq(a, b, n * sizeof *a);
    free(a);
    free(b);
}
END_TEST

/* ---- rules and errors (values checked against stock libpvm3) -------- */

START_TEST(buffer_calls)
{
    ck_assert_int_eq(pvm_mkbuf(7), PvmBadParam);
    ck_assert_int_eq(pvm_freebuf(-1), PvmBadParam);
    ck_assert_int_eq(pvm_freebuf(0), 0);
    ck_assert_int_eq(pvm_freebuf(99999), PvmNoSuchBuf);
    ck_assert_int_eq(pvm_setsbuf(-2), PvmBadParam);
    ck_assert_int_eq(pvm_setsbuf(99999), PvmNoSuchBuf);
    ck_assert_int_eq(pvm_bufinfo(0, NULL, NULL, NULL), PvmBadParam);
    ck_assert_int_eq(pvm_bufinfo(99999, NULL, NULL, NULL), PvmNoSuchBuf);
    pvm_setsbuf(0);
    pvm_setrbuf(0);
    int x = 1;
    ck_assert_int_eq(pvm_pkint(&x, 1, 1), PvmNoBuf);
    ck_assert_int_eq(pvm_upkint(&x, 1, 1), PvmNoBuf);
    int a = pvm_initsend(PvmDataDefault);
    ck_assert_int_eq(pvm_getsbuf(), a);
    ck_assert_int_eq(pvm_pkint(&x, -1, 1), PvmBadParam);
    ck_assert_int_eq(pvm_pkint(&x, 0, 1), 0);
    /* setrbuf of the send buffer takes it away from sending */
    ck_assert_int_eq(pvm_setrbuf(a), 0);
    ck_assert_int_eq(pvm_getsbuf(), 0);
    ck_assert_int_eq(pvm_getrbuf(), a);
    ck_assert_int_eq(pvm_freebuf(a), 0);
    ck_assert_int_eq(pvm_getrbuf(), 0);
    /* initsend frees the previous send buffer */
    int b = pvm_initsend(PvmDataRaw);
    int c = pvm_initsend(PvmDataRaw);
    ck_assert_int_eq(pvm_bufinfo(c, NULL, NULL, NULL), 0);
    if (b != c)
        ck_assert_int_eq(pvm_bufinfo(b, NULL, NULL, NULL), PvmNoSuchBuf);
    ck_assert_int_eq(pvm_setsbuf(0), c);
}
END_TEST

START_TEST(inplace_rules)
{
    int v[4] = { 1, 2, 3, 4 };
    pvm_initsend(PvmDataInPlace);
    ck_assert_int_eq(pvm_pkint(v, 2, 2), PvmNotImpl);
    ck_assert_int_eq(pvm_pkstr("x"), PvmNotImpl);
    ck_assert_int_eq(pvm_pkint(v, 4, 1), 0);
    /* the data stays in user memory until the message is sent */
    struct pmsg *m = pmsg_sbuf();
    ck_assert_ptr_eq(m->tail->base, (char *)v);
    ck_assert_uint_eq(m->encword, 0x00408c41u);
}
END_TEST

START_TEST(alien_only_bytes)
{
    struct pmsg *r = pmsg_new_rx();
    char *blk = malloc(8);
    memcpy(blk, "ABCDEFGH", 8);
    pmsg_append_seg(r, blk, blk, 8);
    pmsg_set_encword(r, 0x12345678u);
    pvm_setrbuf(r->mid);
    int i;
    char c[4];
    ck_assert_int_eq(pvm_upkint(&i, 1, 1), PvmBadMsg);
    ck_assert_int_eq(pvm_upkbyte(c, 4, 1), 0);
    ck_assert_mem_eq(c, "ABCD", 4);
    pvm_freebuf(r->mid);
}
END_TEST

START_TEST(packf_unpackf)
{
    int iv[3] = { 10, 20, 30 }, iv2[3];
    double dv[2] = { 0.5, -0.25 }, dv2[2];
    char s[16];
    int one;
    short sh;
    long lg;
    float fl;
    double db;
    ck_assert_int_eq(pvm_packf("%+ %d %3d %hd %ld %f %lf %2lf %s", PvmDataDefault,
                               7, iv, -3, 123456L, 1.5, 2.25, dv, "pk"), 0);
    flip();
    ck_assert_int_eq(pvm_unpackf("%d %3d %hd %ld %f %lf %2lf %s",
                                 &one, iv2, &sh, &lg, &fl, &db, dv2, s), 0);
    ck_assert_int_eq(one, 7);
    ck_assert_mem_eq(iv2, iv, sizeof iv);
    ck_assert_int_eq(sh, -3);
    ck_assert_int_eq(lg, 123456L);
    ck_assert(fl == 1.5f);
    ck_assert(db == 2.25);
    ck_assert_mem_eq(dv2, dv, sizeof dv);
    ck_assert_str_eq(s, "pk");
    ck_assert_int_eq(pvm_packf("%q", 1), PvmBadParam);
}
END_TEST

START_TEST(pkmesg_round_trip)
{
    int inner = pvm_mkbuf(PvmDataDefault);
    int outer = pvm_initsend(PvmDataDefault);
    pvm_setsbuf(inner);
    int v[3] = { 5, 6, 7 };
    pvm_pkint(v, 3, 1);
    pvm_pkstr("inner");
    struct pvmminfo mi;
    pvm_getminfo(inner, &mi);
    mi.tag = 77;
    mi.src = 0x40001;
    pvm_setminfo(inner, &mi);
    pvm_setsbuf(outer);
    ck_assert_int_eq(pvm_pkmesg(inner), 0);
    flip();
    int got = pvm_upkmesg();
    ck_assert_int_gt(got, 0);
    int len, tag, src;
    pvm_bufinfo(got, &len, &tag, &src);
    ck_assert_int_eq(tag, 77);
    ck_assert_int_eq(src, 0x40001);
    ck_assert_int_eq(len, 12 + 4 + 8);
    pvm_setrbuf(got);
    int w[3];
    char s[8];
    ck_assert_int_eq(pvm_upkint(w, 3, 1), 0);
    ck_assert_mem_eq(w, v, sizeof v);
    ck_assert_int_eq(pvm_upkstr(s), 0);
    ck_assert_str_eq(s, "inner");
}
END_TEST

/* Found by tests/fuzz/fuzz_upk.c: forged lengths in a packed message must
 * be refused before anything is allocated for them, not after a 1 GiB
 * malloc (each such input took 1 to 2.6 s under ASan). */
START_TEST(upkmesg_forged_lengths)
{
    int claims[2][2] = { { 1 << 30, 1 << 30 },   /* total and fragment: huge */
                         { 16, 1 << 30 } };      /* a fragment longer than its total */
    for (int k = 0; k < 2; k++) {
        pvm_initsend(PvmDataDefault);
        int hdr[8] = { claims[k][0], 0, 5, 0, 0x10000000, 0, 0x40002, 0x40001 };
        pvm_pkint(hdr, 8, 1);
        pvm_pkint(&claims[k][1], 1, 1);
        pvm_pkint(hdr, 2, 1);   /* 8 bytes where the fragment's data would be */
        flip();
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        ck_assert_int_eq(pvm_upkmesg(), PvmBadMsg);
        clock_gettime(CLOCK_MONOTONIC, &t1);
        /* a refusal, not a copy: generous bound for loaded machines */
        ck_assert_int_lt(t1.tv_sec - t0.tv_sec, 2);
    }
}
END_TEST

static Suite *pack_suite(void)
{
    Suite *s = suite_create("pvm3-pack");
    TCase *tc = tcase_create("pack");
    tcase_add_checked_fixture(tc, setup, NULL);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, xdr_matches_libtirpc);
    tcase_add_test(tc, xdr_long_runs);
    tcase_add_test(tc, xdr_spec_bytes);
    tcase_add_test(tc, xdr_long_zero_extends);
    tcase_add_test(tc, raw_spec_bytes);
    tcase_add_loop_test(tc, round_trip_all_types, 0, 9);
    tcase_add_test(tc, unpack_across_fragments);
    tcase_add_test(tc, big_message_16mib);
    tcase_add_test(tc, buffer_calls);
    tcase_add_test(tc, inplace_rules);
    tcase_add_test(tc, alien_only_bytes);
    tcase_add_test(tc, packf_unpackf);
    tcase_add_test(tc, pkmesg_round_trip);
    tcase_add_test(tc, upkmesg_forged_lengths);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr = srunner_create(pack_suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
