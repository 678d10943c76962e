/*
 * lpvm.h - pvm3 internal: the task's state and the functions the parts of
 * the core share (connection, wire I/O, receive queue, daemon requests).
 */
#ifndef PVM3_LPVM_H
#define PVM3_LPVM_H

#include <stddef.h>
#include <stdint.h>
#include <pvm3.h>
#include <pvmproto.h>
#include "pmsg.h"
#include "perr.h"
#include "tid.h"
#include "route.h"
#include "trace.h"


#define PVMI_FRAGHDR 16
#define PVMI_MSGHDR  32
/* Default fragment body on the daemon route (see route.c). */
#define PVMI_DEFAULT_FRAGBODY ((size_t)16 << 20)
#define PVMI_FFSOM   1
#define PVMI_FFEOM   2

/* Partial message being reassembled from one source on one connection;
 * token != 0 while it lands in a pvm_precv buffer (sink.c). */
struct pvmi_rasm {
    struct pvmi_rasm *next;
    int src;
    unsigned token;
    struct pmsg *m;
};

/* The stream socket carrying PVM fragments to and from the pvmd.
 * Input is parsed out of a small read buffer (several small fragments per
 * read); big payloads are read straight into their final place. */
struct pvmi_conn {
    int fd;               /* -1 when closed */
    int phase;            /* what the next input bytes are (wire.c) */
    unsigned char hdr[PVMI_FRAGHDR];
    unsigned char mhdr[PVMI_MSGHDR];
    char *buf;            /* payload block being read (not landing) */
    size_t want, got;     /* bytes of the current piece */
    struct pvmi_rasm *cur;   /* message the current fragment belongs to */
    struct pvmi_rasm *rasm;
    char *ib;             /* read buffer */
    size_t ib_off, ib_len;
};

struct pvmi_state {
    int tid;              /* 0 until connected */
    int ptid;
    int connecting;       /* handshake under way (src = -1) */
    int dead;             /* pvmd connection lost */
    int dsig, udpmax, schedtid;
    int outtid, outctx, outtag, trctid, trcctx, trctag;
    char inaddr[64];
    int ctx;              /* current message context */
    int nextwid;
    struct pvmi_conn pvmd;
    /* library options (pvm_setopt) */
    int route, debugmask, autoerr, fragsize, resvtids, showtids;
    int polltype, polltime, noreset;
    int c_outtid, c_outctx, c_outtag;     /* for children */
    int c_trctid, c_trcctx, c_trctag, c_trcbuf, c_trcopt;
    int s_trcbuf, s_trcopt;
    char tmask[40];
    int *siblings;
    int nsiblings;        /* -1 until TC_SIBLINGS arrives */
    /* pvm_catchout's handlers (catchout.c), set by its first call: a
     * TC_OUTPUT message (ctrl.c) and pvm_exit's wait for the children's
     * output (conn.c).  Reached only through these, so that neither
     * the control path nor the connection calls an output service by
     * name (its wait would close a circle of calls). */
    void (*output_msg)(struct pmsg *m);
    void (*output_flush)(void);
};
extern struct pvmi_state pvmi;

/* conn.c: connect to the pvmd (once); PVM code. */
int pvmi_beatask(void);
/* The first lines of a public call that needs the pvmd: be a task, else
 * report the error under fn's name.  0 or that (reported) error.  Inline:
 * every send and receive starts with it. */
static inline int pvmi_enter(const char *fn)
{
    if (pvmi.tid > 0 && !pvmi.dead)   /* the usual case, without a call */
        return 0;
    int rc = pvmi_beatask();
    return rc < 0 ? pvmi_err(fn, rc) : 0;
}
void pvmi_disconnect(void);
int pvmi_addr_file(char *buf, size_t size);

/* wire.c: fragment I/O on a connection. */
int pvmi_conn_send(struct pvmi_conn *c, int dst, struct pmsg *m, size_t fragbody);
int pvmi_conn_input(struct pvmi_conn *c);   /* read what is there; <0 on EOF/error */
void pvmi_conn_close(struct pvmi_conn *c);

/* rxq.c: the receive queue and incoming-message dispatch (pvmi_deliver
 * and pvmi_progress are in route.h). */
struct pmsg *pvmi_rxq_match(int src, int tag, int ctx);
struct pmsg *pvmi_rxq_match_fn(int src, int tag, int (*fn)(int, int, int));
void pvmi_rxq_remove(struct pmsg *m);
/* Run control work and message handlers that input brought while they
 * could not run (a daemon request was pending), if they can run now. */
void pvmi_run_pending(void);
void pvmi_rxq_reset(void);   /* drop everything queued */
void pvmi_note_input(void);
/* The deferred control list (control and handler messages), for
 * progress.c, and the counts it waits on: messages queued for the user,
 * anything at all that arrived. */
struct pmsg *pvmi_ctrlq_take(void);
int pvmi_ctrlq_pending(void);
unsigned long pvmi_rxq_delivered(void);
unsigned long pvmi_rxq_inputs(void);

/* mhf.c: user message handlers (pvm_addmhf); rxq.c queues a matching
 * message and progress.c runs its handler at the safe point. */
int pvmi_mhf_match(const struct pmsg *m);
void pvmi_mhf_run(struct pmsg *m);
void pvmi_mhf_clear(void);


/* tm.c: requests to the pvmd. */
int pvmi_tm_call(int tag, struct pmsg *req, struct pmsg **reply);
int pvmi_tm_send(int tag, struct pmsg *req);   /* no reply expected */
/* A request whose reply is collected later (tm.c): its wait id or an error;
 * pvmi_tm_collect(wid) is NULL until the reply came. */
int pvmi_tm_post(int tag, struct pmsg *req);
struct pmsg *pvmi_tm_collect(int wid);
/* A reply's first int: the pvmd's status (>= 0) or error code. */
int pvmi_tm_reply_status(struct pmsg *r);
/* A public call's request: send req (freed here; NULL: it could not be
 * allocated) and wait for the reply.  0 with *rep set (caller frees), or
 * the error, reported under fn's name. */
int pvmi_tm_ask(const char *fn, int tag, struct pmsg *req, struct pmsg **rep);
/* A request whose reply starts with a status word: send req (freed here,
 * as above) and return that status or the request's error, unreported.
 * The reply stays in *rep when rep is not NULL and the status is >= 0
 * (caller frees). */
int pvmi_tm_status(int tag, struct pmsg *req, struct pmsg **rep);

/* tm_match.c: which daemon message is which request's reply.  m is the
 * reply a request waits for or a posted one's: taken (1). */
int pvmi_tm_take_reply(struct pmsg *m);
/* A request is waiting for its reply: control work must wait too. */
int pvmi_tm_busy(void);
/* The request waited for (tag 0: none); its reply once taken, until
 * expect_end forgets both. */
void pvmi_tm_expect(int tag, int wid);
struct pmsg *pvmi_tm_reply(void);
void pvmi_tm_expect_end(void);
/* Posted requests: room for one more (0 or PvmNoMem) before sending it,
 * then its entry. */
int pvmi_tm_post_room(void);
void pvmi_tm_post_add(int wid, int tag);

/* xbuf.c: internal buffers (the rest is in route.h). */
char *pvmi_get_strdup(struct pmsg *m);   /* NULL on error */

/* route.c: the daemon route's fragment body, and the size pvm_getopt
 * reports for it (PvmFragSize). */
size_t pvmi_frag_body(void);
int pvmi_frag_size(void);

/* send.c: route a user message to one task (any route). */
int pvmi_send_msg(int dst, struct pmsg *m);
/* multicast through the pvmd to tids (sorted, unique, not self). */
int pvmi_mcast_pvmd(const int *tids, int n, struct pmsg *m);
/* multicast to tids by whichever route reaches each. */
int pvmi_mcast(const int *tids, int n, struct pmsg *m);
/* bytes one item of a pvm_psend type takes (0: unknown type). */
size_t pvmi_psend_size(int type);

/* ctrl.c: TC_* control messages. */
void pvmi_ctrl(struct pmsg *m);

/* unimpl-friendly: true when the tag is reserved (bit 31) */
#define PVMI_RESERVED_TAG(t) ((t) < 0)

#endif /* PVM3_LPVM_H */
