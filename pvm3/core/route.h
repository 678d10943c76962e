/*
 * route.h - the route seam of pvm3: everything a route may use.
 *
 * Every user message to a task leaves through a route.  The daemon route
 * (through the pvmd socket) is built in and always last; other routes,
 * such as pvmam's Active Messages route, are asked first.  A route is a
 * const struct pvm_route_ops with external linkage, named in the build
 * (PVM3_ROUTES in pvmam/local.mk): the generated table pvm3 reads keeps it
 * in a static link too, where a self-registering constructor would be
 * dropped with its unreferenced object.  pvm3 knows nothing of what a route uses underneath: it only
 * calls these operations, and a route reaches pvm3 only through the calls
 * declared below (pvm3's own side of the seam is route_int.h).
 *
 * Incoming messages from any route go to pvmi_deliver(), which feeds the
 * one receive queue (control messages are consumed there).  Waiting blocks
 * in poll() on the fds of every route at once.
 */
#ifndef PVM3_ROUTE_H
#define PVM3_ROUTE_H

#include <poll.h>
#include <stddef.h>
#include <stdint.h>
#include "pmsg.h"
#include "tid.h"

#define PVM_ROUTE_NOT_HERE 1   /* send_bytes: this route does not reach tid */

/* What a waiting pvm_precv wants (recv_bytes below), and what it got. */
struct pvm_recv_bytes {
    int tag, msgctx, bytes_only;   /* tag -1: any; bytes_only: XDR is a copy too */
    char *buf;
    size_t cap;
    int rtag;                      /* out: its tag, and its whole length */
    size_t rlen;
};

struct pvm_route_ops {
    const char *name;
    /* Nonzero if this route carries user messages to tid right now.  No
     * side effects: it may be called at any time, also from inside a send. */
    int (*reaches)(void *ctx, int tid);
    /* Send m (tag, ctx, encoding set) to tid.  0 or a PVM error code.
     * The message stays owned by the caller. */
    int (*send)(void *ctx, int tid, struct pmsg *m);
    /* Progress without blocking: deliver complete incoming messages with
     * pvmi_deliver().  Returns > 0 if it made progress (messages, or bytes
     * of one still arriving), 0 if not, or a PVM error. */
    int (*poll)(void *ctx);
    /* Optional: as poll, but only what tid sends, for a receive waiting
     * for tid's message, where that is cheaper: messages from tid are
     * delivered exactly as poll would, in the same order.  -1: not now
     * (the route cannot, or its own work is due): use poll. */
    int (*poll_from)(void *ctx, int tid);
    /* Optional, with poll_from: for a pvm_precv waiting for tid's message
     * (recv.c, sink.c), asked before poll_from.  If the next message from
     * tid, in the order poll_from delivers them, is whole here, matches
     * rb's tag (-1: any) and msgctx, and is raw (or XDR, when bytes_only),
     * copy its first cap bytes to rb->buf, set rb->rtag and rb->rlen (its
     * whole length) and return 1: it is received, not delivered.  0:
     * nothing from tid is here.  -1: something else is, or not now: use
     * poll_from.  Never waits; takes nothing else. */
    int (*recv_bytes)(void *ctx, int tid, struct pvm_recv_bytes *rb);
    /* Fill up to max pollfds to block on; may lower *timeout_ms (ms until
     * the route needs poll() called, e.g. retransmissions).  Returns count. */
    int (*wait_fds)(void *ctx, struct pollfd *fds, int max, int *timeout_ms);
    /* Optional: send len raw bytes (PvmDataRaw, as pvm_psend) to tid
     * without a message buffer.  Asked instead of reaches() (one lookup,
     * not two, on every pvm_psend): PVM_ROUTE_NOT_HERE, sending nothing,
     * exactly when reaches() would say no; else 0 or a PVM error code. */
    int (*send_bytes)(void *ctx, int tid, int tag, int msgctx, const void *buf, size_t len);
    /* Optional: look at an incoming message first; return 1 to consume it
     * (e.g. the route's own control traffic over the daemon). */
    int (*filter)(void *ctx, struct pmsg *m);
    /* Optional: a user message to tid goes through the daemon instead (a
     * notice only).  Returns nonzero if the route wants its poll() called
     * once the message is out (e.g. to start opening a link: that is done
     * from poll, where a route may make daemon requests). */
    int (*sent_daemon)(void *ctx, int tid, const struct pmsg *m);
    /* Optional: a user message of len bytes to tid is about to go through
     * the daemon because no route reaches it.  The route may wait, briefly
     * and bounded, with pvmi_progress() until it does (a link that is
     * opening); called at the start of a send, a safe point.  Returns
     * nonzero if it reaches tid now. */
    int (*settle)(void *ctx, int tid, size_t len);
    /* Optional: on = 1, the sends that follow (until on = 0) carry one
     * message to several tasks (pvm_mcast) and the caller keeps it
     * unchanged until then: a send may return before its receiver has
     * read the bytes, so the receivers read at once, not one after the
     * other.  on = 0 returns once every one has (bounded as a send's own
     * wait is).  Per receiver, order is as without it. */
    void (*batch)(void *ctx, int on);
    /* Optional: pvm_exit is about to tell the pvmd that the task exits
     * (TM_EXIT), which the pvmd reports to tasks watching it: make sure,
     * bounded in time, that what the task sent on this route has reached
     * its receivers, so no receiver hears of the exit before it has the
     * messages (with stock PVM they are at the pvmd by then).  The task is
     * still connected: the route may wait with pvmi_progress(). */
    void (*flush)(void *ctx);
    /* Optional: the task got its tid / is leaving. */
    void (*on_connect)(void *ctx);
    void (*on_exit)(void *ctx);
    /* Optional: mailbox names starting with this prefix are the route's
     * own (pvm_getmboxinfo does not list them to the user). */
    const char *mbox_prefix;
};

/* ---- the task and its daemon ------------------------------------------ */
/* Connect to the pvmd if not yet (a public call's first step); 0 or a PVM
 * error code. */
int pvmi_beatask(void);
/* This task's tid (0 before connecting). */
int pvmi_mytid(void);
/* Hand a complete incoming message to pvm3 (takes ownership). */
void pvmi_deliver(struct pmsg *m);
/* Send through the daemon route regardless of other routes. */
int pvmi_send_daemon(int dst, struct pmsg *m);
/* A route with descriptors of its own asks pvm3 to watch the daemon socket
 * (SIGIO): waiting then spins on the routes briefly before blocking, with
 * no system call for that socket.  0 or PvmSysErr (then nothing changes). */
int pvmi_route_watch_daemon(void);
/* How waiting spins before it blocks (wait.c): "yield" (default), "spin",
 * "block", "idle", "adapt" or "auto".  0, or -1 for an unknown name. */
int pvmi_wait_set(const char *name);
const char *pvmi_wait_name(void);
const char *pvmi_wait_choices(void);   /* for an error message */
/* Wait for input on every source, at most timeout_ms (-1: forever);
 * >= 0 messages delivered or a PVM error code. */
int pvmi_progress(int timeout_ms);

/* Malformed fragments from the pvmd dropped so far (wire.c). */
unsigned long pvmi_bad_fragments(void);

/* ---- the mailbox, leaving the user's buffers alone (mbox.c) ------------ */
/* The stored message as a new buffer in *out (caller frees), or an error. */
int pvmi_mbox_get(const char *name, int index, int flags, struct pmsg **out);
/* Store m under name (index -1: a new entry); the index or an error. */
int pvmi_mbox_put(const char *name, int index, int flags, int mid);
/* Watch for name's first entry without waiting: a wait id > 0 or an
 * error.  pvmi_mbox_watched(wid, &m): 0 not yet, 1 there (m, caller
 * frees), or an error.  pvmi_tm_arrivals() grows when a watched entry (any
 * posted request's reply) came: then look. */
int pvmi_mbox_watch(const char *name);
int pvmi_mbox_watched(int wid, struct pmsg **out);
unsigned long pvmi_tm_arrivals(void);

/* ---- internal message buffers (xbuf.c): XDR, never the user's ----------- */
struct pmsg *pvmi_xbuf(void);   /* a new empty buffer (pmsg_free it) */
int pvmi_put_int(struct pmsg *m, int v);
int pvmi_put_ints(struct pmsg *m, const int *v, int n);
int pvmi_put_str(struct pmsg *m, const char *s);
/* n bytes after an int count: {n, bytes}, as pvm_pkint + pvm_pkbyte. */
int pvmi_put_counted(struct pmsg *m, const char *s);
int pvmi_get_int(struct pmsg *m, int *v);
int pvmi_get_ints(struct pmsg *m, int *v, int n);
/* Has task tid connected to its pvmd yet (pvm_tasks' flag)?  1 yes, 0
 * not yet (spawned, still starting), PvmNoTask, or another error. */
int pvmi_task_connected(int tid);
/* Ask the pvmd for {tid} in (ctx, tag) when task tid exits; 0 or an error. */
int pvmi_notify_exit(int tid, int ctx, int tag);
/* The same for n tids in one request (the pvmd still keeps one record each). */
int pvmi_notify_exits(const int *tids, int n, int ctx, int tag);
/* Ask for {host} in (ctx, tag) when any of n hosts (tids of them, their
 * host part counts) is deleted or fails: the pvmd keeps these records
 * itself, where a remote task's exit watch is passed on to its host's
 * pvmd (docs/link-setup.md, "When a peer exits"). */
int pvmi_notify_hosts(const int *hosts, int n, int ctx, int tag);
int pvmi_get_str(struct pmsg *m, char *s, size_t max);
/* ...and back: PvmBadMsg unless it fits in max with its '\0'. */
int pvmi_get_counted(struct pmsg *m, char *s, size_t max);

/* ---- slicing outgoing bytes (pmsg.c) ----------------------------------- */
/* A slicer over len bytes of caller memory (pvm_psend's array); seg is
 * storage the slicer points at, kept alive while slicing. */
void pvmi_slice_bytes(struct pmsg_slicer *s, struct pvm_seg *seg, const void *buf, size_t len);

/* ---- a queue of messages held by a route (rxq.c) ------------------------ */
struct pvmi_msgq {
    struct pmsg *head, *tail;
};
void pvmi_msgq_put(struct pvmi_msgq *q, struct pmsg *m);   /* at the tail */
struct pmsg *pvmi_msgq_take(struct pvmi_msgq *q);          /* head, or NULL */
static inline int pvmi_msgq_empty(const struct pvmi_msgq *q) { return !q->head; }

/* ---- receive in place (sink.c) ----------------------------------------- */
/* When a message starts, a route asks pvmi_sink_claim(); a nonzero token
 * means a blocked pvm_precv wants it: write the payload (after the 32-byte
 * message header) where pvmi_sink_dest() says, report each write with
 * pvmi_sink_wrote() (also bytes discarded when dest is NULL), and at the
 * end hand the message (header fields only, no body) to
 * pvmi_sink_complete() instead of pvmi_deliver(). */
unsigned pvmi_sink_claim(int src, int tag, int ctx, uint32_t encword);
/* (The message passed to complete or cancel may be NULL: a route need not
 * build one for a landing message; it is freed otherwise.) */
void *pvmi_sink_dest(unsigned token, size_t *room);
void pvmi_sink_wrote(unsigned token, size_t n);
int pvmi_sink_live(unsigned token);   /* still wanted (the precv waits for it) */
void pvmi_sink_complete(unsigned token, struct pmsg *m);
/* ...or, if the message will never complete, pvmi_sink_cancel(). */
void pvmi_sink_cancel(unsigned token, struct pmsg *m);
/* A whole message that arrived at once (len bytes at data): claim, copy
 * and complete in one call.  1 if it landed; 0: deliver it as usual. */
int pvmi_sink_put(int src, int tag, int ctx, uint32_t encword, const void *data, size_t len);
/* The one source whose message a waiting pvm_precv with room for at least
 * min bytes wants, while it may still land (0: none).  A route may leave
 * other sources' big messages unread meanwhile, for a bounded time of its
 * own, so that the pvm_precv that asks for one next lands it too, rather
 * than copy it out of a message block (pvmam: am_hold_big). */
int pvmi_sink_wants(size_t min);

#endif /* PVM3_ROUTE_H */
