/*
 * am_int.h - libam internals: interfaces, endpoints, the wire header and
 * the transport ops table (thesis appendix C).
 *
 * Wire header (32 bytes, network order; as in memory on a host_order
 * transport such as shm, see struct am_transport_ops), in front of every AM:
 *   u32 len      payload bytes that follow
 *   u32 seq      per-endpoint request number (a reply echoes it)
 *   u8  type     AMX_REQ, AMX_REP or AMX_HELLO (tcp connect)
 *   u8  inst     request instance (0..depth-1)
 *   u16 handler  address identifier; AMX_BLANK for a blank reply
 *   u32 magic    AMX_MAGIC: cheap rejection of stray packets
 *   u32 pb_seq   with bit 0x100 of pb: a blank reply for the receiver's
 *   u32 pb       request (pb & 0xff = inst, pb_seq) rides along;
 *                bits 16-23: nblank; bit 0x200: ack now (AMX_F_ACKNOW)
 *   u64 key      the receiver's secret (am_auth.c): without it the AM is
 *                dropped before any handler sees it
 *
 * Protocol (thesis section 5, plus ordering): a sender keeps at most
 * `depth` requests in flight per endpoint, one per instance; the reply
 * (blank if the handler sends none) frees the instance.  seq numbers
 * let the receiver hand requests to handlers in send order: early ones
 * are held, duplicates re-send the saved reply.  Unreliable transports
 * keep a copy of each request and retransmit it with a doubling timeout
 * until timeout_max, then the endpoint is dead.  Reliable transports
 * (tcp) keep no copies, timestamps or saved replies (thesis section 10).
 *
 * Blank replies are owed for a moment (AMX_ACK_DELAY_US) rather than sent
 * at once: the next request to that peer carries it in its header, so a
 * ping-pong costs one packet per message, as with raw sockets.  Blank
 * replies owed for consecutive requests are owed as one range, answered
 * by one blank reply standing for `nblank` requests (those with the last
 * nblank sequence numbers up to its own): a stream of requests one way
 * costs one reply per half window, not one per request.  A sender whose
 * window is half full marks its request "ack now" (AMX_F_ACKNOW) and the
 * range is paid once that request has been handled: at the start of the
 * next poll (am_poll, am_poll_ep, am_take_ep; amx_pay_now), unless a
 * request to that peer carries it first.  The caller the poll returned to
 * often answers that peer (a stream's acknowledgement): then the range
 * costs nothing, where a blank reply paid at once went just before that
 * request, one more send on each side.  Otherwise polling pays it when the
 * delay is over, and waiting (am_event_fd) pays it first.  No cycle of
 * waits: a sender held for its instances waits only on a receiver that is
 * not in libam (computing); any poll or wait of that receiver pays first.
 * The cost: while it computes, the sender cannot put its next half window
 * into the socket (it could, with the range paid at once).
 * A handler's own reply is never part of a range: it is sent at once.
 */
#ifndef LIBAM_AM_INT_H
#define LIBAM_AM_INT_H

#include <stdint.h>
#include "am.h"

#define AMX_HDR 32
#define AMX_MAGIC 0x414d3033u   /* "AM03": with the key */
#define AMX_ACK_DELAY_US 500
#define AMX_TIMER_SKIP 16   /* polls with input in a row that skip the timers */
#define AMX_REQ 1
#define AMX_REP 2
#define AMX_HELLO 3
#define AMX_BLANK 0xffff
#define AMX_F_ACKNOW 0x2   /* header flag: pay owed blank replies by the next poll */
#define AMX_MAX_DEPTH 64
#define AMX_PACK_MAX 256   /* payloads up to this go out copied behind the header */
#define AMX_PUT_MAX 4096   /* put_small takes payloads up to this */
#define AMX_PUT_LATER 1    /* put_small: use send instead (struct am_transport_ops) */
#define AMX_ADDRLEN 1000   /* a transport's printable address, NUL included (ucx: long) */
#define AMX_HOSTLEN 64     /* am_hostname's text: a host's name or address */
#define AMX_KEYSEP "#"     /* between it and the secret in a capability (am_auth.c) */
#define AMX_CAPLEN (AMX_ADDRLEN + 17)   /* + "#" and 16 hex digits */
_Static_assert(AMX_CAPLEN <= AM_ADDR_MAX, "am.h's AM_ADDR_MAX holds every address");

struct amx_hdr {
    uint32_t len, seq;
    uint8_t type, inst;
    uint16_t handler;
    uint8_t pb, pb_inst;     /* piggybacked blank reply (see above) */
    uint32_t pb_seq;
    uint8_t nblank;          /* blank replies this one (or pb) stands for; 0 = 1 */
    uint8_t flags;           /* AMX_F_ACKNOW */
    uint64_t key;            /* the receiver's secret */
};
_Static_assert(sizeof(struct amx_hdr) == AMX_HDR, "a host-order header is the struct itself");

/* A request instance on the sending side. */
struct amx_slot {   /* busy: its bit in the endpoint's `busy` */
    uint32_t seq;
    uint64_t deadline_us;   /* unreliable only; 0 until the next timer run */
    unsigned timeout_us;
    char *copy;             /* header + payload, unreliable only */
    size_t copy_len, copy_cap;
    /* A lent payload (am_request_lend_ep): copy holds the header and the
     * first piece, lent[1..] point into the caller's memory until
     * am_reclaim; nlent = 0 when copy is the whole AM. */
    struct iovec *lent;
    int nlent;
};

/* Per instance on the receiving side (unreliable only). */
struct amx_rslot {
    int held;               /* an early request waits here */
    uint32_t held_seq;
    char *held_pkt;         /* header + payload */
    size_t held_len;
    int replied;            /* saved reply for seq rep_seq */
    uint32_t rep_seq;
    char *rep_pkt;
    size_t rep_len, rep_cap;
};

struct am_endpoint {
    struct am_endpoint *next;     /* interface's list */
    am_interface_t *ifc;           /* the interface it was allocated on */
    int32_t tid;
    int inserted, connected, dead;
    /* cap and name share one allocation of their own lengths ("" until
     * set): an address may take AMX_CAPLEN (ucx's do, a few hundred
     * bytes), but arrays that long would triple an idle peer's cost */
    char *name;                    /* peer's transport address (its capability's head) */
    char *cap;                     /* peer's printable address, as given */
    uint64_t key;                  /* peer's secret: every AM to it carries it */
    char host[AMX_HOSTLEN];        /* am_hostname's storage */
    void *tp;                      /* the transport's per-endpoint state */
    /* sender */
    uint32_t next_seq;
    unsigned inflight;
    uint64_t busy;                 /* bit i: slot[i] is in flight (a free one without a scan) */
    struct amx_slot *slot;         /* cfg.depth of them, after the endpoint */
    /* receiver */
    uint32_t expect_seq;
    unsigned nheld;                /* rslots holding an early request */
    struct amx_rslot *rslot;       /* likewise; unreliable transports only, else NULL */
    int owe;                       /* blank replies are owed for ... */
    uint8_t owe_inst;              /* ...the request (owe_inst, owe_seq) */
    uint32_t owe_seq;
    uint8_t owe_n;                 /* ...and the owe_n - 1 before it */
    uint64_t owe_deadline_us;      /* 0 until the next timer run */
    int owe_now;                   /* the range holds an "ack now" request: the next
                                      poll pays it (amx_pay_now) */
    struct am_stats st;
    /* why it was declared dead (am_task_death): enum am_death, the errno
     * of the call that failed, and the transport's word for it (static) */
    uint8_t why;
    int why_err;
    const char *why_word;
};

/* Is request instance i of ep in flight? */
static inline int amx_slot_busy(const am_endpoint_t *ep, unsigned i)
{
    return (int)(ep->busy >> i) & 1;
}

struct am_token {
    am_interface_t *ifc;
    am_endpoint_t *ep;
    int is_request;
    int replied;
    uint8_t inst;
    uint32_t seq;
    uint8_t nblank;     /* a blank reply standing for this many requests */
    size_t placed;      /* payload bytes a placer took (am_set_placer) */
};

struct am_transport_ops;

struct am_interface {
    const struct am_transport_ops *tr;
    void *trd;                     /* the transport's per-interface state */
    struct am_config cfg;
    int reliable;
    struct am_endpoint *eps;       /* all allocated endpoints */
    char self_addr[AMX_ADDRLEN];   /* written by the transport's init */
    uint64_t key;                  /* our secret: AMs to us must carry it */
    char self_cap[AMX_CAPLEN];     /* self_addr#key: am_task_address(AM_TID_SELF) */
    void *user;
    am_dead_fn dead_fn;
    void *dead_arg;
    am_wait_hook_fn wait_hook;     /* am_set_wait_hook */
    void *wait_arg;
    unsigned outstanding;
    uint64_t acknow_at;            /* bit n - 1: a request that makes n in flight asks
                                      for an ack now (am_send.c, request) */
    unsigned timer_skips;          /* am_poll: see AMX_TIMER_SKIP */
    int owe_now;                   /* some endpoint's owe_now is set */
    int in_handler;
    int closing;                   /* am_shutdown frees the endpoints: their
                                      transport state goes with the interface's */
    int tx_lent;                   /* the AM being sent is lent (am_request_lend_ep) */
    char why_text[160];            /* am_task_dead_reason's storage */
    unsigned drop_rnd;             /* cfg.fault_drop_ppm's generator */
    size_t rx_placed;              /* for the delivery under way (placement) */
    am_endpoint_t *hold_ep;        /* am_hold_big: others' big requests may wait */
    uint64_t rx_read;              /* bytes read by the transport (am_bytes_read) */
    struct am_stats st;
};

/*
 * A transport (thesis appendix C) is one file, libam/tr_NAME.c (with
 * helpers of its own in libam/NAME/ where it is big: shm, ucx), defining
 * `const struct am_transport_ops amx_tr_NAME`, and one line in the
 * LIBAM_TRANSPORTS list of libam/local.mk, from which the build generates
 * amx_transport_table (so a static libam.a keeps every transport too).
 * Addresses are opaque here: printable text the transport parses into its
 * own per-endpoint state (ep->tp), which it allocates and frees; its
 * per-interface state hangs off ifc->trd.  The transport sees only its
 * own address text: the secret that follows it in a capability is the
 * generic layer's (am_auth.c), and so is the check of every AM's key in
 * amx_input.  A transport with connections must also refuse a connection
 * whose opening message fails amx_auth, before it keeps or reads it.
 * Every op is required unless marked optional (NULL).
 */
struct am_transport_ops {
    const char *name;              /* = NAME of tr_NAME.c */
    int reliable;                  /* delivers every AM once, in order */
    /* The AM header travels as struct amx_hdr is in memory, unswapped and
     * without the magic (amx_put_hdr): only for a transport whose peers
     * share this host's byte order and whose framing already rejects
     * stray bytes (shm's stamped records).  The transport parses it. */
    int host_order;
    size_t default_payload, max_payload;
    /* Open the interface: set ifc->trd and ifc->self_addr (the printable
     * address peers pass to am_connect_task/am_accept_task). */
    int (*init)(am_interface_t *ifc);
    void (*shutdown)(am_interface_t *ifc);
    /* Per-endpoint state: ep_new sets ep->tp; ep_free closes and frees it. */
    int (*ep_new)(am_interface_t *ifc, am_endpoint_t *ep);
    void (*ep_free)(am_interface_t *ifc, am_endpoint_t *ep);
    /* The peer's printable address -> ep->tp; AM_ERR_BADADDR if it is not
     * one of this transport's. */
    int (*peer)(am_interface_t *ifc, am_endpoint_t *ep, const char *name);
    /* The peer's host, printable (after peer). */
    void (*host)(const am_endpoint_t *ep, char *buf, size_t size);
    int (*connect)(am_interface_t *ifc, am_endpoint_t *ep);
    int (*accept)(am_interface_t *ifc, am_endpoint_t *ep);
    /* One whole AM (header + payload), fully sent or an error. */
    int (*send)(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n);
    /* Receive and dispatch what is there (calls amx_input). >= 0 handled. */
    int (*recv)(am_interface_t *ifc);
    /* Optional (am_poll_ep): like recv, but what ep sent only, where that
     * is cheaper; it may do all of recv's work instead (and must, when
     * recv's own housekeeping is due). */
    int (*recv_ep)(am_interface_t *ifc, am_endpoint_t *ep);
    int (*event_fd)(const am_interface_t *ifc);
    /* The endpoint died: drop its connection (ep_free comes later). */
    void (*close_ep)(am_interface_t *ifc, am_endpoint_t *ep);
    /* Optional, for transports that call placers: am_placement_discard. */
    void (*placement_discard)(am_endpoint_t *ep);
    /* Optional, reliable transports only: one whole small AM (header h,
     * with the key set, and payload pieces of h->len <= AMX_PUT_MAX bytes
     * in all) written straight into the transport's own memory (shm) or
     * packed once for its cheapest send (ucx), in one call: saves staging
     * it and the generic send.  Returns AM_OK, an error, or AMX_PUT_LATER:
     * not now (no room without waiting, a send under way, or dead): use
     * send instead, which queues or reports. */
    int (*put_small)(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                     const struct iovec *iov, int n);
    /* Optional: a transport whose send of a lent AM (ifc->tx_lent set
     * during send) may return while the peer still reads the lent pieces
     * (shm: a BIG record the peer copies from our memory) waits here until
     * it has read them all (am_reclaim).  AM_OK or AM_ERR_DEAD. */
    int (*reclaim)(am_interface_t *ifc, am_endpoint_t *ep);
    /* Optional (am_take_ep): offer ep's next AM, if it is a small request
     * whole in hand, to take (amx_take_ok decides whether it may be
     * offered, amx_input_taken accounts for it once taken).  The same
     * returns as am_take_ep; AM_TAKE_POLL also whenever recv_ep's own
     * work is due.  Without it am_take_ep says AM_TAKE_POLL. */
    int (*take_ep)(am_interface_t *ifc, am_endpoint_t *ep, am_take_fn take, void *arg);
};

/* Generated from LIBAM_TRANSPORTS (libam/local.mk): NULL-terminated. */
extern const struct am_transport_ops *const amx_transport_table[];

/* am_auth.c (see there). */
int amx_key_new(uint64_t *key);
int amx_cap_format(char *buf, size_t size, const char *addr, uint64_t key);
int amx_cap_split(const char *cap, char *addr, size_t size, uint64_t *key);
/* Does h carry our secret?  Constant time; counts nothing. */
int amx_key_ok(const am_interface_t *ifc, const struct amx_hdr *h);
/* The same, and counts a drop (ifc, and ep unless NULL) when it does not. */
int amx_auth(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h);

/* am_input.c: a whole AM arrived from ep (header parsed, payload at p).
 * ep is NULL when the transport knows no endpoint for its source: it is
 * still checked for the secret (and counted), then dropped. */
int amx_input(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p);
/* ...one whose payload after the head (h->len bytes at p) went to a placer. */
int amx_input_placed(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p,
                     size_t placed);
/* am_take_ep: may the AM h from ep be offered to a taker (a request, next
 * in order, our secret, a live endpoint)?  No side effects: an AM refused
 * here goes through amx_input, which drops and counts what it must. */
int amx_take_ok(const am_interface_t *ifc, const am_endpoint_t *ep, const struct amx_hdr *h);
/* ...it was taken: everything amx_input does for a request whose handler
 * sent no reply (the piggybacked blank reply, the order, the counts, the
 * blank reply owed), but no handler runs. */
void amx_input_taken(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h);
/* Offer the AM h, whose first `have` payload bytes are at p, to its
 * handler's placer: only a big request that would be handed to its
 * handler now (next in order, our secret), with the placer's head among
 * those bytes.  Returns where the payload after the head goes, with *hl
 * the head's length, or NULL: receive it the ordinary way. */
char *amx_offer_place(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                      const char *p, size_t have, size_t *hl);
am_place_fn amx_placer(int id, size_t *head_len);   /* am_handlers.c; NULL if none */
/* am_wire.c: the header's wire format, and the clock. */
int amx_parse(const void *buf, size_t len, struct amx_hdr *h);
void amx_pack_hdr(char *buf, const struct amx_hdr *h);
/* The header in the interface's transport's format (host_order or not). */
void amx_put_hdr(const am_interface_t *ifc, char *buf, const struct amx_hdr *h);
uint64_t amx_now_us(void);
/* am_poll.c: the endpoint is dead (closed, dead handler called), for
 * the reason `why` (enum am_death), errno err (0: none) and the
 * transport's word (a static text), unless a reason was noted first. */
void amx_declare_dead(am_interface_t *ifc, am_endpoint_t *ep, int why, int err,
                      const char *word);
/* The reason of a death about to be declared by a caller that cannot
 * tell it (a transport's send that returns AM_ERR_DEAD to am_send.c):
 * the first one noted stands. */
void amx_dead_note(am_endpoint_t *ep, int why, int err, const char *word);
/* A waiting call's turn for the caller's other work (am_set_wait_hook). */
void amx_wait_hook(am_interface_t *ifc);
/* am_send.c: one whole AM out through the transport (the loss knob first). */
int amx_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n);
/* The blank reply for the request (inst, seq) and the nblank - 1 before it. */
void amx_send_blank(am_interface_t *ifc, am_endpoint_t *ep, uint8_t inst, uint32_t seq,
                    uint8_t nblank);
void amx_pay_owed(am_interface_t *ifc, am_endpoint_t *ep);
void amx_pay_all(am_interface_t *ifc);   /* every endpoint's, now */
void amx_pay_due(am_interface_t *ifc);   /* those owed long enough (am_poll's timers) */
void amx_pay_acknow(am_interface_t *ifc);   /* those with owe_now (amx_pay_now) */
/* Every poll starts with this: the ranges an "ack now" request asked for. */
static inline void amx_pay_now(am_interface_t *ifc)
{
    if (ifc->owe_now)
        amx_pay_acknow(ifc);
}

#endif /* LIBAM_AM_INT_H */
