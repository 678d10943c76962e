/*
 * trace.h - pvm3 internal: trace events as PVM 3.4 tasks emit them
 * (<pvmtev.h>; docs/protocol.md "Trace events").
 *
 * Each traced API function starts with PVMI_TEV(wrapper call): one load
 * and one predictable branch while tracing is off.  pvmi_tev_live is
 * nonzero only when this task has a tracer (not itself) and no traced
 * call is under way, or before the task has joined (the wrapper then
 * decides once, see trace.c).  A wrapper (trace_calls.c) clears it, emits
 * the entry event, calls the public function again (now untraced, as are
 * the calls it makes: stock's "top level" rule), emits the exit event and
 * sets it again.
 */
#ifndef PVM3_TRACE_H
#define PVM3_TRACE_H

#include <pvmtev.h>

extern int pvmi_tev_live;

#ifndef PVMI_TRACE_NONE
#define PVMI_TEV(call)                                 \
    do {                                               \
        if (__builtin_expect(pvmi_tev_live, 0))        \
            return (call);                             \
    } while (0)
#else   /* the packing part linked alone (tests/pvm3/local.mk) */
#define PVMI_TEV(call) do { } while (0)
#endif

/* trace.c: the settings changed (pvmi_compat_publish calls this). */
void pvmi_tev_update(void);
/* This task's own trace mask (pvm_settmask(PvmTaskSelf)). */
extern char pvmi_tev_self_mask[TEV_MASK_LENGTH];

/* A wrapper's bracket: in() leaves the top level and says whether this
 * call is traced at all; out() returns to the top level. */
int pvmi_tev_in(void);
void pvmi_tev_out(void);

/* One event: begin (1 when the mask wants it; the header is packed),
 * its fields in stock's order, fin (queue or send it). */
int pvmi_tev_begin(int kind, int entry_exit);
void pvmi_tev_int(int did, int v);
void pvmi_tev_long(int did, long v);
void pvmi_tev_ints(int did, const int *v, int n);
void pvmi_tev_str(int did, const char *s);
void pvmi_tev_fin(void);
/* Send what is buffered (and the timing/profile summary), as at exit. */
void pvmi_tev_flush(void);

/* Stock runs its TC_* control handlers as traced "message handler"
 * calls; trace.c reproduces the events of the sibling list's handler. */
struct pmsg;
struct timeval;
struct pvmhostinfo;
void pvmi_tev_siblings(const struct pmsg *m, int n);

/* trace_calls.c: the wrappers. */
int pvmi_tev_mytid(void);
int pvmi_tev_parent(void);
int pvmi_tev_exit(void);
int pvmi_tev_config(int *nh, int *na, struct pvmhostinfo **h);
int pvmi_tev_spawn(char *file, char **argv, int flags, char *where, int count, int *tids);
int pvmi_tev_send(int tid, int tag);
int pvmi_tev_psend(int tid, int tag, void *buf, int len, int type);
int pvmi_tev_mcast(int *tids, int n, int tag);
int pvmi_tev_recv(int kind, int tid, int tag, const struct timeval *tmout);
int pvmi_tev_precv(int tid, int tag, void *buf, int len, int type, int *rtid, int *rtag,
                   int *rlen);
int pvmi_tev_buf1(int kind, int arg);   /* initsend, mkbuf, freebuf, set[sr]buf, setcontext */
int pvmi_tev_buf0(int kind);            /* get[sr]buf, getcontext */
int pvmi_tev_bufinfo(int mid, int *len, int *tag, int *tid);
int pvmi_tev_pk(int kind, int unpack, void *p, int n, int stride);
int pvmi_tev_pkstr(int kind, char *s);

#endif /* PVM3_TRACE_H */
