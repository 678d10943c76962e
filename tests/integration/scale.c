/*
 * scale.c - many libpvm3am tasks on demand, and pvmam_init with many
 *.  The master spawns N-1 copies of itself; ranks are
 * the master (0) and the children in pvm_siblings() order.
 *
 *   scale N ondemand|init|pairs
 *  1. (init) every task calls pvmam_init(N): the whole mesh up front.
 *     (pairs) every task sends one message to every other, links opening
 *     on demand, and each must come within PAIR_WAIT s (one that comes
 *     later is waited for LATE_WAIT s more, to tell late from lost).
 *  2. A ring: a token goes round R times, each task adds its rank.
 *  3. All-to-all sample: rank r sends K messages of SAMPLE bytes, to
 *     r + k*STEP (mod N), k = 1..K, each filled from (sender, k); every
 *     task checks what it receives from r - k*STEP.
 *  4. The master makes sure it has a link to every child (a 1 KiB ping
 *     each way), then compares its resident memory and descriptors with
 *     what it had before it spawned: the cost per (now idle) peer, an
 *     upper bound (the messages' buffers count too).  Every child reports
 *     its descriptors.
 * Every wait is bounded (pvm_trecv).  Prints the figures and PASS/FAIL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>
#include "pvmam.h"
#include "selfstat.h"

#define R 3
#define K 8
#define SAMPLE 4096
#define PING 1024
#define PAIR_WAIT 60
#define LATE_WAIT 120
enum { TAG_TABLE = 40, TAG_RING, TAG_A2A, TAG_PING, TAG_PONG, TAG_REPORT, TAG_BYE, TAG_PAIR };

static int n, rank, *tids;
static long rss_base, fd_base;   /* the master's, before it spawned */
static char *mode;
static int pair_ms;   /* pairs: our longest wait for one message */

/* Segments of shm links mapped here (/proc/self/maps): an idle link of
 * pvmam_init's mesh maps none (libam/shm/segment.c, amx_shm_map). */
static int segments_mapped(void)
{
    FILE *f = fopen("/proc/self/maps", "r");
    char line[512];
    int k = 0;
    if (!f)
        return -1;
    while (fgets(line, sizeof line, f))
        k += strstr(line, "memfd:pvmam-shm") != NULL;
    fclose(f);
    return k;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int recv_from(int src, int tag, int secs)
{
    struct timeval tmo = { secs, 0 };
    int bid = pvm_trecv(src, tag, &tmo);
    if (bid <= 0)
        fprintf(stderr, "scale[%d]: nothing with tag %d from t%x in %d s\n", rank, tag, src, secs);
    return bid;
}

static void fill(unsigned char *b, size_t len, int from, int k)
{
    for (size_t i = 0; i < len; i++)
        b[i] = (unsigned char)(from * 7 + k * 13 + i);
}

static int ring(void)
{
    int bad = 0;
    for (int round = 0; round < R; round++) {
        int v = 0;
        if (rank != 0) {
            if (recv_from(tids[rank - 1], TAG_RING, 60) <= 0)
                return 1;
            pvm_upkint(&v, 1, 1);
        }
        v += rank;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(tids[(rank + 1) % n], TAG_RING);
        if (rank == 0) {
            if (recv_from(tids[n - 1], TAG_RING, 60) <= 0)
                return 1;
            pvm_upkint(&v, 1, 1);
            bad += v != n * (n - 1) / 2;
        }
    }
    return bad;
}

/* Every task sends its rank to every other (starting after itself, to
 * spread the load), then takes n - 1 of them, each within PAIR_WAIT s.
 * Before every tcp link ended with its connection, 256 tasks on 4 hosts
 * waited up to 160 s for one: the pvmds carried an exit watch per link
 * and its notice besides the links' set-up (pvmam/link.c self_watched). */
static int pairs(void)
{
    char *seen = calloc((size_t)n, 1);
    if (!seen)
        return 1;
    for (int i = 1; i < n; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&rank, 1, 1);
        if (pvm_send(tids[(rank + i) % n], TAG_PAIR) < 0) {
            free(seen);
            return 1;
        }
    }
    double last = now();
    for (int i = 1; i < n; i++) {
        struct timeval tmo = { PAIR_WAIT, 0 }, late = { LATE_WAIT, 0 };
        int r = -1, bid = pvm_trecv(-1, TAG_PAIR, &tmo);
        if (bid == 0) {
            bid = pvm_trecv(-1, TAG_PAIR, &late);
            fprintf(stderr, "scale[%d]: pair message %d of %d not within %d s: %s %.1f s\n",
                    rank, i, n - 1, PAIR_WAIT, bid > 0 ? "came after" : "still missing after",
                    now() - last);
            bid = -1;
        }
        if (bid <= 0 || pvm_upkint(&r, 1, 1) < 0 || r < 0 || r >= n || r == rank || seen[r]++) {
            fprintf(stderr, "scale[%d]: pair message %d of %d wrong or missing (%d)\n", rank, i,
                    n - 1, r);
            free(seen);
            return 1;
        }
        double t = now();
        if ((t - last) * 1e3 > pair_ms)
            pair_ms = (int)((t - last) * 1e3);
        last = t;
    }
    free(seen);
    return 0;
}

static int all_to_all(void)
{
    int step = n / K > 1 ? n / K : 1, bad = 0;
    unsigned char out[SAMPLE], in[SAMPLE], want[SAMPLE];
    for (int k = 1; k <= K; k++) {
        int dst = (rank + k * step) % n;
        if (dst == rank)
            continue;
        fill(out, SAMPLE, rank, k);
        pvm_psend(tids[dst], TAG_A2A + 100 * k, out, SAMPLE, PVM_BYTE);
    }
    for (int k = 1; k <= K; k++) {
        int src = ((rank - k * step) % n + n) % n;
        if (src == rank)
            continue;
        int t, g, c;
        struct timeval tmo = { 60, 0 };
        if (pvm_trecv(tids[src], TAG_A2A + 100 * k, &tmo) <= 0) {
            fprintf(stderr, "scale[%d]: all-to-all message %d from rank %d missing\n", rank, k, src);
            return 1;
        }
        pvm_bufinfo(pvm_getrbuf(), &c, &t, &g);
        pvm_upkbyte((char *)in, c < SAMPLE ? c : SAMPLE, 1);
        fill(want, SAMPLE, src, k);
        bad += c != SAMPLE || memcmp(in, want, SAMPLE) != 0;
    }
    return bad;
}

static int child(void)
{
    static unsigned char ping[PING];
    int bad = !strcmp(mode, "pairs") ? pairs() : 0;
    if (bad)
        return 1;   /* the master's report waits would only run out */
    bad = ring() + all_to_all();
    if (recv_from(tids[0], TAG_PING, 120) <= 0)
        return 1;
    pvm_upkbyte((char *)ping, PING, 1);
    pvm_psend(tids[0], TAG_PONG, ping, PING, PVM_BYTE);
    int rep[3] = { bad, (int)selfstat_fds(), pair_ms };
    pvm_initsend(PvmDataDefault);
    pvm_pkint(rep, 3, 1);
    pvm_send(tids[0], TAG_REPORT);
    recv_from(tids[0], TAG_BYE, 120);
    pvm_exit();
    return 0;
}

static int master(void)
{
    static unsigned char ping[PING];
    if (!strcmp(mode, "pairs")) {
        double tp = now();
        if (pairs()) {   /* the children's figures would not come */
            printf("FAIL: %d tasks (pairs: the master's messages)\n", n);
            return 1;
        }
        printf("pairs: the master had one message from every child in %.2f s\n", now() - tp);
    }
    int bad = ring() + all_to_all();
    printf("ring (%d rounds) and all-to-all sample (%d x %d bytes each): %s\n", R, K, SAMPLE,
           bad ? "WRONG" : "ok");
    double t0 = now();
    for (int i = 1; i < n; i++) {
        pvm_initsend(PvmDataRaw);
        pvm_pkbyte((char *)ping, PING, 1);
        pvm_send(tids[i], TAG_PING);
    }
    int maxfd = 0, maxpair = pair_ms;
    for (int i = 1; i < n; i++) {
        int t, g, c, rep[3];
        if (pvm_precv(tids[i], TAG_PONG, ping, PING, PVM_BYTE, &t, &g, &c) < 0 ||
            recv_from(tids[i], TAG_REPORT, 120) <= 0) {
            bad++;
            break;
        }
        pvm_upkint(rep, 3, 1);
        bad += rep[0];
        maxfd = rep[1] > maxfd ? rep[1] : maxfd;
        maxpair = rep[2] > maxpair ? rep[2] : maxpair;
    }
    double dt = now() - t0;
    struct pvmam_stats s1;
    pvmam_stats(0, &s1);
    long rss1 = selfstat_rss_kb(), fd1 = selfstat_fds();
    int linked = s1.peers_am;
    printf("master: pings to every child in %.2f s; AM peers %d; since before spawning:"
           " descriptors %ld -> %ld, resident %ld -> %ld kB\n", dt, linked, fd_base, fd1,
           rss_base, rss1);
    if (linked > 0)
        printf("per peer: %.1f kB resident, %.2f descriptors (%d links)\n",
               (double)(rss1 - rss_base) / linked, (double)(fd1 - fd_base) / linked, linked);
    printf("children: at most %d descriptors each\n", maxfd);
    if (!strcmp(mode, "pairs"))
        printf("pairs: the longest wait for one message %.2f s (limit %d s)\n", maxpair / 1e3,
               PAIR_WAIT);
    pvm_initsend(PvmDataDefault);
    pvm_mcast(tids + 1, n - 1, TAG_BYE);
    printf("%s: %d tasks (%s, transport %s)\n", bad ? "FAIL" : "PASS", n, mode, pvmam_transport());
    return bad ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: scale N ondemand|init|pairs\n");
        return 2;
    }
    n = atoi(argv[1]);
    mode = argv[2];
    if (n < 2 || n > 1024 ||
        (strcmp(mode, "ondemand") && strcmp(mode, "init") && strcmp(mode, "pairs"))) {
        fprintf(stderr, "scale: N from 2 to 1024, ondemand, init or pairs\n");
        return 2;
    }
    int me = pvm_mytid();
    if (me < 0 || !(tids = calloc((size_t)n, sizeof *tids)))
        return 1;
    int parent = pvm_parent();
    double t0 = now();
    if (parent <= 0) {
        rss_base = selfstat_rss_kb();
        fd_base = selfstat_fds();
        tids[0] = me;
        int got = pvm_spawn(argv[0], argv + 1, PvmTaskDefault, "", n - 1, tids + 1);
        if (got != n - 1) {
            printf("FAIL: spawned %d of %d\n", got, n - 1);
            pvm_exit();
            return 1;
        }
        printf("spawned %d tasks in %.2f s\n", n - 1, now() - t0);
    } else {
        int *sib, ns = pvm_siblings(&sib);
        if (ns != n - 1)
            return 1;
        tids[0] = parent;
        for (int i = 0; i < ns; i++) {
            tids[i + 1] = sib[i];
            if (sib[i] == me)
                rank = i + 1;
        }
    }
    if (!strcmp(mode, "init")) {
        long rss0 = selfstat_rss_kb();
        double ti = now();
        int rc = pvmam_init(n);
        if (rank == 0) {
            long rss1 = selfstat_rss_kb();
            printf("pvmam_init(%d): %d in %.2f s\n", n, rc, now() - ti);
            /* The mesh is up and no message has gone over it: what an
             * idle peer costs (at most 16 KB asked). */
            printf("idle peer: %.1f kB resident (%ld -> %ld kB, %d links)\n",
                   (double)(rss1 - rss0) / (n - 1), rss0, rss1, n - 1);
            printf("idle links: %d segments mapped\n", segments_mapped());
        }
        if (rc < 0) {
            pvm_exit();
            return 1;
        }
    }
    int rc = rank == 0 ? master() : child();
    if (rank == 0)
        pvm_exit();
    return rc;
}
