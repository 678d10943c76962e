/*
 * ring.h - one end of a shm ring (layout and records: libam/tr_shm.h,
 * struct ring and struct rec).  The producer's end reserves room for a
 * record and publishes it; the consumer's end finds the next published
 * record and lets go of what it has read.  Nothing here waits or wakes:
 * a reserve with no room says so (NULL) and the caller decides, so every
 * wait for room is in the send path (libam/tr_shm.c, reserve and
 * wait_out), and waking the peer is the caller's too.  The hot parts
 * are inline: every small AM passes through them.
 */
#ifndef SHM_RING_H
#define SHM_RING_H

#include <stdint.h>
#include <string.h>
#include "tr_shm.h"

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* Our end of the ring we write. */
struct ring_tx {
    struct ring *q;              /* in the segment: tail, done, marks, help */
    char *data;
    uint64_t R, salt;            /* ring size (a power of two); the segment's salt */
    uint64_t head;               /* position of the next record */
    uint64_t tail_seen;          /* how far the consumer let go: from tail or acks */
    uint64_t base;               /* where positions start over (struct rec) */
    int claimed;                 /* room given out and not yet published: no wait
                                    may come in between (docs/architecture.md, "Waits") */
};

/* Our end of the ring we read. */
struct ring_rx {
    struct ring *q;
    char *data;
    uint64_t R, salt;
    uint64_t pos;                /* position of the next record */
    uint64_t base;               /* where the producer last started over */
    uint64_t released;           /* let go up to here: tail, and our records' ack */
    int pinned;                  /* handlers running on a record in the ring */
    int idle;                    /* look at q->started, not at the ring, until it is set */
};

/* libam/shm/ring.c */
uint64_t amx_shm_ring_size_for(unsigned depth);
void amx_shm_rings(struct ring_tx *tx, struct ring_rx *rx, char *base, uint64_t R,
                   uint64_t salt, int connector);
char *amx_shm_ring_reserve(struct ring_tx *tx, uint64_t size, uint64_t ack);
uint64_t amx_shm_ring_need(struct ring_tx *tx, uint64_t size);

/* The record the peer published at pos, or NULL: where pos says, or at
 * the first line if the peer started the ring over (struct rec).  A ring
 * whose producer never published (idle: the connector's inbound ring,
 * which lies outside the header's page) is not read at all: reading its
 * first line would give the segment a page in each idle link of
 * pvmam_init's mesh (a fault, a page allocated and cleared, 4 KiB kept). */
static inline __attribute__((always_inline)) struct rec *ring_pending(struct ring_rx *rx)
{
    if (__builtin_expect(rx->idle, 0)) {
        if (!LOAD_ACQ(&rx->q->started))
            return NULL;
        rx->idle = 0;
    }
    uint64_t want = rx->pos ^ rx->salt;
    struct rec *at = (struct rec *)(rx->data + ((rx->pos - rx->base) & (rx->R - 1)));
    if (LOAD_ACQ(&at->stamp) == want)
        return at;
    at = (struct rec *)rx->data;
    if (LOAD_ACQ(&at->stamp) != want)
        return NULL;
    rx->base = rx->pos;
    return at;
}

/* The record at `at`, of adv bytes (REC_LEN), was just taken: ask for
 * the two lines after it, the next records' (the next two of one line,
 * the start of a longer one, guessed to follow it without a start over).
 * A producer that streams is ahead of us, so those records are written
 * already and their lines' transfers overlap our work on this one
 * instead of each following the last: a reader that waits for each
 * record's first line in turn gets one record per line transfer.  A
 * wrong guess costs only the look (a ping-pong's next record goes to the
 * ring's first line again, and the lines asked for are never written);
 * past the ring's end nothing is asked. */
static inline void ring_prefetch_next(const struct ring_rx *rx, const struct rec *at,
                                      uint64_t adv)
{
    const char *p = (const char *)at + adv;
    if (p + 2 * REC_ALIGN <= rx->data + rx->R) {
        __builtin_prefetch(p);
        __builtin_prefetch(p + REC_ALIGN);
    }
}

/* Every record before pos is read, and none is in a running handler's
 * hands: let go of them all (sent as the ack of our next record). */
static inline void ring_release(struct ring_rx *rx)
{
    if (!rx->pinned)
        rx->released = rx->pos;
}

/* The peer has let go of our ring up to a (a record's ack, or its tail):
 * room, and if it is all of it, the ring may start over.  A value outside
 * what we wrote is ignored (only the peer's own input could suffer). */
static inline void ring_take_ack(struct ring_tx *tx, uint64_t a)
{
    if (a - tx->tail_seen <= tx->head - tx->tail_seen)
        tx->tail_seen = a;
}

/* Where the next record goes: the first line again when the peer has let
 * go of all of the ring (struct rec).  It moves the base, so its answer
 * holds only until the next record is written or the next wait: a wait
 * runs handlers, whose replies and acks may empty the ring and move the
 * base again.  So room is reserved after waiting, never before, and the
 * record goes where the reserve said at once. */
static inline uint64_t ring_out_off(struct ring_tx *tx)
{
    if (tx->tail_seen == tx->head)
        tx->base = tx->head;
    return (tx->head - tx->base) & (tx->R - 1);
}

/* Bytes a record of `size` body bytes takes now: itself, and a PAD over
 * the ring's end if it would not fit before it. */
static inline uint64_t ring_need_now(struct ring_tx *tx, uint64_t size)
{
    uint64_t need = REC_LEN(size), off = ring_out_off(tx);
    return need + (tx->R - off < need ? tx->R - off : 0);
}

/* Has the consumer made room for `need` bytes?  Reads its tail (acks may
 * have told us more already).  -1: the tail makes no sense (past what we
 * wrote; behind an ack is only late, as tail is published per batch). */
static inline int ring_has_room(struct ring_tx *tx, uint64_t need)
{
    uint64_t t = LOAD_ACQ(&tx->q->tail);
    if ((int64_t)(t - tx->head) > 0)
        return -1;
    ring_take_ack(tx, t);
    return tx->R - (tx->head - tx->tail_seen) >= need;
}

/* Room for a record of `size` bytes right where the next one goes, with
 * no pad, from what we know without reading the consumer's line: where
 * its header goes, or NULL.  For the small AMs written in one call. */
static inline char *ring_reserve_flat(struct ring_tx *tx, uint64_t size)
{
    uint64_t need = REC_LEN(size), off = ring_out_off(tx);
    if (__builtin_expect(tx->R - off < need || tx->R - (tx->head - tx->tail_seen) < need, 0))
        return NULL;
    tx->claimed = 1;
    return tx->data + off;
}

/* Publish the record whose room was reserved at `at`; ack: how far we
 * let go of the other ring (ring_rx.released).  Waking a sleeping
 * consumer is the caller's. */
static inline void ring_publish(struct ring_tx *tx, char *at, uint32_t kind, uint64_t size,
                                uint64_t ack)
{
    struct rec *r = (struct rec *)at;
    tx->claimed = 0;
    if (__builtin_expect(!tx->head, 0))
        STORE(&tx->q->started, 1);   /* ordered before the stamp by its release */
    r->kind = kind;
    r->size = (uint32_t)size;
    r->ack = ack;
    STORE_REL(&r->stamp, tx->head ^ tx->salt);
    tx->head += REC_LEN(size);
}

/* memcpy for the few bytes of a small AM without a library call (most
 * are a fragment header and a few words): whole words, the last one
 * overlapping the one before; never reads outside src. */
static inline void copy_small(char *d, const char *src, size_t n)
{
    uint64_t w;
    if (n < 8) {
        while (n--)
            *d++ = *src++;
        return;
    }
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&w, src + i, 8);
        memcpy(d + i, &w, 8);
    }
    memcpy(&w, src + n - 8, 8);
    memcpy(d + n - 8, &w, 8);
}

#endif
