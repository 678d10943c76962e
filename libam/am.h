/*
 * am.h - libam: transport-independent Active Messages.
 *
 * The API follows appendix B of "An Efficient Transport Independent Active
 * Messaging Implementation for PVM", with modern C types.  An *interface* is
 * one transport instance (tcp, udp, ...); an *endpoint* is one remote task,
 * named by a 32-bit task id chosen by the user (PVM uses its tids).
 *
 * Conventions:
 *  - Every call that can fail returns an int status: 0 (AM_OK) or a negative
 *    AM_ERR_* code; am_strerror() gives a readable text.  Calls that produce
 *    an object return it through an output argument, last.
 *  - Requests are delivered to handlers in send order per endpoint, exactly
 *    once, on every transport.  The reply is the acknowledgement: when a
 *    request handler sends no reply, libam sends a blank one.
 *  - Handlers run to completion inside am_poll()/am_wait() (or inside a send
 *    that must wait for a free request instance) and may only call am_reply()
 *    and read-only calls; they must not send requests or poll.
 *  - An interface is single-threaded: one thread at a time.
 *  - When an endpoint stops answering (its request times out after the last
 *    doubling), it is declared dead: every pending and later call that needs
 *    it returns AM_ERR_DEAD, never hangs.
 *  - An interface's printable address ends in its secret ("#" and 16 hex
 *    digits): only who was given the address can talk to it.  AMs and
 *    connections without the secret are dropped before any handler sees
 *    them and counted (am_stats.auth_drops).  Hand the address only to
 *    whom you trust (pvmam: the pvmd's mailbox).
 */
#ifndef LIBAM_AM_H
#define LIBAM_AM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#ifdef __cplusplus
extern "C" {
#endif

/* ---- status codes (negative) ---------------------------------------- */
enum am_status {
    AM_OK = 0,
    AM_ERR_INVAL = -1,     /* bad argument */
    AM_ERR_NOMEM = -2,     /* out of memory */
    AM_ERR_SYS = -3,       /* system call failed (errno kept) */
    AM_ERR_DEAD = -4,      /* endpoint declared dead / connection lost */
    AM_ERR_TIMEOUT = -5,   /* bounded wait ran out */
    AM_ERR_TOOBIG = -6,    /* payload larger than am_max_payload() */
    AM_ERR_NOTASK = -7,    /* no endpoint with that tid */
    AM_ERR_NOTSUP = -8,    /* transport does not support the operation */
    AM_ERR_BADADDR = -9,   /* address string malformed or unresolvable */
    AM_ERR_EXISTS = -10,   /* tid already inserted / id already bound */
    AM_ERR_NOHANDLER = -11,/* handler id not bound */
    AM_ERR_STATE = -12,    /* call not valid now (e.g. reply outside handler) */
    AM_ERR_NOTRANSPORT = -13 /* unknown transport name */
};
const char *am_strerror(int status);

/* ---- opaque objects --------------------------------------------------- */
typedef struct am_interface am_interface_t;
typedef struct am_endpoint am_endpoint_t;
/* Identifies the message being handled; valid only during the handler. */
typedef struct am_token am_token_t;

/* A handler: `data`/`len` is the payload (valid only during the call). */
typedef void (*am_handler_fn)(const am_token_t *tok, void *data, size_t len);

/* ---- address identifiers (thesis 5.2) ----------------------------------
 * The thesis starts with am_global_init() to set up the identifier tables
 * and timestamps; here the tables grow on the first bind and the clock
 * needs no setup, so there is no such call.  am_global_shutdown() frees
 * the tables (binding again starts them anew). */
int am_global_shutdown(void);

/* Handler table: ids are small integers that travel in the AM header, so
 * both sides must bind the same handlers to the same ids. */
int am_address_to_id(am_handler_fn fn);             /* >=0 id or <0 status */
am_handler_fn am_id_to_address(int id);             /* NULL if unbound */
int am_bind_address_with_id(am_handler_fn fn, int id);

/* ---- interfaces ------------------------------------------------------ */
#define AM_TID_SELF ((int32_t)-1)
#define AM_ADDR_MAX 1024   /* room for any printable address, NUL included (ucx's
                                  carry a UCX worker address: a few hundred bytes) */

struct am_config {
    unsigned depth;           /* request instances per endpoint; 0 = default 8 */
    size_t max_payload;       /* per AM; 0 = transport default (udp 65475: one
                                 datagram of the largest size; tcp 1 MiB) */
    unsigned timeout_us;      /* first request timeout (unreliable); 0 = default */
    unsigned timeout_max_us;  /* give up (declare dead) past this; 0 = default */
    unsigned connect_timeout_ms; /* bound for connect/accept; 0 = default 10000 */
    const char *bind_host;    /* address to listen on; NULL = reachable default */
    unsigned fault_drop_ppm;  /* test knob: drop this many sends per million; unreliable
                                 transports only (am_init: AM_ERR_NOTSUP on tcp) */
    int wait;                 /* how am_wait spins before it blocks (enum am_wait_mode) */
    uint64_t key;             /* the interface's secret; 0 = a random one (getrandom),
                                 the normal case (tests and fuzzers set a known one) */
};
/* am_wait's spin: YIELD (default) gives the core to any runnable task at
 * every poll, SPIN keeps it (for tasks pinned to idle cores), BLOCK does
 * not spin at all. */
enum am_wait_mode { AM_WAIT_YIELD, AM_WAIT_SPIN, AM_WAIT_BLOCK };
void am_config_default(struct am_config *cfg);

/* Names of the built-in transports, NULL-terminated ("tcp", "udp", ...):
 * what am_init accepts. */
const char *const *am_transports(void);

/* Start an interface on transport `name`.  cfg may be NULL (defaults).
 * Environment overrides are the caller's business (pvmam reads PVMAM_*).
 * AM_ERR_NOTRANSPORT: no such transport; AM_ERR_INVAL: depth or payload
 * out of range; AM_ERR_NOTSUP: the loss knob on a reliable transport. */
int am_init(const char *transport, const struct am_config *cfg,
            am_interface_t **out);
/* Flush (bounded by the timeout limit), close every connection, free all. */
int am_shutdown(am_interface_t *ifc);

const char *am_transport_name(const am_interface_t *ifc);
size_t am_max_payload(const am_interface_t *ifc);

/* Free pointer for the user (e.g. pvmam's state); read it in handlers. */
void am_set_user(am_interface_t *ifc, void *user);
void *am_get_user(const am_interface_t *ifc);

/* ---- endpoints / tasks (thesis 5.1) ----------------------------------- */
/* Printable address (network byte order inside) of AM_TID_SELF or of an
 * inserted tid; reachable from other hosts, at most AM_ADDR_MAX bytes with
 * the NUL.  It carries the task's secret (see the top): it is what a peer
 * needs to talk to the task.  Static storage per interface. */
const char *am_task_address(am_interface_t *ifc, int32_t tid);

int am_allocate_task(am_interface_t *ifc, am_endpoint_t **out);
/* Connect to the task whose am_task_address() is `name`.  Ordering rule of
 * the thesis: of two tasks, one connects and the other accepts. */
int am_connect_task(am_interface_t *ifc, am_endpoint_t *ep, const char *name);
/* Accept the task `name`; waits (bounded by connect_timeout_ms) for it. */
int am_accept_task(am_interface_t *ifc, am_endpoint_t *ep, const char *name);
int am_insert_task(am_interface_t *ifc, am_endpoint_t *ep, int32_t tid);
int am_remove_task(am_interface_t *ifc, int32_t tid);
int am_deallocate_task(am_interface_t *ifc, am_endpoint_t *ep);
am_endpoint_t *am_find_task(am_interface_t *ifc, int32_t tid); /* NULL if none */
/* Host name of an inserted task (static storage), NULL if unknown. */
const char *am_hostname(am_interface_t *ifc, int32_t tid);
/* Nonzero once the endpoint is declared dead. */
int am_task_dead(const am_endpoint_t *ep);
/* Why ep was declared dead, one of these (AM_DEATH_NONE while it is not),
 * with the errno of the call that failed (else 0) in *err if err is not
 * NULL; am_task_dead_reason says it in words, the transport's own ("shm:
 * the peer's process ended (pidfd)", "tcp: the peer closed the
 * connection", "udp: no reply after the last retransmission (1000 ms)").
 * Kept until the endpoint is deallocated: a dead handler may ask. */
enum am_death {
    AM_DEATH_NONE = 0,
    AM_DEATH_TIMEOUT,     /* no reply after the last retransmission */
    AM_DEATH_CLOSED,      /* the peer closed its end (it exited, or closed the link) */
    AM_DEATH_EXITED,      /* the peer's process ended (shm: its pidfd) */
    AM_DEATH_CORRUPT,     /* what came from it broke the protocol */
    AM_DEATH_SYS,         /* a system call on the link failed (err) */
    AM_DEATH_HANDSHAKE,   /* the link's set-up failed (a bad or missing answer) */
    AM_DEATH_TRANSPORT    /* the transport's library said the link failed (ucx) */
};
int am_task_death(const am_endpoint_t *ep, int *err);
/* The text, in storage of ep's interface valid until the next call; ""
 * while ep is not dead. */
const char *am_task_dead_reason(const am_endpoint_t *ep);
/* Nonzero when nothing more can arrive from ep's peer, so a caller told
 * (by others) that the peer is gone may free it without losing what it
 * sent: on a transport with connections (tcp, shm) once the endpoint is
 * dead, which its connection's end makes it only after everything sent
 * before was handled; on one without (udp) at once, since what the peer
 * sent and had acknowledged was handled before the acknowledgement, and
 * the rest can only come from a peer still alive.  Poll first. */
int am_task_ended(const am_endpoint_t *ep);

/* Called (from inside polling) when an endpoint is declared dead. */
typedef void (*am_dead_fn)(am_interface_t *ifc, int32_t tid, void *arg);
void am_set_dead_handler(am_interface_t *ifc, am_dead_fn fn, void *arg);

/* While a call of this interface waits for its network (a send whose
 * window is full, a full socket, a shm peer still copying), it calls fn
 * now and then and sleeps at most 1 ms at a time: a caller with several
 * interfaces services the others there, so that two tasks each waiting
 * on a different interface cannot wait for each other.  fn must not send
 * on ifc.  NULL removes it. */
typedef void (*am_wait_hook_fn)(am_interface_t *ifc, void *arg);
void am_set_wait_hook(am_interface_t *ifc, am_wait_hook_fn fn, void *arg);

/* ---- messages ----------------------------------------------------------
 * Sends return once the data may be reused.  When all request instances to
 * the endpoint are in flight, they service the network until one frees (or
 * the endpoint dies). */
int am_request(am_interface_t *ifc, int32_t tid, int handler,
               const void *data, size_t len);
int am_request_ep(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                  const void *data, size_t len);
int am_request_vdata(am_interface_t *ifc, int32_t tid, int handler,
                     const struct iovec *iov, int iovcnt);
int am_request_vdata_ep(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                        const struct iovec *iov, int iovcnt);
/* A request whose payload the caller lends: iov[1..] stay unchanged and
 * valid until the caller's next am_reclaim(ifc, ep), so an unreliable
 * transport (udp) keeps pointers to them for retransmission instead of a
 * copy (iov[0], typically a header on the caller's stack, is copied).
 * am_reclaim then copies only what is not yet acknowledged (the room for
 * it was made when the request was sent, so it cannot fail).  shm may
 * send a big lent payload by descriptor without waiting for the peer to
 * copy it: am_reclaim waits for that copy (so a caller can lend one
 * message to several peers, who copy at once, and reclaim afterwards).
 * AM_OK, AM_ERR_DEAD if the peer died before it had read a lent payload,
 * or AM_ERR_INVAL for a NULL argument.  On tcp both are the plain request
 * and a no-op. */
int am_request_lend_ep(am_interface_t *ifc, am_endpoint_t *ep, int handler,
                       const struct iovec *iov, int iovcnt);
int am_reclaim(am_interface_t *ifc, am_endpoint_t *ep);
/* Only inside a request handler, at most once per request. */
int am_reply(const am_token_t *tok, int handler, const void *data, size_t len);
int am_reply_vdata(const am_token_t *tok, int handler,
                   const struct iovec *iov, int iovcnt);

/* What a handler may ask about the message it is handling. */
am_interface_t *am_token_interface(const am_token_t *tok);
am_endpoint_t *am_token_endpoint(const am_token_t *tok);
int32_t am_token_tid(const am_token_t *tok);
int am_token_is_request(const am_token_t *tok);

/* ---- receive placement (zero-copy receive) ------------------------------
 * A handler may say where the payload of its big requests should go, so a
 * stream transport (tcp) reads it from the socket straight into place
 * instead of into libam's buffer and then through the handler's copy.
 *
 * When a request for `handler` of more than `head_len` + AM_PLACE_MIN bytes
 * starts arriving, libam calls place(tok, head, head_len, total) with its
 * first head_len payload bytes (at most AM_PLACE_HEAD_MAX).  It returns
 * where the other total - head_len bytes go (that much room), or NULL for
 * ordinary delivery.  It must not send or reply (am_tid etc. are fine).
 * The handler then runs as usual when the whole request is in, but with
 * data/len = the head only; am_token_placed() tells how many bytes went to
 * the place (0 for an ordinary delivery).  Transports without placement
 * (udp) never call place.  Returns AM_OK or AM_ERR_INVAL. */
#define AM_PLACE_HEAD_MAX 64
#define AM_PLACE_MIN 16384
typedef void *(*am_place_fn)(const am_token_t *tok, const void *head, size_t head_len,
                             size_t total);
int am_set_placer(int handler, am_place_fn place, size_t head_len);
size_t am_token_placed(const am_token_t *tok);
/* The place given for a request still arriving on ep is no longer valid
 * (its owner gave up on it): the rest of that payload is read and thrown
 * away instead; the handler still runs as usual.  No-op if none. */
void am_placement_discard(am_endpoint_t *ep);

/* While a caller waits for ep's big request to land in a place of its own
 * (pvmam: a pvm_precv's buffer), a big request from another peer that a
 * transport would land by placement (shm: a descriptor the receiver
 * copies from the sender's memory) may wait where it is, unread, for a
 * later poll, instead of landing in a buffer of the caller's that is
 * copied again once it is asked for.  Each such request waits at most
 * AM_HOLD_US of polls from when a poll first left it (its sender waits
 * for that copy meanwhile), so no wait can hang on a hold; ep's own come
 * in as ever.  NULL ends the hold.  Transports without placement by
 * descriptor ignore it. */
#define AM_HOLD_US 1000
void am_hold_big(am_interface_t *ifc, am_endpoint_t *ep);

/* ---- progress ----------------------------------------------------------- */
/* Service the network without blocking: receive and dispatch what is there,
 * retransmit expired requests.  Returns the number of messages handled (>=0)
 * or a negative status. */
int am_poll(am_interface_t *ifc);
/* Like am_poll, for a caller waiting for what one peer sends: a transport
 * that can read ep's input alone (shm: its ring) does only that, and now
 * and then all of am_poll's work; the others do am_poll.  Handlers run as
 * in am_poll, in the same order for ep's AMs.  Other peers' input waits
 * for the next am_poll, so a caller must not use it alone for ever. */
int am_poll_ep(am_interface_t *ifc, am_endpoint_t *ep);
/* For a caller waiting for ep's next message that can take a small one
 * itself (pvmam: straight into a pvm_precv's buffer): if the next AM from
 * ep is a small request that is whole here, next in order and carries our
 * secret (checked first), take(arg, handler, data, len) is offered it
 * before its handler.  take must not call libam; data is valid during the
 * call only.  It returns 1 to take it: the AM counts as handled by that
 * handler, which sent no reply (so the blank reply is owed as ever), and
 * the handler does not run; or 0: the AM stays, untouched.  Returns 1
 * taken, 0 nothing from ep is here, AM_TAKE_POLL something else is (or
 * the transport's own work is due, or it cannot take): call am_poll_ep,
 * or a negative status.  Counts as one of am_poll_ep's polls; one that
 * found nothing runs the timers when due, one that took leaves them to
 * the next.  Nothing waits on the way to take; after it, nothing that
 * could run a handler. */
#define AM_TAKE_POLL 2
typedef int (*am_take_fn)(void *arg, int handler, const void *data, size_t len);
int am_take_ep(am_interface_t *ifc, am_endpoint_t *ep, am_take_fn take, void *arg);
/* Like am_poll, but wait up to timeout_ms (-1 = no limit, 0 = none) for at
 * least one message; spins briefly before blocking in the kernel. */
int am_wait(am_interface_t *ifc, int timeout_ms);
/* One file descriptor that becomes readable when am_poll has work (an
 * epoll/eventfd or the socket itself): lets callers block on several
 * sources at once with poll(2).  Call it right before blocking: it first
 * sends what nobody else would carry while this task sleeps (blank
 * replies it still owes) and arms the transport's wake-up. */
int am_event_fd(am_interface_t *ifc);
/* Milliseconds until the next retransmission deadline, -1 if none: a caller
 * blocking on am_event_fd must wake up by then and call am_poll. */
int am_next_timeout_ms(const am_interface_t *ifc);
/* Number of requests sent and not yet acknowledged (all endpoints). */
unsigned am_outstanding(const am_interface_t *ifc);
/* Bytes read from the network so far, parts of AMs still arriving
 * included: a caller about to sleep can tell that data is still flowing. */
uint64_t am_bytes_read(const am_interface_t *ifc);

/* ---- statistics ------------------------------------------------------- */
struct am_stats {
    uint64_t requests_sent, replies_sent;
    uint64_t requests_recv, replies_recv;
    uint64_t bytes_sent, bytes_recv;      /* payload bytes */
    uint64_t retransmits, duplicates;
    uint64_t drops;       /* bad/unknown/garbage packets dropped */
    uint64_t timeouts;    /* endpoints declared dead */
    uint64_t reordered;   /* requests held back to restore order */
    uint64_t auth_drops;  /* AMs and connections without our secret, dropped */
};
void am_interface_stats(const am_interface_t *ifc, struct am_stats *out);
int am_task_stats(am_interface_t *ifc, int32_t tid, struct am_stats *out);

#ifdef __cplusplus
}
#endif
#endif /* LIBAM_AM_H */
