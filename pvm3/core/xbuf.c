/*
 * xbuf.c - XDR packing into internal buffers for daemon requests and
 * control messages, so the user's current send/receive buffers are never
 * touched by the library's own traffic.
 */
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "pack.h"

struct pmsg *pvmi_xbuf(void) { return pmsg_new(PvmDataDefault); }

int pvmi_put_int(struct pmsg *m, int v)
{
    return pvmi_codec_xdr.pk(m, PVMI_INT, &v, 1, 1);
}

int pvmi_put_ints(struct pmsg *m, const int *v, int n)
{
    return n > 0 ? pvmi_codec_xdr.pk(m, PVMI_INT, v, n, 1) : 0;
}

int pvmi_put_str(struct pmsg *m, const char *s)
{
    return pvmi_codec_xdr.pkstr(m, s ? s : "");
}

int pvmi_get_int(struct pmsg *m, int *v)
{
    return pvmi_codec_xdr.upk(m, PVMI_INT, v, 1, 1);
}

/* Bounded string read: the length word comes from the peer. */
int pvmi_get_str(struct pmsg *m, char *s, size_t max)
{
    int n;
    int rc = pvmi_get_int(m, &n);
    if (rc < 0)
        return rc;
    if (n < 0 || (size_t)n > pmsg_unread(m))
        return PvmBadMsg;
    size_t take = (size_t)n < max ? (size_t)n : max - 1;
    pmsg_read(m, s, take);
    s[take] = '\0';
    if ((size_t)n > take)
        pmsg_skip(m, (size_t)n - take);
    size_t pad = (4 - (size_t)n % 4) % 4;
    pmsg_skip(m, pad < pmsg_unread(m) ? pad : pmsg_unread(m));
    return 0;
}

char *pvmi_get_strdup(struct pmsg *m)
{
    int n;
    size_t save_pos = m->rpos;
    struct pvm_seg *save_seg = m->rseg;
    size_t save_off = m->roff;
    if (pvmi_get_int(m, &n) < 0 || n < 0 || (size_t)n > pmsg_unread(m))
        return NULL;
    m->rpos = save_pos;
    m->rseg = save_seg;
    m->roff = save_off;
    char *s = malloc((size_t)n + 1);
    if (s && pvmi_get_str(m, s, (size_t)n + 1) < 0) {
        free(s);
        s = NULL;
    }
    return s;
}

int pvmi_get_ints(struct pmsg *m, int *v, int n)
{
    return n > 0 ? pvmi_codec_xdr.upk(m, PVMI_INT, v, n, 1) : 0;
}

/* {int n, n bytes}: the bytes go as pvm_pkbyte packs them (XDR pads). */
int pvmi_put_counted(struct pmsg *m, const char *s)
{
    int n = (int)strlen(s);
    int rc = pvmi_put_int(m, n);
    return rc < 0 || n == 0 ? rc : pvmi_codec_xdr.pk(m, PVMI_BYTE, s, n, 1);
}

int pvmi_get_counted(struct pmsg *m, char *s, size_t max)
{
    int n = -1;
    int rc = pvmi_get_int(m, &n);
    if (rc >= 0 && (n < 0 || (size_t)n >= max))
        rc = PvmBadMsg;
    if (rc >= 0 && n > 0)
        rc = pvmi_codec_xdr.upk(m, PVMI_BYTE, s, n, 1);
    if (rc >= 0)
        s[n] = '\0';
    return rc < 0 ? rc : 0;
}
