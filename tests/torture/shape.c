/*
 * shape.c - draws a torture scenario from a seed (shape.h): the pattern,
 * the tasks, each task's messages (sizes weighted towards the edges of
 * the library's internal sizes) and script, and how each task ends.
 * Pure: the same seed gives the same shape in every task.
 */
#include <stdio.h>
#include <string.h>
#include <pvm3.h>
#include "shape.h"

static uint64_t next(uint64_t *x)   /* splitmix64 */
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}
static int below(uint64_t *x, int n) { return n > 0 ? (int)(next(x) % (uint64_t)n) : 0; }
static int pct(uint64_t *x, int p) { return below(x, 100) < p; }
static int range(uint64_t *x, int lo, int hi) { return lo + below(x, hi - lo + 1); }

#define KiB 1024u
#define MiB (1024u * 1024u)
#define BIGGEST (16u * MiB)

/* Message sizes where the library changes its way; each is drawn -1, 0
 * and +1.  First fragment header 32 bytes (HDR_FIRST, pvmam/frag.c),
 * later ones 4 (HDR_NEXT). */
static const uint32_t small_edges[] = {
    0, 4, 8,
    224,                   /* PVMX_SMALL: a pvm_psend in one fragment (pvmam/frag.c) */
    248, 256,              /* AMX_PACK_MAX (libam/am_int.h): payload copied behind the header;
                              a short message's (pvmam/short.c, 8-byte header) */
    4080, 4096,            /* stock pvmd fragments; WARM_AT (libam/shm/shm.h) */
    4088,                  /* PVMX_SHORT (pvmam/pvmam_int.h): the short path's end;
                              with its 8-byte header AMX_PUT_MAX (libam/am_int.h) */
    16384 - 32, 16384,     /* AM_PLACE_MIN (libam/am.h): placed, not copied */
    16448 - 32, 16448,     /* INLINE_MAX (libam/tr_shm.h): biggest in-ring record */
    65475 - 32, 65475,     /* udp max payload (libam/tr_udp.c) in one fragment */
    65536,                 /* RX_CHUNK (libam/tr_tcp.c), RING_MIN (libam/tr_shm.h) */
    65443 + 65471,         /* two full udp fragments */
};
static const uint32_t mid_edges[] = {
    256 * KiB - 32, 256 * KiB,   /* HELP_MIN (libam/shm/copy.c): both ends copy */
    512 * KiB - 64,              /* half the shm ring at depth 8 (libam/shm/ring.c): the
                                    biggest message copied into it (AM and fragment headers) */
    65443 + 7 * 65471,           /* a full AM window (depth 8) of udp fragments */
    MiB, MiB + 32,               /* tcp default payload (libam/tr_tcp.c): 1 MiB + 64 */
};
static const uint32_t big_edges[] = {
    MiB + 32 + 7 * (MiB + 60),   /* a full window of tcp fragments */
    BIGGEST - 32, BIGGEST,       /* PVMX_SHM_PAYLOAD (pvmam/pvmam_int.h) */
};
#define NE(a) ((int)(sizeof a / sizeof a[0]))

static uint32_t log_uniform(uint64_t *x, uint32_t lo, uint32_t hi)
{
    int blo = 31 - __builtin_clz(lo), bhi = 31 - __builtin_clz(hi);
    int b = range(x, blo, bhi);
    uint32_t v = (1u << b) + (uint32_t)below(x, (int)(1u << b));
    return v < lo ? lo : v > hi ? hi : v;
}

/* Mostly small and cheap; big ones (up to 16 MiB) only where allowed. */
static uint32_t draw_size(uint64_t *x, int allow_big)
{
    int r = below(x, 100);
    uint32_t e;
    if (r < 25)
        return (uint32_t)below(x, 65);
    if (r < 65)
        e = small_edges[below(x, NE(small_edges))];
    else if (r < 80)
        return log_uniform(x, 64, 256 * KiB);
    else if (r < 90 || !allow_big)
        e = mid_edges[below(x, NE(mid_edges))];
    else if (r < 95)
        return log_uniform(x, MiB, BIGGEST);
    else
        e = big_edges[below(x, NE(big_edges))];
    int d = range(x, -1, 1);
    if (e == 0 && d < 0)
        d = 0;
    if (e == BIGGEST && d > 0)
        d = 0;
    return e + (uint32_t)d;
}

int shape_elsize(int type) { return type == T_BYTE ? 1 : type == T_INT ? 4 : 8; }
int shape_count(const struct t_msg *m) { return (int)(m->size / (uint32_t)shape_elsize(m->type)); }

static void draw_msg(uint64_t *x, struct t_msg *m, uint32_t dst, int can_mcast, int allow_big)
{
    m->dst = dst;
    int r = below(x, 100);
    m->how = can_mcast && r < 15 ? H_MCAST : r < 30 ? H_PSEND : H_SEND;
    static const uint8_t encs[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };
    m->enc = encs[below(x, 3)];
    r = below(x, 100);
    m->type = r < 60 ? T_BYTE : r < 80 ? T_INT : T_DOUBLE;
    uint32_t sz = draw_size(x, allow_big);
    m->size = sz / (uint32_t)shape_elsize(m->type) * (uint32_t)shape_elsize(m->type);
}

/* Out-neighbours of task i under the pattern. */
static uint32_t neighbours(const struct t_shape *s, int i)
{
    uint32_t all = (1u << s->n) - 1, me = 1u << i;
    switch (s->pattern) {
    case P_PINGPONG: case P_BIDIR: case P_FLOOD:
        return 1u << (1 - i);
    case P_FANIN: case P_EXITRACE:
        return i ? 1u : 0;
    case P_FANOUT:
        return i ? 0 : all & ~me;
    case P_ALLTOALL:
        return all & ~me;
    default:   /* P_RING */
        return 1u << ((i + 1) % s->n);
    }
}

int shape_gone(const struct t_shape *s, int i)
{
    int e = s->t[i].ending;
    return e == E_KILL || e == E_KILLTIMER || e == E_QUIT || s->t[i].killed_by;
}

int shape_expected(const struct t_shape *s, int src, int me, int *idx)
{
    int c = 0;
    for (int k = 0; k < s->t[src].nmsg; k++)
        if (s->t[src].msg[k].dst & (1u << me)) {
            if (idx)
                idx[c] = k;
            c++;
        }
    return c;
}

static int expected_total(const struct t_shape *s, int me)
{
    int c = 0;
    for (int j = 0; j < s->n; j++)
        if (j != me)
            c += shape_expected(s, j, me, NULL);
    return c;
}

uint64_t shape_bytes(const struct t_shape *s)
{
    uint64_t b = 0;
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < s->t[i].nmsg; k++)
            b += (uint64_t)s->t[i].msg[k].size * (uint64_t)__builtin_popcount(s->t[i].msg[k].dst);
    return b;
}

static void draw_messages(uint64_t *x, struct t_shape *s)
{
    int many = pct(x, 15), big = !many && pct(x, 15);
    for (int i = 0; i < s->n; i++) {
        struct t_task *t = &s->t[i];
        uint32_t nb = neighbours(s, i);
        int deg = __builtin_popcount(nb);
        if (!deg)
            continue;
        int per = s->pattern == P_FLOOD ? range(x, 100, 1000)
                : s->pattern == P_EXITRACE ? 1
                : many ? range(x, 10, 60) : range(x, 1, 4);
        if (s->pattern == P_PINGPONG && i == 1)
            per = s->t[0].nmsg;
        if (per * deg > TM_MAX)
            per = TM_MAX / deg;
        int dl[TW_MAX], nd = 0;
        for (int j = 0; j < s->n; j++)
            if (nb & (1u << j))
                dl[nd++] = j;
        for (int k = 0; k < per * deg; k++) {
            struct t_msg *m = &t->msg[t->nmsg++];
            draw_msg(x, m, 1u << dl[k % deg], deg > 1, big);
            if (m->how == H_MCAST)
                m->dst = nb;
            if (s->pattern == P_FLOOD) {
                m->how = H_SEND;
                m->size = pct(x, 70) ? 65536u + (uint32_t)range(x, -1, 1) : log_uniform(x, 16384, 262144);
                m->size -= m->size % (uint32_t)shape_elsize(m->type);
            } else if (s->pattern == P_EXITRACE) {
                /* 10,000 doubles packed in place, or near it */
                m->how = pct(x, 80) ? H_SEND : H_PSEND;
                m->type = pct(x, 70) ? T_DOUBLE : m->type;
                m->enc = pct(x, 70) ? PvmDataInPlace : m->enc;
                if (pct(x, 60))
                    m->size = 80000;
                m->size -= m->size % (uint32_t)shape_elsize(m->type);
            }
        }
    }
}

/* Keep a scenario's bytes bounded: shrink its biggest messages. */
static void budget(uint64_t *x, struct t_shape *s, uint64_t max)
{
    while (shape_bytes(s) > max) {
        struct t_msg *big = NULL;
        for (int i = 0; i < s->n; i++)
            for (int k = 0; k < s->t[i].nmsg; k++)
                if (!big || s->t[i].msg[k].size > big->size)
                    big = &s->t[i].msg[k];
        big->size = (uint32_t)below(x, 65);
        big->size -= big->size % (uint32_t)shape_elsize(big->type);
    }
}

static void draw_endings(uint64_t *x, struct t_shape *s)
{
    if (s->pattern == P_FLOOD)
        return;
    if (s->pattern == P_EXITRACE) {
        for (int i = 1; i < s->n; i++)
            s->t[i].ending = pct(x, 80) ? E_EXITNOW : E_NORMAL;
        return;
    }
    for (int round = 0; round < 2; round++) {
        if (!pct(x, round ? 15 : 45))
            continue;
        int i = below(x, s->n);
        struct t_task *t = &s->t[i];
        int r = below(x, 100);
        if (r < 30) {
            t->ending = E_KILL;
            t->kill_after = range(x, 1, t->nmsg > 0 ? t->nmsg : 1);
        } else if (r < 55) {
            t->ending = E_KILLTIMER;
            t->kill_after = below(x, 300);
        } else if (r < 80 && expected_total(s, i) > 0 && !(i == 0 && s->catchout)) {
            /* not a catching parent: its pvm_exit waits for its children
             * (pvm_catchout(3PVM)), which may wait for it */
            t->ending = E_QUIT;
            t->kill_after = below(x, expected_total(s, i));
        } else {
            t->ending = E_EXITNOW;
        }
    }
    /* A multicast goes only to tasks that stay; one left with a single
     * receiver is a plain send. */
    uint32_t stay = 0;
    for (int i = 0; i < s->n; i++)
        stay |= shape_gone(s, i) ? 0 : 1u << i;
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < s->t[i].nmsg; k++) {
            struct t_msg *m = &s->t[i].msg[k];
            if (m->how != H_MCAST || !(m->dst & ~stay))
                continue;
            uint32_t d = m->dst & stay;
            if (__builtin_popcount(d) < 2) {
                m->how = H_SEND;
                m->dst = d ? d & -d : m->dst & -m->dst;
            } else {
                m->dst = d;
            }
        }
}

static void draw_scripts(uint64_t *x, struct t_shape *s)
{
    for (int i = 0; i < s->n; i++) {
        struct t_task *t = &s->t[i];
        t->order = s->pattern == P_PINGPONG ? O_PINGPONG
                 : s->pattern == P_FLOOD || s->pattern == P_EXITRACE ? O_SENDFIRST
                 : pct(x, 50) ? O_SENDFIRST : O_INTERLEAVE;
        if (t->order == O_PINGPONG) {
            int other = 1 - i;
            for (int k = 0; k < t->nmsg; k++) {
                if (i == 1)
                    t->op[t->nop++] = (struct t_op){ 'W', other, k + 1 };
                t->op[t->nop++] = (struct t_op){ 'S', k, 0 };
                if (i == 0)
                    t->op[t->nop++] = (struct t_op){ 'W', other, k + 1 };
            }
            continue;
        }
        for (int k = 0; k < t->nmsg; k++) {
            t->op[t->nop++] = (struct t_op){ 'S', k, 0 };
            if (t->order == O_INTERLEAVE)
                t->op[t->nop++] = (struct t_op){ 'P', 0, 0 };
        }
        for (int j = 0; j < s->n; j++) {
            int c = j == i ? 0 : shape_expected(s, j, i, NULL);
            if (c)
                t->op[t->nop++] = (struct t_op){ 'W', j, c };
        }
    }
}

/* The order in which t waits for its senders: its trailing waits (W ops)
 * in a random order (Fisher-Yates). */
static void shuffle_waits(uint64_t *x, struct t_task *t)
{
    int w = t->nop;
    while (w > 0 && t->op[w - 1].kind == 'W')
        w--;
    for (int k = t->nop - 1; k > w; k--) {
        int j = w + below(x, k - w + 1);
        struct t_op o = t->op[k];
        t->op[k] = t->op[j];
        t->op[j] = o;
    }
}

/* Each task's receive mode, and the order in which it waits for its
 * senders (for a selective receive, the others' messages queue up
 * meanwhile and matching must skip them). */
static void draw_recv(uint64_t *x, struct t_shape *s)
{
    for (int i = 0; i < s->n; i++) {
        struct t_task *t = &s->t[i];
        int r = below(x, 100);
        t->recv = r < 30 ? R_ANY : r < 45 ? R_SRC : r < 60 ? R_EXACT : r < 78 ? R_PRECV
                : r < 86 ? R_PROBE : r < 92 ? R_NRECV : R_MIX;
        t->exact = pct(x, 50);
        if (t->recv == R_ANY || t->order == O_PINGPONG)
            continue;
        shuffle_waits(x, t);
    }
}

/* Now and then a collective phase among some of the tasks that stay
 * (a member that went away would leave the others in pvm_barrier), and
 * only when task 0 stays: it hands out the table every member needs. */
static void draw_coll(uint64_t *x, struct t_shape *s)
{
    struct t_collph *c = &s->coll;
    if (!pct(x, 25) || shape_gone(s, 0))
        return;
    for (int i = 0; i < s->n; i++)
        if (!shape_gone(s, i) && pct(x, 85))
            c->members |= 1u << i;
    int nm = __builtin_popcount(c->members);
    if (nm < 2) {
        c->members = 0;
        return;
    }
    c->nround = range(x, 1, TC_MAX);
    c->leave = pct(x, 50);
    for (int k = 0; k < c->nround; k++) {
        struct t_round *r = &c->r[k];
        int w = below(x, 100);
        r->kind = w < 30 ? CO_BCAST : w < 60 ? CO_REDUCE : w < 75 ? CO_GATHER : w < 90 ? CO_SCATTER
                : CO_BARRIER;
        r->root = below(x, nm);
        r->func = (uint8_t)below(x, 3);
        static const uint8_t encs[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };
        r->enc = encs[below(x, 3)];
        uint32_t sz = draw_size(x, 0);
        if (r->kind == CO_BCAST) {
            r->type = (uint8_t)below(x, 3);
            r->count = (int)(sz - sz % (uint32_t)shape_elsize(r->type));
        } else {
            r->type = pct(x, 50) ? T_INT : T_DOUBLE;
            r->count = (int)(sz / (uint32_t)shape_elsize(r->type));
            if (r->count < 1)
                r->count = 1;
            if (r->kind != CO_REDUCE && r->count > 32768)   /* times the members */
                r->count = 32768;
        }
    }
}

/* Taking a later message of a sender by its tag while earlier ones wait
 * (queued, or still in the ring or socket) must leave those for later,
 * in order.  Only with tag-exact receives and no polls in between: an
 * any-tag receive would take them in send order. */
static void draw_shuffle(uint64_t *x, struct t_shape *s)
{
    for (int i = 0; i < s->n; i++) {
        struct t_task *t = &s->t[i];
        if (t->order == O_SENDFIRST && (t->recv == R_EXACT || (t->recv == R_PRECV && t->exact)))
            t->shuffle = pct(x, 40);
    }
}

void shape_recv_order(const struct t_shape *s, int me, int src, int *idx, int n)
{
    if (!s->t[me].shuffle || shape_gone(s, src))
        return;
    uint64_t x = s->seed ^ 0x5bd1e995ull ^ ((uint64_t)me << 40) ^ ((uint64_t)src << 32);
    for (int k = n - 1; k > 0; k--) {
        int j = below(&x, k + 1), v = idx[k];
        idx[k] = idx[j];
        idx[j] = v;
    }
}

int shape_members(const struct t_shape *s) { return __builtin_popcount(s->coll.members); }

int shape_coll_value(uint64_t seed, int r, int i, int k)
{
    uint64_t x = seed ^ ((uint64_t)(r + 1) << 52) ^ ((uint64_t)i << 44) ^ (uint64_t)k;
    return (int)(next(&x) % 2001) - 1000;
}

int shape_recv_mode(const struct t_shape *s, int me, int src, int pos)
{
    int m = s->t[me].recv;
    if (m != R_MIX)
        return m;
    uint64_t x = s->seed ^ ((uint64_t)me << 56) ^ ((uint64_t)src << 48) ^ (uint64_t)pos;
    return below(&x, R_MIX);
}

/* The fourth stream's draws (README.md "What is drawn"), all made after
 * the older ones, which they only add to: crowds, multicasts to random
 * lists, sizes near an internal size, the newer receive modes, pvm_kill
 * mid-stream. */

/* More sizes where the library changes its way, for a random offset
 * around them (up to 64 bytes either side, or a page or so). */
static const uint32_t near_edges[] = {
    224, 256, 4088, 4096, 16384, 16448, 65475, 65536, 65443 + 65471,
    256 * KiB, 512 * KiB, 65443 + 7 * 65471, MiB + 64 - 32,
};

/* A task's trailing 'W' ops anew after its messages changed: the older
 * waits in their order with the new counts, then waits for new senders. */
static void rewait(uint64_t *x, struct t_shape *s, int i)
{
    struct t_task *t = &s->t[i];
    if (t->order == O_PINGPONG)
        return;
    int w = t->nop, old[TW_MAX], no = 0, seen[TW_MAX] = { 0 };
    while (w > 0 && t->op[w - 1].kind == 'W')
        w--;
    for (int o = w; o < t->nop; o++)
        old[no++] = t->op[o].a;
    t->nop = w;
    for (int k = 0; k < no; k++) {
        int c = shape_expected(s, old[k], i, NULL);
        seen[old[k]] = 1;
        if (c)
            t->op[t->nop++] = (struct t_op){ 'W', old[k], c };
    }
    int first = t->nop;
    for (int j = 0; j < s->n; j++) {
        int c = j == i || seen[j] ? 0 : shape_expected(s, j, i, NULL);
        if (c)
            t->op[t->nop++] = (struct t_op){ 'W', j, c };
    }
    for (int k = t->nop - 1; k > first; k--) {   /* the new ones in a drawn order */
        int j = first + below(x, k - first + 1);
        struct t_op o = t->op[k];
        t->op[k] = t->op[j];
        t->op[j] = o;
    }
}

/* A new send op for message k, before the trailing waits. */
static void add_send(struct t_task *t, int k)
{
    int w = t->nop, step = t->order == O_INTERLEAVE ? 2 : 1;
    while (w > 0 && t->op[w - 1].kind == 'W')
        w--;
    memmove(&t->op[w + step], &t->op[w], (size_t)(t->nop - w) * sizeof t->op[0]);
    t->op[w] = (struct t_op){ 'S', k, 0 };
    if (step == 2)
        t->op[w + 1] = (struct t_op){ 'P', 0, 0 };
    t->nop += step;
}

/* 8 to 16 tasks (on 2 cores), and every pair sends both ways at once. */
static void draw_crowd(uint64_t *x, struct t_shape *s)
{
    int p = s->pattern;
    if (!(p == P_FANIN || p == P_FANOUT || p == P_ALLTOALL || p == P_RING) || !pct(x, 10))
        return;
    int n = range(x, s->n > 8 ? s->n : 8, TW_MAX), anystock = 0;
    for (int i = 0; i < s->n; i++)
        anystock |= s->t[i].stock;
    for (int i = s->n; i < n; i++) {
        struct t_task *t = &s->t[i];
        t->stock = anystock && pct(x, 40);
        t->order = pct(x, 50) ? O_SENDFIRST : O_INTERLEAVE;
        t->recv = R_ANY;
    }
    s->crowd = n - s->n;
    s->n = n;
    for (int i = 0; i < n; i++) {
        struct t_task *t = &s->t[i];
        for (int j = 0; j < n; j++) {
            if (j == i || shape_expected(s, i, j, NULL) || t->nmsg >= TM_MAX)
                continue;
            struct t_msg *m = &t->msg[t->nmsg];
            draw_msg(x, m, 1u << j, 0, 0);
            if (m->size > 64 * KiB)   /* cheap: 240 pairs */
                m->size = (uint32_t)below(x, 4097) / 8 * 8;
            add_send(t, t->nmsg++);
        }
    }
    for (int i = 0; i < n; i++)
        rewait(x, s, i);
}

/* Multicasts to a random list: receivers anywhere (also ones that go
 * away), the sender itself (pvm_mcast(3PVM): not sent to the caller),
 * a receiver twice. */
static void draw_mcast(uint64_t *x, struct t_shape *s)
{
    int p = s->pattern;
    if (p == P_PINGPONG || p == P_FLOOD || p == P_EXITRACE || s->n < 3)
        return;
    int changed = 0;
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < s->t[i].nmsg; k++) {
            struct t_msg *m = &s->t[i].msg[k];
            if (!pct(x, 8))
                continue;
            uint32_t d = m->dst;
            for (int j = 0; j < s->n; j++)
                if (j != i && pct(x, 35))
                    d |= 1u << j;
            m->how = H_MCAST;
            m->dst = d;
            m->list = (uint8_t)((pct(x, 30) ? M_SELF : 0) | (pct(x, 30) ? M_DUP : 0));
            changed = 1;
        }
    if (changed)
        for (int i = 0; i < s->n; i++)
            rewait(x, s, i);
}

/* Sizes a random distance from an internal size, within the budget. */
static void draw_jitter(uint64_t *x, struct t_shape *s)
{
    if (s->pattern == P_FLOOD || s->pattern == P_EXITRACE)
        return;
    uint64_t max = shape_bytes(s) > 6ull * MiB ? shape_bytes(s) : 6ull * MiB;
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < s->t[i].nmsg; k++) {
            struct t_msg *m = &s->t[i].msg[k];
            if (!pct(x, 12))
                continue;
            uint32_t e = near_edges[below(x, NE(near_edges))], was = m->size;
            int d = pct(x, 70) ? range(x, -64, 64) : range(x, -6000, 6000);
            uint32_t sz = (int64_t)e + d < 0 ? 0 : (uint32_t)((int64_t)e + d);
            m->size = sz - sz % (uint32_t)shape_elsize(m->type);
            if (shape_bytes(s) > max)
                m->size = was;
            else
                s->jitter++;
        }
}

/* The receive modes of the fourth stream, for some tasks drawn R_ANY;
 * their waits in a drawn order, and by tag in a shuffled order as
 * draw_shuffle does. */
static void draw_recv2(uint64_t *x, struct t_shape *s)
{
    for (int i = 0; i < s->n; i++) {
        struct t_task *t = &s->t[i];
        if (t->recv != R_ANY || !pct(x, 60))
            continue;
        t->recv = R_ANYTAG + below(x, R_N - R_ANYTAG);
        t->fnbest = pct(x, 50);
        if (t->order == O_PINGPONG)
            continue;
        shuffle_waits(x, t);
        t->shuffle = t->order == O_SENDFIRST && pct(x, 40);
    }
}

/* pvm_kill of a task mid-stream by another: not task 0 (it hands out the
 * table), not a member of the collective phase (the others would wait
 * for it at a barrier). */
static void draw_pkill(uint64_t *x, struct t_shape *s)
{
    if (s->pattern == P_EXITRACE || !pct(x, 15))
        return;
    int v = range(x, 1, s->n - 1), k = below(x, s->n - 1);
    k += k >= v;
    if (s->t[v].ending != E_NORMAL || (s->coll.members & (1u << v)))
        return;
    struct t_task *t = &s->t[k];
    /* often at once, so that the victim is still streaming */
    int at = pct(x, 50) ? below(x, t->nop < 2 ? t->nop + 1 : 3) : below(x, t->nop + 1);
    memmove(&t->op[at + 1], &t->op[at], (size_t)(t->nop - at) * sizeof t->op[0]);
    t->op[at] = (struct t_op){ 'K', v, 0 };
    t->nop++;
    s->t[v].killed_by = k + 1;
}

static void draw_more(uint64_t *x, struct t_shape *s)
{
    draw_crowd(x, s);
    draw_mcast(x, s);
    draw_jitter(x, s);
    draw_recv2(x, s);
    draw_pkill(x, s);
}

static void draw(uint64_t seed, struct t_shape *s, int more)
{
    uint64_t x = seed * 0x2545f4914f6cdd1dull + 1;
    memset(s, 0, sizeof *s);
    s->seed = seed;
    static const int weight[P_N] = { 14, 12, 14, 14, 12, 12, 14, 8 };
    int r = below(&x, 100);
    for (s->pattern = 0; s->pattern < P_N - 1 && r >= weight[s->pattern]; s->pattern++)
        r -= weight[s->pattern];
    switch (s->pattern) {
    case P_PINGPONG: case P_BIDIR: case P_FLOOD:
        s->n = 2; break;
    case P_EXITRACE:
        s->n = pct(&x, 85) ? range(&x, 3, 6) : range(&x, 7, 10); break;
    default:   /* more tasks than cores now and then */
        s->n = pct(&x, 85) ? range(&x, 3, 4) : range(&x, 5, TW_OLD); break;
    }
    if (pct(&x, 12))
        for (int i = 0; i < s->n; i++)
            s->t[i].stock = pct(&x, 40);
    s->catchout = s->pattern == P_EXITRACE || pct(&x, 15);
    if (s->catchout)
        s->print_bytes = s->pattern == P_EXITRACE ? range(&x, 100000, 300000) : below(&x, 262144);
    draw_messages(&x, s);
    /* cheap as a rule; a big message makes room for itself */
    uint64_t biggest = 0;
    for (int i = 0; i < s->n; i++)
        for (int k = 0; k < s->t[i].nmsg; k++)
            biggest = s->t[i].msg[k].size > biggest ? s->t[i].msg[k].size : biggest;
    budget(&x, s, s->pattern == P_FLOOD ? 128ull * MiB : biggest > 2 * MiB ? 40ull * MiB : 6ull * MiB);
    draw_endings(&x, s);
    draw_scripts(&x, s);
    /* receive modes and the collective phase come from a stream of their
     * own, so they leave every earlier draw (and so the meaning of seeds
     * from before them: torture.sh --check, FIND) as it was */
    uint64_t y = seed * 0x9e6c63d0676a9a99ull + 0x632be59bd9b4e019ull;
    draw_recv(&y, s);
    draw_coll(&y, s);
    uint64_t z = seed * 0xd6e8feb86659fd93ull + 0x9e3779b97f4a7c15ull;
    draw_shuffle(&z, s);
    s->n0 = s->n;
    uint64_t w = seed * 0xa0761d6478bd642full + 0xe7037ed1a0b428dbull;
    if (more)
        draw_more(&w, s);
}

void shape_draw(uint64_t seed, struct t_shape *s) { draw(seed, s, 1); }
void shape_draw_old(uint64_t seed, struct t_shape *s) { draw(seed, s, 0); }

static const char *const pat_names[P_N] = { "ping-pong", "both directions at once", "fan-in",
    "fan-out", "all-to-all", "ring", "fan-in, send then exit at once (catchout parent)",
    "flood both ways, all sends before receives" };
static const char *const end_names[E_N] = { "ends normally", "sends then exits at once",
    "SIGKILLs itself after %d sends", "SIGKILLs itself after %d ms",
    "exits after %d receives while others still send" };

static const char *const recv_names[R_N] = { "pvm_trecv(-1,-1)", "pvm_trecv(src,-1)",
    "pvm_trecv(src,tag)", "pvm_precv(src,%s)", "pvm_probe(-1,-1)+pvm_recv", "pvm_nrecv(src,-1) loop",
    "mixed per message", "pvm_trecv(-1,tag)", "pvm_precv(-1,tag)",
    "pvm_trecv through a pvm_recvf matcher of (src,tag)", "pvm_probe(-1,tag)+pvm_bufinfo+pvm_recv" };
const char *shape_recv_name(int r) { return r >= 0 && r < R_N ? recv_names[r] : "?"; }

const char *shape_pattern_name(int p) { return p >= 0 && p < P_N ? pat_names[p] : "?"; }
const char *shape_ending_name(int e) { return e >= 0 && e < E_N ? end_names[e] : "?"; }

#define ADD(...) do { size_t l_ = strlen(buf); \
    if (l_ < size) snprintf(buf + l_, size - l_, __VA_ARGS__); } while (0)

static const char *how_name(const struct t_msg *m)
{
    static const char *const h[] = { "send", "psend", "mcast" };
    return h[m->how];
}
static const char *enc_name(const struct t_msg *m)
{
    return m->how == H_PSEND ? "" : m->enc == PvmDataDefault ? " default"
         : m->enc == PvmDataRaw ? " raw" : " inplace";
}
static const char *type_name(int t) { return t == T_BYTE ? "byte" : t == T_INT ? "int" : "double"; }

void shape_describe(const struct t_shape *s, char *buf, size_t size)
{
    *buf = 0;
    ADD("seed %llu: %s, %d tasks, %.1f MB in all", (unsigned long long)s->seed,
        shape_pattern_name(s->pattern), s->n, (double)shape_bytes(s) / 1e6);
    if (s->catchout)
        ADD(", w0 catches output, children print %d bytes each", s->print_bytes);
    if (s->crowd)
        ADD(", a crowd: w%d..w%d added, every pair sends both ways", s->n0, s->n - 1);
    if (s->jitter)
        ADD(", %d message(s) a random distance from an internal size", s->jitter);
    ADD("\n");
    static const char *const ord[] = { "all sends first", "sends and polls in turn", "ping-pong" };
    for (int i = 0; i < s->n; i++) {
        const struct t_task *t = &s->t[i];
        ADD("  w%d (%s, %s, ", i, t->stock ? "stock" : "am", ord[t->order]);
        ADD(shape_ending_name(t->ending), t->kill_after);
        ADD(", receives by ");
        ADD(shape_recv_name(t->recv), t->exact ? "tag" : "-1");
        if (t->recv == R_RECVF)
            ADD(t->fnbest ? ", ranking (returns 2), args -1,-1" : ", returns 1, args src,tag");
        if (t->killed_by)
            ADD(", pvm_kill'ed by w%d mid-stream", t->killed_by - 1);
        for (int o = 0; o < t->nop; o++)
            if (t->op[o].kind == 'K')
                ADD(", pvm_kills w%d after op %d of %d", t->op[o].a, o, t->nop);
        if (t->shuffle)
            ADD(" in a shuffled tag order per staying sender");
        if (t->recv != R_ANY && t->order != O_PINGPONG) {
            int first = 1;
            for (int o = 0; o < t->nop; o++)
                if (t->op[o].kind == 'W') {
                    ADD("%s w%d", first ? ", waits for" : ",", t->op[o].a);
                    first = 0;
                }
        }
        ADD("): sends %d", t->nmsg);
        uint32_t lo = UINT32_MAX, hi = 0;
        for (int k = 0; k < t->nmsg; k++) {
            const struct t_msg *m = &t->msg[k];
            lo = m->size < lo ? m->size : lo;
            hi = m->size > hi ? m->size : hi;
            if (k < 4 || k == t->nmsg - 1) {
                ADD("%s #%d %u B %s%s %s to", k ? "," : ":", k, m->size, how_name(m), enc_name(m),
                    type_name(m->type));
                for (int j = 0; j < s->n; j++)
                    if (m->dst & (1u << j))
                        ADD(" w%d", j);
                if (m->list)
                    ADD(" (list%s%s)", m->list & M_SELF ? " +self" : "",
                        m->list & M_DUP ? " +a repeat" : "");
            } else if (k == 4) {
                ADD(", ...");
            }
        }
        if (t->nmsg > 5)
            ADD(" (sizes %u..%u B)", lo, hi);
        ADD("\n");
    }
    const struct t_collph *c = &s->coll;
    if (!c->members)
        return;
    static const char *const kn[] = { "pvm_bcast", "pvm_reduce", "pvm_gather", "pvm_scatter",
                                      "pvm_barrier" };
    static const char *const fn[] = { "PvmSum", "PvmMax", "PvmMin" };
    ADD("  first a collective phase through pvmgs, members");
    for (int i = 0; i < s->n; i++)
        if (c->members & (1u << i))
            ADD(" w%d", i);
    ADD(": pvm_joingroup, pvm_barrier");
    for (int k = 0; k < c->nround; k++) {
        const struct t_round *r = &c->r[k];
        ADD(", %s", kn[r->kind]);
        if (r->kind == CO_BCAST) {
            struct t_msg m = { 0, (uint32_t)r->count, H_SEND, r->enc, r->type, 0 };
            ADD(" of %d B%s %s from instance %d", r->count, enc_name(&m), type_name(r->type), r->root);
        } else if (r->kind != CO_BARRIER) {
            if (r->kind == CO_REDUCE)
                ADD(" %s", fn[r->func]);
            ADD(" of %d %s %s instance %d", r->count, type_name(r->type),
                r->kind == CO_SCATTER ? "each from" : "each to", r->root);
        }
    }
    ADD(", pvm_barrier%s\n", c->leave ? ", pvm_lvgroup" : "");
}

void shape_fill(uint64_t seed, int src, int k, const struct t_msg *m, void *buf)
{
    uint64_t x = seed ^ ((uint64_t)src << 56) ^ ((uint64_t)k << 32) ^ m->size;
    int n = shape_count(m);
    if (m->type == T_BYTE) {
        unsigned char *p = buf;
        int i = 0;
        for (; i + 8 <= n; i += 8) {
            uint64_t v = next(&x);
            memcpy(p + i, &v, 8);
        }
        uint64_t v = next(&x);
        memcpy(p + i, &v, (size_t)(n - i));
    } else if (m->type == T_INT) {
        int *p = buf;
        for (int i = 0; i < n; i++)
            p[i] = (int)next(&x);
    } else {   /* integers, so XDR carries them exactly */
        double *p = buf;
        for (int i = 0; i < n; i++)
            p[i] = (double)(int32_t)next(&x);
    }
}
