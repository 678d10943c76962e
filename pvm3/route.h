/*
 * route.h - the route seam of pvm3.
 *
 * Every user message to a task leaves through a route.  The daemon route
 * (through the pvmd socket, or a direct socket a stock peer asked for) is
 * built in and always last; another route, such as pvmam's Active Messages
 * route, registers here and is asked first.  pvm3 knows nothing of what a
 * route uses underneath: it only calls these operations.
 *
 * Incoming messages from any route go to pvmi_deliver(), which feeds the
 * one receive queue (control messages are consumed there).  Waiting blocks
 * in poll() on the fds of every route at once.
 */
#ifndef PVM3_ROUTE_H
#define PVM3_ROUTE_H

#include <poll.h>
#include "pmsg.h"

struct pvm_route_ops {
    const char *name;
    /* Nonzero if this route carries user messages to tid right now. */
    int (*reaches)(void *ctx, int tid);
    /* Send m (tag, ctx, encoding set) to tid.  0 or a PVM error code.
     * The message stays owned by the caller. */
    int (*send)(void *ctx, int tid, struct pmsg *m);
    /* Progress without blocking: deliver complete incoming messages with
     * pvmi_deliver().  Returns > 0 if it made progress (messages, or bytes
     * of one still arriving), 0 if not, or a PVM error. */
    int (*poll)(void *ctx);
    /* Fill up to max pollfds to block on; may lower *timeout_ms (ms until
     * the route needs poll() called, e.g. retransmissions).  Returns count. */
    int (*wait_fds)(void *ctx, struct pollfd *fds, int max, int *timeout_ms);
    /* Optional: send len raw bytes (PvmDataRaw, as pvm_psend) to tid
     * without a message buffer; called only when reaches() said yes. */
    int (*send_bytes)(void *ctx, int tid, int tag, int msgctx, const void *buf, size_t len);
    /* Optional: look at an incoming message first; return 1 to consume it
     * (e.g. the route's own control traffic over the daemon). */
    int (*filter)(void *ctx, struct pmsg *m);
    /* Optional: a user message to tid went through the daemon instead. */
    void (*sent_daemon)(void *ctx, int tid, const struct pmsg *m);
    /* Optional: a route that watches the daemon socket (e.g. with SIGIO)
     * says whether it may have input: 1 yes (and forgets it), 0 no.  Then
     * pvm3 reads that socket only when told, and spins on the routes
     * briefly before blocking.  -1: not watching (or leave it NULL). */
    int (*daemon_ready)(void *ctx);
    /* Optional: the task got its tid / is leaving. */
    void (*on_connect)(void *ctx);
    void (*on_exit)(void *ctx);
};

/* Register a route (at most a few); 0 or PvmOutOfRes. */
int pvm_route_register(const struct pvm_route_ops *ops, void *ctx);

/* For routes: hand a complete incoming message to pvm3 (takes ownership). */
void pvmi_deliver(struct pmsg *m);
/* For routes: send through the daemon route regardless of other routes. */
int pvmi_send_daemon(int dst, struct pmsg *m);
/* This task's tid (0 before connecting). */
int pvmi_mytid(void);
/* The pvmd socket (-1 before connecting), for routes that watch it. */
int pvmi_daemon_fd(void);
/* Nonzero when a route may make its own daemon requests (mailbox lookups)
 * now: not while the library waits for another request's reply. */
int pvmi_route_may_request(void);
/* Mailbox access that leaves the user's buffers alone (mbox.c): the
 * stored message as a new buffer in *out (caller frees), or an error. */
int pvmi_mbox_get(const char *name, int index, int flags, struct pmsg **out);
/* Wait for input on every source, at most timeout_ms (-1: forever);
 * >= 0 messages delivered or a PVM error code. */
int pvmi_progress(int timeout_ms);

/* Receive in place (sink.c).  When a message starts, a route asks
 * pvmi_sink_claim(); a nonzero token means a blocked pvm_precv wants it:
 * write the payload (after the 32-byte message header) where
 * pvmi_sink_dest() says, report each write with pvmi_sink_wrote() (also
 * bytes discarded when dest is NULL), and at the end hand the message
 * (header fields only, no body) to pvmi_sink_complete() instead of
 * pvmi_deliver(). */
unsigned pvmi_sink_claim(int src, int tag, int ctx, uint32_t encword);
/* (The message passed to complete or cancel may be NULL: a route need not
 * build one for a landing message; it is freed otherwise.) */
void *pvmi_sink_dest(unsigned token, size_t *room);
void pvmi_sink_wrote(unsigned token, size_t n);
int pvmi_sink_live(unsigned token);   /* still wanted (the precv waits for it) */
void pvmi_sink_complete(unsigned token, struct pmsg *m);
/* ...or, if the message will never complete, pvmi_sink_cancel(). */
void pvmi_sink_cancel(unsigned token, struct pmsg *m);

/* pvm3 internal: pvm_precv's side of the sink. */
void pvmi_sink_arm(int src, int tag, int ctx, int bytes_only, void *buf, size_t cap);
int pvmi_sink_landing(void);
int pvmi_sink_take(int *src, int *tag);   /* 1: a message landed (its source, tag) */
size_t pvmi_sink_total(void);        /* its payload length */
void pvmi_sink_saw(const struct pmsg *m);   /* m was queued */
void pvmi_sink_disarm(void);

/* pvm3 internal: iterate the registered routes. */
int pvmi_routes_send(int tid, struct pmsg *m, int *sent);
int pvmi_send_via_daemon(int dst, struct pmsg *m);   /* note it, then send */
int pvmi_routes_send_bytes(int tid, int tag, int msgctx, const void *buf, size_t len, int *sent);
int pvmi_routes_poll(void);
int pvmi_routes_fds(struct pollfd *fds, int max, int *timeout_ms);
int pvmi_routes_filter(struct pmsg *m);
void pvmi_routes_connected(void);
void pvmi_routes_sent_daemon(int tid, const struct pmsg *m);
int pvmi_routes_daemon_ready(void);   /* -1: nobody watches the socket */
void pvmi_routes_exit(void);

#endif /* PVM3_ROUTE_H */
