/*
 * linkstress.c - link set-up under stress: tasks talk the moment they
 * start, so first messages race the opening of their AM links.
 *
 *   linkstress MASTER SHAPE ROUNDS [SECS]
 *
 * Each round spawns fresh children and waits (at most SECS, default 20)
 * for every one of them to report; a round that does not finish is a hang:
 * the master prints every task's stack (gdb, when present), kills the
 * children and counts it.  Shapes:
 *   ring    8 siblings; each sends 3 messages (packed, psend, packed) to
 *           its right neighbour at once, then checks the 3 from its left.
 *   mcast   the master multicasts 2 messages to 4 freshly spawned slaves
 *           at once; each checks them and answers.
 *   larger  2 siblings; the one with the larger tid sends first (3
 *           messages), the other answers once all 3 arrived in order.
 *   exit    2 siblings; one sends 3 messages to the other, which exits
 *           at once (roles alternate between the smaller and the larger
 *           tid): the sender's sends must return 0 or PvmNoTask and it
 *           must get through pvm_exit; nothing may hang.
 * Every message carries (round, sender, sequence), checked on arrival:
 * a lost, duplicated or reordered message fails the round.  Built against
 * libpvm3am (PVMAM_BUILD), every task then also waits, for at most 5 s and
 * while every other task of the round is still there (the master's GO
 * releases them), until none of its AM links is stuck half open: a lost
 * set-up message would leave one so, even where the daemon route still
 * carries the data.
 * Built against both libraries: the stock build shows the test itself
 * is sound.  Exit status 0 only if every round passed.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#ifdef PVMAM_BUILD
#include "pvmam.h"
#endif

#define TAG_DATA 1
#define TAG_PDATA 2
#define TAG_REPORT 9
#define TAG_GO 10
#define TAG_NEVER 11
#define TAG_EXIT 77
#define NMSG 3
#define MAXKIDS 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* ---- children ----------------------------------------------------------- */

/* Message k of NMSG from me to dst: packed, psend, packed. */
static int send_one(int dst, int round, int me, int k)
{
    int v[3] = { round, me, k };
    if (k == 1)
        return pvm_psend(dst, TAG_PDATA, v, 3, PVM_INT);
    pvm_initsend(k == 2 ? PvmDataRaw : PvmDataDefault);
    pvm_pkint(v, 3, 1);
    return pvm_send(dst, TAG_DATA);
}

/* Receive the NMSG messages from src in order; returns the number wrong. */
static int recv_all(int src, int round)
{
    int bad = 0;
    for (int k = 0; k < NMSG; k++) {
        int v[3] = { -1, -1, -1 }, t, g, l;
        if (k == 1) {
            if (pvm_precv(src, TAG_PDATA, v, 3, PVM_INT, &t, &g, &l) < 0 || l != 12)
                bad++;
        } else if (pvm_recv(src, TAG_DATA) < 0 || pvm_upkint(v, 3, 1) < 0) {
            bad++;
        }
        if (v[0] != round || v[1] != src || v[2] != k) {
            fprintf(stderr, "linkstress: t%x: from t%x message %d: got (%d, %x, %d)\n",
                    pvm_mytid(), src, k, v[0], v[1], v[2]);
            bad++;
        }
    }
    return bad;
}

/* Links of ours still half open after waiting (bounded) for them to
 * settle; 0 for the stock build or with AM off. */
static int links_stuck(void)
{
#ifdef PVMAM_BUILD
    struct pvmam_stats st;
    double end = now() + 5;
    for (;;) {
        if (pvmam_stats(0, &st) < 0 || st.peers_opening == 0)
            return 0;
        if (now() > end)
            break;
        struct timeval tv = { 0, 10000 };
        pvm_trecv(-1, TAG_NEVER, &tv);   /* lets the library work */
    }
    fprintf(stderr, "linkstress: t%x: %d link(s) still half open\n", pvm_mytid(),
            st.peers_opening);
    return st.peers_opening;
#else
    return 0;
#endif
}

static void report(int parent, int ok, int detail)
{
    int v[2] = { ok, detail };
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, 2, 1);
    pvm_send(parent, TAG_REPORT);
}

static int child(const char *shape, int round)
{
    int me = pvm_mytid(), parent = pvm_parent(), *sib = NULL;
    int n = pvm_siblings(&sib), rank = 0;
    if (me < 0)
        return 1;
    for (int i = 0; i < n; i++)
        if (sib[i] == me)
            rank = i;
    int bad = 0;
    if (!strcmp(shape, "ring")) {
        int right = sib[(rank + 1) % n], left = sib[(rank + n - 1) % n];
        for (int k = 0; k < NMSG; k++)
            bad += send_one(right, round, me, k) < 0;
        bad += recv_all(left, round);
    } else if (!strcmp(shape, "mcast")) {
        bad += recv_all(parent, round);
    } else if (!strcmp(shape, "larger")) {
        int other = sib[1 - rank];
        if (me > other) {
            for (int k = 0; k < NMSG; k++)
                bad += send_one(other, round, me, k) < 0;
            bad += recv_all(other, round);
        } else {
            bad += recv_all(other, round);
            for (int k = 0; k < NMSG; k++)
                bad += send_one(other, round, me, k) < 0;
        }
    } else if (!strcmp(shape, "exit")) {
        int other = sib[1 - rank];
        /* even rounds: the smaller tid exits; odd rounds: the larger */
        int exiter = (round % 2 == 0) == (me < other);
        if (exiter) {
            report(parent, 1, 0);
            pvm_exit();
            return 0;
        }
        int rc[NMSG];
        for (int k = 0; k < NMSG; k++) {
            rc[k] = send_one(other, round, me, k);
            bad += rc[k] < 0 && rc[k] != PvmNoTask;
        }
        if (bad)
            fprintf(stderr, "linkstress: t%x: sends to exiting t%x: %d %d %d\n", me, other,
                    rc[0], rc[1], rc[2]);
        report(parent, bad == 0, bad);   /* its peer is gone: no link to settle */
        pvm_exit();
        return 0;
    }
    bad += links_stuck();
    report(parent, bad == 0, bad);
    struct timeval tv = { 60, 0 };
    pvm_trecv(parent, TAG_GO, &tv);   /* stay until every task has settled */
    pvm_exit();
    return 0;
}

/* ---- master -------------------------------------------------------------- */

static void dump_stacks(const int *tids, int n)
{
    struct pvmtaskinfo *ti;
    int nt;
    if (pvm_tasks(0, &nt, &ti) < 0)
        return;
#ifdef PVMAM_BUILD
    for (int k = 0; k < n; k++) {   /* the master's view of each link */
        struct pvmam_stats st;
        if (pvmam_stats(tids[k], &st) == 0)
            printf("link to t%x: am %d opening %d; msgs am %llu/%llu pvmd %llu/%llu (sent/recv)\n",
                   tids[k], st.peers_am, st.peers_opening,
                   (unsigned long long)st.am_msgs_sent, (unsigned long long)st.am_msgs_recv,
                   (unsigned long long)st.pvmd_msgs_sent, (unsigned long long)st.pvmd_msgs_recv);
        else
            printf("link to t%x: none\n", tids[k]);
    }
#endif
    printf("HANG: task stacks follow\n");
    fflush(stdout);
    char cmd[256];
    snprintf(cmd, sizeof cmd, "timeout 20 gdb -q -batch -p %d -ex bt 2>&1 | grep '^#'", getpid());
    printf("--- master t%x pid %d\n", pvm_mytid(), getpid());
    fflush(stdout);
    if (system(cmd) != 0)
        printf("(no stack: gdb missing or failed)\n");
    for (int i = 0; i < nt; i++)
        for (int k = 0; k < n; k++)
            if (ti[i].ti_tid == tids[k] && ti[i].ti_pid > 0) {
                printf("--- t%x pid %d\n", tids[k], ti[i].ti_pid);
                fflush(stdout);
                snprintf(cmd, sizeof cmd,
                         "timeout 20 gdb -q -batch -p %d -ex bt 2>&1 | grep '^#'", ti[i].ti_pid);
                if (system(cmd) != 0)
                    printf("(no stack)\n");
            }
    fflush(stdout);
}

/* One round: 0 passed, 1 failed (wrong data), 2 hung. */
static int round_run(const char *self, const char *shape, int round, double secs)
{
    int nkids = !strcmp(shape, "ring") ? 8 : !strcmp(shape, "mcast") ? 4 : 2;
    char rbuf[16];
    snprintf(rbuf, sizeof rbuf, "%d", round);
    char *args[] = { (char *)shape, rbuf, NULL };
    int tids[MAXKIDS];
    int got = pvm_spawn((char *)self, args, PvmTaskDefault, "", nkids, tids);
    if (got != nkids) {
        printf("round %d: spawned %d of %d\n", round, got, nkids);
        for (int i = 0; i < got; i++)
            pvm_kill(tids[i]);
        return 1;
    }
    pvm_notify(PvmTaskExit, TAG_EXIT, nkids, tids);
    if (!strcmp(shape, "mcast")) {
        for (int k = 0; k < NMSG; k++) {   /* at once: the links are still opening */
            int v[3] = { round, pvm_mytid(), k };
            if (k == 1) {   /* psend has no multicast: one each */
                for (int i = 0; i < nkids; i++)
                    pvm_psend(tids[i], TAG_PDATA, v, 3, PVM_INT);
                continue;
            }
            pvm_initsend(PvmDataDefault);
            pvm_pkint(v, 3, 1);
            pvm_mcast(tids, nkids, TAG_DATA);
        }
    }
    int reports = 0, exits = 0, bad = 0, go = 0;
    double end = now() + secs;
    while (reports < nkids || exits < nkids) {
        if (reports == nkids && !go) {   /* settle our links, then let them go */
            if (strcmp(shape, "exit") && links_stuck()) {
                bad++;
                printf("round %d: the master's links did not settle\n", round);
            }
            pvm_initsend(PvmDataDefault);
            pvm_mcast(tids, nkids, TAG_GO);
            go = 1;
        }
        double left = end - now();
        if (left <= 0)
            break;
        struct timeval tv = { (long)left, (long)((left - (long)left) * 1e6) };
        int id = pvm_trecv(-1, -1, &tv);
        if (id <= 0)
            continue;
        int bytes, tag, src, v[2] = { 0, 0 };
        pvm_bufinfo(id, &bytes, &tag, &src);
        if (tag == TAG_REPORT) {
            pvm_upkint(v, 2, 1);
            reports++;
            if (!v[0]) {
                bad++;
                printf("round %d: t%x reports %d error(s)\n", round, src, v[1]);
            }
        } else if (tag == TAG_EXIT) {
            exits++;
        }
    }
    if (reports == nkids && exits == nkids)
        return bad ? 1 : 0;
    printf("round %d (%s): %d of %d reports, %d of %d exits after %.0f s\n", round, shape,
           reports, nkids, exits, nkids, secs);
    dump_stacks(tids, nkids);
    for (int i = 0; i < nkids; i++)
        pvm_kill(tids[i]);
    /* drain their exit notifications so the next round starts clean */
    struct timeval tv = { 2, 0 };
    while (pvm_trecv(-1, TAG_EXIT, &tv) > 0)
        ;
    return 2;
}

int main(int argc, char **argv)
{
    if (argc >= 3 && strcmp(argv[1], "MASTER"))
        return child(argv[1], atoi(argv[2]));
    if (argc < 4) {
        fprintf(stderr, "usage: %s MASTER ring|mcast|larger|exit ROUNDS [SECS]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *shape = argv[2];
    int rounds = atoi(argv[3]);
    double secs = argc > 4 ? atof(argv[4]) : 20;
    if (strcmp(shape, "ring") && strcmp(shape, "mcast") && strcmp(shape, "larger") &&
        strcmp(shape, "exit")) {
        fprintf(stderr, "linkstress: unknown shape %s\n", shape);
        return 2;
    }
    if (pvm_mytid() < 0)
        return 1;
    pvm_catchout(stdout);   /* the children's complaints go with ours */
    int pass = 0, fail = 0, hang = 0;
    double t0 = now();
    for (int r = 0; r < rounds; r++) {
        int rc = round_run(argv[0], shape, r, secs);
        pass += rc == 0;
        fail += rc == 1;
        hang += rc == 2;
    }
    printf("linkstress %s: %d rounds: %d passed, %d failed, %d hung (%.1f s)\n", shape, rounds,
           pass, fail, hang, now() - t0);
    pvm_exit();
    return pass == rounds ? 0 : 1;
}
