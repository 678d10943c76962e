/*
 * shortmix.c - order and content between the short-message path and the
 * general one (pvmam/short.c, pvmam/frag.c; libam's REC_SHORT and REC_AM
 * records over shm, libam/shm/short.h): two tasks send each other, both
 * at once, a seeded random mix of sizes and ways, every message checked.
 *
 *   shortmix MASTER SEED N [ROUNDS [TURNS [CTXN]]]   (the peer is a spawned copy)
 *
 * A task's messages come from a generator seeded with SEED and its
 * side, so its peer knows what comes next: the kind (pvm_psend, or
 * pvm_send packed XDR, raw or in place), the size (mostly around the
 * limits: a one-line short AM, 0..16 bytes; where libam's shm reader
 * stops copying a small AM out, AMX_PACK_MAX = 256 with the 8-byte short
 * header; the short path's end, PVMX_SHORT = 4088, which is also where
 * shm's put_small ends, AMX_PUT_MAX = 4096; fragments up to a few hundred
 * KiB), and the tag
 * (random, so that a message overtaking another shows as a wrong tag).
 * Each round both send all N, then receive all N (pvm_precv with any tag
 * for a psend, so a queued packed message would come instead; pvm_recv
 * with any tag otherwise).  Then TURNS turns (default 200): one side
 * sends two messages, X and then Y under another tag, while the other
 * waits for Y by its tag (pvm_precv, of ints for a packed one, so that an
 * XDR message is decoded from the queue), then takes X by its tag, and
 * the sides swap: the receiver waits while they arrive, with X, not wanted
 * yet, ahead of Y, which a receive that looks at one source's input first
 * (pvm3/core/progress.c, pvmi_progress_from) must queue.  In the turns
 * some receives take less than the message (every 4th psend: half its
 * length, the rest of the buffer must stay as it was and the length
 * reported whole) or a packed message as bytes (every 3rd: pvm_precv of
 * PVM_BYTE, XDR's words in network order), the cases where a short
 * message is copied straight from the AM into the buffer (pvm3/core/sink.c,
 * route.h recv_bytes, pvmam/short.c) must decline or cut.  Then CTXN
 * (default 100) times the master sends two short messages with one tag,
 * the first in another context: the peer waits for the second in its own
 * context (so the first, ahead of it, must not be taken), then for the
 * first in the other.  Every word says who sent it, the message and its
 * place.  Exit 0 when both got everything in order and intact; bounded
 * by an alarm.  Last, CTXN messages one at a time, each the next in the
 * receiver's input when it looks, half of them one line long, half across
 * the short path's other limits, every other one into half its length.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include "guard.h"

enum { TAG_REPORT = 0x6400, TAG_BASE = 0x6500, TAG_CTX = 0x6600, TAG_CUT = 0x6700 };
#define LIMIT_S 100
#define MAXB (300 * 1024)
enum { K_PSEND, K_XDR, K_RAW, K_INPLACE, NK };

struct gen { unsigned long long s; };
static unsigned rnd(struct gen *g)
{
    g->s = g->s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)(g->s >> 33);
}

struct msg { int kind, bytes, tag; };

/* The i-th message of a stream: sizes crowd round the paths' limits. */
static struct msg next_msg(struct gen *g)
{
    struct msg m;
    unsigned r = rnd(g) % 100;
    m.kind = (int)(rnd(g) % NK);
    if (r < 40)
        m.bytes = (int)(rnd(g) % 17);              /* one line or just past it */
    else if (r < 52)
        m.bytes = 230 + (int)(rnd(g) % 40);        /* AMX_PACK_MAX: copied out or read in place */
    else if (r < 70)
        m.bytes = 4060 + (int)(rnd(g) % 50);       /* the short path's end, and put_small's */
    else if (r < 90)
        m.bytes = (int)(rnd(g) % 4096);
    else
        m.bytes = (int)(rnd(g) % MAXB);
    if (m.kind != K_PSEND)
        m.bytes &= ~3;                             /* packed as ints */
    m.tag = TAG_BASE + (int)(rnd(g) % 64);
    return m;
}

static unsigned char byte_of(int from, long i, int k)
{
    return (unsigned char)((unsigned)from * 31u ^ (unsigned)i * 131u ^ (unsigned)k * 7u ^
                           (unsigned)k >> 8);
}

static void send_one(int peer, struct msg m, int me, long i, unsigned char *b)
{
    for (int k = 0; k < m.bytes; k++)
        b[k] = byte_of(me, i, k);
    switch (m.kind) {
    case K_PSEND:
        CK(pvm_psend(peer, m.tag, b, m.bytes, PVM_BYTE));
        return;
    case K_XDR: CK(pvm_initsend(PvmDataDefault)); break;
    case K_RAW: CK(pvm_initsend(PvmDataRaw)); break;
    default: CK(pvm_initsend(PvmDataInPlace)); break;
    }
    CK(pvm_pkint((int *)b, m.bytes / 4, 1));
    CK(pvm_send(peer, m.tag));
}

/* The k-th byte of peer's i-th message as it arrives: packed XDR (K_XDR)
 * and received as bytes (xdr), each int's bytes in network order. */
static unsigned char byte_in(int peer, long i, int k, int xdr)
{
    if (!xdr)
        return byte_of(peer, i, k);
    unsigned char w[4];
    for (int j = 0; j < 4; j++)
        w[j] = byte_of(peer, i, (k & ~3) + j);
    uint32_t v, be;
    memcpy(&v, w, 4);
    be = htonl(v);
    return ((unsigned char *)&be)[k & 3];
}

/* Was what came (tag, len bytes in b, of which the first cap were
 * written; xdr: see byte_in) peer's i-th message m?  1 if not. */
static int check_cut(int peer, struct msg m, long i, const unsigned char *b, int tag, int len,
                     int cap, int xdr)
{
    int ok = tag == m.tag && len == m.bytes;
    for (int k = 0; ok && k < m.bytes && k < cap; k++)
        ok = b[k] == byte_in(peer, i, k, xdr);
    for (int k = cap; ok && k < m.bytes; k++)
        ok = b[k] == 0xa5;   /* past the receive's length: untouched */
    if (!ok)
        fprintf(stderr, "shortmix[t%x]: message %ld from t%x (kind %d, %d bytes, tag %x): "
                "got tag %x, %d bytes%s\n", pvm_mytid(), i, peer, m.kind, m.bytes, m.tag, tag,
                len, tag == m.tag && len == m.bytes ? ", wrong bytes" : "");
    return !ok;
}

static int check(int peer, struct msg m, long i, const unsigned char *b, int tag, int len)
{
    return check_cut(peer, m, i, b, tag, len, m.bytes, 0);
}

/* The next message from peer, which should be m (its i-th); 1 if not. */
static int take_one(int peer, struct msg m, long i, unsigned char *b)
{
    int tid, tag, len;
    if (m.kind == K_PSEND) {
        CK(pvm_precv(peer, -1, b, MAXB, PVM_BYTE, &tid, &tag, &len));
    } else {
        int id = pvm_recv(peer, -1);
        CK(id);
        CK(pvm_bufinfo(id, &len, &tag, &tid));
        if (tag == m.tag && len >= m.bytes && m.bytes)
            CK(pvm_upkint((int *)b, m.bytes / 4, 1));
    }
    return check(peer, m, i, b, tag, len);
}

/* A turn's message from peer by its tag, m its i-th: every 4th psend
 * into half its length, every 3rd packed one as bytes. */
static int take_tagged(int peer, struct msg m, long i, unsigned char *b)
{
    int tid, tag, len;
    if (m.kind == K_PSEND) {
        int cap = i % 4 == 1 ? m.bytes / 2 : MAXB;
        memset(b, 0xa5, (size_t)m.bytes);
        CK(pvm_precv(peer, m.tag, b, cap, PVM_BYTE, &tid, &tag, &len));
        return check_cut(peer, m, i, b, tag, len, cap, 0);
    }
    if (i % 3 == 0) {
        CK(pvm_precv(peer, m.tag, b, MAXB, PVM_BYTE, &tid, &tag, &len));
        return check_cut(peer, m, i, b, tag, len, m.bytes, m.kind == K_XDR);
    }
    CK(pvm_precv(peer, m.tag, b, MAXB / 4, PVM_INT, &tid, &tag, &len));
    return check(peer, m, i, b, tag, len);
}

/* The context part: n pairs from the master, the first of each in
 * context c, the second in the default one, one tag; 0..16 bytes, so
 * mostly short messages.  The peer takes the second first. */
static int ctx_part(int master, int peer, int me, int c, int n, unsigned char *b)
{
    struct gen g = { (unsigned long long)c * 977u + 5 };
    int bad = 0;
    for (long j = 0; j < n && bad < 5; j++) {
        struct msg a = { K_PSEND, (int)(rnd(&g) % 17), TAG_CTX };
        struct msg d = { K_PSEND, (int)(rnd(&g) % 17), TAG_CTX };
        long ia = 1000000 + 2 * j, id = ia + 1;
        int tid, tag, len;
        if (master) {
            int old = pvm_setcontext(c);
            send_one(peer, a, me, ia, b);
            pvm_setcontext(old);
            send_one(peer, d, me, id, b);
            continue;
        }
        CK(pvm_precv(peer, TAG_CTX, b, MAXB, PVM_BYTE, &tid, &tag, &len));
        bad += check(peer, d, id, b, tag, len);
        int old = pvm_setcontext(c);
        CK(pvm_precv(peer, TAG_CTX, b, MAXB, PVM_BYTE, &tid, &tag, &len));
        pvm_setcontext(old);
        bad += check(peer, a, ia, b, tag, len);
    }
    return bad;
}

/* The cut part: n messages from the master, one at a time (the peer
 * answers each), so each is the next in the peer's input when its
 * pvm_precv looks (taken before any handler, route.h recv_bytes): every
 * other one one line long over shm (REC_SHORT), the others sizes across
 * the short path's other limits (a REC_AM copied out or read in place,
 * AMX_PACK_MAX; the short path's end, PVMX_SHORT; put_small's end,
 * AMX_PUT_MAX) and past them (fragments); every other one into half its
 * length. */
static int cut_part(int master, int peer, int me, int n, unsigned char *b)
{
    struct gen g = { (unsigned long long)n * 131u + 7 };
    int bad = 0, tid, tag, len;
    for (long j = 0; j < n; j++) {   /* to the end: the master waits for each answer */
        unsigned r = rnd(&g);
        int bytes = r % 2 ? (int)(rnd(&g) % 17)
                  : (r >> 1) % 2 ? 230 + (int)(rnd(&g) % 40) : 4060 + (int)(rnd(&g) % 60);
        struct msg m = { K_PSEND, bytes, TAG_CUT };
        long i = 2000000 + j;
        if (master) {
            send_one(peer, m, me, i, b);
            CK(pvm_precv(peer, TAG_CUT + 1, b, 0, PVM_BYTE, &tid, &tag, &len));
            continue;
        }
        int cap = j % 2 ? m.bytes / 2 : m.bytes;
        memset(b, 0xa5, (size_t)m.bytes);
        CK(pvm_precv(peer, TAG_CUT, b, cap, PVM_BYTE, &tid, &tag, &len));
        bad += check_cut(peer, m, i, b, tag, len, cap, 0);
        CK(pvm_psend(peer, TAG_CUT + 1, b, 0, PVM_BYTE));
    }
    return bad;
}

int main(int argc, char **argv)
{
    int master = argc > 1 && !strcmp(argv[1], "MASTER");
    unsigned long long seed = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    int n = argc > 3 ? atoi(argv[3]) : 500, rounds = argc > 4 ? atoi(argv[4]) : 4;
    int turns = argc > 5 ? atoi(argv[5]) : 200, ctxn = argc > 6 ? atoi(argv[6]) : 100;
    int c = argc > 7 ? atoi(argv[7]) : 0;
    int me = pvm_mytid(), peer, bad = 0;
    guard_start("shortmix", LIMIT_S);
    if (me < 0)
        return 1;
    unsigned char *b = malloc(MAXB + 16);
    if (!b)
        die("malloc", -1);
    if (master) {
        char sa[24], na[16], ra[16], ta[16], xa[16], ca[16];
        c = pvm_newcontext();
        if (c < 0)
            die("pvm_newcontext", c);
        snprintf(sa, sizeof sa, "%llu", seed);
        snprintf(na, sizeof na, "%d", n);
        snprintf(ra, sizeof ra, "%d", rounds);
        snprintf(ta, sizeof ta, "%d", turns);
        snprintf(xa, sizeof xa, "%d", ctxn);
        snprintf(ca, sizeof ca, "%d", c);
        char *args[] = { "PEER", sa, na, ra, ta, xa, ca, NULL };
        int got = pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &peer);
        if (got != 1)
            die("pvm_spawn", peer);
    } else {
        peer = pvm_parent();
    }
    /* my stream and the peer's: the master's is seed's side 1 */
    struct gen out = { seed * 2 + (unsigned)master }, in = { seed * 2 + (unsigned)!master };
    long i_out = 0, i_in = 0;
    for (int r = 0; r < rounds && bad < 5; r++) {
        for (int k = 0; k < n; k++, i_out++)
            send_one(peer, next_msg(&out), me, i_out, b);
        for (int k = 0; k < n; k++, i_in++)
            bad += take_one(peer, next_msg(&in), i_in, b);
    }
    /* the master sends on even turns; Y's tags are above X's */
    for (int t = 0; t < turns && bad < 5; t++) {
        int mine = (t & 1) == !master;
        struct gen *g = mine ? &out : &in;
        struct msg x = next_msg(g), y = next_msg(g);
        y.tag += 64;
        if (mine) {
            send_one(peer, x, me, i_out++, b);
            send_one(peer, y, me, i_out++, b);
        } else {
            bad += take_tagged(peer, y, i_in + 1, b);
            bad += take_tagged(peer, x, i_in, b);
            i_in += 2;
        }
    }
    if (bad < 5)
        bad += ctx_part(master, peer, me, c, ctxn, b);
    if (bad < 5)
        bad += cut_part(master, peer, me, ctxn, b);
    free(b);
    int pbad = guard_report(master, peer, TAG_REPORT, bad);   /* the master reports for both */
    printf("shortmix: seed %llu, %d rounds of %d messages each way at once, %d turns, %d "
           "pairs in two contexts, %d one at a time: %d bad here, %d at the peer\n", seed,
           rounds, n, turns, ctxn, ctxn, bad, pbad);
    pvm_exit();
    return bad || pbad;
}
