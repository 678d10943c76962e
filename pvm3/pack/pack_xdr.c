/*
 * pack_xdr.c - PvmDataDefault: XDR, byte-exact with stock libpvm3 on LINUX64
 * (docs/protocol.md): shorts travel as 4 sign-extended bytes, longs as
 * their low 32 bits (zero-extended on unpack), byte arrays are padded to 4
 * after each call.  Converts straight between user memory and segments.
 */
#include <endian.h>
#include <stdint.h>
#include <string.h>
#include <pvm3.h>
#include "pack.h"

static const size_t wire_size[PVMI_NTYPES] = {
    [PVMI_BYTE] = 1, [PVMI_SHORT] = 4, [PVMI_USHORT] = 4, [PVMI_INT] = 4,
    [PVMI_UINT] = 4, [PVMI_LONG] = 4, [PVMI_ULONG] = 4, [PVMI_FLOAT] = 4,
    [PVMI_DOUBLE] = 8, [PVMI_CPLX] = 8, [PVMI_DCPLX] = 16,
};

static inline void put32(char *d, uint32_t v) { v = htobe32(v); memcpy(d, &v, 4); }
static inline void put64(char *d, uint64_t v) { v = htobe64(v); memcpy(d, &v, 8); }
static inline uint32_t get32(const char *s) { uint32_t v; memcpy(&v, s, 4); return be32toh(v); }
static inline uint64_t get64(const char *s) { uint64_t v; memcpy(&v, s, 8); return be64toh(v); }
static inline uint32_t ld32(const char *s) { uint32_t v; memcpy(&v, s, 4); return v; }
static inline uint64_t ld64(const char *s) { uint64_t v; memcpy(&v, s, 8); return v; }
static inline void st32(char *d, uint32_t v) { memcpy(d, &v, 4); }
static inline void st64(char *d, uint64_t v) { memcpy(d, &v, 8); }

static const char zeros[4];

/* Contiguous 4- and 8-byte items (pvm_pk*(p, n, 1), the usual call):
 * byte order reversed 16 bytes at a time with SSE2, which every x86-64
 * has (a scalar bswap per item was a quarter of a 1 MiB allreduce's CPU
 * in MPBench, docs/performance.md).  Each returns the items it did; the
 * caller's loop does the rest. */
#ifdef __SSE2__
#include <emmintrin.h>
static inline __m128i swap_halves(__m128i x)   /* the two bytes of every 16-bit word */
{
    return _mm_or_si128(_mm_slli_epi16(x, 8), _mm_srli_epi16(x, 8));
}

static size_t swap32s(const char *s, char *d, size_t n)
{
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        __m128i x = swap_halves(_mm_loadu_si128((const __m128i *)(const void *)(s + 4 * i)));
        x = _mm_shufflelo_epi16(x, _MM_SHUFFLE(2, 3, 0, 1));
        x = _mm_shufflehi_epi16(x, _MM_SHUFFLE(2, 3, 0, 1));
        _mm_storeu_si128((__m128i *)(void *)(d + 4 * i), x);
    }
    return i;
}

static size_t swap64s(const char *s, char *d, size_t n)
{
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        __m128i x = swap_halves(_mm_loadu_si128((const __m128i *)(const void *)(s + 8 * i)));
        x = _mm_shufflelo_epi16(x, _MM_SHUFFLE(0, 1, 2, 3));
        x = _mm_shufflehi_epi16(x, _MM_SHUFFLE(0, 1, 2, 3));
        _mm_storeu_si128((__m128i *)(void *)(d + 8 * i), x);
    }
    return i;
}
#else
static size_t swap32s(const char *s, char *d, size_t n) { (void)s; (void)d; (void)n; return 0; }
static size_t swap64s(const char *s, char *d, size_t n) { (void)s; (void)d; (void)n; return 0; }
#endif

/* Items i..n of a contiguous run done by swapNNs first: *i, s and d moved past them. */
#define FAST(swap, w, per, cond) do { if (cond) { \
        i = (int)(swap(s, d, (size_t)n * (per)) / (per)); \
        s += (size_t)i * (w) * (per); d += (size_t)i * (w) * (per); } else i = 0; } while (0)

/* Encode n elements of type t from s (step bytes apart) into d. */
static void enc_run(enum pvmi_type t, const char *s, char *d, int n, size_t step)
{
    int i;
    switch (t) {
    case PVMI_SHORT:
        for (i = 0; i < n; i++, s += step, d += 4) {
            int16_t v;
            memcpy(&v, s, 2);
            put32(d, (uint32_t)(int32_t)v);
        }
        break;
    case PVMI_USHORT: /* stock sign-extends unsigned shorts too */
        for (i = 0; i < n; i++, s += step, d += 4) {
            uint16_t v;
            memcpy(&v, s, 2);
            put32(d, (uint32_t)(int32_t)(int16_t)v);
        }
        break;
    case PVMI_INT:
    case PVMI_UINT:
    case PVMI_FLOAT:
        FAST(swap32s, 4, 1, step == 4);
        for (; i < n; i++, s += step, d += 4)
            put32(d, ld32(s));
        break;
    case PVMI_LONG:
    case PVMI_ULONG: /* low 32 bits, as the Debian build does */
        for (i = 0; i < n; i++, s += step, d += 4)
            put32(d, (uint32_t)ld64(s));
        break;
    case PVMI_DOUBLE:
        FAST(swap64s, 8, 1, step == 8);
        for (; i < n; i++, s += step, d += 8)
            put64(d, ld64(s));
        break;
    case PVMI_CPLX:
        FAST(swap32s, 4, 2, step == 8);
        for (; i < n; i++, s += step, d += 8) {
            put32(d, ld32(s));
            put32(d + 4, ld32(s + 4));
        }
        break;
    case PVMI_DCPLX:
        FAST(swap64s, 8, 2, step == 16);
        for (; i < n; i++, s += step, d += 16) {
            put64(d, ld64(s));
            put64(d + 8, ld64(s + 8));
        }
        break;
    default:
        break;
    }
}

/* Decode n elements of type t from wire bytes s into d (step bytes apart). */
static void dec_run(enum pvmi_type t, const char *s, char *d, int n, size_t step)
{
    int i;
    switch (t) {
    case PVMI_SHORT:
    case PVMI_USHORT:
        for (i = 0; i < n; i++, s += 4, d += step) {
            uint16_t v = (uint16_t)get32(s);
            memcpy(d, &v, 2);
        }
        break;
    case PVMI_INT:
    case PVMI_UINT:
    case PVMI_FLOAT:
        FAST(swap32s, 4, 1, step == 4);
        for (; i < n; i++, s += 4, d += step)
            st32(d, get32(s));
        break;
    case PVMI_LONG:
    case PVMI_ULONG: /* stock LINUX64 zero-extends both */
        for (i = 0; i < n; i++, s += 4, d += step)
            st64(d, (uint64_t)get32(s));
        break;
    case PVMI_DOUBLE:
        FAST(swap64s, 8, 1, step == 8);
        for (; i < n; i++, s += 8, d += step)
            st64(d, get64(s));
        break;
    case PVMI_CPLX:
        FAST(swap32s, 4, 2, step == 8);
        for (; i < n; i++, s += 8, d += step) {
            st32(d, get32(s));
            st32(d + 4, get32(s + 4));
        }
        break;
    case PVMI_DCPLX:
        FAST(swap64s, 8, 2, step == 16);
        for (; i < n; i++, s += 16, d += step) {
            st64(d, get64(s));
            st64(d + 8, get64(s + 8));
        }
        break;
    default:
        break;
    }
}

static int pk_bytes(struct pmsg *m, const char *s, int n, int stride)
{
    size_t pad = (4 - (size_t)n % 4) % 4;
    char *d = pmsg_reserve(m, (size_t)n + pad);
    if (!d)
        return PvmNoMem;
    if (stride == 1)
        memcpy(d, s, (size_t)n);
    else
        for (int i = 0; i < n; i++)
            d[i] = s[(size_t)i * stride];
    memcpy(d + n, zeros, pad);
    pmsg_commit(m, (size_t)n + pad);
    return 0;
}

static int upk_bytes(struct pmsg *m, char *d, int n, int stride)
{
    size_t pad = (4 - (size_t)n % 4) % 4;
    if (pmsg_unread(m) < (size_t)n)
        return PvmNoData;
    if (stride == 1)
        pmsg_read(m, d, (size_t)n);
    else
        for (int i = 0; i < n; i++)
            pmsg_read(m, d + (size_t)i * stride, 1);
    /* a foreign sender may omit trailing pad at the very end */
    pmsg_skip(m, pad < pmsg_unread(m) ? pad : pmsg_unread(m));
    return 0;
}

static int xdr_pk(struct pmsg *m, enum pvmi_type t, const void *p, int n, int stride)
{
    if (t == PVMI_BYTE)
        return pk_bytes(m, p, n, stride);
    size_t ws = wire_size[t];
    char *d = pmsg_reserve(m, ws * (size_t)n);
    if (!d)
        return PvmNoMem;
    enc_run(t, p, d, n, pvmi_type_size[t] * (size_t)stride);
    pmsg_commit(m, ws * (size_t)n);
    return 0;
}

static int xdr_upk(struct pmsg *m, enum pvmi_type t, void *p, int n, int stride)
{
    if (t == PVMI_BYTE)
        return upk_bytes(m, p, n, stride);
    size_t ws = wire_size[t];
    size_t step = pvmi_type_size[t] * (size_t)stride;
    if (pmsg_unread(m) < ws * (size_t)n)
        return PvmNoData;
    char *d = p;
    int done = 0;
    while (done < n) {
        size_t avail;
        const char *s = pmsg_peek(m, &avail);
        size_t k = avail / ws;
        if (k > (size_t)(n - done))
            k = (size_t)(n - done);
        if (k == 0) { /* element straddles two segments */
            char tmp[16];
            pmsg_read(m, tmp, ws);
            dec_run(t, tmp, d, 1, step);
            d += step;
            done++;
            continue;
        }
        dec_run(t, s, d, (int)k, step);
        pmsg_advance(m, k * ws);
        d += k * step;
        done += (int)k;
    }
    return 0;
}

static int xdr_pkstr(struct pmsg *m, const char *s)
{
    size_t n = strlen(s) + 1;
    size_t pad = (4 - n % 4) % 4;
    char *d = pmsg_reserve(m, 4 + n + pad);
    if (!d)
        return PvmNoMem;
    put32(d, (uint32_t)n);
    memcpy(d + 4, s, n);
    memcpy(d + 4 + n, zeros, pad);
    pmsg_commit(m, 4 + n + pad);
    return 0;
}

static int xdr_upkstr(struct pmsg *m, char *s)
{
    char w[4];
    if (pmsg_read(m, w, 4) < 0)
        return PvmNoData;
    int32_t n = (int32_t)get32(w);
    if (n < 0)
        return PvmBadMsg;
    if (pmsg_unread(m) < (size_t)n)
        return PvmNoData;
    pmsg_read(m, s, (size_t)n);
    if (n > 0)
        s[n - 1] = '\0';
    else
        s[0] = '\0';
    size_t pad = (4 - (size_t)n % 4) % 4;
    pmsg_skip(m, pad < pmsg_unread(m) ? pad : pmsg_unread(m));
    return 0;
}

const struct pvmi_codec pvmi_codec_xdr = {
    .pk = xdr_pk, .upk = xdr_upk, .pkstr = xdr_pkstr, .upkstr = xdr_upkstr,
};
