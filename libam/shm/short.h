/*
 * short.h - REC_SHORT, a small AM in one 64-byte line (layout: libam/tr_shm.h).
 * A REC_AM record of a small AM is struct rec, the 32-byte AM header and
 * the payload: an 8-byte pvm_psend (with pvmam's own header) takes two
 * lines, and the receiver waits for both.  REC_SHORT carries the same
 * header fields in SHORT_HDR bytes (no magic, which the stamp makes
 * needless; the length from rec.size; the type, the ack-now flag and
 * the blank-reply mark in one byte), so an AM of up to SHORT_MAX payload
 * bytes is one line, which a ping-pong writes again and again in place.
 *
 * Nothing else changes: the reader turns it back into a struct amx_hdr
 * and hands it to amx_input like any AM (the secret is checked there,
 * the sequence number keeps it in order with the REC_AMs around it, and
 * the instance and piggybacked blank reply count as ever).  A short AM
 * is only ever written where a REC_AM of it would be (shm_put_small in
 * libam/tr_shm.c, the record after the last), so the ring's order is the
 * send order whatever kind each record is.
 */
#ifndef SHM_SHORT_H
#define SHM_SHORT_H

#include <stdint.h>
#include <string.h>
#include <sys/uio.h>
#include "ring.h"

/* Write h (its key set) and its payload, h->len <= SHORT_MAX bytes in n
 * pieces, as a REC_SHORT body after the struct rec at `at`.  Returns the
 * record's size (rec.size). */
static inline __attribute__((always_inline)) uint32_t shm_short_put(char *at,
        const struct amx_hdr *h, const struct iovec *iov, int n)
{
    char *b = at + sizeof(struct rec);
    memcpy(b + SHORT_KEY, &h->key, 8);
    memcpy(b + SHORT_SEQ, &h->seq, 4);
    memcpy(b + SHORT_PB_SEQ, &h->pb_seq, 4);
    memcpy(b + SHORT_HANDLER, &h->handler, 2);
    b[SHORT_INST] = (char)h->inst;
    b[SHORT_PB_INST] = (char)h->pb_inst;
    b[SHORT_NBLANK] = (char)h->nblank;
    b[SHORT_FLAGS] = (char)((h->flags & AMX_F_ACKNOW) | (h->pb ? SHORT_F_PB : 0) |
                            (h->type == AMX_REP ? SHORT_F_REP : 0));
    char *d = b + SHORT_HDR;
    for (int i = 0; i < n; i++) {
        copy_small(d, iov[i].iov_base, iov[i].iov_len);
        d += iov[i].iov_len;
    }
    return SHORT_HDR + h->len;
}

/* The header of the REC_SHORT body of `size` bytes (rec.size, as copied
 * out) at body, which is the peer's memory, into *h; its payload is the
 * h->len bytes at body + SHORT_HDR.  -1: not a well-formed short AM. */
static inline __attribute__((always_inline)) int shm_short_hdr(const char *body, uint32_t size,
                                                                struct amx_hdr *h)
{
    if (size < SHORT_HDR || size > SHORT_HDR + SHORT_MAX)
        return -1;
    uint8_t f = (uint8_t)body[SHORT_FLAGS];
    memcpy(&h->key, body + SHORT_KEY, 8);
    memcpy(&h->seq, body + SHORT_SEQ, 4);
    memcpy(&h->pb_seq, body + SHORT_PB_SEQ, 4);
    memcpy(&h->handler, body + SHORT_HANDLER, 2);
    h->inst = (uint8_t)body[SHORT_INST];
    h->pb_inst = (uint8_t)body[SHORT_PB_INST];
    h->nblank = (uint8_t)body[SHORT_NBLANK];
    h->len = size - SHORT_HDR;
    h->type = f & SHORT_F_REP ? AMX_REP : AMX_REQ;
    h->flags = f & AMX_F_ACKNOW;
    h->pb = (f & SHORT_F_PB) != 0;
    return 0;
}

/* ...and its payload copied to p (room for SHORT_MAX bytes). */
static inline __attribute__((always_inline)) int shm_short_get(const char *body, uint32_t size,
                                                                struct amx_hdr *h, char *p)
{
    if (shm_short_hdr(body, size, h) < 0)
        return -1;
    copy_small(p, body + SHORT_HDR, h->len);
    return 0;
}

#endif
