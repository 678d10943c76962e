/*
 * collrand.c - randomized check of the group collectives (pvm_reduce,
 * pvm_gather, pvm_scatter, and the root's pvm_bcast or pvm_mcast to the
 * others) among stock and libpvm3am members of one host.
 * Built against stock (-lgpvm3 -lpvm3) and libpvm3am.
 *   collrand SEED NTASKS ROUNDS KINDS   the master, instance 0; KINDS is
 *       one letter per other member, s (collrand_stock) or a (collrand_am)
 *   collrand -child                      a member the master spawned
 * Each round the master draws an operation, a data type, a count (1 to
 * 200000 items: through the shm ring and the big-message copy alike), a
 * root and a reduce function (PvmSum, PvmMax, or bitwise or, a user
 * function), and broadcasts them.  Every member fills its data from (seed,
 * round, instance, index) alone, so whoever checks computes the expected
 * values itself with plain loops, not with the functions under test;
 * values are small integers, so sums are exact in any order.  A broadcast
 * round sends the root's items packed (PvmDataDefault, Raw or InPlace, by
 * the round) with pvm_bcast or pvm_mcast, then at once a short second
 * message with the next tag; the root overwrites its array as soon as the
 * call returns (an InPlace message is read from it: a send that returned
 * before its receivers had read the bytes would show), and each other
 * member receives both from the root with any tag, so order and every
 * item are checked.  Every member
 * reports its count of wrong items to the master, which prints one line
 * and PASS or FAIL.  The test script bounds the time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

/* one group per seed: a phase that failed leaves no members in the next one's */
static char G[32];
enum { TAG_PARAM = 70, TAG_REPORT, TAG_OP = 1000 };
enum { OP_REDUCE, OP_GATHER, OP_SCATTER, OP_BCAST, NOPS };
enum { F_SUM, F_MAX, F_OR, NFNS };
static const int types[] = { PVM_SHORT, PVM_INT, PVM_LONG, PVM_FLOAT, PVM_DOUBLE };
#define NTYPES (int)(sizeof types / sizeof types[0])
#define MAXCOUNT 200000

static unsigned long long mix(unsigned long long x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
}

/* member inst's item k in round r: -1000..1000, longs 0..2000: stock's
 * XDR carries a long as its low 32 bits and unpacks it zero-extended
 * (pvm3/pack/pack_xdr.c), so a negative long that crosses a stock hop
 * comes back as 2^32 - x. */
static long value(unsigned seed, int t, int r, int inst, long k)
{
    unsigned long long h = mix(((unsigned long long)seed << 40) ^ ((unsigned long long)r << 28) ^
                               ((unsigned long long)inst << 20) ^ (unsigned long long)k * 0x9e3779b9ULL);
    return (long)(h % 2001) - (t == PVM_LONG ? 0 : 1000);
}

static size_t tsize(int t)
{
    switch (t) {
    case PVM_SHORT: return sizeof(short);
    case PVM_INT: return sizeof(int);
    case PVM_LONG: return sizeof(long);
    case PVM_FLOAT: return sizeof(float);
    default: return sizeof(double);
    }
}

static void put(void *p, int t, long k, long v)
{
    switch (t) {
    case PVM_SHORT: ((short *)p)[k] = (short)v; break;
    case PVM_INT: ((int *)p)[k] = (int)v; break;
    case PVM_LONG: ((long *)p)[k] = v; break;
    case PVM_FLOAT: ((float *)p)[k] = (float)v; break;
    default: ((double *)p)[k] = (double)v; break;
    }
}

static long get(const void *p, int t, long k)
{
    switch (t) {
    case PVM_SHORT: return ((const short *)p)[k];
    case PVM_INT: return ((const int *)p)[k];
    case PVM_LONG: return ((const long *)p)[k];
    case PVM_FLOAT: return (long)((const float *)p)[k];
    default: return (long)((const double *)p)[k];
    }
}

/* The user reduce function: bitwise or of integers (max for floats). */
static void bor(int *t, void *x, void *y, int *n, int *info)
{
    *info = PvmOk;
    for (long k = 0; k < *n; k++) {
        if (*t == PVM_FLOAT || *t == PVM_DOUBLE) {
            long a = get(x, *t, k), b = get(y, *t, k);
            put(x, *t, k, a > b ? a : b);
        } else {
            put(x, *t, k, get(x, *t, k) | get(y, *t, k));
        }
    }
}

static int pk(int t, void *p, int count)
{
    switch (t) {
    case PVM_SHORT: return pvm_pkshort(p, count, 1);
    case PVM_INT: return pvm_pkint(p, count, 1);
    case PVM_LONG: return pvm_pklong(p, count, 1);
    case PVM_FLOAT: return pvm_pkfloat(p, count, 1);
    default: return pvm_pkdouble(p, count, 1);
    }
}

static int upk(int t, void *p, int count)
{
    switch (t) {
    case PVM_SHORT: return pvm_upkshort(p, count, 1);
    case PVM_INT: return pvm_upkint(p, count, 1);
    case PVM_LONG: return pvm_upklong(p, count, 1);
    case PVM_FLOAT: return pvm_upkfloat(p, count, 1);
    default: return pvm_upkdouble(p, count, 1);
    }
}

/* The root sends its items to every other member with pvm_bcast (fn
 * even) or pvm_mcast, then a short message with tag + 1; the others
 * receive both from it.  Returns wrong items (count if anything failed). */
static long bcast_round(unsigned seed, int r, const int *prm, int me, int n, char *data)
{
    static const int encs[] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };
    int t = prm[1], count = prm[2], root = prm[3], tag = TAG_OP + r, rtid = pvm_gettid(G, root);
    if (rtid < 0)
        return count;
    if (me == root) {
        int tids[32], k = 0, rc;
        for (int i = 0; i < n; i++)
            if (i != me && (tids[k] = pvm_gettid(G, i)) > 0)
                k++;
        for (long i = 0; i < count; i++)
            put(data, t, i, value(seed, t, r, root, i));
        rc = pvm_initsend(encs[r % 3]);
        rc = rc < 0 ? rc : pk(t, data, count);
        rc = rc < 0 ? rc : prm[4] % 2 ? pvm_mcast(tids, k, tag) : pvm_bcast(G, tag);
        memset(data, 0x5a, (size_t)count * tsize(t));   /* ours again: must not show */
        int second = r;
        if (rc >= 0 && (rc = pvm_initsend(PvmDataDefault)) >= 0 && (rc = pvm_pkint(&second, 1, 1)) >= 0)
            rc = pvm_mcast(tids, k, tag + 1);
        return rc < 0 || k != n - 1 ? count : 0;
    }
    long bad = 0;
    int bytes, gtag, src, second = -1;
    if (pvm_recv(rtid, -1) < 0 || pvm_bufinfo(pvm_getrbuf(), &bytes, &gtag, &src) < 0 ||
        gtag != tag || upk(t, data, count) < 0)
        return count;
    for (long i = 0; i < count; i++)
        bad += get(data, t, i) != value(seed, t, r, root, i);
    if (pvm_recv(rtid, -1) < 0 || pvm_bufinfo(pvm_getrbuf(), &bytes, &gtag, &src) < 0 ||
        gtag != tag + 1 || pvm_upkint(&second, 1, 1) < 0 || second != r)
        return count;
    return bad;
}

/* One round: every member, the master included.  Returns wrong items. */
static long round_of(unsigned seed, int r, const int *prm, int me, int n)
{
    int op = prm[0], t = prm[1], count = prm[2], root = prm[3], fn = prm[4];
    size_t es = tsize(t);
    long bad = 0, total = op == OP_REDUCE ? count : (long)count * n;
    char *data = calloc((size_t)total, es), *res = calloc((size_t)total, es);
    if (!data || !res) {
        free(data);
        free(res);
        return count;
    }
    int tag = TAG_OP + r;
    if (op == OP_REDUCE) {
        void (*f)(int *, void *, void *, int *, int *) = fn == F_SUM ? PvmSum : fn == F_MAX ? PvmMax : bor;
        for (long k = 0; k < count; k++)
            put(data, t, k, value(seed, t, r, me, k));
        if (pvm_reduce(f, data, count, t, tag, G, root) < 0)
            bad = count;
        for (long k = 0; me == root && !bad && k < count; k++) {
            long want = value(seed, t, r, 0, k);
            for (int i = 1; i < n; i++) {
                long v = value(seed, t, r, i, k);
                want = fn == F_SUM ? want + v : fn == F_MAX || t == PVM_FLOAT || t == PVM_DOUBLE
                                                    ? (v > want ? v : want) : (want | v);
            }
            bad += get(data, t, k) != want;
        }
    } else if (op == OP_GATHER) {
        for (long k = 0; k < count; k++)
            put(data, t, k, value(seed, t, r, me, k));
        if (pvm_gather(res, data, count, t, tag, G, root) < 0)
            bad = count;
        for (int i = 0; me == root && !bad && i < n; i++)
            for (long k = 0; k < count; k++)
                bad += get(res, t, (long)i * count + k) != value(seed, t, r, i, k);
    } else if (op == OP_BCAST) {
        bad = bcast_round(seed, r, prm, me, n, data);
    } else {
        /* the root's array holds every member's slice: instance i, item k */
        for (long k = 0; me == root && k < total; k++)
            put(data, t, k, value(seed, t, r, (int)(k / count), k % count));
        if (pvm_scatter(res, data, count, t, tag, G, root) < 0)
            bad = count;
        for (long k = 0; !bad && k < count; k++)
            bad += get(res, t, k) != value(seed, t, r, me, k);
    }
    free(data);
    free(res);
    return bad;
}

static int child(void)
{
    int parent = pvm_parent(), hdr[3];
    if (pvm_recv(parent, TAG_PARAM) < 0 || pvm_upkint(hdr, 3, 1) < 0)
        return 1;
    unsigned seed = (unsigned)hdr[0];
    int n = hdr[1], rounds = hdr[2];
    snprintf(G, sizeof G, "collrand-%u", seed);
    int me = pvm_joingroup(G);
    if (me < 0 || pvm_freezegroup(G, n) < 0)
        return 1;
    for (int r = 0; r < rounds; r++) {
        int prm[5];
        if (pvm_recv(parent, TAG_PARAM) < 0 || pvm_upkint(prm, 5, 1) < 0)
            return 1;
        long bad = round_of(seed, r, prm, me, n);
        pvm_initsend(PvmDataDefault);
        pvm_pklong(&bad, 1, 1);
        pvm_send(parent, TAG_REPORT);
    }
    pvm_barrier(G, n);   /* nobody leaves while a root may still gather */
    pvm_lvgroup(G);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "-child"))
        return child();
    if (argc != 5) {
        fprintf(stderr, "usage: collrand SEED NTASKS ROUNDS KINDS | collrand -child\n");
        return 2;
    }
    unsigned seed = (unsigned)strtoul(argv[1], NULL, 10);
    int n = atoi(argv[2]), rounds = atoi(argv[3]);
    const char *kinds = argv[4];
    if (n < 2 || n > 32 || rounds < 1 || (int)strlen(kinds) != n - 1)
        return 2;
    if (pvm_mytid() < 0)
        return 1;
    snprintf(G, sizeof G, "collrand-%u", seed);
    if (pvm_joingroup(G) != 0) {
        fprintf(stderr, "collrand: the master must be instance 0\n");
        pvm_exit();
        return 1;
    }
    int tids[32], hdr[3] = { (int)seed, n, rounds };
    for (int i = 1; i < n; i++) {
        char *name = kinds[i - 1] == 's' ? "collrand_stock" : "collrand_am";
        if (pvm_spawn(name, (char *[]){ "-child", NULL }, PvmTaskDefault, "", 1, &tids[i]) != 1) {
            fprintf(stderr, "collrand: spawn %s failed (%d)\n", name, tids[i]);
            pvm_exit();
            return 1;
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(hdr, 3, 1);
    pvm_mcast(tids + 1, n - 1, TAG_PARAM);
    if (pvm_freezegroup(G, n) < 0)
        return 1;
    srand(seed);
    long bad = 0, items = 0;
    int ops[NOPS] = { 0 };
    for (int r = 0; r < rounds; r++) {
        int op = rand() % NOPS;
        /* half the broadcasts big enough to go by descriptor over shm
         * (more than half its ring, any type), where the receivers copy
         * from the root's memory */
        int count = op == OP_BCAST && rand() % 2 ? 140000 + rand() % (MAXCOUNT - 140000)
                  : 1 + (int)(rand() % 5 == 0 ? rand() % MAXCOUNT : rand() % 3000);
        int prm[5] = { op, types[rand() % NTYPES], count, rand() % n, rand() % NFNS };
        pvm_initsend(PvmDataDefault);
        pvm_pkint(prm, 5, 1);
        pvm_mcast(tids + 1, n - 1, TAG_PARAM);
        long b = round_of(seed, r, prm, 0, n);
        for (int i = 1; i < n; i++) {
            long cb = count;
            if (pvm_recv(-1, TAG_REPORT) >= 0)
                pvm_upklong(&cb, 1, 1);
            b += cb;
        }
        if (b)
            printf("round %d: op %d type %d count %d root %d fn %d: %ld wrong\n", r, prm[0], prm[1],
                   count, prm[3], prm[4], b);
        bad += b;
        items += count;
        ops[prm[0]]++;
    }
    pvm_barrier(G, n);
    pvm_lvgroup(G);
    printf("seed %u, %d tasks (master %s, others %s), %d rounds (%d reduce, %d gather, %d scatter, "
           "%d broadcast), %ld items: %ld wrong\n%s\n", seed, n, strstr(argv[0], "_am") ? "am" : "stock",
           kinds, rounds, ops[OP_REDUCE], ops[OP_GATHER], ops[OP_SCATTER], ops[OP_BCAST], items, bad,
           bad ? "FAIL" : "PASS");
    pvm_exit();
    return bad != 0;
}
