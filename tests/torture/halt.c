/*
 * halt.c - the halt scenario: tasks run (some talking in a ring), then
 * one of them, or the runner itself, calls pvm_halt.  The pvmd must kill
 * every task, the caller included, and go away: pvm_halt never returns to
 * its caller.  A caller that sees it return says so (stdout or a file
 * next to the pid file) and exits at once, which is also what makes a
 * lost halt show: tests/torture/torture.sh checks the pvmd and every pid
 * in the pid file are gone within a bound.
 *
 *   torture HALT --am PATH --stock PATH --seed S --pidfile F
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>
#include "torture.h"

struct halt_shape {
    int n;            /* workers */
    int caller;       /* -1: the runner, else a worker */
    int talk;         /* workers pass messages in a ring meanwhile */
    int stock[8];
    int delay_ms;     /* from all ready to the halt */
};

static void halt_draw(uint64_t seed, struct halt_shape *h)
{
    uint64_t x = seed * 0x9e3779b97f4a7c15ull + 7;
#define R(n) ((int)((x = x * 6364136223846793005ull + 1442695040888963407ull) >> 33) % (n))
    memset(h, 0, sizeof *h);
    h->n = 1 + R(5);
    h->caller = R(10) < 4 ? -1 : R(h->n);
    h->talk = R(2);
    int mix = R(3) == 0;
    for (int i = 0; i < h->n; i++)
        h->stock[i] = mix && R(2);
    h->delay_ms = R(4) ? R(50) : 0;
#undef R
}

static void halt_describe(const struct halt_shape *h, uint64_t seed)
{
    printf("halt seed %llu: %d worker(s)", (unsigned long long)seed, h->n);
    for (int i = 0; i < h->n; i++)
        printf(" w%d(%s)", i, h->stock[i] ? "stock" : "am");
    char who[16] = "the runner";
    if (h->caller >= 0)
        snprintf(who, sizeof who, "w%d", h->caller);
    printf(", %s, pvm_halt called by %s %d ms after all are ready\n",
           h->talk ? "passing messages in a ring" : "idle", who, h->delay_ms);
}

static void pid_to(const char *pidfile)
{
    FILE *f = fopen(pidfile, "a");
    if (f)
        fprintf(f, "%d\n", (int)getpid()), fclose(f);
}

/* The caller saw pvm_halt return: leave word, exit at once (no pvm_exit). */
static void returned(const char *pidfile, const char *who, int rc)
{
    char path[4096];
    snprintf(path, sizeof path, "%s.returned", pidfile);
    FILE *f = fopen(path, "a");
    if (f)
        fprintf(f, "pvm_halt returned %d to its caller, %s\n", rc, who), fclose(f);
    printf("HALT: pvm_halt returned %d to its caller, %s\n", rc, who);
    fflush(stdout);
    _exit(0);
}

int torture_halt_worker(int argc, char **argv)
{
    if (argc < A_N)
        return 2;
    struct halt_shape h;
    uint64_t seed = strtoull(argv[A_SEED], NULL, 10);
    halt_draw(seed, &h);
    int me = atoi(argv[A_INDEX]), runner = (int)strtol(argv[A_RUNNER], NULL, 16);
    if (pvm_mytid() < 0)
        return 1;
    pid_to(argv[A_PIDFILE]);
    int tids[8];
    struct timeval tv = { 30, 0 };
    if (pvm_trecv(runner, TAG_TABLE, &tv) <= 0 || pvm_upkint(tids, h.n, 1) < 0)
        return 1;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_send(runner, TAG_REPORT);
    int next = tids[(me + 1) % h.n];
    if (h.talk && me == 0) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&me, 1, 1);
        pvm_send(next, TAG_DATA);
    }
    /* Wait for the pvmd's SIGTERM; bounded (the script then fails it). */
    double t0 = now_s();
    while (now_s() - t0 < 60) {
        struct timeval w = { 0, 200000 };
        int b = pvm_trecv(-1, -1, &w), bytes, tag, tid;
        if (b < 0)
            break;
        if (b == 0)
            continue;
        pvm_bufinfo(b, &bytes, &tag, &tid);
        if (tag == TAG_GO) {
            int rc = pvm_halt();
            char who[32];
            snprintf(who, sizeof who, "worker w%d", me);
            returned(argv[A_PIDFILE], who, rc);
        } else if (tag == TAG_DATA && h.talk) {
            char blob[4096];
            memset(blob, me, sizeof blob);
            pvm_initsend(PvmDataDefault);
            pvm_pkbyte(blob, sizeof blob, 1);
            pvm_send(next, TAG_DATA);
        }
    }
    pvm_exit();
    return 3;
}

int torture_halt(int argc, char **argv)
{
    const char *am = "", *stock = "", *pidfile = NULL;
    uint64_t seed = 1;
    for (int i = 2; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--am")) am = argv[i + 1];
        else if (!strcmp(argv[i], "--stock")) stock = argv[i + 1];
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--pidfile")) pidfile = argv[i + 1];
    }
    if (!pidfile)
        return 2;
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct halt_shape h;
    halt_draw(seed, &h);
    halt_describe(&h, seed);
    int mytid = pvm_mytid();
    if (mytid < 0)
        return 1;
    pid_to(pidfile);
    char sd[24], me[16], idx[12];   /* idx: room for any int */
    snprintf(sd, sizeof sd, "%llu", (unsigned long long)seed);
    snprintf(me, sizeof me, "%x", mytid);
    int tids[8];
    for (int i = 0; i < h.n; i++) {
        snprintf(idx, sizeof idx, "%d", i);
        char *args[] = { "H", sd, idx, me, (char *)pidfile, (char *)am, (char *)stock, NULL };
        if (pvm_spawn(h.stock[i] ? (char *)stock : (char *)am, args, PvmTaskDefault, "", 1,
                      &tids[i]) != 1)
            return printf("HALT: spawning w%d failed\n", i), 1;
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(tids, h.n, 1);
    pvm_mcast(tids, h.n, TAG_TABLE);
    for (int i = 0; i < h.n; i++) {
        struct timeval tv = { 30, 0 };
        if (pvm_trecv(-1, TAG_REPORT, &tv) <= 0)
            return printf("HALT: the workers did not all start\n"), 1;
    }
    usleep((useconds_t)h.delay_ms * 1000);
    if (h.caller < 0)
        returned(pidfile, "the runner", pvm_halt());
    pvm_initsend(PvmDataDefault);
    pvm_send(tids[h.caller], TAG_GO);
    /* The pvmd kills us too; if not within 30 s the script says so. */
    struct timeval tv = { 30, 0 };
    pvm_trecv(-1, 99, &tv);
    printf("HALT: the runner is still alive 30 s after the halt\n");
    return 4;
}
