/*
 * mcastgone.c - pvm_mcast to a list that holds a task which has exited:
 * the others must still get the message, and pvm_mcast returns 0, as
 * stock's does (pvm_mcast(3PVM); its pvmd drops the copy for a task that
 * no longer exists).  Found by the torture test (tests/torture/README.md,
 * "multicasts to a random list"): a gone receiver's PvmNoTask stopped
 * pvmi_mcast (pvm3/core/send.c) before the receivers after it, and the
 * daemon route's rest.
 *
 *   mcastgone_am NAME      (NAME: this program as the pvmd spawns it)
 *
 * The master spawns NCHILD copies, opens an AM link to each with a few
 * round trips, tells the one with the smallest tid (the first of the
 * sorted list) to exit, waits until a send to it says PvmNoTask (the link
 * knows it is gone), then multicasts to all of them.  Every other child
 * must get the message within WAIT_S seconds and says so.  Prints PASS or
 * FAIL: ...; bounded by guard_start.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>
#include "guard.h"

#define NCHILD 4
#define ROUNDS 5
#define TAG_PING 1
#define TAG_EXIT 2
#define TAG_MC 3
#define TAG_RES 4
#define TAG_GONE 5
#define WAIT_S 10
#define LEN 3000

static int child(void)
{
    int parent = pvm_parent(), buf[LEN];
    for (int r = 0; r < ROUNDS; r++) {
        CK(pvm_recv(parent, TAG_PING));
        CK(pvm_initsend(PvmDataRaw));
        CK(pvm_pkint(&r, 1, 1));
        CK(pvm_send(parent, TAG_PING));
    }
    struct timeval tv = { WAIT_S, 0 };
    int b = pvm_trecv(parent, -1, &tv), bytes, tag, tid, ok = 0;
    if (b > 0 && pvm_bufinfo(b, &bytes, &tag, &tid) >= 0 && tag == TAG_EXIT) {
        pvm_exit();
        return 0;
    }
    if (b > 0 && tag == TAG_MC && pvm_upkint(buf, LEN, 1) >= 0) {
        ok = 1;
        for (int i = 0; i < LEN; i++)
            ok &= buf[i] == i * 7;
    }
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_pkint(&ok, 1, 1));
    CK(pvm_send(parent, TAG_RES));
    pvm_exit();
    return 0;
}

static int cmp(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(int argc, char **argv)
{
    guard_start("mcastgone", 60);
    if (pvm_parent() > 0)
        return child();
    if (argc < 2)
        return fprintf(stderr, "usage: mcastgone_am NAME\n"), 2;
    int tids[NCHILD], buf[LEN], r;
    if (pvm_spawn(argv[1], NULL, PvmTaskDefault, "", NCHILD, tids) != NCHILD)
        die("pvm_spawn", -1);
    qsort(tids, NCHILD, sizeof tids[0], cmp);
    for (r = 0; r < ROUNDS; r++)
        for (int i = 0; i < NCHILD; i++) {
            CK(pvm_initsend(PvmDataRaw));
            CK(pvm_pkint(&r, 1, 1));
            CK(pvm_send(tids[i], TAG_PING));
            CK(pvm_recv(tids[i], TAG_PING));
        }
    int gone = tids[0];
    CK(pvm_notify(PvmTaskExit, TAG_GONE, 1, &gone));
    CK(pvm_initsend(PvmDataRaw));
    CK(pvm_send(gone, TAG_EXIT));
    CK(pvm_recv(-1, TAG_GONE));
    /* until the route knows: then a send to it fails at once */
    int rc = 0;
    for (int i = 0; i < 100 && rc != PvmNoTask; i++) {
        usleep(50000);
        CK(pvm_initsend(PvmDataRaw));
        rc = pvm_send(gone, TAG_PING);
    }
    printf("a send to the exited child: %d%s\n", rc,
           rc == PvmNoTask ? "" : " (its route does not say PvmNoTask: the multicast goes the same way)");
    for (int i = 0; i < LEN; i++)
        buf[i] = i * 7;
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_pkint(buf, LEN, 1));
    rc = pvm_mcast(tids, NCHILD, TAG_MC);
    int bad = rc < 0;
    if (bad)
        printf("FAIL: pvm_mcast to %d tasks, one of them gone, returned %d\n", NCHILD, rc);
    for (int i = 1; i < NCHILD; i++) {
        struct timeval tv = { WAIT_S + 5, 0 };
        int ok = 0;
        if (pvm_trecv(tids[i], TAG_RES, &tv) <= 0 || pvm_upkint(&ok, 1, 1) < 0 || !ok) {
            printf("FAIL: child t%x (after the gone one in the list) did not get the multicast\n",
                   tids[i]);
            bad = 1;
        }
    }
    puts(bad ? "FAIL" : "PASS: every child that stayed got the multicast, pvm_mcast returned 0");
    pvm_exit();
    return bad;
}
