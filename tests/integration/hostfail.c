/*
 * hostfail.c - a host of the virtual machine fails under a running job
 * (libpvm3am; run by hostfail.sh on a netvm VM):
 *     hostfail MASTER down  "<command that fails the last host>" need-hostdel
 *     hostfail MASTER quick "<command that fails the last host>" 0
 *     hostfail MASTER split "<partition command>" "<heal command>"
 * The master spawns two workers on every host, opens the AM mesh with
 * pvmam_init (before any user message: every link is the mesh's; with
 * HOSTFAIL_ONDEMAND=1 nobody calls it and every link opens on demand, in
 * the first all-to-all), asks the pvmd to notify it of host deletion and task exits,
 * and checks an all-to-all among all workers.  Then the last host fails:
 *   down:  the command runs (pvmd SIGTERM or SIGKILL, cable out, ...); the
 *          master sends to the lost workers every 50 ms until a send fails
 *          (PvmNoTask or PvmHostFail), bounded by 2 x PVMAM_TIMEOUT + 5 s,
 *          and waits for PvmHostDelete when need-hostdel is 1 or 2 (2: the
 *          workers ignore SIGTERM and live on when their pvmd goes, and a
 *          worker of the first host probes a lost one the same way: its
 *          sends must fail by 0.5 s after its own PvmHostDelete); the
 *          workers of the other hosts then run the all-to-all again,
 *          losing nothing.
 *   quick: the command runs and the master exits at once, leaving the
 *          pvmd's news of the failure unread until pvm_exit reads it.
 *   split: the host is cut off, the master sends its workers a burst of
 *          messages, the heal command runs 1.5 s later, and the workers must
 *          echo every message back, once, in order, intact.
 * Every event is printed with the seconds since the failure.  Exit 0 = good.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#include "pvmam.h"

#define MAXW 16
#define T_SETUP 1
#define T_A2A 2
#define T_DATA 3
#define T_DONE 4
#define T_ECHO 5
#define T_QUIT 6
#define T_HOSTDEL 7
#define T_EXIT 8
#define T_PROBE 9
#define ROUNDS 20

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); fflush(stdout); } } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned mix(unsigned a, unsigned b) { return (a + 1) * 2654435761u ^ (b * 40503u + 7); }

/* All-to-all among the n tids: ROUNDS messages to each, checked. */
static int all_to_all(const int *tid, int n, int me)
{
    int bad = 0, next[MAXW] = { 0 };
    for (int r = 0; r < ROUNDS; r++)
        for (int k = 0; k < n; k++) {
            if (k == me)
                continue;
            int v[64];
            for (int x = 0; x < 64; x++)
                v[x] = (int)mix((unsigned)(r * 64 + x), (unsigned)(me * 31 + k));
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&me, 1, 1);
            pvm_pkint(&r, 1, 1);
            pvm_pkint(v, 64, 1);
            if (pvm_send(tid[k], T_DATA) < 0)
                bad++;
        }
    for (int m = 0; m < ROUNDS * (n - 1); m++) {
        struct timeval tmo = { 30, 0 };
        int from, r, v[64];
        if (pvm_trecv(-1, T_DATA, &tmo) <= 0)
            return bad + 1000;
        pvm_upkint(&from, 1, 1);
        pvm_upkint(&r, 1, 1);
        pvm_upkint(v, 64, 1);
        if (from < 0 || from >= n || r != next[from]) {
            bad++;
            continue;
        }
        next[from]++;
        for (int x = 0; x < 64; x++)
            bad += v[x] != (int)mix((unsigned)(r * 64 + x), (unsigned)(from * 31 + me));
    }
    return bad;
}

/* A worker's probe of a lost worker over their link (the mesh's, or
 * opened on demand in the first all-to-all): send to it every 50 ms until
 * a send fails, and ask the pvmd for its host's deletion (answered at
 * once if it is gone).  ms: when each came, in ms from the start, -1 if
 * not within 10 s; ms[2]: 1 if the link was an AM link when it began. */
static void probe(int lost, int ms[3])
{
    double t0 = now(), t_fail = -1, t_del = -1;
    struct pvmam_stats st;
    ms[2] = pvmam_stats(lost, &st) == 0 && st.peers_am;
    pvm_notify(PvmHostDelete, T_HOSTDEL, 1, &lost);
    while (now() - t0 < 10 && (t_fail < 0 || t_del < 0)) {
        if (t_fail < 0) {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&lost, 1, 1);
            if (pvm_send(lost, T_ECHO) < 0)
                t_fail = now() - t0;
        }
        struct timeval tmo = { 0, 50000 };
        if (t_del < 0 && pvm_trecv(-1, T_HOSTDEL, &tmo) > 0)
            t_del = now() - t0;
        else if (t_del >= 0)
            usleep(50000);
    }
    ms[0] = t_fail < 0 ? -1 : (int)(t_fail * 1000);
    ms[1] = t_del < 0 ? -1 : (int)(t_del * 1000);
}

/* n workers: pvmam_init before any user message, so every link of the
 * job, the master's too, opens as the mesh (pvmam/init.c): its tcp links
 * are watched by their connections and one host watch per host. */
static void worker(int n, int hold, int ondemand)
{
    int parent = pvm_parent(), tid[MAXW];
    if (hold)   /* live on when our pvmd goes (it sends SIGTERM): links stay open */
        signal(SIGTERM, SIG_IGN);
    if (!ondemand)
        pvmam_init(n + 1);
    pvm_recv(parent, T_SETUP);
    pvm_upkint(&n, 1, 1);
    pvm_upkint(tid, n, 1);
    for (;;) {
        int bufid = pvm_recv(parent, -1), bytes, tag, src;
        if (bufid < 0) {   /* our pvmd is gone */
            while (hold)
                pause();   /* until the test's end kills us */
            break;
        }
        pvm_bufinfo(bufid, &bytes, &tag, &src);
        if (tag == T_QUIT)
            break;
        if (tag == T_A2A) {   /* {n, tids}: my index is where my tid is */
            int m, t[MAXW], me = -1;
            pvm_upkint(&m, 1, 1);
            pvm_upkint(t, m, 1);
            for (int k = 0; k < m; k++)
                if (t[k] == pvm_mytid())
                    me = k;
            int bad = me < 0 ? -1 : all_to_all(t, m, me);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&bad, 1, 1);
            pvm_send(parent, T_DONE);
        } else if (tag == T_PROBE) {   /* {tid}: send to it until a send fails */
            int lost, ms[3];
            pvm_upkint(&lost, 1, 1);
            probe(lost, ms);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(ms, 3, 1);
            pvm_send(parent, T_PROBE);
        } else if (tag == T_ECHO) {   /* ints, back as they came */
            static int v[1024];
            int nv = bytes / 4 < 1024 ? bytes / 4 : 1024;
            pvm_upkint(v, nv, 1);
            pvm_initsend(PvmDataDefault);
            pvm_pkint(v, nv, 1);
            pvm_send(parent, T_ECHO);
        }
    }
    pvm_exit();
}

/* Ask the workers in t[0..m) for an all-to-all among themselves. */
static int round_of(const int *t, int m, const char *what)
{
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&m, 1, 1);
    pvm_pkint((int *)t, m, 1);
    pvm_mcast((int *)t, m, T_A2A);
    int bad = 0;
    for (int k = 0; k < m; k++) {
        struct timeval tmo = { 60, 0 };
        int b;
        if (pvm_trecv(-1, T_DONE, &tmo) <= 0) {
            CHECK(0, "%s: a worker did not report within 60 s", what);
            return 1;
        }
        pvm_upkint(&b, 1, 1);
        bad += b;
    }
    CHECK(bad == 0, "%s: %d bad or lost messages", what, bad);
    printf("%s: %d workers, %d messages each way per pair, %s\n", what, m, ROUNDS,
           bad ? "ERRORS" : "all arrived intact and in order");
    return bad;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc < 5 || strcmp(argv[1], "MASTER")) {
        const char *f = argc > 3 ? argv[3] : "";
        worker(argc > 2 ? atoi(argv[2]) : 0, !!strchr(f, 'h'), !!strchr(f, 'o'));
        return 0;
    }
    const char *e = getenv("HOSTFAIL_ONDEMAND");
    int ondemand = e && !strcmp(e, "1");
    int split = !strcmp(argv[2], "split"), quick = !strcmp(argv[2], "quick");
    int hold = !split && !quick && atoi(argv[4]) == 2;
    const char *cmd = argv[3];
    struct pvmhostinfo *hi;
    int nhost, narch, n = 0, tid[MAXW], hostof[MAXW];
    pvm_mytid();
    if (pvm_config(&nhost, &narch, &hi) < 0 || nhost < 3) {
        printf("FAIL: need 3 hosts or more\n");
        return 1;
    }
    int hosttid[8], victim_host = hi[nhost - 1].hi_tid;
    char nw[16];
    snprintf(nw, sizeof nw, "%d", 2 * (nhost < 8 ? nhost : 8));
    for (int h = 0; h < nhost && h < 8; h++) {
        hosttid[h] = hi[h].hi_tid;
        for (int k = 0; k < 2; k++) {
            char flags[4] = "x", *f = flags;   /* h: hold, o: on demand */
            if (hold)
                *f++ = 'h';
            if (ondemand)
                *f++ = 'o';
            char *wargv[] = { "worker", nw, flags, NULL };
            int rc = pvm_spawn(argv[0], wargv, PvmTaskHost, hi[h].hi_name, 1, &tid[n]);
            CHECK(rc == 1, "spawn on %s", hi[h].hi_name);
            if (rc != 1)
                return 1;
            hostof[n++] = h;
        }
    }
    int rc = ondemand ? 0 : pvmam_init(n + 1);
    CHECK(rc == 0, "pvmam_init: %d", rc);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&n, 1, 1);
    pvm_pkint(tid, n, 1);
    pvm_mcast(tid, n, T_SETUP);
    pvm_notify(PvmHostDelete, T_HOSTDEL, nhost < 8 ? nhost : 8, hosttid);
    pvm_notify(PvmTaskExit, T_EXIT, n, tid);
    round_of(tid, n, "before the failure, all hosts");

    int lost[MAXW], nlost = 0, live[MAXW], nlive = 0;
    for (int k = 0; k < n; k++) {
        if (hostof[k] == nhost - 1)
            lost[nlost++] = tid[k];
        else
            live[nlive++] = tid[k];
    }
    if (split) {
        int bad = 0;
        printf("cutting %s off\n", hi[nhost - 1].hi_name);
        CHECK(system(cmd) == 0, "partition command failed");
        double t0 = now();
        char heal[512];
        snprintf(heal, sizeof heal, "(sleep 1.5; %s) &", argv[4]);
        CHECK(system(heal) == 0, "heal command");
        for (int r = 0; r < ROUNDS; r++)
            for (int k = 0; k < nlost; k++) {
                int v[256];
                for (int x = 0; x < 256; x++)
                    v[x] = (int)mix((unsigned)(r * 256 + x), (unsigned)k);
                pvm_initsend(PvmDataDefault);
                pvm_pkint(&r, 1, 1);
                pvm_pkint(v, 256, 1);
                bad += pvm_send(lost[k], T_ECHO) < 0;
            }
        printf("%.2f s: %d messages sent to the cut-off workers\n", now() - t0, ROUNDS * nlost);
        int next[MAXW] = { 0 };
        for (int m = 0; m < ROUNDS * nlost; m++) {
            struct timeval tmo = { 30, 0 };
            int bufid = pvm_trecv(-1, T_ECHO, &tmo), bytes, tag, src, r, v[256], k = -1;
            if (bufid <= 0) {
                CHECK(0, "echo %d of %d not back within 30 s", m, ROUNDS * nlost);
                break;
            }
            pvm_bufinfo(bufid, &bytes, &tag, &src);
            for (int j = 0; j < nlost; j++)
                if (lost[j] == src)
                    k = j;
            pvm_upkint(&r, 1, 1);
            pvm_upkint(v, 256, 1);
            if (k < 0 || r != next[k]) {
                bad++;
                continue;
            }
            next[k]++;
            for (int x = 0; x < 256; x++)
                bad += v[x] != (int)mix((unsigned)(r * 256 + x), (unsigned)k);
        }
        CHECK(bad == 0, "partition: %d bad, lost or reordered messages", bad);
        printf("%.2f s: every echo back, %s\n", now() - t0, bad ? "WITH ERRORS" : "intact, in order");
        struct pvmam_stats s;
        pvmam_stats(0, &s);
        printf("retransmissions: %llu\n", (unsigned long long)s.retransmits);
        round_of(tid, n, "after the partition healed, all hosts");
    } else if (quick) {
        /* the pvmd's news of the failure is left unread: straight to exit */
        printf("failing %s, then exiting at once\n", hi[nhost - 1].hi_name);
        CHECK(system(cmd) == 0, "failure command failed");
    } else {
        int need_hostdel = atoi(argv[4]);
        printf("failing %s\n", hi[nhost - 1].hi_name);
        double t0 = now();
        CHECK(system(cmd) == 0, "failure command failed");
        const char *e = getenv("PVMAM_TIMEOUT");
        double bound = 2 * (e ? atoi(e) : 30000) / 1000.0 + 5;
        double t_fail = -1, t_del = -1;
        int exits = 0, send_rc = 0;
        while (now() - t0 < bound && (t_fail < 0 || (need_hostdel && (t_del < 0 || exits < nlost)))) {
            if (t_fail < 0) {
                pvm_initsend(PvmDataDefault);
                pvm_pkint(&nlost, 1, 1);
                send_rc = pvm_send(lost[0], T_ECHO);
                if (send_rc < 0) {
                    t_fail = now() - t0;
                    printf("%.2f s: pvm_send to a worker of the lost host: %d\n", t_fail, send_rc);
                }
            }
            struct timeval tmo = { 0, 50000 };
            int bufid = pvm_trecv(-1, -1, &tmo), bytes, tag, src;
            if (bufid <= 0)
                continue;
            pvm_bufinfo(bufid, &bytes, &tag, &src);
            if (tag == T_HOSTDEL && t_del < 0) {
                int h;
                pvm_upkint(&h, 1, 1);
                t_del = now() - t0;
                printf("%.2f s: PvmHostDelete for %x\n", t_del, h);
                CHECK(h == victim_host, "deleted host %x, expected %x", h, victim_host);
            } else if (tag == T_EXIT) {
                int t;
                pvm_upkint(&t, 1, 1);
                int ours = 0;
                for (int k = 0; k < nlost; k++)
                    ours |= lost[k] == t;
                CHECK(ours, "exit notice for t%x, which was on a live host", t);
                printf("%.2f s: PvmTaskExit for t%x\n", now() - t0, t);
                exits++;
            }
        }
        CHECK(t_fail >= 0 && (send_rc == PvmNoTask || send_rc == PvmHostFail),
              "sends to the lost host did not fail within %.0f s (last %d)", bound, send_rc);
        if (need_hostdel)
            CHECK(t_del >= 0, "no PvmHostDelete within %.0f s", bound);
        /* 2: the lost tasks live on, their connections open: only the
         * pvmd's word closes the links to them, as soon as it comes; a
         * worker's (a mesh link, or one opened on demand: pvmam/link.c
         * watch_host) is checked */
        if (need_hostdel == 2 && nlive > 0 && nlost > 0) {
            int ms[3] = { -1, -1, 0 };
            struct timeval tmo = { 15, 0 };
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&lost[nlost - 1], 1, 1);
            pvm_send(live[0], T_PROBE);
            if (pvm_trecv(live[0], T_PROBE, &tmo) > 0)
                pvm_upkint(ms, 3, 1);
            printf("worker t%x to t%x (%s): a send failed after %d ms, PvmHostDelete after %d ms\n",
                   live[0], lost[nlost - 1], ms[2] ? "an AM link" : "no AM link", ms[0], ms[1]);
            CHECK(ms[2], "the worker had no AM link to the lost one: nothing of it was checked");
            CHECK(ms[0] >= 0 && ms[1] >= 0 && ms[0] <= ms[1] + 500,
                  "a worker's sends to the lost host failed at %d ms, its PvmHostDelete came "
                  "at %d ms", ms[0], ms[1]);
        }
        round_of(live, nlive, "after the failure, surviving hosts");
    }
    for (int k = 0; k < n; k++) {
        pvm_initsend(PvmDataDefault);
        pvm_send(tid[k], T_QUIT);
    }
    double t1 = now();
    pvm_exit();
    printf("pvm_exit took %.2f s\n", now() - t1);
    return fails != 0;
}
