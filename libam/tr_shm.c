/*
 * tr_shm.c - the shared-memory transport, for peers on the same host
 * (same kernel and same network namespace).  Reliable and ordered like
 * tcp, so am_send.c keeps no copies or timers.  This file is its ops:
 * sending and receiving; the segment, the handshake and waking are in
 * libam/shm/segment.c, a ring's ends in libam/shm/ring.h, big payloads
 * in libam/shm/copy.c (the list: libam/shm/shm.h).
 *
 * Each pair of endpoints shares one segment from memfd_create holding two
 * single-producer/single-consumer byte rings, one per direction.  Each
 * record carries a stamp that says it is published (no shared head), so a
 * polling receiver reads one cache line per small AM, the one the sender
 * wrote; the receiver's tail sits on a line of its own, and a receiver
 * that polls makes no system call.
 *
 * Records in a ring start on cache lines and are contiguous (a PAD record
 * skips the ring's end); a ring that its reader has emptied starts over at
 * its first line, which the writer still holds (tr_shm.h, struct rec): a
 * ping-pong writes one line per direction, as a bare flag would.  AM
 * headers in records are in host order (am_int.h, host_order): both ends
 * are on this host, so nothing is swapped.  A small AM (payload up to
 * AMX_PACK_MAX) is copied out before its handler runs, so its room goes
 * back at once; one up to INLINE_MAX is copied in and handled in place,
 * and so is a medium one (up to half of the ring) when the ring has room
 * for it now.  A bigger one streams through in chunks or, from CMA_FROM,
 * goes by descriptor (copy.c).
 * One up to AMX_PUT_MAX is written in one call (shm_put_small), and a
 * waiting receiver may take the next REC_SHORT or REC_AM request straight
 * from the ring before any handler (shm_take_ep).
 * Everything read from the segment is the other process's word: copied
 * before use and bounds-checked, and a ring that breaks the rules makes
 * its peer dead.
 *
 * Sleeping: am_event_fd() marks every inbound ring "consumer sleeping" and
 * looks at the rings again; a sender that publishes into a marked ring
 * clears the mark and writes the receiver's eventfd.  The event fd is an
 * epoll set of that eventfd, the listener, and each peer's socket and
 * pidfd, so a blocked task also wakes when a peer dies.  am_poll clears
 * the marks.  A sender waiting for room or for a copy marks its ring
 * "producer waiting" the same way.
 *
 * Waiting: the send path waits in one place, wait_out, for room in the
 * ring (W_SPACE: reserve, after the ring's reserve said "no room") or
 * for the peer's copy of a big payload (W_DONE: send_big).  Why no cycle
 * of waits forms: docs/architecture.md, "Waits".
 */
#include <assert.h>
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include "shm/shm.h"
#include "shm/short.h"

#define WAIT_SPIN_US 30      /* a sender waiting for its peer spins this long, then sleeps */
#define COPY_SPIN_US 20000   /* ...or this long while its peer is copying its payload */
#define RX_BATCH 64          /* records per ring per poll: callers stay responsive */

static int shm_recv(am_interface_t *ifc);
static void send_queued(am_interface_t *ifc, am_endpoint_t *ep);

/* ---- endpoints ------------------------------------------------------------ */

static void free_outq(struct shm_ep *e)
{
    while (e->outq) {
        struct blob *b = e->outq;
        e->outq = b->next;
        free(b);
    }
    e->outq_tail = NULL;
}

static void shm_close_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    amx_shm_land_abandon(ep->tp);
    amx_shm_unwatch(ifc, ep);
}

/* The mapping stays until here: a handler may still be reading from it. */
static void shm_ep_free(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    shm_close_ep(ifc, ep);
    if (e->base)
        munmap(e->base, e->seg_size);
    free_outq(e);
    free(e->lent_iov);
    free(e->buf);
    free(e);
    ep->tp = NULL;
}

/* ---- receiving ------------------------------------------------------------ */

/* A REC_AM's body of size bytes holds a valid AM header whose length is
 * the rest (on_am's check, and shm_take_ep's before it offers one). */
static inline int am_rec_ok(am_interface_t *ifc, const char *body, uint32_t size,
                            struct amx_hdr *h)
{
    return size >= AMX_HDR && amx_shm_parse_am(ifc, body, h) == 0 && h->len == size - AMX_HDR;
}

/* A small AM's payload is copied out, so its room goes back before its
 * handler runs (and replies: the reply's ack lets the sender start its
 * ring over); a bigger one is handled in place, pinning the ring. */
static inline __attribute__((always_inline)) int on_am(am_interface_t *ifc, am_endpoint_t *ep,
                                                     char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    struct amx_hdr h;
    if (!am_rec_ok(ifc, body, size, &h))
        return amx_shm_corrupt(ifc, ep);
    ifc->rx_read += size;
    if (h.len <= AMX_PACK_MAX) {
        _Alignas(16) char p[AMX_PACK_MAX];
        if (h.len <= 64)
            copy_small(p, body + AMX_HDR, h.len);
        else
            memcpy(p, body + AMX_HDR, h.len);
        ring_release(&e->rx);
        return amx_input(ifc, ep, &h, p);
    }
    e->rx.pinned++;
    int n = amx_input(ifc, ep, &h, body + AMX_HDR);
    e->rx.pinned--;
    return n;
}

/* A small AM in one line (libam/shm/short.h): like a small REC_AM. */
static inline __attribute__((always_inline)) int on_short(am_interface_t *ifc,
        am_endpoint_t *ep, const char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    struct amx_hdr h;
    _Alignas(16) char p[SHORT_MAX];
    if (shm_short_get(body, size, &h, p) < 0 || h.len > ifc->cfg.max_payload)
        return amx_shm_corrupt(ifc, ep);
    ifc->rx_read += size;
    ring_release(&e->rx);
    return amx_input(ifc, ep, &h, p);
}

/* The end of a read of ep's ring (read_ring, shm_take_ep): once no
 * handler of it runs, the space goes back (tail). */
static inline void rx_end(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    struct ring_rx *rx = &e->rx;
    if (--e->rx_depth == 0 && e->base) {
        rx->released = rx->pos;
        STORE_REL(&rx->q->tail, rx->pos);
        /* A producer waits for room only with more than R/8 of the ring
         * in use (a record and its pad take at most 7R/8), so looking for
         * it once per R/8 consumed finds it, and saves the fence per poll */
        if (!ep->dead && rx->pos - e->rlooked >= rx->R / 8) {
            e->rlooked = rx->pos;
            amx_shm_consumed(ifc, ep);
        }
    }
}

/* A BIG record at the head of ep's ring waits (am_hold_big) while the
 * caller waits for another peer's big AM, at most AM_HOLD_US from when a
 * poll first left it: the clock is read only for such a record. */
static int held(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    if (ifc->hold_ep && ifc->hold_ep != ep && !e->gone) {
        uint64_t now = amx_now_us() + 1;   /* + 1: never 0, "not held" */
        if (!e->held_since)
            e->held_since = now;
        if (now - e->held_since < AM_HOLD_US)
            return 1;
    }
    e->held_since = 0;
    return 0;
}

/* A record of size body bytes at off lies inside the ring (read_ring's
 * check, and shm_take_ep's). */
static inline int rec_in_ring(const struct ring_rx *rx, uint64_t off, uint32_t size)
{
    return size <= rx->R - off - sizeof(struct rec) && REC_LEN(size) <= rx->R - off;
}

/* Handle what the peer published, up to RX_BATCH records; the space goes
 * back (tail) when no handler of this ring is still running. */
static int read_ring(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    struct ring_rx *rx = &e->rx;
    struct rec *at = ring_pending(rx);
    if (!at)
        return 0;
    int handled = 0;
    e->rx_depth++;
    /* a handler's nested poll may read on: rx.pos is looked at anew each time */
    for (int k = 0; k < RX_BATCH && !ep->dead && (k == 0 || (at = ring_pending(rx))); k++) {
        uint64_t off = (uint64_t)((char *)at - rx->data);
        struct rec r = { 0, at->kind, at->size, at->ack };   /* after the stamp (acquire) */
        uint64_t adv = REC_LEN(r.size);
        if (!rec_in_ring(rx, off, r.size)) {
            amx_shm_corrupt(ifc, ep);
            break;
        }
        /* A small AM's record takes two or three lines: ask for the rest
         * now, so their misses overlap parsing instead of following it */
        for (uint64_t l = REC_ALIGN; l < adv && l < 4 * REC_ALIGN; l += REC_ALIGN)
            __builtin_prefetch((char *)at + l);
        /* A big AM waits for the next poll unless it comes first: the
         * caller may have to act on what came before it (a pvm_precv that
         * returns and posts its buffer again), so that it finds a placer
         * ready instead of landing in a buffer and being copied twice;
         * while the caller waits for another peer's, it may wait longer
         * (am_hold_big, held). */
        if (r.kind == REC_BIG && (k > 0 || held(ifc, ep)))
            break;
        char *body = rx->data + off + sizeof r;
        rx->pos += adv;   /* before the handler: a nested poll goes on from here */
        ring_prefetch_next(rx, at, adv);
        ring_take_ack(&e->tx, r.ack);
        WARM_CHECK(ifc, ep, e, rx->pos);
        if (e->landing && r.kind != REC_CHUNK && r.kind != REC_PAD) {
            amx_shm_corrupt(ifc, ep);
            break;
        }
        switch (r.kind) {
        case REC_PAD: ring_release(rx); break;
        case REC_SHORT: handled += on_short(ifc, ep, body, r.size); break;
        case REC_AM: handled += on_am(ifc, ep, body, r.size); break;
        case REC_BIG:
        case REC_CHUNK:
            rx->pinned++;
            handled += r.kind == REC_BIG ? amx_shm_on_big(ifc, ep, body, r.size)
                                         : amx_shm_on_chunk(ifc, ep, body, r.size);
            rx->pinned--;
            break;
        default: amx_shm_corrupt(ifc, ep); break;
        }
    }
    rx_end(ifc, ep);
    return handled;
}

/* The peer's socket or pidfd spoke: before its welcome (we connected)
 * that is the welcome, which ends the handshake (amx_shm_handshake);
 * then its notes (it mapped the segment: we map it too, segment.c
 * amx_shm_notes); otherwise the peer is gone.  What it sent before
 * counts: a peer writes into its ring only once mapped, and says so
 * before, so its last notes are read before its ring is.  Its ring is
 * read to the end, a big AM at its head included: one held there
 * (am_hold_big) as from a live peer would go with the endpoint, though
 * its sender's send had returned (tests/libam/waits.c). */
static int peer_event(am_interface_t *ifc, am_endpoint_t *ep, int pidfd)
{
    struct shm_ep *e = ep->tp;
    if (ep->dead)
        return 0;
    if (!e->welcomed && amx_shm_handshake(ifc, ep, 0) != AM_ERR_DEAD && !pidfd)
        return 0;
    if (e->welcomed && amx_shm_notes(ifc, ep) && !pidfd)
        return 0;
    int handled = 0;
    e->gone = 1;
    for (int i = 0; i < 1024 && e->base && !ep->dead && ring_pending(&e->rx); i++)
        handled += read_ring(ifc, ep);
    /* what failed first noted its own reason (amx_shm_handshake, _notes) */
    if (pidfd)
        amx_declare_dead(ifc, ep, AM_DEATH_EXITED, 0, "the peer's process ended (pidfd)");
    else
        amx_declare_dead(ifc, ep, AM_DEATH_CLOSED, 0, "the peer's socket ended");
    return handled;
}

/* The epoll set without waiting: the listener, our eventfd, peers. */
static int run_events(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    struct epoll_event evs[32];
    int handled = 0;
    amx_park_expire(ifc, &s->pk);
    int n = epoll_wait(s->epfd, evs, 32, 0);
    for (int i = 0; i < n; i++) {
        uint64_t d = evs[i].data.u64;
        if (amx_greet_tagged(d)) {
            amx_park_greet_event(ifc, &s->pk, d);
        } else if (d == EV_LISTEN) {
            amx_park_accept(ifc, &s->pk);
        } else if (d == EV_WAKE) {
            uint64_t v;
            if (read(s->efd, &v, sizeof v) < 0 && errno != EAGAIN)
                continue;
        } else {
            am_endpoint_t *ep = (am_endpoint_t *)(uintptr_t)(d & ~(uint64_t)1);
            handled += peer_event(ifc, ep, (int)(d & 1));
        }
    }
    return handled;
}

static void mark_sleeping(am_interface_t *ifc, uint32_t v)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        struct shm_ep *e = ep->tp;
        if (e->base && !ep->dead)
            STORE(&e->rx.q->cons_sleeping, v);
    }
}

static int shm_recv(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    int handled = 0;
    s->polls++;
    if (s->armed) {   /* back from (maybe) sleeping: unmark, and see why we woke */
        s->armed = 0;
        mark_sleeping(ifc, 0);
        handled += run_events(ifc);
    } else if (!(s->polls & (s->handshakes ? 15 : 255))) {
        /* new connections, dead peers, welcomes: now and then (a mask,
         * not a division: this runs on every poll) */
        handled += run_events(ifc);
    }
    int k = 0;
    for (am_endpoint_t *ep = ifc->eps; ep && k < 4096; ep = ep->next, k++) {
        struct shm_ep *e = ep->tp;
        if (!e->base || ep->dead)
            continue;
        handled += read_ring(ifc, ep);
        if (e->outq && !e->sending && !e->rx_depth && !ep->dead)
            send_queued(ifc, ep);   /* replies handlers could not send without waiting */
    }
    return handled;
}

/* am_poll_ep: ep's ring alone, with what shm_recv does for it (its queued
 * sends), unless shm_recv's own work is due (back from sleeping, or the
 * epoll set's turn: the same count of polls). */
static int shm_recv_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    if (s->armed || !((s->polls + 1) & (s->handshakes ? 15 : 255)) || !e->base || ep->dead)
        return shm_recv(ifc);
    s->polls++;
    if (!ring_pending(&e->rx) && !e->outq)   /* spun on: the empty case without a call */
        return 0;
    int handled = read_ring(ifc, ep);
    if (e->outq && !e->sending && !e->rx_depth && !ep->dead)
        send_queued(ifc, ep);
    return handled;
}

/* shm_take_ep's REC_AM (a small AM of more than SHORT_MAX bytes, written
 * whole by shm_put_small or send_one): its header, if the record passes
 * read_ring's and on_am's checks, with *adv its length in the ring, else
 * *adv = 0.  Apart, and the header returned rather than written through
 * a pointer, so that the one-line case stays short. */
static __attribute__((noinline)) struct amx_hdr take_am_hdr(am_interface_t *ifc,
        const struct ring_rx *rx, const struct rec *at, uint32_t size, uint64_t *adv)
{
    struct amx_hdr h = { 0 };
    uint64_t off = (uint64_t)((const char *)at - rx->data);
    *adv = REC_LEN(size);
    if (!rec_in_ring(rx, off, size) || !am_rec_ok(ifc, (const char *)at + sizeof *at, size, &h))
        *adv = 0;
    return h;
}

/* am_take_ep: ep's next record, if it is a REC_SHORT or REC_AM request
 * that may be offered (amx_take_ok), to take; taken, it is read as
 * read_ring reads it (the same steps, with rx_depth up, so that a blank
 * reply paid on the way queues rather than waits, as inside read_ring)
 * and accounted as amx_input would for a handler that sent no reply.
 * Anything else, or shm_recv_ep's own work due (shm_recv's, queued
 * sends, a handler of this ring running): AM_TAKE_POLL, and nothing is
 * read. */
static int shm_take_ep(am_interface_t *ifc, am_endpoint_t *ep, am_take_fn take, void *arg)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct ring_rx *rx = &e->rx;
    if (s->armed || !((s->polls + 1) & (s->handshakes ? 15 : 255)) || !e->base || ep->dead ||
        e->outq || e->rx_depth || e->landing)
        return AM_TAKE_POLL;
    s->polls++;
    struct rec *at = ring_pending(rx);
    if (!at)
        return 0;
    struct rec r = { 0, at->kind, at->size, at->ack };   /* after the stamp (acquire) */
    struct amx_hdr h;
    const char *body = (char *)at + sizeof r, *pl;
    uint64_t adv;
    /* take reads the payload in place, once (it copies it out): the
     * record is ours until rx.pos passes it and the release goes back to
     * the peer, below.  A REC_SHORT is one line (shm_short_hdr checks its
     * size), on a line of the ring, so it is inside the ring.  A record
     * that fails a check is read_ring's, which drops it. */
    if (r.kind == REC_SHORT) {
        if (shm_short_hdr(body, r.size, &h) < 0)
            return AM_TAKE_POLL;
        pl = body + SHORT_HDR;
        adv = REC_ALIGN;
    } else if (r.kind == REC_AM) {
        /* its next lines now, as read_ring asks for them: their misses
         * overlap the checks instead of following them */
        for (uint64_t l = REC_ALIGN; l < REC_LEN(r.size) && l < 4 * REC_ALIGN; l += REC_ALIGN)
            __builtin_prefetch((char *)at + l);
        h = take_am_hdr(ifc, rx, at, r.size, &adv);
        if (!adv)
            return AM_TAKE_POLL;
        pl = body + AMX_HDR;
    } else {
        return AM_TAKE_POLL;
    }
    if (h.len > ifc->cfg.max_payload || !amx_take_ok(ifc, ep, &h) ||
        !take(arg, h.handler, pl, h.len))
        return AM_TAKE_POLL;   /* read_ring's turn: it handles, or drops, as ever */
    e->rx_depth++;
    rx->pos += adv;
    ring_prefetch_next(rx, at, adv);
    ring_take_ack(&e->tx, r.ack);
    WARM_CHECK(ifc, ep, e, rx->pos);
    ifc->rx_read += r.size;
    ring_release(rx);
    amx_input_taken(ifc, ep, &h);
    rx_end(ifc, ep);
    return 1;
}

/* The caller is about to block on the epoll set: mark every inbound ring,
 * then look again, so a record published meanwhile is not slept through. */
static int shm_event_fd(const am_interface_t *cifc)
{
    am_interface_t *ifc = (am_interface_t *)cifc;
    struct shm *s = ifc->trd;
    s->armed = 1;
    mark_sleeping(ifc, 1);
    FENCE();
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        struct shm_ep *e = ep->tp;
        if (e->base && !ep->dead && ring_pending(&e->rx)) {
            uint64_t one = 1;
            if (write(s->efd, &one, sizeof one) < 0) {
                /* the counter is full: it is readable anyway */
            }
            break;
        }
    }
    return s->epfd;
}

/* ---- sending -------------------------------------------------------------- */

/* Publish the record reserved at at; wake the peer if it sleeps.  Inline:
 * on every small AM (shm_put_small). */
static inline void commit(am_interface_t *ifc, am_endpoint_t *ep, char *at, uint32_t kind,
                          uint64_t size)
{
    struct shm_ep *e = ep->tp;
    ring_publish(&e->tx, at, kind, size, e->rx.released);
    WARM_CHECK(ifc, ep, e, e->tx.head);
    FENCE();
    if (LOAD_ACQ(&e->tx.q->cons_sleeping) &&
        __atomic_exchange_n(&e->tx.q->cons_sleeping, 0, __ATOMIC_ACQ_REL))
        amx_shm_wake(ifc, ep);
}

enum { W_SPACE, W_DONE };

/* Has the peer made room for `need` bytes, or copied BIG `need`?
 * -1: its tail makes no sense (past what we wrote; behind what an ack
 * said is only late, as tail is published after a batch). */
static int ready(struct shm_ep *e, int what, uint64_t need)
{
    if (what == W_DONE)
        return (int64_t)(LOAD_ACQ(&e->tx.q->done) - need) >= 0;
    return ring_has_room(&e->tx, need);
}

/* Wait for ready(), handling our own input meanwhile (two tasks sending
 * big AMs to each other must not wait for each other); spin briefly, then
 * sleep on the epoll set with the ring marked, so the peer's consumer
 * wakes us; a peer that dies wakes us too. */
static int wait_out(am_interface_t *ifc, am_endpoint_t *ep, int what, uint64_t need)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    uint64_t spin_end = 0, copy_end = 0;
    /* The wait rule (docs/architecture.md, "Waits"): never wait holding
     * room not yet published.  Its offset would be stale afterwards, and
     * the peer would look for the next record where it is not. */
    assert(!e->tx.claimed);
    for (;;) {
        if (what == W_DONE && e->help_iov)
            amx_shm_help_write(ifc, ep, need);
        int r = ep->dead ? 0 : ready(e, what, need);
        if (r < 0) {
            amx_dead_note(ep, AM_DEATH_CORRUPT, 0, "the peer's ring tail makes no sense");
            amx_shm_corrupt(ifc, ep);
            return AM_ERR_DEAD;
        }
        if (ep->dead)
            return AM_ERR_DEAD;
        if (r)
            return AM_OK;
        shm_recv(ifc);
        amx_wait_hook(ifc);
        uint64_t now = amx_now_us();
        if (!spin_end)
            spin_end = now + WAIT_SPIN_US;
        if (now < spin_end || ep->dead)
            continue;
        /* The peer runs and copies our payload now: it is done in a
         * moment, and waking us would cost more than the copy's rest.
         * Give the core away meanwhile if told to (tasks outnumbering
         * cores: the copier may need this one). */
        if (what == W_DONE && LOAD_ACQ(&e->tx.q->copying) == need) {
            if (!copy_end)
                copy_end = now + COPY_SPIN_US;
            if (now < copy_end) {
                if (ifc->cfg.wait == AM_WAIT_YIELD)
                    sched_yield();
                continue;
            }
        }
        /* about to sleep: the blank replies we owe go first, as before any
         * sleep (am_event_fd); those to ep queue behind this send */
        amx_pay_all(ifc);
        STORE(&e->tx.q->prod_waiting, 1);
        FENCE();
        if (!ep->dead && ready(e, what, need) == 0) {
            shm_event_fd(ifc);
            struct pollfd p = { .fd = s->epfd, .events = POLLIN };
            poll(&p, 1, ifc->wait_hook ? 1 : 100);
        }
        STORE(&e->tx.q->prod_waiting, 0);
        spin_end = 0;
    }
}

/* Room for a record with `size` body bytes: where its header goes, or
 * NULL if the peer is dead.  The one place the send path waits for room:
 * the ring's reserve says "no room" and we wait here, then ask again, so
 * where the record goes is decided after the last wait, never before
 * (ring_out_off): while we waited the peer may have emptied the ring and
 * a handler's reply (shm_put_small) started it over at its first line,
 * and a record written at an offset found before would lie where the peer
 * never looks (both tasks then wait for ever: the peer for replies behind
 * that record, we for the peer to copy it).  The caller fills the record
 * and commit()s it without waiting in between. */
static char *reserve(am_interface_t *ifc, am_endpoint_t *ep, uint64_t size)
{
    struct shm_ep *e = ep->tp;
    char *at;
    while (!(at = amx_shm_ring_reserve(&e->tx, size, e->rx.released)))
        if (wait_out(ifc, ep, W_SPACE, amx_shm_ring_need(&e->tx, size)) < 0)
            return NULL;
    return at;
}

/* The peer has copied the lent BIG_CMA still pending, if any (the
 * reclaim op, am_reclaim): the wait send_big skipped.  The lent pieces
 * are the caller's until then (am.h, am_request_lend_ep). */
static int shm_reclaim(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    if (!e || !e->lent_seq)
        return AM_OK;
    int rc = ep->dead ? AM_ERR_DEAD : wait_out(ifc, ep, W_DONE, e->lent_seq);
    e->lent_seq = 0;
    e->help_iov = NULL;
    free(e->lent_iov);
    e->lent_iov = NULL;
    return rc;
}

/* Does a big AM of total bytes (header included) go by descriptor
 * (BIG_CMA, copy.c) rather than streamed through the ring?  Only where the
 * peer may read our memory, and only from s->cma_from (CMA_FROM, shm.h). */
static int by_cma(am_interface_t *ifc, struct shm_ep *e, size_t total)
{
    const struct shm *s = ifc->trd;
    return LOAD_ACQ(&e->tx.q->cma_ok) && total - AMX_HDR >= s->cma_from;
}

/* A payload too big for a record (copy.c): a BIG record, then the
 * payload in CHUNK records through the ring, each waiting for room
 * (BIG_STREAM), or, from CMA_FROM (by_cma), the wait for the peer's copy
 * (BIG_CMA).  A lent one (lent: the
 * pieces stay the caller's until am_reclaim) by descriptor does not wait
 * for the copy: the caller sends on, to this peer or others (pvm_mcast:
 * every peer copies at once instead of one after the other), and
 * am_reclaim waits for it.  One such copy per peer at a time: a later big
 * send to it waits for the earlier copy first. */
static int send_big(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n,
                    size_t total, int lent)
{
    struct shm_ep *e = ep->tp;
    struct big b;
    struct span sp[MAX_IOV];
    char hdr[AMX_HDR];
    size_t from;
    if (e->lent_seq && shm_reclaim(ifc, ep) < 0)
        return AM_ERR_DEAD;
    /* no memory for the list: wait for the copy as if not lent */
    struct iovec *keep = lent ? malloc(sizeof *keep * (size_t)n) : NULL;
    int size = amx_shm_big_describe(e, iov, n, total, by_cma(ifc, e, total), hdr, &b, sp, &from);
    if (size < 0) {
        free(keep);
        return size;
    }
    char *at = reserve(ifc, ep, (uint64_t)size);
    if (!at) {
        free(keep);
        return AM_ERR_DEAD;
    }
    memcpy(at + sizeof(struct rec), hdr, AMX_HDR);
    memcpy(at + sizeof(struct rec) + AMX_HDR, &b, sizeof b);
    memcpy(at + sizeof(struct rec) + AMX_HDR + sizeof b, sp, b.niov * sizeof *sp);
    commit(ifc, ep, at, REC_BIG, (uint64_t)size);
    if (b.mode == BIG_CMA) {   /* it reads from our memory: ours again when done says so */
        e->big_seq++;
        e->help_iov = iov;   /* meanwhile it may ask us to write a part (help_write) */
        e->help_n = n;
        e->help_from = from;
        e->help_total = total - from;
        if (keep && n > 0) {   /* iov itself is the caller's stack: keep the list */
            memcpy(keep, iov, sizeof *keep * (size_t)n);
            e->help_iov = e->lent_iov = keep;
            e->lent_seq = b.seq;
            return AM_OK;
        }
        free(keep);
        int rc = wait_out(ifc, ep, W_DONE, b.seq);
        e->help_iov = NULL;
        return rc;
    }
    free(keep);
    size_t chunk = e->tx.R / 4;
    while (from < total) {   /* the ring fallback: a pipelined copy */
        size_t k = total - from < chunk ? total - from : chunk;
        if (!(at = reserve(ifc, ep, k)))
            return AM_ERR_DEAD;
        amx_shm_gather(at + sizeof(struct rec), iov, n, from, k);
        commit(ifc, ep, at, REC_CHUNK, k);
        from += k;
    }
    return AM_OK;
}

/* A medium AM (up to half the ring) that fits in the ring now is
 * copied in like a small one: two copies, but the sender goes on at once.
 * The one-copy path waits until the receiver has copied it, and with more
 * tasks than cores the receiver may not run for a while. */
static int fits_now(struct shm_ep *e, size_t total)
{
    uint64_t need = ring_need_now(&e->tx, total);
    return total <= e->tx.R / 2 && ring_has_room(&e->tx, need) == 1;
}

static int send_one(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n,
                    int lent)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total < AMX_HDR)
        return AM_ERR_INVAL;
    if (total > AMX_HDR + INLINE_MAX && !fits_now(ep->tp, total))
        return send_big(ifc, ep, iov, n, total, lent);
    char *at = reserve(ifc, ep, total);
    if (!at)
        return AM_ERR_DEAD;
    amx_shm_gather(at + sizeof(struct rec), iov, n, 0, total);
    commit(ifc, ep, at, REC_AM, total);
    return AM_OK;
}

/* Could the first record of this AM go into the ring now, without
 * waiting for room?  (A big one by descriptor waits afterwards only for
 * the peer's copy; one streamed in CHUNKs waits for room again.) */
static int starts_now(am_interface_t *ifc, struct shm_ep *e, const struct iovec *iov, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total > AMX_HDR + INLINE_MAX && !fits_now(e, total)) {
        if (!by_cma(ifc, e, total))
            return 0;
        total = AMX_HDR + sizeof(struct big) + (size_t)n * sizeof(struct span);
    }
    return ring_has_room(&e->tx, ring_need_now(&e->tx, total)) == 1;
}

/* A send from a handler while a send to the same peer waits: after it.
 * And one from a handler of the peer's own input that cannot start
 * without waiting for room (shm_send): sent by shm_recv afterwards. */
static int queue_out(struct shm_ep *e, const struct iovec *iov, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    struct blob *b = malloc(sizeof *b + len);
    if (!b)
        return AM_ERR_NOMEM;
    b->next = NULL;
    b->len = len;
    amx_shm_gather(b->data, iov, n, 0, len);
    if (e->outq_tail)
        e->outq_tail->next = b;
    else
        e->outq = b;
    e->outq_tail = b;
    return AM_OK;
}

/* The end of a send (rc its result so far): what handlers queued while it
 * waited goes now, in order. */
static int send_done(am_interface_t *ifc, am_endpoint_t *ep, int rc)
{
    struct shm_ep *e = ep->tp;
    while (rc == AM_OK && e->outq && !ep->dead) {
        struct blob *b = e->outq;
        if (!(e->outq = b->next))
            e->outq_tail = NULL;
        struct iovec v = { b->data, b->len };
        rc = send_one(ifc, ep, &v, 1, 0);
        free(b);
    }
    e->sending = 0;
    return ep->dead ? AM_ERR_DEAD : rc;
}

/* Send what was queued while no send to ep was under way (handlers of
 * ep's input, see shm_send), now that none runs. */
static void send_queued(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    e->sending = 1;
    if (send_done(ifc, ep, AM_OK) < 0 && !ep->dead)
        amx_declare_dead(ifc, ep, AM_DEATH_SYS, 0,   /* the stream would lose a reply */
                         "sending queued replies failed");
}

/* The wait rule (docs/architecture.md, "Waits"): a send made while a
 * handler of ep's own input runs (rx_depth: read_ring on the stack) never
 * waits for room in the ring to ep.  That handler pins ep's ring to us
 * (a record handled in place, and the tail is published only once the
 * outermost read_ring ends), so while it waits the peer cannot get room
 * from us either; if the peer's handler waited for room to us the same
 * way, neither would ever return.  Such a send is queued instead and
 * goes from shm_recv once no handler of ep's input runs; one that starts
 * at once may still wait for the peer's copy of a big payload, which any
 * ring read of the peer's makes, nested or not.  Queued AMs keep their
 * order: whatever follows them queues too, or sends them first. */
static int shm_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    struct shm_ep *e = ep->tp;
    /* lent by the caller (am_send.c): only for this AM, never a handler's */
    int lent = ifc->tx_lent && !ifc->in_handler;
    ifc->tx_lent = 0;
    if (ep->dead || e->fd < 0)
        return AM_ERR_DEAD;
    if (!e->base && amx_shm_map(ifc, ep, 1) < 0) {   /* the link's first send */
        amx_declare_dead(ifc, ep, AM_DEATH_SYS, 0, "mapping the segment failed");
        return AM_ERR_DEAD;
    }
    if (e->sending || (e->rx_depth && (e->outq || !starts_now(ifc, e, iov, n))))
        return queue_out(e, iov, n);
    e->sending = 1;
    int rc = AM_OK;
    while (rc == AM_OK && e->outq && !ep->dead) {   /* queued ones first */
        struct blob *b = e->outq;
        if (!(e->outq = b->next))
            e->outq_tail = NULL;
        struct iovec v = { b->data, b->len };
        rc = send_one(ifc, ep, &v, 1, 0);
        free(b);
    }
    if (rc == AM_OK && !ep->dead)
        rc = send_one(ifc, ep, iov, n, lent);
    return send_done(ifc, ep, rc);
}

/* shm_put_small's REC_AM: the header as it is in memory (host_order),
 * then the payload.  Apart, so that the one-line case makes no call and
 * saves no registers. */
static __attribute__((noinline)) int put_am(am_interface_t *ifc, am_endpoint_t *ep,
                                            const struct amx_hdr *h, const struct iovec *iov,
                                            int n)
{
    struct shm_ep *e = ep->tp;
    uint64_t size = AMX_HDR + (uint64_t)h->len;
    char *at = ring_reserve_flat(&e->tx, size);
    if (!at)
        return AMX_PUT_LATER;
    /* The payload first, from its last piece back, and the header's line
     * last: that line is the one the reader polls (the stamp), so it is
     * fetched back from the reader once, when the record is published,
     * not also before the payload (and the payload's stores do not queue
     * behind that fetch). */
    char *d = at + sizeof(struct rec) + AMX_HDR + h->len;
    for (int i = n - 1; i >= 0; i--) {   /* a few words inline, more by the library's copy */
        d -= iov[i].iov_len;
        if (iov[i].iov_len <= 64)
            copy_small(d, iov[i].iov_base, iov[i].iov_len);
        else
            memcpy(d, iov[i].iov_base, iov[i].iov_len);
    }
    memcpy(at + sizeof(struct rec), h, AMX_HDR);
    commit(ifc, ep, at, REC_AM, size);
    return ep->dead ? AM_ERR_DEAD : AM_OK;
}

/* A small AM (am_send.c's put_small) written straight into the ring:
 * up to SHORT_MAX payload bytes as one REC_SHORT line, else a REC_AM
 * (put_am).  Only when it fits now without a pad: waiting for room may
 * run handlers, whose own sends must queue behind this one, and shm_send
 * does that. */
static int shm_put_small(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                         const struct iovec *iov, int n)
{
    struct shm_ep *e = ep->tp;
    /* a send under way first: it may be waiting, and its record goes first */
    if (__builtin_expect(ep->dead || !e->base || e->fd < 0 || e->sending || e->outq, 0))
        return AMX_PUT_LATER;
    if (h->len > SHORT_MAX)
        return put_am(ifc, ep, h, iov, n);
    char *at = ring_reserve_flat(&e->tx, SHORT_HDR + (uint64_t)h->len);   /* one line */
    if (!at)
        return AMX_PUT_LATER;
    commit(ifc, ep, at, REC_SHORT, shm_short_put(at, h, iov, n));
    return ep->dead ? AM_ERR_DEAD : AM_OK;
}

const struct am_transport_ops amx_tr_shm = {
    .name = "shm",
    .reliable = 1,
    .host_order = 1,
    .default_payload = 1u << 20,
    .max_payload = 64u << 20,
    .init = amx_shm_init,
    .shutdown = amx_shm_shutdown,
    .ep_new = amx_shm_ep_new,
    .ep_free = shm_ep_free,
    .peer = amx_shm_peer,
    .host = amx_shm_host,
    .connect = amx_shm_connect,
    .accept = amx_shm_accept,
    .send = shm_send,
    .recv = shm_recv,
    .recv_ep = shm_recv_ep,
    .event_fd = shm_event_fd,
    .close_ep = shm_close_ep,
    .placement_discard = amx_shm_placement_discard,
    .put_small = shm_put_small,
    .reclaim = shm_reclaim,
    .take_ep = shm_take_ep,
};
