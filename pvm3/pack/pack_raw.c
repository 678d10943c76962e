/*
 * pack_raw.c - PvmDataRaw (native memory copy, no padding), PvmDataInPlace
 * (each pack call is a segment pointing at user memory; unpacked as Raw),
 * alien messages (only bytes), and the codec for unsupported encodings.
 */
#include <stdint.h>
#include <string.h>
#include <pvm3.h>
#include "pack.h"

static int raw_pk(struct pmsg *m, enum pvmi_type t, const void *p, int n, int stride)
{
    size_t es = pvmi_type_size[t];
    size_t total = es * (size_t)n;
    if (stride == 1)
        return pmsg_append(m, p, total);
    /* stride 0 repeats element 0, as stock does */
    char *d = pmsg_reserve(m, total);
    if (!d)
        return PvmNoMem;
    const char *s = p;
    for (int i = 0; i < n; i++, s += es * (size_t)stride, d += es)
        memcpy(d, s, es);
    pmsg_commit(m, total);
    return 0;
}

static int raw_upk(struct pmsg *m, enum pvmi_type t, void *p, int n, int stride)
{
    size_t es = pvmi_type_size[t];
    if (pmsg_unread(m) < es * (size_t)n)
        return PvmNoData;
    if (stride == 1)
        return pmsg_read(m, p, es * (size_t)n);
    char *d = p;
    for (int i = 0; i < n; i++, d += es * (size_t)stride)
        pmsg_read(m, d, es);
    return 0;
}

static int raw_pkstr(struct pmsg *m, const char *s)
{
    uint32_t n = (uint32_t)strlen(s) + 1;
    char *d = pmsg_reserve(m, 4 + (size_t)n);
    if (!d)
        return PvmNoMem;
    memcpy(d, &n, 4);
    memcpy(d + 4, s, n);
    pmsg_commit(m, 4 + (size_t)n);
    return 0;
}

static int raw_upkstr(struct pmsg *m, char *s)
{
    int32_t n;
    if (pmsg_read(m, &n, 4) < 0)
        return PvmNoData;
    if (n < 0)
        return PvmBadMsg;
    if (pmsg_unread(m) < (size_t)n)
        return PvmNoData;
    pmsg_read(m, s, (size_t)n);
    s[n > 0 ? n - 1 : 0] = '\0';
    return 0;
}

const struct pvmi_codec pvmi_codec_raw = {
    .pk = raw_pk, .upk = raw_upk, .pkstr = raw_pkstr, .upkstr = raw_upkstr,
};

/* In place: the data is sent from user memory at send time, so it must
 * be contiguous (stride 1) and strings are refused, as in stock. */
static int inplace_pk(struct pmsg *m, enum pvmi_type t, const void *p, int n, int stride)
{
    if (stride != 1)
        return PvmNotImpl;
    size_t len = pvmi_type_size[t] * (size_t)n;
    if (len == 0)
        return 0;
    return pmsg_append_seg(m, NULL, (char *)p, len);
}

static int inplace_pkstr(struct pmsg *m, const char *s) { return PvmNotImpl; }

const struct pvmi_codec pvmi_codec_inplace = {
    .pk = inplace_pk, .upk = raw_upk, .pkstr = inplace_pkstr, .upkstr = raw_upkstr,
};

/* Alien data representation: only bytes can be taken out. */
static int alien_upk(struct pmsg *m, enum pvmi_type t, void *p, int n, int stride)
{
    if (t != PVMI_BYTE)
        return PvmBadMsg;
    return raw_upk(m, t, p, n, stride);
}
static int none_pk(struct pmsg *m, enum pvmi_type t, const void *p, int n, int stride) { return PvmNotImpl; }
static int none_upk(struct pmsg *m, enum pvmi_type t, void *p, int n, int stride) { return PvmNotImpl; }
static int none_pkstr(struct pmsg *m, const char *s) { return PvmNotImpl; }
static int none_upkstr(struct pmsg *m, char *s) { return PvmNotImpl; }
static int alien_upkstr(struct pmsg *m, char *s) { return PvmBadMsg; }

const struct pvmi_codec pvmi_codec_alien = {
    .pk = none_pk, .upk = alien_upk, .pkstr = none_pkstr, .upkstr = alien_upkstr,
};

/* PvmDataTrace (self-describing trace events) is not implemented. */
const struct pvmi_codec pvmi_codec_unsupported = {
    .pk = none_pk, .upk = none_upk, .pkstr = none_pkstr, .upkstr = none_upkstr,
};
