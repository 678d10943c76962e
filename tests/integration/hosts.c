/*
 * hosts.c - a job spread over every host of the virtual machine, built
 * against stock libpvm3 (hosts_stock) and libpvm3am (hosts_am):
 *     hosts MASTER per-host rounds binA binB
 * The master spawns per-host workers on each host (pvm_config order),
 * alternating binA and binB, and joins the group "hosts" with them (so the
 * group has members on every host).  Each worker:
 *   1. greets every other worker, then (libpvm3am) waits, bounded, until the
 *      links to its libpvm3am peers are open, and joins a barrier;
 *   2. all-to-all: `rounds` packed messages of varying length to every other
 *      worker, each with a checksum; checks content and per-sender order;
 *   3. a pvm_reduce(PvmSum) to the master and a pvm_bcast back;
 *   4. reports its errors and, per peer, how many of its all-to-all
 *      messages went over AM and how many through the pvmd.
 * The master checks: no errors, the reduce and bcast, and that every
 * message between two libpvm3am workers went over AM (none through the
 * pvmd), and every one to or from a stock worker through the pvmd.
 * Exit 0 = all good.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>
#ifdef PVMAM_BUILD
#include "pvmam.h"
#endif

#define MAXW 32
#define T_SETUP 1
#define T_HELLO 2
#define T_DATA 3
#define T_REPORT 4
#define T_BCAST 5
#define GROUP "hosts"

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); fflush(stdout); } } while (0)

struct job {
    int n, rounds;
    int tid[MAXW], am[MAXW], host[MAXW];
};

static inline double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The body of message r from a to b: its length and ints are a function
 * of (r, a, b), so the receiver can recompute it. */
static int body_len(int r, int a, int b) { return 1 + (r * 977 + a * 131 + b * 29) % 3000; }
static int body_at(int r, int a, int b, int k) { return (int)((unsigned)(r + 1) * 2654435761u ^ (unsigned)(a * 7919 + b * 104729 + k)); }

/* 32 bits: stock's XDR longs are 32 bits wide */
static unsigned checksum(const int *v, int n)
{
    unsigned h = 5381;
    for (int k = 0; k < n; k++)
        h = h * 33 + (unsigned)v[k];
    return h;
}

/* A link's transport as a number: 0 none, 1 shm, 2 tcp, 3 udp. */
static int tr_code(const char *t)
{
    return !t ? 0 : !strcmp(t, "shm") ? 1 : !strcmp(t, "tcp") ? 2 : !strcmp(t, "udp") ? 3 : 0;
}

static void pack_job(const struct job *j)
{
    pvm_pkint((int *)&j->n, 1, 1);
    pvm_pkint((int *)&j->rounds, 1, 1);
    pvm_pkint((int *)j->tid, j->n, 1);
    pvm_pkint((int *)j->am, j->n, 1);
    pvm_pkint((int *)j->host, j->n, 1);
}

static void unpack_job(struct job *j)
{
    pvm_upkint(&j->n, 1, 1);
    pvm_upkint(&j->rounds, 1, 1);
    pvm_upkint(j->tid, j->n, 1);
    pvm_upkint(j->am, j->n, 1);
    pvm_upkint(j->host, j->n, 1);
}

#ifdef PVMAM_BUILD
/* Drive the library until the links to every libpvm3am peer are open, at
 * most 10 s (links open on demand; the greeting started them). */
static void wait_links(const struct job *j, int me)
{
    double end = now() + 10;
    for (;;) {
        int open = 1;
        for (int k = 0; k < j->n; k++) {
            struct pvmam_stats s;
            if (k != me && j->am[k] && (pvmam_stats(j->tid[k], &s) < 0 || !s.peers_am))
                open = 0;
        }
        if (open || now() > end)
            return;
        pvm_trecv(-1, 999999, &(struct timeval){ 0, 2000 });
    }
}
#endif

static void worker(void)
{
    struct job j;
    int parent = pvm_parent();
    pvm_recv(parent, T_SETUP);
    unpack_job(&j);
    int me = -1;
    for (int k = 0; k < j.n; k++)
        if (j.tid[k] == pvm_mytid())
            me = k;
    int inst = pvm_joingroup(GROUP);
    CHECK(inst >= 0, "joingroup: %d", inst);
    for (int k = 0; k < j.n; k++) {
        if (k == me)
            continue;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&me, 1, 1);
        pvm_send(j.tid[k], T_HELLO);
    }
    for (int k = 0; k < j.n - 1; k++)
        pvm_recv(-1, T_HELLO);
#ifdef PVMAM_BUILD
    int am_before[MAXW] = { 0 }, pvmd_before[MAXW] = { 0 };
    if (strcmp(pvmam_transport(), "off"))
        wait_links(&j, me);
    for (int k = 0; k < j.n; k++) {
        struct pvmam_stats s;
        if (k != me && pvmam_stats(j.tid[k], &s) == 0) {
            am_before[k] = (int)s.am_msgs_sent;
            pvmd_before[k] = (int)s.pvmd_msgs_sent;
        }
    }
#endif
    CHECK(pvm_barrier(GROUP, j.n + 1) >= 0, "barrier 1");

    static int buf[3000];
    for (int r = 0; r < j.rounds; r++)
        for (int k = 0; k < j.n; k++) {
            if (k == me)
                continue;
            int len = body_len(r, me, k);
            for (int x = 0; x < len; x++)
                buf[x] = body_at(r, me, k, x);
            unsigned sum = checksum(buf, len);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&r, 1, 1);
            pvm_pkint(&me, 1, 1);
            pvm_pkint(&len, 1, 1);
            pvm_pkint(buf, len, 1);
            pvm_pkuint(&sum, 1, 1);
            CHECK(pvm_send(j.tid[k], T_DATA) >= 0, "send to %d", k);
        }
    int next[MAXW] = { 0 };
    for (int m = 0; m < j.rounds * (j.n - 1); m++) {
        int r, from, len;
        unsigned sum;
        CHECK(pvm_recv(-1, T_DATA) > 0, "recv");
        pvm_upkint(&r, 1, 1);
        pvm_upkint(&from, 1, 1);
        pvm_upkint(&len, 1, 1);
        if (from < 0 || from >= j.n || len != body_len(r, from, me)) {
            CHECK(0, "bad message header r=%d from=%d len=%d", r, from, len);
            continue;
        }
        pvm_upkint(buf, len, 1);
        pvm_upkuint(&sum, 1, 1);
        CHECK(r == next[from], "order: from %d round %d, expected %d", from, r, next[from]);
        next[from] = r + 1;
        int ok = checksum(buf, len) == sum;
        for (int x = 0; ok && x < len; x++)
            ok = buf[x] == body_at(r, from, me, x);
        CHECK(ok, "content of round %d from %d", r, from);
    }
    /* before the group calls, which send among workers too */
    int am[MAXW] = { 0 }, pvmd[MAXW] = { 0 }, tr[MAXW] = { 0 };
    int isam = 0;
#ifdef PVMAM_BUILD
    isam = 1;
    for (int k = 0; k < j.n; k++) {
        struct pvmam_stats s;
        if (k != me && pvmam_stats(j.tid[k], &s) == 0) {
            am[k] = (int)s.am_msgs_sent - am_before[k];
            pvmd[k] = (int)s.pvmd_msgs_sent - pvmd_before[k];
            tr[k] = tr_code(s.transport);
        }
    }
#endif
    int val[2] = { me + 1, j.host[me] };
    CHECK(pvm_reduce(PvmSum, val, 2, PVM_INT, 77, GROUP, 0) >= 0, "reduce");
    int bc = 0;
    CHECK(pvm_recv(-1, T_BCAST) > 0, "bcast");
    pvm_upkint(&bc, 1, 1);
    CHECK(bc == j.n * 1000, "bcast value %d", bc);

    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_pkint(&fails, 1, 1);
    pvm_pkint(&isam, 1, 1);
    pvm_pkint(am, j.n, 1);
    pvm_pkint(pvmd, j.n, 1);
    pvm_pkint(tr, j.n, 1);
    pvm_send(parent, T_REPORT);
    pvm_lvgroup(GROUP);
    pvm_exit();
}

static int master(int per_host, int rounds, char **bins)
{
    struct pvmhostinfo *hi;
    int nhost, narch;
    struct job j = { .n = 0, .rounds = rounds };
    pvm_mytid();
    if (pvm_config(&nhost, &narch, &hi) < 0 || nhost < 2) {
        printf("FAIL: need a VM of several hosts (have %d)\n", nhost);
        return 1;
    }
    CHECK(pvm_joingroup(GROUP) == 0, "master joins first");
    for (int h = 0; h < nhost; h++)
        for (int k = 0; k < per_host && j.n < MAXW; k++) {
            int w = j.n % 2, tid;
            int rc = pvm_spawn(bins[w], (char *[]){ "worker", NULL }, PvmTaskHost,
                               hi[h].hi_name, 1, &tid);
            CHECK(rc == 1, "spawn %s on %s: %d", bins[w], hi[h].hi_name, tid);
            if (rc != 1)
                return 1;
            j.tid[j.n] = tid;
            j.am[j.n] = strstr(bins[w], "_am") != NULL;
            j.host[j.n] = h;
            j.n++;
        }
    printf("%d workers on %d hosts, %d rounds all-to-all\n", j.n, nhost, rounds);
    pvm_initsend(PvmDataDefault);
    pack_job(&j);
    pvm_mcast(j.tid, j.n, T_SETUP);
    CHECK(pvm_barrier(GROUP, j.n + 1) >= 0, "barrier 1");

    int zero[2] = { 0, 0 };
    CHECK(pvm_reduce(PvmSum, zero, 2, PVM_INT, 77, GROUP, 0) >= 0, "reduce");
    int want0 = 0, want1 = 0;
    for (int k = 0; k < j.n; k++) {
        want0 += k + 1;
        want1 += j.host[k];
    }
    CHECK(zero[0] == want0 && zero[1] == want1, "reduce: %d %d, want %d %d", zero[0], zero[1],
          want0, want1);
    int bc = j.n * 1000;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&bc, 1, 1);
    CHECK(pvm_bcast(GROUP, T_BCAST) >= 0, "bcast");

    /* PVMAM_TRANSPORT "a,b": a on the same host, b between hosts (shm
     * reaches this host only); "a": a everywhere */
    const char *te = getenv("PVMAM_TRANSPORT");
    char tl[32];
    snprintf(tl, sizeof tl, "%s", te && *te ? te : "shm,tcp");
    char *comma = strchr(tl, ',');
    if (comma)
        *comma++ = 0;
    int tr_local = tr_code(tl), tr_remote = tr_code(comma ? comma : tl);
    long am_msgs = 0, cross = 0;
    for (int m = 0; m < j.n; m++) {
        struct timeval tmo = { 60, 0 };
        int me, wf, isam, am[MAXW], pvmd[MAXW], tr[MAXW];
        if (pvm_trecv(-1, T_REPORT, &tmo) <= 0) {
            CHECK(0, "no report from a worker within 60 s");
            break;
        }
        pvm_upkint(&me, 1, 1);
        pvm_upkint(&wf, 1, 1);
        pvm_upkint(&isam, 1, 1);
        pvm_upkint(am, j.n, 1);
        pvm_upkint(pvmd, j.n, 1);
        pvm_upkint(tr, j.n, 1);
        CHECK(wf == 0, "worker %d (host %d) saw %d errors", me, j.host[me], wf);
        if (!isam || !strcmp(getenv("PVMAM_TRANSPORT") ? getenv("PVMAM_TRANSPORT") : "", "off"))
            continue;
        for (int k = 0; k < j.n; k++) {
            if (k == me)
                continue;
            if (j.am[k]) {
                CHECK(am[k] == rounds && pvmd[k] == 0,
                      "worker %d -> %d (hosts %d -> %d): %d over AM, %d via the pvmd, want %d/0",
                      me, k, j.host[me], j.host[k], am[k], pvmd[k], rounds);
                am_msgs += am[k];
                cross += am[k] * (j.host[k] != j.host[me]);
                int want = j.host[k] == j.host[me] ? tr_local : tr_remote;
                CHECK(tr[k] == want, "worker %d -> %d (hosts %d -> %d): transport %d, want %d "
                      "(1 shm, 2 tcp, 3 udp)", me, k, j.host[me], j.host[k], tr[k], want);
            } else {
                CHECK(am[k] == 0 && pvmd[k] == rounds,
                      "worker %d -> stock %d: %d over AM, %d via the pvmd", me, k, am[k], pvmd[k]);
            }
        }
    }
    static const char *const trn[] = { "none", "shm", "tcp", "udp" };
    printf("all-to-all: %ld messages between libpvm3am workers over AM, %ld of them between "
           "hosts; links on a host over %s, between hosts over %s\n", am_msgs, cross,
           trn[tr_local], trn[tr_remote]);
    pvm_lvgroup(GROUP);
    pvm_exit();
    return fails != 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 6 && !strcmp(argv[1], "MASTER"))
        return master(atoi(argv[2]), atoi(argv[3]), argv + 4);
    worker();
    return fails != 0;
}
