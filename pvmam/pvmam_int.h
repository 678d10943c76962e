/*
 * pvmam_int.h - pvmam internal: the AM route's state, shared by its parts
 * (config, peers, link set-up, fragments, the route itself, pvmam_init).
 *
 * pvmam is the only layer that knows both pvm3 (through route.h) and libam.
 */
#ifndef PVMAM_INT_H
#define PVMAM_INT_H

#include <stddef.h>
#include <stdint.h>
#include <pvm3.h>
#include <pvmproto.h>
#include "am.h"
#include "pmsg.h"
#include "route.h"
#include "pvmam.h"

/* ---- configuration (config.c) ------------------------------------------ */
/* PVMAM_TRANSPORT names up to this many transports, in order of
 * preference per peer ("shm,tcp": shm where it reaches, tcp elsewhere). */
#define PVMX_NIFC 2
/* Room for a published address list: PVMX_NIFC addresses and separators. */
#define PVMX_ADDRS_MAX (PVMX_NIFC * AM_ADDR_MAX)

/* Without PVMAM_TRANSPORT: shm to peers on this host, tcp to the others
 * (the fastest correct choice, docs/performance.md, "Why shm,tcp is the default"). */
#define PVMX_DEFAULT_TRANSPORT "shm,tcp"
/* Fragment payload over shm: as the daemon route, messages up to 16 MiB
 * go whole (one copy, one handshake) */
#define PVMX_SHM_PAYLOAD ((size_t)16 << 20)

struct pvmx_config {
    char transport[16];  /* as set: "shm,tcp" (default), "tcp", ..., "off" */
    char tr[PVMX_NIFC][8];   /* its transports, in order of preference */
    int ntr;             /* how many (0: off) */
    unsigned depth;
    unsigned timeout_ms;
    int verbose;
};
/* Read PVMAM_*; a bad value is reported in one line and AM is turned off.
 * Returns 0 or -1 (bad value). */
int pvmx_read_config(struct pvmx_config *cfg);
/* Make spawned children inherit the PVMAM_* settings (PVM_EXPORT). */
void pvmx_export_env(void);

/* ---- the state of a link (linkstate.c) ----------------------------------
 * One side of the link to a peer is in exactly one of these states
 * (docs/link-setup.md, "States of one side of a link", lists the same
 * names in the same order; tests/pvmam/test_linkstate.c compares them).
 * S is the smaller tid (connects), L the larger (accepts).  A dead link
 * keeps what its traffic did: whether our messages went over AM (then
 * sends fail) and whether its AMs are still held for its SWITCH/READY. */
enum pvmx_link {
    PVMX_UNKNOWN,          /* not looked up yet */
    PVMX_STOCK,            /* no AM link, for good: the daemon route */
    PVMX_KNOWN,            /* a libpvm3am task: its address list, no endpoint */
    PVMX_S_CONNECTING,     /* S: CONN sent, waiting for SWITCH or NAK */
    PVMX_S_SWITCHING,      /* S: SWITCH came, READY not out yet */
    PVMX_L_ACCEPTED,       /* L: accepted its CONN, SWITCH not out yet */
    PVMX_L_SWITCHED,       /* L: SWITCH out, waiting for READY */
    PVMX_OPEN,             /* AM both ways */
    PVMX_DEAD,             /* ended when open: sends fail */
    PVMX_DEAD_HELD,        /* ended before either side switched */
    PVMX_DEAD_L_SWITCHED,  /* ended after our SWITCH, before its READY */
    PVMX_DEAD_S_SWITCHING, /* ended after its SWITCH, before our READY */
    PVMX_NLINK
};
struct pvmx_link_info {
    const char *name;       /* as docs/link-setup.md spells it */
    unsigned char tx;       /* our user messages to it go over AM */
    unsigned char rx;       /* its AMs are delivered, not held */
    unsigned char dead;     /* the endpoint ended */
    unsigned next;          /* legal next states: bit (1 << state) */
};
extern const struct pvmx_link_info pvmx_link_table[PVMX_NLINK];
struct pvmx_peer;
int pvmx_link_legal(enum pvmx_link from, enum pvmx_link to);
/* Change p's state (logged under PVMAM_VERBOSE).  An illegal change is
 * refused and logged, p keeps its state: 0 or -1. */
int pvmx_link_set(struct pvmx_peer *p, enum pvmx_link to);
/* The endpoint ended: the dead state matching p's (none if no link);
 * why (libam's am_task_dead_reason, or pvmam's own words) is kept in
 * p->why unless a reason is there already (pvmam_dead_reason). */
int pvmx_link_die(struct pvmx_peer *p, const char *why);
#define pvmx_link_tx(p)   (pvmx_link_table[(p)->link].tx)
#define pvmx_link_rx(p)   (pvmx_link_table[(p)->link].rx)
#define pvmx_link_dead(p) (pvmx_link_table[(p)->link].dead)

/* ---- peers (peer.c) --------------------------------------------------- */
/* Its state is `link`; the int flags below are work owed to it (done
 * from pvmx_link_work at a safe point, then cleared) or one-shot marks,
 * never part of the state. */
struct pvmx_peer {
    int tid;
    enum pvmx_link link;  /* linkstate.c */
    int requested;        /* mark: we asked it to connect (REQ sent once) */
    int check;            /* a daemon message came from it: look it up */
    int consider;         /* we sent it one via the daemon: decide its route */
    int need_connect;     /* its REQ arrived: connect from a safe point */
    int need_switch;      /* accepted: send SWITCH from a safe point */
    int need_ready;       /* SWITCH arrived: send READY from a safe point */
    int need_nak;         /* its CONN cannot be honoured: send NAK */
    int need_watch;       /* ask the pvmd to tell us when it exits */
    int need_close;       /* the pvmd says it exited: close its link once
                             what it sent is read (link.c close_exited) */
    long long close_by;   /* ...or at this time (ms, pvmx_now_ms), 0: not yet */
    int watch_wid;        /* the pvmd will answer when its address is there */
    int settled;          /* mark: a first send has waited for its link (settle.c) */
    int daemon_sent;      /* mark: a user message of ours went to it via the pvmd */
    int mesh;             /* mark: pvmam_init's mesh opened it without CONN
                             (S: until GO; L: for good, link.c) */
    int self_watch;       /* mark: libam's end of its endpoint, not the
                             pvmd's exit notice, closes the link; over tcp
                             its host's deletion too (link.c) */
    am_endpoint_t *ep;
    am_interface_t *ifc;  /* ep's interface: the transport the link uses */
    /* Its published address list (addrs.c), or after its CONN the one
     * address it connected from; each with its secret (libam/am.h).
     * On the heap at its real length: a task farm's master keeps an entry
     * per task it ever saw, and room for the longest addresses (ucx's)
     * would cost kilobytes each.  NULL: not known yet. */
    char *addr;
    /* message being reassembled from its fragments */
    int rbusy;            /* a message is in progress */
    int rstarted;         /* ...begun by frag_place, its handler not run yet */
    struct pmsg *rm;      /* its buffer (NULL while landing in a precv) */
    size_t roff, rtotal;
    unsigned rtoken;      /* != 0: landing in a pvm_precv buffer */
    char *rblock;
    /* AM messages that arrived before its SWITCH (kept in order) */
    struct pvmi_msgq hold;
    /* a multicast's message was lent to it and not yet reclaimed (frag.c,
     * pvmx_frag_batch): on pvmx.lent's list through lent_next */
    int lent;
    struct pvmx_peer *lent_next;
    struct pvmam_stats st;
    char why[112];        /* why its link ended ("" while it did not): pvmx_link_die */
};

struct pvmx_peer *pvmx_peer_find(int tid);         /* NULL if none */
struct pvmx_peer *pvmx_peer_get(int tid);          /* create; NULL on no memory */
int pvmx_peer_count(void);
struct pvmx_peer *pvmx_peer_at(int i);
void pvmx_peers_free(void);
/* p->addr := s (a copy); PvmNoMem if it cannot. */
int pvmx_peer_set_addr(struct pvmx_peer *p, const char *s);
/* p->addr, or "" while it is not known. */
const char *pvmx_peer_addr(const struct pvmx_peer *p);

/* ---- global state (state.c) ------------------------------------------- */
struct pvmx_state {
    struct pvmx_config cfg;
    int on;                   /* AM usable (transport up) */
    int starting;             /* r_connect is bringing AM up (publishing) */
    int exiting;              /* r_exit has begun */
    int mytid;
    int nifc;
    am_interface_t *ifc[PVMX_NIFC];   /* running, in order of preference */
    char running[16];         /* their names: "shm,tcp" (pvmam_transport) */
    char addr[PVMX_ADDRS_MAX];   /* our address list, with our secrets: mailbox only */
    int h_frag;               /* handler ids: fragments (frag.c), short messages */
    int h_short_raw, h_short_xdr;   /* ...of either encoding (short.c) */
    int short_all;            /* every interface carries a whole short message
                                 (am_max_payload): no need to ask per send */
    struct pvmx_peer *placing;   /* a fragment is being read into a precv's buffer */
    int batch;                /* in a multicast (route.h batch): lend, reclaim at its end */
    struct pvmx_peer *lent;   /* peers whose lent message is not reclaimed yet */
    struct pvmam_stats total;
};
extern struct pvmx_state pvmx;

void pvmx_log(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
long long pvmx_now_ms(void);

/* ---- address lists (addrs.c) -------------------------------------------
 * A task publishes one address per running interface, in order of
 * preference, separated by one space: "shm:...#k tcp:...#k". */
/* Split a list strictly: 1..max addresses, each "name:..." of printable
 * non-space characters shorter than AM_ADDR_MAX, no transport twice.
 * Returns the count, or -1 for anything else. */
int pvmx_addrs_split(const char *list, char out[][AM_ADDR_MAX], int max);
/* Our list from the running interfaces into pvmx.addr; 0 or -1. */
int pvmx_addrs_make(void);
/* The running interface whose transport the address names, or NULL. */
am_interface_t *pvmx_ifc_of(const char *addr);
/* The interface and address a link to p should use, in our order of
 * preference: the i-th (from *i on) of ours whose transport p published.
 * Returns the interface (and p's address in it, into addr) or NULL. */
am_interface_t *pvmx_ifc_next(const struct pvmx_peer *p, int *i, char *addr);

/* ---- link set-up (link.c; control messages in ctrl.c) -------------------- */
/* Control messages between libpvm3am tasks, over the daemon route, in the
 * TC context with tags outside the TC_* range (stock tasks never get them:
 * they go only to tasks found in the mailbox). */
#define PVMAM_TAG_REQ     ((int)0x80a30001)   /* "connect to me": addr */
#define PVMAM_TAG_CONN    ((int)0x80a30002)   /* "I connected to you": addr */
#define PVMAM_TAG_SWITCH  ((int)0x80a30003)   /* "accepted; my AMs from now on" */
#define PVMAM_TAG_HELLO   ((int)0x80a30004)   /* pvmam_init: child -> master */
#define PVMAM_TAG_TABLE   ((int)0x80a30005)   /* pvmam_init: the job's tids */
#define PVMAM_TAG_DONE    ((int)0x80a30006)   /* pvmam_init: child connected */
#define PVMAM_TAG_GO      ((int)0x80a30007)   /* pvmam_init: all connected */
#define PVMAM_TAG_READY   ((int)0x80a30008)   /* "my AMs from now on" (connector) */
#define PVMAM_TAG_NAK     ((int)0x80a30009)   /* "no AM link: stay on the daemon" */
#define PVMAM_TAG_EXIT    ((int)0x80a3000a)   /* from the pvmd: {tid} has exited */
#define PVMAM_TAG_CONNS   ((int)0x80a3000b)   /* pvmam_init: whom a task connected to */
#define PVMAM_TAG_ACCEPTS ((int)0x80a3000c)   /* pvmam_init: whom a task must accept */
#define PVMAM_TAG_HOSTDEL ((int)0x80a3000d)   /* from the pvmd: {host} deleted or failed */
#define PVMAM_IS_CTRL(m) ((m)->ctx == SYSCTX_TC && (m)->tag >= PVMAM_TAG_REQ && \
                          (m)->tag <= PVMAM_TAG_HOSTDEL)
#define PVMAM_IS_INIT(tag) (((tag) >= PVMAM_TAG_HELLO && (tag) <= PVMAM_TAG_GO) || \
                            (tag) == PVMAM_TAG_CONNS || (tag) == PVMAM_TAG_ACCEPTS)

/* Our mailbox entries: "pvmam.<tid>" (AM address), "pvmam.lib.<tid>"
 * (amstat.c); the route declares the prefix its own (pvm_getmboxinfo). */
#define PVMAM_MBOX_PREFIX "pvmam."

int pvmx_publish(void);                      /* our address into the mailbox */
int pvmx_ctrl_filter(struct pmsg *m);        /* consume a control message */
void pvmx_ctrl_replay_early(void);           /* after start-up: handle (or refuse)
                                                 what came while starting */
/* Deferred set-up steps; returns how many links opened or closed (a
 * waiter for a link must look again rather than sleep). */
int pvmx_link_work(void);
void pvmx_link_close_exited(void);   /* at exit: close links to exited peers */
/* The earliest time (pvmx_now_ms) a link to an exited peer must close by,
 * or -1: waiting wakes up by then. */
long long pvmx_link_close_due(void);
/* Is the link to p in set-up (an endpoint, not yet open both ways)? */
int pvmx_link_opening(const struct pvmx_peer *p);
void pvmx_saw_daemon_msg(int src);           /* a user message via the pvmd */
/* Decide the route to a peer on the first message (may open the link). */
void pvmx_link_consider(struct pvmx_peer *p);
/* A user message to p goes through the daemon: note it for link work.
 * Nonzero if there is link work to do. */
int pvmx_link_want(struct pvmx_peer *p);
/* Open the AM link to p as the connecting side (smaller tid). */
int pvmx_link_connect(struct pvmx_peer *p);
/* pvmam_init's mesh (link.c): S connects without CONN (returns the index
 * of the interface used in our list, or < 0: STOCK); L accepts S at addr
 * (0, or < 0: STOCK); at GO S's side opens (or L refused it); when
 * pvmam_init fails S sends the CONN it skipped. */
int pvmx_link_mesh_connect(struct pvmx_peer *p);
int pvmx_link_mesh_accept(struct pvmx_peer *p, const char *addr);
void pvmx_link_mesh_go(struct pvmx_peer *p, int refused);
void pvmx_link_mesh_fallback(struct pvmx_peer *p);
/* libam declared p's endpoint dead: a link that the pvmd does not watch
 * closes now (once what it sent is read). */
void pvmx_link_ended(struct pvmx_peer *p);
/* Ask the pvmd, in one request, to watch the hosts of the self-watched
 * tcp links made since the last call (one record per host, link.c). */
void pvmx_link_watch_hosts(void);
/* route.h's settle: a first big send to tid waits briefly for its link. */
int pvmx_settle(void *ctx, int tid, size_t len);
/* Control message tag to dst over the daemon route: ints, then a counted
 * string when str is not NULL.  0 or a PVM error. */
int pvmx_send_ctrl(int dst, int tag, const int *ints, int nint, const char *str);
/* Send the internal buffer m as control message tag to each of dsts over
 * the daemon route; frees m. */
int pvmx_ctrl_post(struct pmsg *m, int tag, const int *dsts, int n);
int pvmx_ctrl_unpack(struct pmsg *m, int *ints, int nint, char *str, size_t max);
/* Read and check a REQ or CONN's body (its address into addr); 0 also for
 * the others, which carry nothing.  < 0: malformed, not to be acted on. */
int pvmx_ctrl_parse(struct pmsg *m, char *addr, size_t max);

/* ---- pvmam_init messages (init.c) ---------------------------------- */
void pvmx_init_note(struct pmsg *m);        /* HELLO/TABLE/DONE/GO arrived */

/* ---- fragments (frag.c) --------------------------------------------- */
int pvmx_frag_send(struct pvmx_peer *p, struct pmsg *m);
/* route.h batch: on = 0 reclaims what the multicast's sends lent. */
void pvmx_frag_batch(int on);
int pvmx_frag_send_bytes(struct pvmx_peer *p, int tag, int ctx, const void *buf, size_t len);
void pvmx_frag_handler(const am_token_t *tok, void *data, size_t len);
int pvmx_frag_bind(void);   /* handler id (with its placer), or < 0 */
/* A send failed with libam's rc: the PVM error to return (a dead peer's link dies). */
int pvmx_frag_failed(struct pvmx_peer *p, int rc);
void pvmx_frag_check_place(void);   /* before am_poll: is a precv's buffer still wanted? */
void pvmx_release_held(struct pvmx_peer *p);
void pvmx_peer_drop_rx(struct pvmx_peer *p);        /* all of it: the peer goes */
void pvmx_peer_drop_partial(struct pvmx_peer *p);   /* only a half-received one */

/* ---- small whole messages in one AM with a short header (short.c) ------ */
/* Messages up to this many bytes go so (pvm_psend's always, pvm_send's
 * when raw or XDR without wid or crc); on shm up to 10 bytes fit in one
 * 64-byte line (libam/shm/short.h), the rest still save frag.c's header. */
#define PVMX_SHORT 4088
#define PVMX_SHORT_HDR 8   /* its header: tag, ctx */
int pvmx_short_send_bytes(struct pvmx_peer *p, int tag, int ctx, const void *buf, size_t len);
int pvmx_short_send_msg(struct pvmx_peer *p, struct pmsg *m);   /* 1: not this way */
/* Its handlers' ids (after frag.c's, so every task numbers them alike), or < 0. */
int pvmx_short_bind(void);
/* route.h recv_bytes for a peer whose link delivers: p's next message
 * straight into buf if it is a short one that matches (am_take_ep).
 * 1 taken, 0 nothing there, -1 something else is (poll instead). */
int pvmx_short_recv(struct pvmx_peer *p, struct pvm_recv_bytes *rb);

#endif /* PVMAM_INT_H */
