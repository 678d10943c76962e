/*
 * torture.h - what the roles of tests/torture/torture.c share: message
 * tags, the arguments a worker is spawned with, time.
 */
#ifndef TORTURE_H
#define TORTURE_H

#include <stdint.h>
#include <time.h>

#define TAG_TABLE 11     /* task 0 to the others and the runner: every tid */
#define TAG_REPORT 12    /* a worker to the runner: how it went */
#define TAG_EXIT 13      /* pvm_notify(PvmTaskExit) */
#define TAG_GO 14        /* halt scenario: the runner tells the caller */
#define TAG_SELF 15      /* a task to itself, after its multicasts that listed it */
#define TAG_COLL 0x100   /* + the round of the collective phase */
#define TAG_DATA 0x10000 /* + the message's index in its sender's list */

/* Worker argv: W seed index runner-tid pidfile am-binary stock-binary */
enum { A_ROLE = 1, A_SEED, A_INDEX, A_RUNNER, A_PIDFILE, A_AM, A_STOCK, A_N };

static inline double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Time limits are multiplied by TORTURE_SLOW (sanitizer builds). */
double torture_slow(void);
int torture_worker(int argc, char **argv);
int torture_runner(int argc, char **argv);
int torture_halt(int argc, char **argv);
int torture_halt_worker(int argc, char **argv);
int torture_find(int argc, char **argv);

#endif
