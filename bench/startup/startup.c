/*
 * startup.c - how long a job takes to start: a master spawns N copies of
 * itself and waits for one packed reply from each (the start-up
 * measure).  The same source is built against stock libpvm3 and
 * libpvm3am; run.sh runs both in one VM, interleaved.
 *
 *   startup_X N [CHILD]  master: prints "spawn_ms N ms" (pvm_spawn alone) and
 *                        "all_ms N ms" (spawn to last reply); CHILD (default
 *                        itself) is the program spawned, e.g. the other build
 * With STARTUP_INIT=1 in the environment (libpvm3am build only), every
 * task also calls pvmam_init(N + 1) before the reply: the whole mesh up
 * front, against stock's plain spawn.
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

static int slave(int parent, int ask, int ntasks)
{
    int me = pvm_mytid();
    if (mesh(ask, ntasks) < 0) {
        pvm_exit();
        return 1;
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
    const char *e = getenv("STARTUP_INIT");
    int init = parent > 0 ? argc > 2 && !strcmp(argv[2], "init") : e && !strcmp(e, "1");
    if (parent > 0)
        return slave(parent, init, n + 1);
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
    double t0 = now_ms();
    char *args[] = { argv[1], init ? "init" : NULL, NULL };
    int got = pvm_spawn(argc > 2 ? argv[2] : argv[0], argc > 1 ? args : NULL, PvmTaskDefault, "",
                        n, tids);
    if (got != n) {
        fprintf(stderr, "startup: spawned %d of %d\n", got, n);
        pvm_exit();
        return 1;
    }
    double t1 = now_ms();
    if (mesh(init, n + 1) < 0) {
        fprintf(stderr, "startup: pvmam_init failed\n");
        pvm_exit();
        return 1;
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
