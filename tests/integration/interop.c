/*
 * interop.c - one source, built against stock libpvm3 (interop_stock) and
 * against libpvm3am (interop_am).  Run as
 *     interop MASTER slaveA slaveB
 * it spawns slaveA and slaveB (full paths, any mix of the two builds) and
 * checks, against both, every pack type and encoding, strides, fragment
 * boundaries up to 16 MiB, psend/precv, wildcards and order, nrecv/probe/
 * trecv, contexts, multicast, parent/siblings, task queries and kill.
 * Slaves echo what they receive after unpacking and repacking it, so both
 * unpack and pack of both libraries are exercised.  Exit 0 = all good.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>

#define T_TYPES 1     /* typed echo, body: int enc, then the typed schema */
#define T_BYTES 2     /* byte echo: int n, n bytes */
#define T_PSEND 3     /* psend echo: raw array of a given type */
#define T_ORDER 4     /* slave sends tags 11,12,13 */
#define T_CTX 5       /* context test */
#define T_MCAST 6     /* multicast echo */
#define T_INFO 7      /* slave reports parent, siblings */
#define T_QUIT 9
#define T_SLEEP 10    /* slave: wait for T_QUIT forever (to be killed) */

static int failures;
#define CHECK(cond, ...)                                              \
    do {                                                              \
        if (!(cond)) {                                                \
            failures++;                                               \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);      \
            fprintf(stderr, __VA_ARGS__);                             \
            fputc('\n', stderr);                                      \
        }                                                             \
    } while (0)

enum { N = 97, S = 3 };   /* items and the largest stride */

struct data {
    char b[N * S];
    short s[N * S];
    unsigned short us[N * S];
    int i[N * S];
    unsigned int ui[N * S];
    long l[N * S];
    unsigned long ul[N * S];
    float f[N * S];
    double d[N * S];
    float c[2 * N * S];
    double z[2 * N * S];
    char str[64];
};

static void fill(struct data *x, int seed)
{
    srand((unsigned)seed);
    for (int k = 0; k < N * S; k++) {
        x->b[k] = (char)rand();
        x->s[k] = (short)rand();
        x->us[k] = (unsigned short)rand();
        x->i[k] = rand() - RAND_MAX / 2;
        x->ui[k] = (unsigned)rand() * 3u;
        x->l[k] = (long)rand();   /* XDR longs are 32 bits, zero-extended */
        x->ul[k] = (unsigned long)(unsigned)rand();
        x->f[k] = (float)rand() / 13.0f;
        x->d[k] = (double)rand() / 7.0;
        x->c[2 * k] = (float)k;
        x->c[2 * k + 1] = -(float)k / 3.0f;
        x->z[2 * k] = k * 1.25;
        x->z[2 * k + 1] = -k * 0.5;
    }
    snprintf(x->str, sizeof x->str, "interop string %d", seed);
}

/* Pack or unpack the schema with the given stride (1..S). */
static int schema(struct data *x, int stride, int pack, int enc)
{
    int rc = 0;
#define PK(fn, arr) rc |= pack ? pvm_pk##fn(arr, N, stride) : pvm_upk##fn(arr, N, stride)
    PK(byte, x->b);
    PK(short, x->s);
    PK(ushort, x->us);
    PK(int, x->i);
    PK(uint, x->ui);
    PK(long, x->l);
    PK(ulong, x->ul);
    PK(float, x->f);
    PK(double, x->d);
    PK(cplx, x->c);
    PK(dcplx, x->z);
#undef PK
    if (enc != PvmDataInPlace)
        rc |= pack ? pvm_pkstr(x->str) : pvm_upkstr(x->str);
    return rc;
}

static int same(const struct data *a, const struct data *b, int stride, int enc)
{
    for (int k = 0; k < N; k++) {
        int j = k * stride;
        if (a->b[j] != b->b[j] || a->s[j] != b->s[j] || a->us[j] != b->us[j] ||
            a->i[j] != b->i[j] || a->ui[j] != b->ui[j] || a->l[j] != b->l[j] ||
            a->ul[j] != b->ul[j] || a->f[j] != b->f[j] || a->d[j] != b->d[j] ||
            a->c[2 * j] != b->c[2 * j] || a->c[2 * j + 1] != b->c[2 * j + 1] ||
            a->z[2 * j] != b->z[2 * j] || a->z[2 * j + 1] != b->z[2 * j + 1])
            return 0;
    }
    return enc == PvmDataInPlace || strcmp(a->str, b->str) == 0;
}

static unsigned long sum(const unsigned char *p, size_t n)
{
    unsigned long h = 5381;
    for (size_t k = 0; k < n; k++)
        h = h * 33 + p[k];
    return h;
}

/* ---------------------------------------------------------------- slave */

static int slave(void)
{
    int parent = pvm_parent();
    static struct data x;
    for (;;) {
        int bid = pvm_recv(parent, -1), len, tag, src;
        if (bid < 0)
            return 1;
        pvm_bufinfo(bid, &len, &tag, &src);
        if (tag == T_QUIT)
            break;
        if (tag == T_SLEEP) {
            pvm_recv(parent, T_QUIT);
            break;
        }
        if (tag == T_TYPES) {
            int enc, stride;
            pvm_upkint(&enc, 1, 1);
            pvm_upkint(&stride, 1, 1);
            memset(&x, 0, sizeof x);
            int rc = schema(&x, stride, 0, enc);
            pvm_initsend(enc);
            pvm_pkint(&rc, 1, 1);
            pvm_pkint(&stride, 1, 1);
            schema(&x, stride, 1, enc);
            pvm_send(parent, T_TYPES);
        } else if (tag == T_BYTES || tag == T_MCAST) {
            int n;
            pvm_upkint(&n, 1, 1);
            char *b = malloc((size_t)n + 1);
            pvm_upkbyte(b, n, 1);
            pvm_initsend(PvmDataRaw);
            pvm_pkint(&n, 1, 1);
            pvm_pkbyte(b, n, 1);
            pvm_send(parent, tag);
            free(b);
        } else if (tag == T_PSEND) {
            /* the body tells the type and count; echo with psend */
            int type, n;
            pvm_upkint(&type, 1, 1);
            pvm_upkint(&n, 1, 1);
            double *buf = calloc((size_t)n + 1, 16);
            int atid, atag, alen;
            pvm_precv(parent, T_PSEND + 100, buf, n, type, &atid, &atag, &alen);
            pvm_psend(parent, T_PSEND + 100, buf, n, type);
            free(buf);
        } else if (tag == T_ORDER) {
            for (int t = 11; t <= 13; t++) {
                pvm_initsend(PvmDataDefault);
                pvm_pkint(&t, 1, 1);
                pvm_send(parent, t);
            }
        } else if (tag == T_CTX) {
            int ctx, v;
            pvm_upkint(&ctx, 1, 1);
            /* in the base context only the base-context message is seen */
            pvm_recv(parent, 21);
            pvm_upkint(&v, 1, 1);
            int old = pvm_setcontext(ctx);
            int w = -1;
            pvm_recv(parent, 21);
            pvm_upkint(&w, 1, 1);
            pvm_setcontext(old);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&v, 1, 1);
            pvm_pkint(&w, 1, 1);
            pvm_send(parent, T_CTX);
        } else if (tag == T_INFO) {
            int *sib, ns = pvm_siblings(&sib);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&parent, 1, 1);
            pvm_pkint(&ns, 1, 1);
            if (ns > 0)
                pvm_pkint(sib, ns, 1);
            pvm_send(parent, T_INFO);
        }
    }
    pvm_exit();
    return 0;
}

/* --------------------------------------------------------------- master */

static void t_types(int tid)
{
    static struct data a, b;
    const int encs[3] = { PvmDataDefault, PvmDataRaw, PvmDataInPlace };
    for (int e = 0; e < 3; e++) {
        for (int stride = 1; stride <= S; stride++) {
            if (encs[e] == PvmDataInPlace && stride != 1)
                continue;
            fill(&a, e * 10 + stride);
            pvm_initsend(encs[e]);
            int hdr[2] = { encs[e], stride };
            pvm_pkint(hdr, 2, 1);
            schema(&a, stride, 1, encs[e]);
            pvm_send(tid, T_TYPES);
            pvm_recv(tid, T_TYPES);
            int rc, st;
            memset(&b, 0, sizeof b);
            pvm_upkint(&rc, 1, 1);
            pvm_upkint(&st, 1, 1);
            schema(&b, stride, 0, encs[e]);
            CHECK(rc == 0 && st == stride, "types enc %d stride %d: slave unpack rc %d", encs[e], stride, rc);
            CHECK(same(&a, &b, stride, encs[e]), "types enc %d stride %d: values differ", encs[e], stride);
        }
    }
}

static void t_bytes(int tid)
{
    const int sizes[] = { 0, 1, 3, 4031, 4032, 4033, 4063, 4064, 4065, 8096,
                          100000, 1 << 20, 16 << 20 };
    for (unsigned k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        int n = sizes[k];
        unsigned char *b = malloc((size_t)n + 1), *r = malloc((size_t)n + 1);
        for (int j = 0; j < n; j++)
            b[j] = (unsigned char)(j * 31 + k);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&n, 1, 1);
        pvm_pkbyte((char *)b, n, 1);
        pvm_send(tid, T_BYTES);
        int m = -1;
        pvm_recv(tid, T_BYTES);
        pvm_upkint(&m, 1, 1);
        CHECK(m == n, "bytes %d: echoed length %d", n, m);
        if (m == n) {
            pvm_upkbyte((char *)r, n, 1);
            CHECK(sum(r, (size_t)n) == sum(b, (size_t)n), "bytes %d: data differs", n);
        }
        int extra;
        int save = pvm_setopt(PvmAutoErr, 0);
        CHECK(pvm_upkint(&extra, 1, 1) == PvmNoData, "bytes %d: unpack past end not PvmNoData", n);
        pvm_setopt(PvmAutoErr, save);
        free(b);
        free(r);
    }
}

static void t_psend(int tid)
{
    const int types[] = { PVM_BYTE, PVM_SHORT, PVM_INT, PVM_FLOAT, PVM_CPLX, PVM_DOUBLE,
                          PVM_DCPLX, PVM_LONG, PVM_USHORT, PVM_UINT, PVM_ULONG };
    const size_t size[] = { 1, sizeof(short), sizeof(int), sizeof(float), 2 * sizeof(float),
                            sizeof(double), 2 * sizeof(double), sizeof(long),
                            sizeof(short), sizeof(int), sizeof(long) };
    for (unsigned k = 0; k < sizeof types / sizeof types[0]; k++) {
        int n = 1000 + (int)k;
        size_t bytes = (size_t)n * size[k];
        unsigned char *a = malloc(bytes), *b = calloc(1, bytes);
        for (size_t j = 0; j < bytes; j++)
            a[j] = (unsigned char)(j * 7 + k);
        pvm_initsend(PvmDataDefault);
        int hdr[2] = { types[k], n };
        pvm_pkint(hdr, 2, 1);
        pvm_send(tid, T_PSEND);
        pvm_psend(tid, T_PSEND + 100, a, n, types[k]);
        int atid = 0, atag = 0, alen = 0;
        int rc = pvm_precv(tid, T_PSEND + 100, b, n, types[k], &atid, &atag, &alen);
        /* stock reports the length in bytes */
        CHECK(rc == 0 && atid == tid && atag == T_PSEND + 100 && alen == (int)bytes,
              "psend type %d: rc %d tid %x tag %d len %d", types[k], rc, atid, atag, alen);
        CHECK(memcmp(a, b, bytes) == 0, "psend type %d: data differs", types[k]);
        free(a);
        free(b);
    }
    /* 20 MiB crosses our 16 MiB default fragment; then a short receive
     * buffer gets the head only, the full length is reported and nothing is
     * written past it (precv may land data straight in the buffer). */
    int n = (20 << 20) / 8 + 3;
    double *a = malloc((size_t)n * 8), *b = calloc((size_t)n, 8);
    for (int j = 0; j < n; j++)
        a[j] = j * 0.5 - 7;
    for (int round = 0; round < 2; round++) {
        int m = round ? 1000 : n, want = round ? 500 : n;
        int hdr[2] = { PVM_DOUBLE, m };
        memset(b, 0x5a, (size_t)n * 8);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(hdr, 2, 1);
        pvm_send(tid, T_PSEND);
        pvm_psend(tid, T_PSEND + 100, a, m, PVM_DOUBLE);
        int atid = 0, atag = 0, alen = 0;
        int rc = pvm_precv(tid, T_PSEND + 100, b, want, PVM_DOUBLE, &atid, &atag, &alen);
        CHECK(rc == 0 && atid == tid && alen == m * 8,
              "psend %d doubles into %d: rc %d len %d", m, want, rc, alen);
        CHECK(memcmp(a, b, (size_t)want * 8) == 0, "psend %d doubles: data differs", m);
        CHECK(want == n || (((unsigned char *)b)[want * 8] == 0x5a &&
                            ((unsigned char *)b)[(size_t)n * 8 - 1] == 0x5a),
              "precv of %d into %d wrote past the buffer", m, want);
    }
    free(a);
    free(b);
}

static void t_order(int tid)
{
    int v;
    pvm_initsend(PvmDataDefault);
    pvm_send(tid, T_ORDER);
    /* tag 13 first by tag, then wildcards must give 11 then 12 */
    pvm_recv(tid, 13);
    pvm_upkint(&v, 1, 1);
    CHECK(v == 13, "order: tag 13 got %d", v);
    int bid = pvm_recv(-1, -1), len, tag, src;
    pvm_bufinfo(bid, &len, &tag, &src);
    CHECK(tag == 11 && src == tid, "order: first wildcard tag %d src %x", tag, src);
    bid = pvm_recv(tid, -1);
    pvm_bufinfo(bid, &len, &tag, &src);
    CHECK(tag == 12, "order: second wildcard tag %d", tag);
    /* nothing left: nrecv/probe say 0, trecv times out */
    CHECK(pvm_nrecv(-1, 77) == 0, "nrecv of a missing tag not 0");
    CHECK(pvm_probe(-1, 77) == 0, "probe of a missing tag not 0");
    struct timeval t0, t1, tmo = { 0, 200000 };
    gettimeofday(&t0, NULL);
    int r = pvm_trecv(-1, 77, &tmo);
    gettimeofday(&t1, NULL);
    long us = (t1.tv_sec - t0.tv_sec) * 1000000L + (t1.tv_usec - t0.tv_usec);
    CHECK(r == 0 && us >= 150000 && us < 5000000, "trecv timeout: rc %d after %ld us", r, us);
    /* probe sees a message without taking it */
    pvm_initsend(PvmDataDefault);
    pvm_send(tid, T_ORDER);
    for (int k = 0; k < 500 && pvm_probe(tid, 11) <= 0; k++)
        usleep(10000);
    CHECK(pvm_probe(tid, 11) > 0, "probe never saw tag 11");
    CHECK(pvm_nrecv(tid, 11) > 0, "nrecv after probe failed");
    pvm_recv(tid, 12);
    pvm_recv(tid, 13);
}

static void t_ctx(int tid)
{
    int ctx = pvm_newcontext();
    CHECK(ctx > 0, "newcontext %d", ctx);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&ctx, 1, 1);
    pvm_send(tid, T_CTX);
    int old = pvm_setcontext(ctx);
    int v = 222;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(tid, 21);           /* context ctx first ... */
    pvm_setcontext(old);
    v = 111;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(tid, 21);           /* ... then base context */
    int a = 0, b = 0;
    pvm_recv(tid, T_CTX);
    pvm_upkint(&a, 1, 1);
    pvm_upkint(&b, 1, 1);
    CHECK(a == 111 && b == 222, "contexts mixed: base got %d, ctx got %d", a, b);
    pvm_freecontext(ctx);
}

static void t_mcast(int *tids, int n)
{
    int len = 50000, got[2] = { 0, 0 };
    char *b = malloc((size_t)len);
    memset(b, 'm', (size_t)len);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&len, 1, 1);
    pvm_pkbyte(b, len, 1);
    int all[3] = { tids[0], tids[1], tids[0] };   /* duplicate on purpose */
    CHECK(pvm_mcast(all, 3, T_MCAST) == 0, "mcast failed");
    for (int k = 0; k < n; k++) {
        int bid = pvm_recv(-1, T_MCAST), l, t, s, m;
        pvm_bufinfo(bid, &l, &t, &s);
        pvm_upkint(&m, 1, 1);
        for (int j = 0; j < n; j++)
            if (tids[j] == s && m == len)
                got[j]++;
    }
    CHECK(got[0] == 1 && got[1] == 1, "mcast echoes %d %d", got[0], got[1]);
    struct timeval tmo = { 0, 300000 };
    CHECK(pvm_trecv(-1, T_MCAST, &tmo) == 0, "mcast delivered a duplicate");
    free(b);
}

static void t_info(int *tids, int n)
{
    for (int k = 0; k < n; k++) {
        pvm_initsend(PvmDataDefault);
        pvm_send(tids[k], T_INFO);
        int parent, ns, sib[8] = { 0 };
        pvm_recv(tids[k], T_INFO);
        pvm_upkint(&parent, 1, 1);
        pvm_upkint(&ns, 1, 1);
        if (ns > 0 && ns <= 8)
            pvm_upkint(sib, ns, 1);
        CHECK(parent == pvm_mytid(), "slave %x: parent %x", tids[k], parent);
        CHECK(ns == n && sib[0] == tids[0] && sib[1] == tids[1],
              "slave %x: siblings %d (%x %x)", tids[k], ns, sib[0], sib[1]);
    }
}

static void t_tasks(int *tids, int n, const char *path)
{
    int nh, na, nt;
    struct pvmhostinfo *h;
    struct pvmtaskinfo *t;
    CHECK(pvm_config(&nh, &na, &h) == 0 && nh >= 1 && h[0].hi_dsig != 0, "config");
    int on = 0;   /* the slave's host is one of the VM's (hosts.sh runs several) */
    for (int k = 0; k < nh; k++)
        on |= pvm_tidtohost(tids[0]) == h[k].hi_tid;
    CHECK(on, "tidtohost %x is no host of the VM", pvm_tidtohost(tids[0]));
    CHECK(pvm_tasks(0, &nt, &t) == 0, "tasks");
    int seen = 0;
    for (int k = 0; k < nt; k++)
        for (int j = 0; j < n; j++)
            if (t[k].ti_tid == tids[j] && t[k].ti_ptid == pvm_mytid())
                seen++;
    CHECK(seen == n, "tasks lists %d of %d slaves", seen, n);
    CHECK(pvm_pstat(tids[0]) == PvmOk, "pstat of a live slave");
    /* spawn a sleeper, kill it, watch it go */
    int z;
    CHECK(pvm_spawn((char *)path, (char *[]){ "slave", NULL }, 0, "", 1, &z) == 1, "spawn sleeper");
    pvm_initsend(PvmDataDefault);
    pvm_send(z, T_SLEEP);
    CHECK(pvm_kill(z) == 0, "kill");
    int st = 0;
    for (int k = 0; k < 100 && (st = pvm_pstat(z)) == PvmOk; k++)
        usleep(50000);
    CHECK(st == PvmNoTask, "pstat after kill: %d", st);
}

static int master(const char *a, const char *b)
{
    int me = pvm_mytid();
    if (me < 0)
        return 2;
    /* Ask for direct routes: stock peers open them, ours must answer the
     * request (a refusal keeps the daemon route) and never block. */
    pvm_setopt(PvmRoute, PvmRouteDirect);
    int tids[2];
    char *args[] = { "slave", NULL };
    CHECK(pvm_spawn((char *)a, args, 0, "", 1, &tids[0]) == 1, "spawn %s", a);
    CHECK(pvm_spawn((char *)b, args, 0, "", 1, &tids[1]) == 1, "spawn %s", b);
    if (failures)
        return 1;
    for (int k = 0; k < 2; k++) {
        t_types(tids[k]);
        t_bytes(tids[k]);
        t_psend(tids[k]);
        t_order(tids[k]);
        t_ctx(tids[k]);
    }
    t_mcast(tids, 2);
    t_tasks(tids, 2, a);
    for (int k = 0; k < 2; k++) {
        pvm_initsend(PvmDataDefault);
        pvm_send(tids[k], T_QUIT);
    }
    /* a pair spawned together sees both tids as siblings */
    int pair[2];
    CHECK(pvm_spawn((char *)b, args, 0, "", 2, pair) == 2, "spawn pair");
    t_info(pair, 2);
    for (int k = 0; k < 2; k++) {
        pvm_initsend(PvmDataDefault);
        pvm_send(pair[k], T_QUIT);
    }
    pvm_exit();
    printf("interop master done: %d failure(s)\n", failures);
    return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc >= 2 && !strcmp(argv[1], "slave"))
        return slave();
    if (argc == 4 && !strcmp(argv[1], "MASTER"))
        return master(argv[2], argv[3]);
    fprintf(stderr, "usage: %s MASTER slaveA slaveB\n", argv[0]);
    return 2;
}
