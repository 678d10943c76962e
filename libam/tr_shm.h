/*
 * tr_shm.h - what the shm transport (libam/tr_shm.c, libam/shm/) shares with its peer:
 * the segment's layout, the records in its rings and the hello and welcome
 * passed over the set-up socket.  A header of its own so that tests can
 * play a peer with well-formed bytes (tests/fuzz/fuzz_am_shm.c writes the
 * records a peer would, tests/integration/stranger_raw.c says a hello,
 * bench/ambench/floor.c measures the least these records cost);
 * nothing here is libam's API.
 */
#ifndef TR_SHM_H
#define TR_SHM_H

#include <stdint.h>
#include "am_int.h"

#define SHM_SOCK_PREFIX "pvmam-"   /* abstract AF_UNIX name: this + the address */
#define LINE 128   /* two 64-byte lines: the adjacent-line prefetcher fetches pairs */
#define SEG_MAGIC 0x414d5348u   /* "AMSH" */
#define SEG_VERSION 9   /* 2: the hello carries the secret; 3: stamped records;
                           4: ring 0 in the header's page; 5: host-order AM headers;
                           6: records carry an ack, a ring may start over, and a
                              BIG_CMA's consumer may ask its producer to help copy;
                           7: REC_SHORT, a small AM in one line;
                           8: ring.started;
                           9: the salt in the hello, the acceptor's probe in the
                              welcome, segments mapped on first use (NOTE_MAP) */
#define RING_MIN ((uint64_t)64 << 10)
#define RING_MAX ((uint64_t)64 << 20)
/* Payloads up to this are copied through the ring; bigger ones go by
 * descriptor, and those are the ones a placer may want (AM_PLACE_MIN). */
#define INLINE_MAX (AM_PLACE_MIN + AM_PLACE_HEAD_MAX)
#define HEAD_INL AM_PLACE_HEAD_MAX   /* payload bytes a BIG record carries itself */
#define MAX_IOV 68

enum { REC_AM = 1, REC_BIG, REC_CHUNK, REC_PAD, REC_SHORT };
enum { BIG_CMA = 1, BIG_STREAM };

/* In shared memory: one direction.  There is no head: each record says
 * itself that it is published (struct rec), so a polling consumer reads
 * one cache line per small AM, the one the producer wrote it into. */
struct ring {
    _Alignas(LINE) uint32_t prod_waiting;   /* producer sleeps until tail or done move */
    uint32_t started;                    /* producer: a record was published (set once,
                                            before the first stamp): until then the
                                            connector's consumer leaves the ring's
                                            pages alone (ring.h, ring_pending) */
    _Alignas(LINE) uint64_t tail;        /* consumer: bytes it is done with */
    uint64_t done;                       /* consumer: last BIG_CMA seq copied */
    uint64_t copying;                    /* consumer: the BIG_CMA seq it copies now */
    _Alignas(LINE) uint32_t cons_sleeping;   /* consumer may block: wake it */
    uint32_t cma_ok;                     /* consumer can read the producer's memory */
    /* The consumer of BIG_CMA help_seq asks its producer, who waits for
     * `done` meanwhile, to write help_len bytes of it, from payload byte
     * help_off (after the head), to the consumer's help_dst: two cores
     * copy at once (process_vm_writev; the other ring's cma_ok says the
     * producer may).  help_state: HELP_*, claimed by compare-and-swap. */
    _Alignas(LINE) uint64_t help_seq;
    uint64_t help_dst, help_len, help_off;
    uint32_t help_state;
};
enum { HELP_ASKED = 1, HELP_WRITING, HELP_WRITTEN, HELP_FAILED, HELP_TAKEN };

struct seg {
    uint32_t magic, version;
    uint64_t ring_size;
    uint64_t salt;                       /* stamps (struct rec): the connector's random
                                            (the hello carries it; not read from here) */
    _Alignas(LINE) struct ring ring[2];  /* [0] connector to acceptor, [1] back */
};
/* Ring 0 starts right after the header, in its page: a link that has
 * carried a few AMs each way holds two pages, not three. */
#define DATA_OFF ((sizeof(struct seg) + LINE - 1) & ~(size_t)(LINE - 1))

/* A record starts on a cache line and takes whole lines (REC_ALIGN).  Its
 * stamp, stored last, is its ring position XOR the segment's salt: no
 * earlier lap's record, nor payload bytes left there, carry that value
 * (the salt is random, so user data cannot match it by accident; its top
 * bit is set, so fresh zeroes are no stamp).
 *
 * Positions count bytes for ever; where a record lies is its position
 * less the ring's base, modulo the ring's size.  The base moves to the
 * producer's position when it knows the ring is empty (every record read
 * and let go): the next record goes to the ring's first line again, so a
 * ping-pong keeps writing the same line, which the writer still holds,
 * instead of a new one it must first fetch.  The consumer, not told, finds
 * a record at its position either where it expects it or at the first
 * line.  `ack` is how the producer learns the other ring is empty without
 * reading a line the consumer writes: every record says how far its
 * writer has let go of the ring it reads (the same count it publishes as
 * `tail`, sooner). */
struct rec {
    uint64_t stamp;
    uint32_t kind, size;                 /* then size bytes, after ack */
    uint64_t ack;                        /* the writer's `tail` of the other ring */
};
#define REC_ALIGN 64
#define REC_LEN(size) ((sizeof(struct rec) + (uint64_t)(size) + REC_ALIGN - 1) & \
                       ~(uint64_t)(REC_ALIGN - 1))

/* REC_SHORT: a small AM whose record is one 64-byte line (libam/shm/short.h
 * writes and reads it).  After struct rec, instead of the 32-byte AM header,
 * the same fields in SHORT_HDR bytes at these offsets (host order; no
 * magic: the stamp frames it; the length is rec.size - SHORT_HDR), then
 * the payload, at most SHORT_MAX bytes. */
#define SHORT_KEY 0          /* u64 the receiver's secret, checked as any AM's */
#define SHORT_SEQ 8          /* u32 */
#define SHORT_PB_SEQ 12      /* u32 */
#define SHORT_HANDLER 16     /* u16 */
#define SHORT_INST 18        /* u8 */
#define SHORT_PB_INST 19     /* u8 */
#define SHORT_NBLANK 20      /* u8 */
#define SHORT_FLAGS 21       /* u8: AMX_F_ACKNOW, SHORT_F_PB, SHORT_F_REP */
#define SHORT_HDR 22
#define SHORT_F_PB 0x10      /* a blank reply rides along (amx_hdr.pb) */
#define SHORT_F_REP 0x20     /* a reply (else a request) */
#define SHORT_MAX (REC_ALIGN - sizeof(struct rec) - SHORT_HDR)
_Static_assert(REC_ALIGN - sizeof(struct rec) - SHORT_HDR == 18, "a short AM's payload");

struct big {                             /* after the AM header of a REC_BIG */
    uint32_t mode, head_len;
    uint64_t seq;                        /* BIG_CMA: `done` reaches it once copied */
    uint32_t niov, pad;
    unsigned char head[HEAD_INL];        /* the first head_len payload bytes */
};                                       /* BIG_CMA: niov struct span follow */
struct span { uint64_t base, len; };

/* Over the socket: connector -> acceptor with [memfd, eventfd], and the
 * answer with [eventfd].  probe_*: a word of the sender's memory, which the
 * other side reads to learn whether it may (process_vm_readv).  Neither
 * side maps the segment then: the hello says all the acceptor checks, and
 * a side maps it when it first sends, telling the other with NOTE_MAP
 * (libam/shm/segment.c, amx_shm_map). */
struct hello {
    uint32_t magic, version;
    uint64_t key;             /* the acceptor's secret (am_auth.c) */
    char addr[AMX_ADDRLEN];
    uint64_t seg_size, ring_size;
    uint64_t probe_addr, probe_val;
    uint64_t salt;            /* stamps (struct rec): top bit set, never a position */
};
struct welcome {
    uint32_t magic, version;
    uint64_t probe_addr, probe_val;
    uint32_t cma_ok;          /* the acceptor may read the connector's memory: ring 0's
                                 cma_ok, which the connector stores when it maps */
    uint32_t pad;
};
/* After the welcome, the socket carries only one-byte notes: NOTE_MAP, "I
 * mapped the segment (and may write into my ring): map it too". */
#define NOTE_MAP 'M'

#endif
