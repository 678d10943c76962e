/*
 * meshinit.c - pvmam_init's mesh (docs/link-setup.md, "pvmam_init's
 * mesh"): links opened without CONN, SWITCH and READY, next to tasks
 * that must keep them (they sent user messages through the pvmd first),
 * and the fall-back when the call fails half-way.
 *
 *   meshinit N MODE [D]  the master spawns N-1 copies of itself; ranks
 *                      in pvm_siblings() order
 *   clean  every task calls pvmam_init(N); on return every pair must be
 *          linked (pvmam_stats peers_am), and one message to each peer
 *          goes over AM
 *   hist   before pvmam_init rank 1 and rank 2 send each other K
 *          messages, rank 3 sends K to rank 4 (through the pvmd: a
 *          history); after it they send K more, read only then: each
 *          stream must arrive whole and in order; then as clean
 *   kill D the last child says it is ready, and a helper of the master
 *          kills it D ms into the master's pvmam_init: the others' calls
 *          fail when it dies before its DONE (its HELLO, CONNS or DONE is
 *          missing), and their mesh links fall back to the per-link
 *          exchange (an acceptor already open answers the connector's
 *          late CONN with SWITCH).  Every pair of survivors then
 *          exchanges K messages each way, in order, and their links must
 *          open both ways within 10 s (a connector left waiting for a
 *          SWITCH would not)
 *   stop   (shm) rank 1 is stopped once it has connected to the larger
 *          tids: the others accept its links and each other's, then
 *          every call fails for want of its DONE, and the acceptors,
 *          open already, must answer the connectors' late CONN
 * Every wait is bounded.  The master prints PASS or FAIL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <signal.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/wait.h>
#include <pvm3.h>
#include "pvmam.h"

#define K 100
enum { TAG_READY = 50, TAG_SEQ, TAG_ONE, TAG_REPORT, TAG_BYE };

static int n, rank, *tids, delay;
static const char *mode;

static int fail(const char *what)
{
    fprintf(stderr, "meshinit[%d]: %s\n", rank, what);
    return 1;
}

static int send_seq(int to, int from_seq, int count)
{
    for (int s = from_seq; s < from_seq + count; s++) {
        int v[2] = { rank, s };
        if (pvm_psend(tids[to], TAG_SEQ, v, 2, PVM_INT) < 0)
            return fail("psend failed");
    }
    return 0;
}

/* count messages from rank `from`, numbered 0.. in order */
static int recv_seq(int from, int count)
{
    for (int s = 0; s < count; s++) {
        int v[2], got, tag, len;
        struct timeval tmo = { 30, 0 };
        int bid = pvm_trecv(tids[from], TAG_SEQ, &tmo);
        if (bid <= 0)
            return fail("a sequenced message did not come");
        pvm_bufinfo(bid, &len, &tag, &got);
        if (pvm_upkint(v, 2, 1) < 0 || v[0] != from || v[1] != s) {
            fprintf(stderr, "meshinit[%d]: from %d expected #%d, got %d/#%d\n", rank, from, s,
                    v[0], v[1]);
            return 1;
        }
    }
    return 0;
}

/* Every peer reached over AM (of `peers`), each way, within secs. */
static int all_linked(int peers, int secs)
{
    struct pvmam_stats st;
    time_t end = time(NULL) + secs;
    for (;;) {
        if (pvmam_stats(0, &st) == 0 && st.peers_am >= peers && st.peers_opening == 0)
            return 0;
        if (time(NULL) >= end) {
            fprintf(stderr, "meshinit[%d]: %d of %d peers over AM, %d opening\n", rank,
                    st.peers_am, peers, st.peers_opening);
            return 1;
        }
        struct timeval tmo = { 0, 20000 };
        pvm_trecv(-1, 9999, &tmo);   /* progress, nothing has this tag */
    }
}

/* One message to each of the first m ranks but us; each must go over AM. */
static int one_each(int m)
{
    int bad = 0;
    for (int i = 0; i < m; i++) {
        if (i == rank)
            continue;
        struct pvmam_stats a, b;
        pvmam_stats(tids[i], &a);
        pvm_psend(tids[i], TAG_ONE, &rank, 1, PVM_INT);
        pvmam_stats(tids[i], &b);
        if (b.am_msgs_sent != a.am_msgs_sent + 1) {
            fprintf(stderr, "meshinit[%d]: the message to rank %d did not go over AM\n", rank, i);
            bad = 1;
        }
    }
    for (int i = 0; i < m - 1; i++) {
        struct timeval tmo = { 30, 0 };
        if (pvm_trecv(-1, TAG_ONE, &tmo) <= 0)
            bad |= fail("a peer's one message did not come");
    }
    return bad;
}

/* How many shm links process pid holds: each keeps its segment's memfd
 * until first use, then the peer's pidfd instead (libam/shm/segment.c,
 * amx_shm_map), so one of the two per link, mapped or not. */
static int shm_links(pid_t pid)
{
    char dir[64], path[340], link[64];
    snprintf(dir, sizeof dir, "/proc/%d/fd", (int)pid);
    DIR *d = opendir(dir);
    int k = 0;
    struct dirent *e;
    while (d && (e = readdir(d))) {
        snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
        ssize_t l = readlink(path, link, sizeof link - 1);
        if (l > 0) {
            link[l] = '\0';
            k += strstr(link, "pidfd") != NULL || strstr(link, "pvmam-shm") != NULL;
        }
    }
    if (d)
        closedir(d);
    return k;
}

/* stop: rank 1 connects to every larger tid of the mesh (ranks 2..n-1)
 * and is stopped once it has: its CONNS is out, the master's ACCEPTS
 * follow and the others accept it and each other, but its DONE never
 * comes, so every call fails after the acceptors opened their sides.
 * Killed at the end. */
static pid_t stop_when_connected(int victim_rank)
{
    struct pvmtaskinfo *ti;
    int nt = 0;
    if (pvm_tasks(tids[victim_rank], &nt, &ti) < 0 || nt != 1 || ti[0].ti_pid <= 0)
        return -1;
    pid_t victim = ti[0].ti_pid, h = fork();
    if (h == 0) {
        /* at most 10 s: a victim never seen connected is stopped all the
         * same, and the check after the calls says what went wrong */
        struct timespec t0, t;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        do {
            if (shm_links(victim) >= n - 2)
                break;
            usleep(50);
            clock_gettime(CLOCK_MONOTONIC, &t);
        } while (t.tv_sec - t0.tv_sec < 10);
        kill(victim, SIGSTOP);
        _exit(0);
    }
    return victim;
}

static int run(void)
{
    int bad = 0;
    if (!strcmp(mode, "hist")) {
        if (rank == 1)
            bad |= send_seq(2, 0, K);
        if (rank == 2)
            bad |= send_seq(1, 0, K);
        if (rank == 3)
            bad |= send_seq(4, 0, K);
    }
    if (!strcmp(mode, "stop")) {
        pid_t victim = -1;
        if (rank == 0) {
            struct timeval tmo = { 30, 0 };
            if (pvm_trecv(tids[1], TAG_READY, &tmo) <= 0 || (victim = stop_when_connected(1)) < 0)
                return fail("the victim did not say it was ready");
        }
        if (rank == 1) {
            pvm_psend(tids[0], TAG_READY, &rank, 1, PVM_INT);
            pvmam_init(n);
            sleep(60);
            return 1;
        }
        int rc = pvmam_init(n);
        if (rank == 0) {
            while (wait(NULL) > 0)
                ;
            fprintf(stderr, "meshinit: pvmam_init with the victim stopped: %d\n", rc);
            if (rc >= 0)   /* it sent its DONE before the stop: nothing tested */
                printf("LATE: the victim was stopped after its DONE\n");
        }
        int bad = 0;
        for (int i = 0; i < n; i++)
            if (i != rank && i != 1)
                bad |= send_seq(i, 0, K);
        for (int i = 0; i < n; i++)
            if (i != rank && i != 1)
                bad |= recv_seq(i, K);
        bad |= all_linked(n - 2, 10);
        if (victim > 0)
            kill(victim, SIGKILL);
        return bad;
    }
    if (!strcmp(mode, "kill")) {
        if (rank == n - 1) {   /* the victim: says so, then joins in */
            pvm_psend(tids[0], TAG_READY, &rank, 1, PVM_INT);
            pvmam_init(n);
            sleep(60);
            return 1;
        }
        if (rank == 0) {   /* a helper kills it `delay` ms into our pvmam_init */
            struct timeval tmo = { 30, 0 };
            struct pvmtaskinfo *ti;
            int nt = 0;
            if (pvm_trecv(tids[n - 1], TAG_READY, &tmo) <= 0 ||
                pvm_tasks(tids[n - 1], &nt, &ti) < 0 || nt != 1 || ti[0].ti_pid <= 0)
                return fail("the victim did not say it was ready");
            pid_t victim = ti[0].ti_pid, h = fork();
            if (h == 0) {
                usleep((useconds_t)delay * 1000);
                kill(victim, SIGKILL);
                _exit(0);
            }
            if (h < 0)
                kill(victim, SIGKILL);
            int rc = pvmam_init(n);
            if (h > 0)
                waitpid(h, NULL, 0);
            fprintf(stderr, "meshinit: pvmam_init with the victim killed after %d ms: %d\n",
                    delay, rc);
        } else {
            pvmam_init(n);   /* fails if the victim dies before its DONE */
        }
        int m = n - 1;
        for (int i = 0; i < m; i++)
            if (i != rank)
                bad |= send_seq(i, 0, K);
        for (int i = 0; i < m; i++)
            if (i != rank)
                bad |= recv_seq(i, K);
        return bad | all_linked(m - 1, 10);
    }
    int rc = pvmam_init(n);
    if (rc < 0)
        return fail("pvmam_init failed");
    bad |= all_linked(n - 1, 0);   /* at once: pvmam_init promises it */
    if (!strcmp(mode, "hist")) {
        if (rank == 1)
            bad |= send_seq(2, K, K) | recv_seq(2, 2 * K);
        if (rank == 2)
            bad |= send_seq(1, K, K) | recv_seq(1, 2 * K);
        if (rank == 3)
            bad |= send_seq(4, K, K);
        if (rank == 4)
            bad |= recv_seq(3, 2 * K);
    }
    return bad | one_each(n);
}

int main(int argc, char **argv)
{
    int me = pvm_mytid();
    if (me < 0 || argc < 3)
        return 2;
    n = atoi(argv[1]);
    mode = argv[2];
    delay = argc > 3 ? atoi(argv[3]) : 0;
    int parent = pvm_parent();
    tids = calloc((size_t)n + 1, sizeof *tids);
    if (!tids || n < 5 || n > 64) {
        fprintf(stderr, "meshinit: N from 5 to 64\n");
        pvm_exit();
        return 2;
    }
    if (parent < 0) {   /* the master: rank 0, then the children it spawns */
        char *args[] = { argv[1], argv[2], NULL };
        tids[0] = me;
        if (pvm_spawn(argv[0], args, PvmTaskDefault, "", n - 1, tids + 1) != n - 1) {
            fprintf(stderr, "meshinit: spawn failed\n");
            pvm_exit();
            return 1;
        }
    } else {            /* a child: the master, then its siblings in order */
        int *sib, ns = pvm_siblings(&sib);
        if (ns != n - 1) {
            fprintf(stderr, "meshinit: %d siblings, not %d\n", ns, n - 1);
            pvm_exit();
            return 1;
        }
        tids[0] = parent;
        memcpy(tids + 1, sib, sizeof *tids * (size_t)(n - 1));
    }
    for (int i = 0; i < n; i++)
        if (tids[i] == me)
            rank = i;
    int bad = run();
    if (parent >= 0) {
        /* stay until the master has every report: a peer that exits
         * ends its links, and another task's check would miss them */
        struct timeval tmo = { 60, 0 };
        pvm_psend(parent, TAG_REPORT, &bad, 1, PVM_INT);
        pvm_trecv(parent, TAG_BYE, &tmo);
        pvm_exit();
        return 0;
    }
    int reports = !strcmp(mode, "kill") || !strcmp(mode, "stop") ? n - 2 : n - 1;
    for (int i = 0; i < reports; i++) {
        int b = 1;
        struct timeval tmo = { 60, 0 };
        if (pvm_trecv(-1, TAG_REPORT, &tmo) <= 0 || pvm_upkint(&b, 1, 1) < 0)
            bad |= fail("a child's report did not come");
        bad |= b;
    }
    pvm_initsend(PvmDataDefault);
    pvm_mcast(tids + 1, n - 1, TAG_BYE);
    printf("%s N=%d mode=%s transport=%s\n", bad ? "FAIL" : "PASS", n, mode, pvmam_transport());
    pvm_exit();
    return bad;
}
