/*
 * pvmam.h - pvmam, the Active Messages fast path of libpvm3am.
 *
 * Between two libpvm3am tasks, user messages (pvm_send, pvm_psend,
 * pvm_mcast) travel as active messages over libam instead of through the
 * pvmd; everything else keeps the daemon route.  Nothing has to change in a
 * PVM program: connections open on demand with the first message.  These
 * calls are optional extras.
 *
 * Environment (read at pvm_mytid(), passed on to spawned children):
 *   PVMAM_TRANSPORT  shm,tcp (default), shm,udp, tcp, udp, shm, or off: a
 *                    comma-separated list of at most two transports, in
 *                    order of preference; each peer is reached over the
 *                    first one it also has that reaches it (shm: only
 *                    peers on this host), so shm,tcp means shm on this
 *                    host, tcp to the others.  One name: that transport
 *                    alone.
 *   PVMAM_DEPTH      request instances in flight per peer (1..64, default 8)
 *   PVMAM_TIMEOUT    longest retransmission interval in ms (udp; 100..3600000,
 *                    default 30000): a silent peer is declared dead after
 *                    at most about twice this; sends to it then fail with
 *                    PvmNoTask.  Over tcp a lost connection is seen at once.
 *   PVMAM_VERBOSE    1: print connection events on stderr, and the
 *                    task's message totals at exit
 *   PVMAM_WAIT       how a waiting task spins before it sleeps: yield
 *                    (default), spin, block, idle, adapt or auto
 * An empty value is the default; a bad one prints one line and the task
 * runs without AM.  Every setting: libpvm3am(7).
 */
#ifndef PVMAM_H
#define PVMAM_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Ordered full-mesh connect (thesis 6.5).  Every task of a job of ntasks
 * tasks calls it: the task without a PVM parent is the master and the
 * others must be its children.  Children send their address to the master,
 * the master tells every pair to connect (the larger tid accepts).  Returns
 * 0, or a PVM error code (PvmBadParam, PvmMismatch when the tasks passed
 * different ntasks, or PvmSysErr when the job did not assemble within
 * PVMAM_TIMEOUT); pvmam_init(3). */
int pvmam_init(int ntasks);

/* The transports in use, as PVMAM_TRANSPORT names them ("shm,tcp",
 * "tcp", ...), or "off".  Fewer than configured only if one could not
 * start (a line on stderr said so). */
const char *pvmam_transport(void);

struct pvmam_stats {
    uint64_t am_msgs_sent, am_msgs_recv;      /* user messages over AM */
    uint64_t am_bytes_sent, am_bytes_recv;    /* their body bytes */
    uint64_t pvmd_msgs_sent, pvmd_msgs_recv;  /* user messages via the pvmd */
    uint64_t pvmd_bytes_sent, pvmd_bytes_recv;
    uint64_t retransmits, duplicates;         /* from libam */
    uint64_t drops;           /* malformed packets dropped (libam; with tid 0 also
                                 malformed fragments from the pvmd) */
    uint64_t auth_drops;      /* AMs and connections without our secret (libam) */
    int peers_am;                             /* peers reached over AM */
    int peers_opening;                        /* links still being set up */
    char transport[16];       /* per peer: its link's transport ("shm", "tcp",
                                 "udp"; "" without a link); for tid 0 the
                                 task's, as pvmam_transport() */
};

/* Counters for one peer (tid) or, with tid 0, for the whole task.
 * Returns 0 or PvmNoTask (no traffic with that tid). */
int pvmam_stats(int tid, struct pvmam_stats *out);

/* Why the AM link to tid ended, in words ("shm: the peer's process ended
 * (pidfd)", "tcp: the peer closed the connection (read returned 0)", "the
 * pvmd said the task exited"), or NULL while it did not (no link, or
 * open).  Sends to it fail with PvmNoTask from then on (and while its
 * link closes after the pvmd said it exited, the text says so); PVMAM_VERBOSE=1
 * logs the same text when the link ends. */
const char *pvmam_dead_reason(int tid);

/* Live report of a running libpvm3am task (the console's amstat).  The
 * task answers inside its next PVM call; see pvmam/amstat.c. */
enum { PVMAM_ROUTE_PVMD = 0, PVMAM_ROUTE_AM = 1, PVMAM_ROUTE_DEAD = 2 };
#define PVMAM_REPORT_PEERS 64
struct pvmam_peer_report {
    int tid;
    int route;                 /* PVMAM_ROUTE_*: how messages to it go now */
    struct pvmam_stats st;
};
struct pvmam_report {
    char transport[16];        /* as pvmam_transport(): "shm,tcp", "tcp", "off" ... */
    struct pvmam_stats total;
    int npeers;                /* entries in peer[] */
    int more;                  /* peers that did not fit */
    struct pvmam_peer_report peer[PVMAM_REPORT_PEERS];
};

/* 1 if tid is a libpvm3am task, 0 if not (stock, or gone), or an error. */
int pvmam_is_amtask(int tid);

/* Ask task tid for its report and wait at most timeout_ms.  Returns 0,
 * PvmNotFound (tid is not a libpvm3am task), PvmNoData (no answer in
 * time), PvmBadParam, or PvmSysErr. */
int pvmam_report(int tid, int timeout_ms, struct pvmam_report *out);

#ifdef __cplusplus
}
#endif

#endif /* PVMAM_H */
