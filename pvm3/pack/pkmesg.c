/*
 * pkmesg.c - a whole message packed inside another (pvm_pkmesg,
 * pvm_upkmesg, pvm_pkmesgbody): the mailbox and message-forwarding format
 * of docs/protocol.md (header words, then length-prefixed fragments).
 */
#include <stdlib.h>
#include <pvm3.h>
#include "pack.h"
#include "perr.h"

int pvm_pkmesg(int mid)
{
    struct pmsg *s = pmsg_sbuf();
    if (!s)
        return pvmi_err("pvm_pkmesg", PvmNoBuf);
    struct pmsg *m = pmsg_find(mid);
    if (mid <= 0)
        return pvmi_err("pvm_pkmesg", PvmBadParam);
    if (!m)
        return pvmi_err("pvm_pkmesg", PvmNoSuchBuf);
    if (m == s)
        return pvmi_err("pvm_pkmesg", PvmBadParam);
    const struct pvmi_codec *c = pvmi_codec_pk(s);
    int hdr[8] = { (int)m->len, m->ctx, m->tag, m->wid, (int)m->encword,
                   m->crc, m->src, m->dst };
    int rc = c->pk(s, PVMI_INT, hdr, 8, 1);
    for (struct pvm_seg *g = m->head; rc >= 0 && g; g = g->next) {
        int flen = (int)g->len;
        rc = c->pk(s, PVMI_INT, &flen, 1, 1);
        if (rc >= 0 && flen > 0)
            rc = c->pk(s, PVMI_BYTE, g->base, flen, 1);
    }
    return pvmi_err("pvm_pkmesg", rc);
}

int pvm_upkmesg(void)
{
    struct pmsg *r = pmsg_rbuf();
    if (!r)
        return pvmi_err("pvm_upkmesg", PvmNoBuf);
    const struct pvmi_codec *c = pvmi_codec_upk(r);
    int hdr[8];
    int rc = c->upk(r, PVMI_INT, hdr, 8, 1);
    if (rc < 0)
        return pvmi_err("pvm_upkmesg", rc);
    if (hdr[0] < 0)
        return pvmi_err("pvm_upkmesg", PvmBadMsg);
    struct pmsg *m = pmsg_new_rx();
    if (!m)
        return pvmi_err("pvm_upkmesg", PvmNoMem);
    m->ctx = hdr[1];
    m->tag = hdr[2];
    m->wid = hdr[3];
    pmsg_set_encword(m, (uint32_t)hdr[4]);
    m->crc = hdr[5];
    m->src = hdr[6];
    m->dst = hdr[7];
    size_t total = (size_t)hdr[0];
    /* Lengths come from the sender: nothing is allocated for bytes the
     * body does not hold (a forged length would ask for up to 2 GiB). */
    if (total > pmsg_unread(r)) {
        rc = PvmBadMsg;
        goto fail;
    }
    while (m->len < total) {
        int flen;
        rc = c->upk(r, PVMI_INT, &flen, 1, 1);
        if (rc >= 0 && (flen < 0 || (size_t)flen > total - m->len ||
                        (size_t)flen > pmsg_unread(r)))
            rc = PvmBadMsg;
        if (rc < 0)
            goto fail;
        if (flen == 0)
            continue;
        char *buf = malloc((size_t)flen);
        if (!buf) {
            rc = PvmNoMem;
            goto fail;
        }
        rc = c->upk(r, PVMI_BYTE, buf, flen, 1);
        if (rc >= 0)
            rc = pmsg_append_seg(m, buf, buf, (size_t)flen);
        if (rc < 0) {
            free(buf);
            goto fail;
        }
    }
    pmsg_rewind(m);
    return m->mid;
fail:
    pmsg_free(m);
    return pvmi_err("pvm_upkmesg", rc);
}

int pvm_pkmesgbody(int mid)
{
    struct pmsg *s = pmsg_sbuf();
    if (!s)
        return pvmi_err("pvm_pkmesgbody", PvmNoBuf);
    if (mid <= 0)
        return pvmi_err("pvm_pkmesgbody", PvmBadParam);
    struct pmsg *m = pmsg_find(mid);
    if (!m)
        return pvmi_err("pvm_pkmesgbody", PvmNoSuchBuf);
    if (m == s)
        return pvmi_err("pvm_pkmesgbody", PvmBadParam);
    /* Body bytes are only meaningful under the same encoding. */
    if (pmsg_encword(s->enc) != m->encword)
        return pvmi_err("pvm_pkmesgbody", PvmMismatch);
    for (struct pvm_seg *g = m->head; g; g = g->next) {
        int rc = pmsg_append(s, g->base, g->len);
        if (rc < 0)
            return pvmi_err("pvm_pkmesgbody", rc);
    }
    return 0;
}
