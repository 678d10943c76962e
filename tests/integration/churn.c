/*
 * churn.c - a task farm that runs for a long time: a master spawns
 * short-lived workers, exchanges a message with each (so an AM link
 * opens), and the worker exits, normally or by SIGKILL (every third).
 *
 *   churn MASTER CYCLES
 *
 * After a warm-up, the master's open file descriptors, its resident
 * memory and the pvmd's mailbox entries are measured; after CYCLES more
 * workers they must not have grown (a few descriptors and 1 MiB of
 * memory of slack).  Prints the counts it compares.  Every wait is
 * bounded.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <pvm3.h>
#include "selfstat.h"

#define TAG_JOB 1
#define TAG_ANS 2
#define TAG_EXIT 3
#define WARMUP 20
#define TAG_NONE 4   /* nobody sends it: a receive that only makes progress */

/* Entries in the pvmd's mailbox.  libpvm3am hides its own (pvmam.*) from
 * pvm_getmboxinfo, so the count comes from the stock build of this
 * program (CHURN_COUNTER) when there is one. */
static int mbox_entries(void)
{
    const char *counter = getenv("CHURN_COUNTER");
    if (counter) {
        char cmd[512];
        int v = -1;
        snprintf(cmd, sizeof cmd, "%s COUNT", counter);
        FILE *f = popen(cmd, "r");
        if (f && fscanf(f, "%d", &v) != 1)
            v = -1;
        if (f)
            pclose(f);
        return v;
    }
    int n = 0, total = 0;
    struct pvmmboxinfo *mi;
    if (pvm_getmboxinfo("*", &n, &mi) < 0)
        return -1;
    for (int i = 0; i < n; i++)
        total += mi[i].mi_nentries;
    return total;
}

static int worker(void)
{
    int parent = pvm_parent(), v = 0;
    struct timeval tv = { 30, 0 };
    if (pvm_trecv(parent, TAG_JOB, &tv) > 0 && pvm_upkint(&v, 1, 1) >= 0) {
        v = v * 2 + 1;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(parent, TAG_ANS);
    }
    if (v % 3 == 0) {   /* wait for SIGKILL, bounded */
        struct timeval w = { 30, 0 };
        pvm_trecv(parent, 99, &w);
    }
    pvm_exit();
    return 0;
}

/* One worker's life; 0 if it went as it should. */
static int cycle(const char *self, int k)
{
    int tid;
    if (pvm_spawn((char *)self, (char *[]){ "worker", NULL }, PvmTaskDefault, "", 1, &tid) != 1)
        return fprintf(stderr, "churn: spawn %d failed\n", k), 1;
    pvm_notify(PvmTaskExit, TAG_EXIT, 1, &tid);
    int v = k, want = 2 * k + 1, got = -1;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(tid, TAG_JOB);
    struct timeval tv = { 20, 0 };
    if (pvm_trecv(tid, TAG_ANS, &tv) <= 0 || pvm_upkint(&got, 1, 1) < 0 || got != want)
        return fprintf(stderr, "churn: worker %d: answer %d, expected %d\n", k, got, want), 1;
    int pid = 0;   /* the one we killed, for the message below */
    if (want % 3 == 0) {
        struct pvmtaskinfo *ti;
        int nt = 0, rc = pvm_tasks(tid, &nt, &ti);
        if (rc < 0 || nt != 1 || ti[0].ti_pid <= 0)   /* it waits 30 s for the kill */
            return fprintf(stderr, "churn: worker %d: pvm_tasks gave %d with %d task(s), "
                           "pid %d: not killed\n", k, rc, nt, nt > 0 ? ti[0].ti_pid : 0), 1;
        pid = ti[0].ti_pid;
        if (kill(pid, SIGKILL) < 0)
            return fprintf(stderr, "churn: worker %d: kill %d: %s\n", k, pid, strerror(errno)), 1;
    }
    struct timeval te = { 20, 0 };
    if (pvm_trecv(-1, TAG_EXIT, &te) <= 0)
        return fprintf(stderr, "churn: worker %d never exited (killed: pid %d, 0 if not)\n", k,
                       pid), 1;
    return 0;
}

/* The descriptors open once the last worker's link is gone.  The exit
 * notice can come before the link closes: pvmam first reads an exited
 * peer's stream to its end, from its poll loop, so the link goes at the
 * master's next PVM calls (docs/link-setup.md).  Receive for a while
 * (at most 2 s) until the count holds still for 3 readings. */
static int settled_fds(void)
{
    int last = selfstat_fds(), same = 0;
    for (int i = 0; i < 20 && same < 3; i++) {
        struct timeval t = { 0, 100000 };
        pvm_trecv(-1, TAG_NONE, &t);
        int n = selfstat_fds();
        same = n == last ? same + 1 : 0;
        last = n;
    }
    return last;
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "COUNT")) {
        unsetenv("CHURN_COUNTER");
        int n = pvm_mytid() < 0 ? -1 : mbox_entries();
        printf("%d\n", n);
        pvm_exit();
        return n < 0;
    }
    if (argc < 2 || strcmp(argv[1], "MASTER"))
        return worker();
    setvbuf(stdout, NULL, _IOLBF, 0);
    int cycles = argc > 2 ? atoi(argv[2]) : 1000, bad = 0;
    if (pvm_mytid() < 0)
        return 1;
    for (int k = 0; k < WARMUP; k++)
        bad += cycle(argv[0], k);
    int fd0 = settled_fds(), mb0 = mbox_entries();
    long rss0 = selfstat_rss_kb();
    for (int k = WARMUP; k < WARMUP + cycles; k++)
        bad += cycle(argv[0], k);
    int fd1 = settled_fds(), mb1 = mbox_entries();
    long rss1 = selfstat_rss_kb();
    printf("churn: %d workers after a warm-up of %d: fds %d -> %d, RSS %ld -> %ld KiB, "
           "mailbox entries %d -> %d, %d failed cycle(s)\n",
           cycles, WARMUP, fd0, fd1, rss0, rss1, mb0, mb1, bad);
    /* CHURN_NO_RSS: a sanitizer build, whose allocator keeps freed memory
     * resident on purpose (ASan's quarantine); its leak checker judges
     * memory there instead. */
    int rss_ok = getenv("CHURN_NO_RSS") || rss1 <= rss0 + 1024;
    int ok = bad == 0 && fd1 <= fd0 + 2 && rss_ok && mb1 <= mb0;
    printf("churn: %s\n", ok ? "no growth" : "FAIL");
    pvm_exit();
    return !ok;
}
