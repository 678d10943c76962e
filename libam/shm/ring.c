/*
 * ring.c - the parts of a shm ring's ends (ring.h) that are not on every
 * small AM's path: sizing, attaching to a segment, reserving with a pad.
 */
#include "am_int.h"
#include "ring.h"

/* Ring sizes that never fill with small AMs under the depth window:
 * depth requests and depth replies each way, and room to wrap; and whose
 * half (the medium limit, tr_shm.c fits_now) takes a MEDIUM_MIN payload.
 * A payload over that limit goes by descriptor and its sender waits for
 * the receiver's copy: with more tasks than cores, 256 KiB messages from
 * one root to several receivers then waited for each receiver to be
 * scheduled in turn (docs/performance.md, 256 KiB collectives).  Pages
 * of the segment are only touched as records reach them, and an emptied
 * ring starts over at its first line (tr_shm.h), so small traffic keeps
 * to the first pages whatever the size. */
#define MEDIUM_MIN ((uint64_t)256 << 10)

uint64_t amx_shm_ring_size_for(unsigned depth)
{
    uint64_t need = (uint64_t)(2 * depth + 4) * REC_LEN(AMX_HDR + INLINE_MAX);
    if (need < 2 * REC_LEN(AMX_HDR + MEDIUM_MIN))
        need = 2 * REC_LEN(AMX_HDR + MEDIUM_MIN);
    uint64_t r = RING_MIN;
    while (r < need)
        r <<= 1;
    return r;
}

/* Our ends of a segment's two rings: the connector produces ring 0.  The
 * salt is the hello's (the segment's header is not read: each side maps
 * the segment when it first needs it, segment.c amx_shm_map). */
void amx_shm_rings(struct ring_tx *tx, struct ring_rx *rx, char *base, uint64_t R,
                   uint64_t salt, int connector)
{
    struct seg *g = (struct seg *)base;
    *tx = (struct ring_tx){ .q = &g->ring[connector ? 0 : 1], .R = R, .salt = salt,
                            .data = base + DATA_OFF + (connector ? 0 : R) };
    *rx = (struct ring_rx){ .q = &g->ring[connector ? 1 : 0], .R = R, .salt = salt,
                            .data = base + DATA_OFF + (connector ? R : 0),
                            .idle = connector };   /* ring 0 is in the header's page anyway */
}

/* Room for a record with `size` body bytes, contiguous (a PAD fills the
 * end of the ring if needed), from what we know now: where its header
 * goes, or NULL if there is none (then amx_shm_ring_need says how much to
 * wait for, and the caller asks again after waiting: where a record goes
 * is decided after the last wait, ring_out_off).  The caller fills it and
 * publishes it without waiting in between.  ack: as for ring_publish. */
char *amx_shm_ring_reserve(struct ring_tx *tx, uint64_t size, uint64_t ack)
{
    uint64_t need = REC_LEN(size), off = ring_out_off(tx);
    uint64_t pad = tx->R - off < need ? tx->R - off : 0;
    if (tx->R - (tx->head - tx->tail_seen) < pad + need)
        return NULL;
    tx->claimed = 1;
    if (pad) {   /* published at once: the consumer may skip it now */
        struct rec *at = (struct rec *)(tx->data + off);
        if (!tx->head)
            STORE(&tx->q->started, 1);   /* as ring_publish */
        at->kind = REC_PAD;
        at->size = (uint32_t)(pad - sizeof *at);
        at->ack = ack;
        STORE_REL(&at->stamp, tx->head ^ tx->salt);
        tx->head += pad;
        off = 0;
    }
    return tx->data + off;
}

/* The room to wait for before amx_shm_ring_reserve(size) can succeed: at
 * most the whole ring, since once it is empty it starts over and needs
 * no pad. */
uint64_t amx_shm_ring_need(struct ring_tx *tx, uint64_t size)
{
    uint64_t need = ring_need_now(tx, size);
    return need < tx->R ? need : tx->R;
}
