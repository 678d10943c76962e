/*
 * shm.h - what the files of the shm transport share (inside libam only;
 * what the peer shares is libam/tr_shm.h).  The transport is:
 *   libam/tr_shm.c        the ops: sending (every wait for the peer is
 *                         there) and receiving (the ring reader, events)
 *   libam/shm/segment.c   the interface, the segment, the handshake, waking
 *   libam/shm/ring.[ch]   one end of a ring: records reserved, published, found
 *   libam/shm/short.h     REC_SHORT: a small AM in one line, written and read
 *   libam/shm/copy.c      big payloads: by descriptor (CMA, help writes)
 *                         and streamed in CHUNK records
 *   libam/conn_park.c     incoming connections until am_accept claims them
 * Calls go from tr_shm.c down to the others and from copy.c to
 * segment.c, never back up: no circle of files.
 */
#ifndef SHM_SHM_H
#define SHM_SHM_H

#include <sys/types.h>
#include <sys/uio.h>
#include "am_int.h"
#include "conn_park.h"
#include "ring.h"

/* epoll data: these two, a greeting (AMX_GREET_TAG), else an endpoint
 * (its socket), +1 for its pidfd */
#define EV_LISTEN 1u
#define EV_WAKE 2u

/* Big payloads from this size go by descriptor, copied once by the
 * receiver (copy.c, BIG_CMA); smaller ones stream through the ring. */
#define CMA_FROM SIZE_MAX

struct shm {
    int lfd, epfd, efd;
    struct amx_park pk;          /* connections before their endpoint (conn_park.c) */
    int handshakes;              /* our mapped connections still without their welcome */
    unsigned polls;
    int armed;                   /* am_event_fd marked the rings: am_poll unmarks */
    int no_cma;                  /* LIBAM_SHM_NO_CMA: never read peers' memory */
    int help_knob;               /* test knobs: LIBAM_SHM_NO_HELP (1): never write a
                                    consumer's part; LIBAM_SHM_HELP_FAILS (2): claim it
                                    and say the write failed (copy.c, help_write) */
    char host[AMX_ADDRLEN];      /* "<boot id>:<net namespace>" */
    dev_t efd_dev;               /* our eventfd's, what a peer's must match (is_eventfd) */
    ino_t efd_ino;
    mode_t efd_mode;
    uint64_t salt_base;          /* segments' salts (segment.c, next_salt) */
    uid_t euid;                  /* peers must run under it (segment.c, peer_pid) */
    size_t cma_from;             /* payloads from this size go by descriptor (copy.c,
                                    CMA_FROM; LIBAM_SHM_CMA_FROM overrides it) */
};

struct blob { struct blob *next; size_t len; char data[]; };

struct shm_ep {
    /* no copy of the host: a peer is only ever on ours (struct shm's host,
     * amx_shm_peer), and 1000 bytes an endpoint was most of an idle shm
     * peer's heap (tests/integration/scale.sh) */
    int fd, pidfd, peer_efd;
    pid_t pid;
    int connector, welcomed;
    char *base;                  /* the segment, mapped (NULL: not yet, segment.c amx_shm_map) */
    size_t seg_size;
    int memfd;                   /* the segment until it is mapped, then -1 */
    uint64_t R, salt;            /* its rings' size and stamps' salt (from the hello) */
    int rx_cma, tx_cma;          /* the rings' cma_ok as known before mapping: we may read
                                    the peer's memory (rx), it may read ours (tx) */
    uint64_t probe_addr, probe_val;   /* the acceptor's: the hello's probe, read at map */
    int awaiting;                /* connector: mapped, its welcome not yet taken
                                    (counted in struct shm's handshakes) */
    struct ring_tx tx;           /* the ring we write */
    struct ring_rx rx;           /* the ring we read */
    /* producer */
    uint64_t big_seq;
    int sending;                 /* in shm_send: nested sends are queued */
    const struct iovec *help_iov;   /* the BIG_CMA waiting for done, while the */
    int help_n;                     /* consumer may ask us to write a part of it: */
    size_t help_from, help_total;   /* its payload: from byte help_from on */
    uint64_t lent_seq;           /* a lent BIG_CMA the peer may still be copying
                                    (0: none): am_reclaim waits for its done */
    struct iovec *lent_iov;      /* its pieces (help_iov then), on the heap */
    struct blob *outq, *outq_tail;
    /* consumer */
    uint64_t rlooked;            /* rx.pos when we last looked for a waiting producer */
    int warm;                    /* 0: not yet; 1: asked (declined); 2: mapped whole */
    int rx_depth;                /* read_ring on the stack (handlers may nest) */
    int buf_busy;                /* buf holds an AM being handled */
    uint64_t held_since;         /* am_hold_big left our BIG record since (us; 0: not) */
    int gone;                    /* the peer is gone: its ring is read to the end, no
                                    BIG record held (tr_shm.c, peer_event) */
    char *buf;                   /* for AMs no placer took */
    size_t buf_cap;
    /* a BIG_STREAM payload still arriving in CHUNKs */
    int landing, land_placed, land_discard;
    size_t land_left, land_total;
    char *land_dst, *land_buf;     /* land_buf: the buffer it fills, if not placed */
    struct amx_hdr land_h;
    unsigned char land_head[HEAD_INL];
};

/* The header as the peer's am_wire.c wrote it (host_order: no swapping,
 * no magic); copied out of the ring first, then checked like amx_parse. */
static inline int amx_shm_parse_am(am_interface_t *ifc, const char *body, struct amx_hdr *h)
{
    memcpy(h, body, sizeof *h);
    h->flags &= AMX_F_ACKNOW;
    h->pb = h->pb != 0;
    return (h->type != AMX_REQ && h->type != AMX_REP) || h->len > ifc->cfg.max_payload ? -1 : 0;
}

/* segment.c: the interface, endpoints, the handshake, waking */
int amx_shm_init(am_interface_t *ifc);
void amx_shm_shutdown(am_interface_t *ifc);
int amx_shm_ep_new(am_interface_t *ifc, am_endpoint_t *ep);
int amx_shm_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name);
void amx_shm_host(const am_endpoint_t *ep, char *buf, size_t size);
int amx_shm_connect(am_interface_t *ifc, am_endpoint_t *ep);
int amx_shm_accept(am_interface_t *ifc, am_endpoint_t *ep);
int amx_shm_handshake(am_interface_t *ifc, am_endpoint_t *ep, uint64_t deadline);
int amx_shm_map(am_interface_t *ifc, am_endpoint_t *ep, int tell);
int amx_shm_notes(am_interface_t *ifc, am_endpoint_t *ep);
void amx_shm_unwatch(am_interface_t *ifc, am_endpoint_t *ep);
void amx_shm_wake(am_interface_t *ifc, am_endpoint_t *ep);
void amx_shm_consumed(am_interface_t *ifc, am_endpoint_t *ep);
int amx_shm_corrupt(am_interface_t *ifc, am_endpoint_t *ep);
void amx_shm_warm(am_interface_t *ifc, am_endpoint_t *ep);

/* Map the segment's pages once a link's traffic starts (segment.c,
 * amx_shm_warm): cheap enough for every record, one compare until then. */
#define WARM_AT 4096u
#define WARM_CHECK(ifc, ep, e, pos) \
    do { if (__builtin_expect(!(e)->warm && (pos) >= WARM_AT, 0)) amx_shm_warm(ifc, ep); } while (0)

/* copy.c: big payloads */
void amx_shm_gather(char *dst, const struct iovec *iov, int n, size_t from, size_t len);
int amx_shm_big_describe(struct shm_ep *e, const struct iovec *iov, int n, size_t total,
                         int cma, char *hdr, struct big *b, struct span *sp, size_t *from);
void amx_shm_help_write(am_interface_t *ifc, am_endpoint_t *ep, uint64_t seq);
int amx_shm_on_big(am_interface_t *ifc, am_endpoint_t *ep, const char *body, uint32_t size);
int amx_shm_on_chunk(am_interface_t *ifc, am_endpoint_t *ep, const char *body, uint32_t size);
void amx_shm_land_abandon(struct shm_ep *e);
void amx_shm_placement_discard(am_endpoint_t *ep);

#endif
