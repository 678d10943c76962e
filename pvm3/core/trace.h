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

/* This task has a tracer that is not itself. */
int pvmi_tev_traced(void);

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
void pvmi_tev_strs(int did, char *const *v, int n);
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

/* trace_more.c */
struct pvmtaskinfo;
struct pvmmboxinfo;
struct pvmminfo;
int pvmi_tev_hosts(int kind, char **names, int count, int *svp);
int pvmi_tev_halt(void);
int pvmi_tev_tid1(int kind, int tid);   /* kill, pstat */
int pvmi_tev_sendsig(int tid, int sig);
int pvmi_tev_mstat(char *host);
int pvmi_tev_notify(int what, int code, int count, int *vals);
int pvmi_tev_tasks(int where, int *ntaskp, struct pvmtaskinfo **taskp);
int pvmi_tev_tickle(int narg, int *argp, int *nresp, int *resp);
int pvmi_tev_archcode(char *arch);
int pvmi_tev_newcontext(void);
int pvmi_tev_freecontext(int ctx);
int pvmi_tev_opt(int set, int what, int val);
int pvmi_tev_addmhf(int src, int tag, int ctx, int (*f)(int));
int pvmi_tev_delmhf(int mhid);
int pvmi_tev_putinfo(char *name, int mid, int flags);
int pvmi_tev_recvinfo(char *name, int index, int flags);
int pvmi_tev_delinfo(char *name, int index, int flags);
int pvmi_tev_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes);
int pvmi_tev_mbox33(int kind, char *name, int req, int data, int *datap);
int pvmi_tev_siblings_call(int **tidsp);
int pvmi_tev_getfds(int **fds);
int pvmi_tev_start_pvmd(int argc, char **argv, int block);
#ifdef va_arg
int pvmi_tev_packf(int kind, const char *fmt, va_list ap);
#endif
int pvmi_tev_minfo(int kind, int mid, struct pvmminfo *mi, int wid);
int pvmi_tev_reg0(int kind, struct pvmhostinfo **hip);   /* reg_rm, reg_hoster, reg_tasker */
int pvmi_tev_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt);
void pvmi_tev_recvf(void);
/* mbox.c: the index the last pvm_recvinfo found (its event reports it) */
extern int pvmi_mbox_index;

/* trace_group.c */
int pvmi_tev_group(int kind, char *group, int arg);
int pvmi_tev_bcast(char *group, int tag);
int pvmi_tev_reduce(void (*f)(int *, void *, void *, int *, int *), void *data, int count,
                    int datatype, int tag, char *group, int root);
int pvmi_tev_gather(int kind, void *result, void *data, int count, int datatype, int tag,
                    char *group, int root);

/* mhf.c: a user handler runs as stock runs it (traced calls inside, with
 * an mhf_invoke event and the buffer/context frame around). */
void pvmi_tev_mhf_begin(int src, int tag, int ctx, const struct pmsg *m, int sbf, int rbf,
                        int octx);
void pvmi_tev_mhf_end(int ctx_back, int ctx_was, int sbf_back, int sbf_was, int rbf_back,
                      int rbf_was);

#endif /* PVM3_TRACE_H */
