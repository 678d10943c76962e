/*
 * floor.c - the least an active-message ping-pong over shared memory has
 * to do, for ambench's shm table: how far the bare cache line (no
 * protocol at all) is from what libam's shm transport can reach at best.
 *
 * Every message here does what libam/tr_shm.c, libam/am_send.c and
 * libam/am_input.c do for a small AM, written as one straight function a side and nothing else:
 *   - libam's own records (struct rec, REC_LEN in libam/tr_shm.h): a stamp
 *     stored last (position XOR a salt), kind and size, the ack of the
 *     other ring, the AM header (struct amx_hdr), the payload; a ring
 *     starts over at its first line when the ack says it is empty, and
 *     the reader looks at both places;
 *   - checks: kind, size, the key, the length, the instance, the request
 *     in order (seq), the reply matching a request in flight;
 *   - a window of instances (a free one found, taken, freed by the reply);
 *   - the handler called through the handler table with a token, and its
 *     reply written by a second call;
 *   - the consumer's tail published, and after each record a fence and a
 *     look at the peer's "I sleep" flag (libam's wake-up).
 * Left out, so the floor is if anything low: statistics, blank replies
 * owed, several peers, big messages, nested polls, errors beyond refusal.
 */
#define _GNU_SOURCE
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include "floor.h"
#include "tr_shm.h"

#define RING (64u << 10)
#define DEPTH 8
_Static_assert(FLOOR_MAX == AMX_PACK_MAX, "the floor measures libam's small AMs");

/* libam's ring header (only cons_sleeping and tail are used), then the data */
struct f_ring {
    struct ring c;
    _Alignas(LINE) char data[RING];
};
struct f_seg { struct f_ring ring[2]; };   /* [0] client to server, [1] back */

struct f_ep {
    char *out, *in;
    struct f_ring *oring, *iring;
    uint64_t head, wbase, tail_seen;   /* producer */
    uint64_t rpos, rbase, released;    /* consumer */
    uint64_t salt, peer_key, my_key;
    uint32_t next_seq, expect_seq;
    unsigned inflight;
    struct { int busy; uint32_t seq; } slot[DEPTH];
    int in_handler;
};
struct f_tok { struct f_ep *e; uint32_t seq; uint8_t inst; int replied; };
typedef void (*f_handler)(struct f_tok *, char *, size_t);

static struct f_seg *seg;
static struct f_ep me;
static f_handler table[2];
static volatile int pongs;

/* Write one AM into the out ring: 0, or -1 when there is no room. */
static __attribute__((noinline)) int put(struct f_ep *e, struct amx_hdr *h, const char *d, uint32_t n)
{
    uint64_t size = AMX_HDR + n, need = REC_LEN(size);
    if (e->tail_seen == e->head)
        e->wbase = e->head;
    uint64_t off = (e->head - e->wbase) & (RING - 1);
    if (RING - off < need || RING - (e->head - e->tail_seen) < need)
        return -1;
    char *at = e->out + off;
    struct rec *r = (struct rec *)at;
    h->key = e->peer_key;
    memcpy(at + sizeof *r, h, AMX_HDR);
    memcpy(at + sizeof *r + AMX_HDR, d, n);
    r->kind = REC_AM;
    r->size = (uint32_t)size;
    r->ack = e->released;
    __atomic_store_n(&r->stamp, e->head ^ e->salt, __ATOMIC_RELEASE);
    e->head += need;
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&e->oring->c.cons_sleeping, __ATOMIC_ACQUIRE))
        return 1;   /* libam would write the peer's eventfd here */
    return 0;
}

static __attribute__((noinline)) int request(struct f_ep *e, int handler, const char *d, uint32_t n)
{
    if (e->in_handler || n > FLOOR_MAX || e->inflight >= DEPTH)
        return -1;
    unsigned i = 0;
    while (e->slot[i].busy)
        i++;
    struct amx_hdr h = { .len = n, .seq = e->next_seq, .type = AMX_REQ, .inst = (uint8_t)i,
                       .handler = (uint16_t)handler };
    if (put(e, &h, d, n) < 0)
        return -1;
    e->slot[i].busy = 1;
    e->slot[i].seq = e->next_seq++;
    e->inflight++;
    return 0;
}

static __attribute__((noinline)) int reply(struct f_tok *t, int handler, const char *d, uint32_t n)
{
    if (t->replied || n > FLOOR_MAX)
        return -1;
    t->replied = 1;
    struct amx_hdr h = { .len = n, .seq = t->seq, .type = AMX_REP, .inst = t->inst,
                       .handler = (uint16_t)handler };
    return put(t->e, &h, d, n);
}

/* Handle the next record if there is one: 1, 0 (none), -1 (refused). */
static __attribute__((noinline)) int poll_one(struct f_ep *e)
{
    uint64_t want = e->rpos ^ e->salt;
    struct rec *at = (struct rec *)(e->in + ((e->rpos - e->rbase) & (RING - 1)));
    if (__atomic_load_n(&at->stamp, __ATOMIC_ACQUIRE) != want) {
        at = (struct rec *)e->in;   /* started over? */
        if (__atomic_load_n(&at->stamp, __ATOMIC_ACQUIRE) != want)
            return 0;
        e->rbase = e->rpos;
    }
    uint32_t size = at->size;
    uint64_t ack = at->ack;
    struct amx_hdr h;
    char p[FLOOR_MAX];
    if (at->kind != REC_AM || size < AMX_HDR || size > AMX_HDR + FLOOR_MAX)
        return -1;
    memcpy(&h, at + 1, AMX_HDR);
    if (h.key != e->my_key || h.len != size - AMX_HDR || h.inst >= DEPTH)
        return -1;
    memcpy(p, (char *)(at + 1) + AMX_HDR, h.len);
    e->rpos += REC_LEN(size);
    if (ack - e->tail_seen <= e->head - e->tail_seen)
        e->tail_seen = ack;
    e->released = e->rpos;
    struct f_tok t = { e, h.seq, h.inst, h.type != AMX_REQ };
    if (h.type == AMX_REQ) {
        if (h.seq != e->expect_seq)
            return -1;
        e->expect_seq++;
    } else {
        if (!e->slot[h.inst].busy || e->slot[h.inst].seq != h.seq)
            return -1;
        e->slot[h.inst].busy = 0;
        e->inflight--;
    }
    e->in_handler++;
    table[h.handler & 1](&t, p, h.len);
    e->in_handler--;
    __atomic_store_n(&e->iring->c.tail, e->rpos, __ATOMIC_RELEASE);
    return 1;
}

static void on_ping(struct f_tok *t, char *p, size_t n) { reply(t, 1, p, (uint32_t)n); }
static void on_pong(struct f_tok *t, char *p, size_t n) { (void)t; (void)p; (void)n; pongs++; }

int floor_map(void)
{
    seg = mmap(NULL, sizeof *seg, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    return seg == MAP_FAILED ? -1 : 0;
}

/* Each process takes its side on first use; positions go on across runs. */
static void take_side(int server)
{
    if (me.out)
        return;
    me.out = seg->ring[server].data;
    me.in = seg->ring[!server].data;
    me.oring = &seg->ring[server];
    me.iring = &seg->ring[!server];
    me.salt = 0x8000000000005a17ull;   /* a fixed salt: both sides agree without a hello */
    me.my_key = server ? 0x1111 : 0x2222;
    me.peer_key = server ? 0x2222 : 0x1111;
    table[0] = on_ping;
    table[1] = on_pong;
}

void floor_serve(int reps)
{
    take_side(1);
    for (int got = 0; got < reps;) {
        int rc = poll_one(&me);
        if (rc < 0)
            return;   /* the client gives up too (floor_pingpong) */
        got += rc;
    }
}

double floor_pingpong(int n, int reps)
{
    static char buf[FLOOR_MAX];
    struct timespec a, b;
    take_side(0);
    pongs = 0;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (int r = 0; r < reps; r++) {
        if (request(&me, 0, buf, (uint32_t)n) < 0)
            return -1;
        for (unsigned k = 1; pongs <= r; k++) {
            if (poll_one(&me) < 0)
                return -1;
            if (!(k & 0xfffff)) {   /* a second without the answer: give up */
                clock_gettime(CLOCK_MONOTONIC, &b);
                if (b.tv_sec - a.tv_sec > 1)
                    return -1;
            }
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    return (double)(b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) * 1e-9;
}
