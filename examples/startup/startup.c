/*
 * startup.c - how long a job takes to start: a master spawns N copies of
 * itself and waits for one packed reply from each (issue 20's start-up
 * measure).  The same source is built against stock libpvm3 and
 * libpvm3am; run.sh runs both in one VM, interleaved.
 *
 *   startup_X N [CHILD]  master: prints "spawn_ms N ms" (pvm_spawn alone) and
 *                        "all_ms N ms" (spawn to last reply); CHILD (default
 *                        itself) is the program spawned, e.g. the other build
 *   (spawned children take the slave part: pvm_parent() is a task)
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <pvm3.h>

#define TAG_HELLO 7

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int slave(int parent)
{
    int me = pvm_mytid();
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
    if (parent > 0)
        return slave(parent);
    int n = argc > 1 ? atoi(argv[1]) : 8;
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
    int got = pvm_spawn(argc > 2 ? argv[2] : argv[0], NULL, PvmTaskDefault, "", n, tids);
    if (got != n) {
        fprintf(stderr, "startup: spawned %d of %d\n", got, n);
        pvm_exit();
        return 1;
    }
    double t1 = now_ms();
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
