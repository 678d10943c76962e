/*
 * shape.h - one torture scenario ("shape"), drawn from a seed.  Every
 * task of a scenario draws the same shape from the same seed, so each
 * knows what every other sends and what it must receive (the oracle needs
 * no side channel).  tests/torture/README.md describes what is drawn.
 */
#ifndef TORTURE_SHAPE_H
#define TORTURE_SHAPE_H

#include <stddef.h>
#include <stdint.h>

#define TW_MAX 16          /* tasks in a scenario (a crowd: draw_more in shape.c) */
#define TW_OLD 12          /* the bound before crowds: it seeds collective data (worker.c) */
#define TM_MAX 1200        /* messages one task sends */

enum t_pattern { P_PINGPONG, P_BIDIR, P_FANIN, P_FANOUT, P_ALLTOALL, P_RING,
                 P_EXITRACE, P_FLOOD, P_N };
enum t_ending { E_NORMAL,     /* all done, report, pvm_exit */
                E_EXITNOW,    /* report first, then the last op, pvm_exit at once */
                E_KILL,       /* SIGKILL itself right after its k-th accepted send */
                E_KILLTIMER,  /* SIGKILL itself after t ms, wherever it is */
                E_QUIT,       /* exit after k messages received, others still sending */
                E_N };
enum t_order { O_SENDFIRST, O_INTERLEAVE, O_PINGPONG };
enum t_how { H_SEND, H_PSEND, H_MCAST };
enum t_type { T_BYTE, T_INT, T_DOUBLE };
/* How a task receives the data it waits for (worker.c recv_from). */
enum t_recv { R_ANY,      /* pvm_trecv(-1, -1) */
              R_SRC,      /* pvm_trecv(sender, -1): fixed source, any tag */
              R_EXACT,    /* pvm_trecv(sender, its next tag) */
              R_PRECV,    /* pvm_precv(sender, next tag or -1) into the user's array */
              R_PROBE,    /* pvm_probe(-1, -1) loop, then pvm_recv(its source, its tag) */
              R_NRECV,    /* pvm_nrecv(sender, -1) loop */
              R_MIX,      /* one of the above per message (shape_recv_mode) */
              /* from the fourth stream (draw_more), for tasks first drawn R_ANY */
              R_ANYTAG,   /* pvm_trecv(-1, next tag): another sender's message of that tag may come */
              R_PRECVANY, /* pvm_precv(-1, next tag) when no other sender uses the tag */
              R_RECVF,    /* pvm_trecv through a pvm_recvf matcher taking (sender, next tag) */
              R_PROBETAG, /* pvm_probe(-1, next tag), pvm_bufinfo checked, then pvm_recv */
              R_N };
#define R_OLD R_ANYTAG     /* modes of the second stream */
/* The collective phase's rounds (worker.c coll_phase). */
enum t_coll { CO_BCAST, CO_REDUCE, CO_GATHER, CO_SCATTER, CO_BARRIER, CO_N };
enum t_func { F_SUM, F_MAX, F_MIN };
#define TC_MAX 4           /* rounds of a collective phase */

struct t_msg {
    uint32_t dst;          /* bit mask of receivers (several only for H_MCAST) */
    uint32_t size;         /* bytes of data (elements x element size) */
    uint8_t how, enc, type;   /* enc: PvmDataDefault/Raw/InPlace */
    uint8_t list;          /* H_MCAST: its tid list also holds the sender (M_SELF, which
                              pvm_mcast must skip) or a receiver twice (M_DUP: once only) */
};
enum { M_SELF = 1, M_DUP = 2 };

/* One op of a task's script. */
struct t_op {
    uint8_t kind;          /* 'S' send msg[a]; 'W' wait until b msgs from a; 'P' poll;
                              'K' pvm_kill task a */
    int a, b;
};

struct t_task {
    int stock;             /* the stock-libpvm3 build */
    int order, ending;
    int kill_after;        /* E_KILL: sends; E_KILLTIMER: ms; E_QUIT: receives */
    int nmsg;
    struct t_msg msg[TM_MAX];
    int nop;
    struct t_op op[2 * TM_MAX + TW_MAX + 4];
    int recv;              /* enum t_recv; its 'W' ops in a drawn sender order */
    int exact;             /* R_PRECV: with the tag, not -1 */
    int shuffle;           /* R_EXACT or exact R_PRECV, all sends first: takes each staying
                              sender's messages by tag in a drawn order (shape_recv_order) */
    int killed_by;         /* 1 + the task that pvm_kills this one mid-stream ('K'), or 0 */
    int fnbest;            /* R_RECVF: the matcher ranks (returns 2, the library must scan on) */
};

/* A collective phase through the real pvmgs, before the scripts: the
 * members join, meet at a barrier, play the rounds, meet again. */
struct t_round {
    uint8_t kind, type, func, enc;   /* enum t_coll; T_INT or T_DOUBLE (bcast: any) */
    int root;              /* instance */
    int count;             /* items (bcast: bytes, as a message) */
};
struct t_collph {
    uint32_t members;      /* bit mask; empty: no phase */
    int nround, leave;     /* leave: pvm_lvgroup after the last barrier */
    struct t_round r[TC_MAX];
};

struct t_shape {
    uint64_t seed;
    int pattern, n;
    int n0;                /* tasks before a crowd was added (FIND's older classes) */
    int crowd;             /* tasks added, every pair of tasks sending both ways */
    int jitter;            /* messages moved to a random size near an internal size */
    int catchout;          /* task 0 catches its children's output */
    int print_bytes;       /* ...and each child prints this much */
    struct t_task t[TW_MAX];
    struct t_collph coll;
};

void shape_draw(uint64_t seed, struct t_shape *s);
/* Without the fourth stream's draws (draw_more): what the seed meant before
 * them, for FIND's older classes. */
void shape_draw_old(uint64_t seed, struct t_shape *s);
/* The shape in words, for failure reports. */
void shape_describe(const struct t_shape *s, char *buf, size_t size);
const char *shape_pattern_name(int p);
const char *shape_ending_name(int e);
/* Messages task `me` gets from task `src`, in order: their indexes in
 * src's msg[] (returns the count; idx may be NULL). */
int shape_expected(const struct t_shape *s, int src, int me, int *idx);
/* Does task i go away by design (killed, or quits early)? */
int shape_gone(const struct t_shape *s, int i);
uint64_t shape_bytes(const struct t_shape *s);
/* How task me receives message number pos (0-based, in order) from src. */
int shape_recv_mode(const struct t_shape *s, int me, int src, int pos);
const char *shape_recv_name(int r);
/* The order in which task me takes the n messages (indexes idx, in send
 * order) src sends it: unchanged, or shuffled (struct t_task shuffle). */
void shape_recv_order(const struct t_shape *s, int me, int src, int *idx, int n);
/* Item k of member task i's array in collective round r: -1000..1000. */
int shape_coll_value(uint64_t seed, int r, int i, int k);
int shape_members(const struct t_shape *s);
/* The data of message k of task src: `size` bytes, of its type. */
void shape_fill(uint64_t seed, int src, int k, const struct t_msg *m, void *buf);
/* Elements in the message, and the element size. */
int shape_count(const struct t_msg *m);
int shape_elsize(int type);

#endif
