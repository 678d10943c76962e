/*
 * startup.c - how long a job takes to start: a master spawns N copies of
 * itself and waits for one packed reply from each (the start-up
 * measure).  The same source is built against stock libpvm3 and
 * libpvm3am; run.sh runs both in one VM, interleaved.
 *
 *   startup_X N [CHILD]  master: prints "spawn_ms N ms" (pvm_spawn alone) and
 *                        "all_ms N ms" (spawn to last reply); CHILD (default
 *                        itself) is the program spawned, e.g. the other build
 * Environment of the master (children get it as their second argument):
 *   STARTUP_INIT=1    (libpvm3am build only) every task calls pvmam_init(N + 1)
 *                     before anything else: the whole mesh up front
 *   STARTUP_PAIRS=1   every pair of the N + 1 tasks exchanges one message
 *                     (each sends one to every other, after the master's
 *                     table of tids) before the reply
 *   STARTUP_DIRECT=1  every task sets PvmRouteDirect first (stock's direct
 *                     route: a TCP connection per pair, opened on demand)
 *   (spawned children take the slave part: pvm_parent() is a task)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>
#ifdef STARTUP_AM
#include "pvmam.h"
#endif

#define TAG_HELLO 7
#define TAG_TIDS 8
#define TAG_PAIR 9

/* What a run does (the environment's words, passed to children as a
 * string of letters in their second argument). */
struct mode {
    int init, pairs, direct;
};

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* pvmam_init(ntasks) when asked (libpvm3am); 0 or error. */
static int mesh(int ask, int ntasks)
{
    if (!ask)
        return 0;
#ifdef STARTUP_AM
    return pvmam_init(ntasks);
#else
    (void)ntasks;
    fprintf(stderr, "startup: STARTUP_INIT needs the libpvm3am build\n");
    return -1;
#endif
}

/* Every task sends one message (its rank) to every other of the n, then
 * receives one from each; 0, or -1 when one is missing or twice. */
static int pairs(const int *tids, int n, int rank)
{
    char *seen = calloc((size_t)n, 1);
    if (!seen)
        return -1;
    for (int i = 1; i < n; i++) {   /* starting after ourselves spreads the load */
        int to = (rank + i) % n;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&rank, 1, 1);
        if (pvm_send(tids[to], TAG_PAIR) < 0) {
            free(seen);
            return -1;
        }
    }
    int rc = 0;
    for (int i = 1; i < n && rc == 0; i++) {
        struct timeval tmo = { 60, 0 };
        int r = -1;
        if (pvm_trecv(-1, TAG_PAIR, &tmo) <= 0 || pvm_upkint(&r, 1, 1) < 0 || r < 0 ||
            r >= n || r == rank || seen[r]++) {
            fprintf(stderr, "startup: task %d: pair message %d of %d missing or wrong (%d)\n",
                    rank, i, n - 1, r);
            rc = -1;
        }
    }
    free(seen);
    return rc;
}

static int slave(int parent, struct mode md, int ntasks)
{
    int me = pvm_mytid();
    if (md.direct)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    if (mesh(md.init, ntasks) < 0) {
        pvm_exit();
        return 1;
    }
    if (md.pairs) {
        int *tids = malloc(sizeof *tids * (size_t)ntasks), rank = -1;
        struct timeval tmo = { 60, 0 };
        if (!tids || pvm_trecv(parent, TAG_TIDS, &tmo) <= 0 ||
            pvm_upkint(tids, ntasks, 1) < 0) {
            fprintf(stderr, "startup: no table of tids\n");
            pvm_exit();
            return 1;
        }
        for (int i = 0; i < ntasks; i++)
            if (tids[i] == me)
                rank = i;
        int rc = rank < 0 ? -1 : pairs(tids, ntasks, rank);
        free(tids);
        if (rc < 0) {
            pvm_exit();
            return 1;
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    int rc = pvm_send(parent, TAG_HELLO);
    pvm_exit();
    return rc < 0;
}

int main(int argc, char **argv)
{
    int me = pvm_mytid();
    if (me < 0)
        return 1;
    int parent = pvm_parent();
    int n = argc > 1 ? atoi(argv[1]) : 8;
    /* children learn it from their arguments: the environment is not
     * passed on unless named in PVM_EXPORT */
    struct mode md = { 0, 0, 0 };
    if (parent > 0) {
        const char *f = argc > 2 ? argv[2] : "";
        md = (struct mode){ !!strchr(f, 'i'), !!strchr(f, 'p'), !!strchr(f, 'd') };
        return slave(parent, md, n + 1);
    }
    const char *e;
    md.init = (e = getenv("STARTUP_INIT")) && !strcmp(e, "1");
    md.pairs = (e = getenv("STARTUP_PAIRS")) && !strcmp(e, "1");
    md.direct = (e = getenv("STARTUP_DIRECT")) && !strcmp(e, "1");
    if (md.direct)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    if (n < 1 || n > 1024) {
        fprintf(stderr, "startup: N from 1 to 1024\n");
        pvm_exit();
        return 2;
    }
    int *tids = calloc((size_t)n, sizeof *tids);
    if (!tids) {
        pvm_exit();
        return 1;
    }
    char flags[4] = "x", *f = flags;   /* never empty: an argument is there */
    if (md.init)
        *f++ = 'i';
    if (md.pairs)
        *f++ = 'p';
    if (md.direct)
        *f++ = 'd';
    double t0 = now_ms();
    char *args[] = { argv[1], flags, NULL };
    int got = pvm_spawn(argc > 2 ? argv[2] : argv[0], argc > 1 ? args : NULL, PvmTaskDefault, "",
                        n, tids);
    if (got != n) {
        fprintf(stderr, "startup: spawned %d of %d\n", got, n);
        pvm_exit();
        return 1;
    }
    double t1 = now_ms();
    if (mesh(md.init, n + 1) < 0) {
        fprintf(stderr, "startup: pvmam_init failed\n");
        pvm_exit();
        return 1;
    }
    if (md.pairs) {
        int *all = malloc(sizeof *all * (size_t)(n + 1));
        if (!all) {
            pvm_exit();
            return 1;
        }
        all[0] = me;
        memcpy(all + 1, tids, sizeof *tids * (size_t)n);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(all, n + 1, 1);
        int rc = pvm_mcast(tids, n, TAG_TIDS);
        if (rc >= 0)
            rc = pairs(all, n + 1, 0);
        free(all);
        if (rc < 0) {
            fprintf(stderr, "startup: the pairs' exchange failed\n");
            pvm_exit();
            return 1;
        }
    }
    for (int i = 0; i < n; i++) {
        /* bounded: a lost reply ends the run with an error, not a hang */
        struct timeval tmo = { 30, 0 };
        if (pvm_trecv(-1, TAG_HELLO, &tmo) <= 0) {
            fprintf(stderr, "startup: reply %d of %d did not come\n", i + 1, n);
            pvm_exit();
            return 1;
        }
    }
    double t2 = now_ms();
    printf("spawn_ms %d %.2f\nall_ms %d %.2f\n", n, t1 - t0, n, t2 - t0);
    free(tids);
    pvm_exit();
    return 0;
}
