/*
 * route_int.h - pvm3's own side of the route seam: iterating the
 * registered routes, the daemon socket's watch, pvm_precv's side of the
 * sink.  Routes include route.h only.
 */
#ifndef PVM3_ROUTE_INT_H
#define PVM3_ROUTE_INT_H

#include "route.h"

/* The routes the build names (generated, see route.h), NULL-terminated;
 * route.c registers them before the task connects (pvmi_routes_load). */
extern const struct pvm_route_ops *const pvmi_route_table[];
void pvmi_routes_load(void);

/* route.c: iterate the registered routes. */
int pvmi_routes_send(int tid, struct pmsg *m, int *sent);
int pvmi_send_via_daemon(int dst, struct pmsg *m);   /* note it, then send */
int pvmi_routes_send_bytes(int tid, int tag, int msgctx, const void *buf, size_t len, int *sent);
/* No route reaches tid for a message of len bytes: let each route wait
 * for it briefly (settle op); 1 if one reaches it now. */
int pvmi_routes_settle(int tid, size_t len);
/* Every route's batch (route.h): 1 before a multicast's sends, 0 after. */
void pvmi_routes_batch(int on);
int pvmi_routes_poll(void);
int pvmi_routes_poll_from(int tid);   /* route.h poll_from; -1: no route can */
int pvmi_routes_fds(struct pollfd *fds, int max, int *timeout_ms);
int pvmi_routes_filter(struct pmsg *m);
void pvmi_routes_connected(void);
unsigned pvmi_routes_sent_daemon(int tid, const struct pmsg *m);
void pvmi_routes_poll_wanted(unsigned want);
void pvmi_routes_exit(void);
/* pvm_exit, before TM_EXIT: each route's flush (route.h). */
void pvmi_routes_flush(void);
/* Nonzero if a route declared name's prefix its own (mailbox). */
int pvmi_routes_own_name(const char *name);

/* dwatch.c: the daemon socket's SIGIO watch. */
int pvmi_dwatch_ready(void);   /* -1 not watching; 1 input may be there (forgotten); 0 */
int pvmi_dwatch_quiet(void);   /* 1: watching, and no signal since the last look */
void pvmi_dwatch_stop(void);

/* progress.c: poll tid's route alone (see there); -1: use pvmi_progress. */
int pvmi_progress_from(int tid);
/* ...in two steps, for pvm_precv's look that may receive straight into its
 * buffer first: may the quick look be taken now (counts it)?  Then the
 * poll itself, which pvmi_progress_from makes after the same question. */
int pvmi_progress_quick(void);
int pvmi_progress_poll_from(int tid);
/* pvmi_progress for a receive that waits for tid (-1: any source): its
 * spin looks at tid's route alone most of the time (wait.c). */
int pvmi_progress_for(int tid, int timeout_ms);

/* wait.c: spin, then block in poll(), until woken(arg) or the timeout;
 * from != -1: most spinning polls look at what from sends alone. */
int pvmi_wait(int timeout_ms, int from, int (*woken)(const void *), const void *arg);

/* sink.c: pvm_precv's side. */
void pvmi_sink_arm(int src, int tag, int ctx, int bytes_only, void *buf, size_t cap);
int pvmi_sink_landing(void);
int pvmi_sink_take(int *src, int *tag);   /* 1: a message landed (its source, tag) */
size_t pvmi_sink_total(void);        /* its payload length */
void pvmi_sink_saw(const struct pmsg *m);   /* m was queued */
void pvmi_sink_disarm(void);
/* A route that receives straight into the buffer (route.h recv_bytes),
 * asked while precv waits for tid: 1 landed, 0 nothing there, -1 poll. */
int pvmi_sink_pull(const struct pvm_route_ops *ops, void *ctx, int tid);
/* route.c: pvm_precv's look at tid's next message (route.h recv_bytes):
 * 1 received (rb), 0 nothing from tid there, -1 use poll_from. */
int pvmi_routes_recv_bytes(int tid, struct pvm_recv_bytes *rb);

#endif /* PVM3_ROUTE_INT_H */
