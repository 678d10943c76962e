/*
 * exitloss.c - a result sent right before pvm_exit must arrive.
 *
 *   exitloss_am NAME ROUNDS [WAIT_S [FANIN_ROUNDS]]
 *
 * NAME is what the pvmd spawns (this program, installed under that name).
 *
 * A master with pvm_catchout spawns 2 copies of itself per round.  Each
 * child receives a job, prints about 250 KB to stdout (so the pvmd is
 * busy carrying output to the master while the result travels), packs
 * 10,000 doubles with PvmDataInPlace, sends them to the master (tag 3)
 * and calls pvm_exit at once.  The master waits for both results of each
 * round with pvm_trecv, at most WAIT_S seconds (default 10) each: a
 * result that does not come is reported as lost, never waited for; one
 * that comes damaged is reported too.  Prints "PASS" or "FAIL: ..." and
 * the counts.  Then a child streaming 4 MiB messages is killed
 * (SIGKILL) in the middle of one: the master must hear of its exit and
 * stop reading from it within KILL_MS (its half message dropped, never a
 * hang), and further sends to it must return at once.  The children's
 * output goes to EXITLOSS_OUT if set (a file), else to /dev/null.
 *
 * Then FANIN_ROUNDS (default 0) rounds of the torture test's "fan-in, send
 * then exit at once" shape (tests/torture/README.md): NFAN children get
 * their job by one pvm_mcast, answer it at once (a small message: the
 * child, the larger tid, speaks first and asks the master to connect,
 * REQ, while the master's own look-up crosses it), print about 150 KB,
 * send 80,000 bytes packed PvmDataDefault or PvmDataInPlace (in turn by
 * child) and exit at once.  The master takes every answer before it
 * asks for any result (as the torture's task 0 does), so results arrive
 * while it still waits for answers, and its links open while the pvmd
 * queues output to it.  The fan-in rounds stop at the first one that
 * loses a result.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/time.h>
#include <pvm3.h>

#define NCHILD 2
#define NDBL 10000
#define NLINES 10000
#define TAG_JOB 1
#define TAG_RES 3
#define TAG_PID 4
#define TAG_BIG 5
#define TAG_GONE 6
#define BIG (4 << 20)
#define KILL_MS 3000
#define NFAN 9
#define TAG_ACK 7
#define FAN_DBL 10000     /* 80,000 bytes: big enough that the first send waits for
                             the link (pvmam/settle.c) */
#define FAN_LINES 6000    /* 25 bytes each: about 150 KB of output per child */   /* below PVMAM_TIMEOUT in exitloss.sh: not its expiry */

static double val(int seed, int i) { return seed * 0.5 + i * 1.25 + (i % 7) * 1e-3; }

/* One result of round r from src, unpacked into res[n]: it must name a
 * child of the round (seed = r * nkids + child) not heard from yet, be that
 * child's, and be whole.  0 if so, 1 (said on stderr) if not; got[] marks
 * the children heard from.  what: "" or "fan-in " for the messages. */
static int check_result(const char *what, int r, int src, const int *tids, int nkids, int *got,
                        double *res, int n)
{
    int seed = -1;
    if (pvm_upkint(&seed, 1, 1) < 0 || pvm_upkdouble(res, n, 1) < 0 || seed < 0 ||
        seed / nkids != r || src != tids[seed % nkids] || got[seed % nkids]) {
        fprintf(stderr, "exitloss: %sround %d: bad result from t%x (seed %d)\n", what, r, src,
                seed);
        return 1;
    }
    got[seed % nkids] = 1;
    double s = 0, want = 0;
    for (int i = 0; i < n; i++) {
        s += res[i];
        want += val(seed, i);
    }
    if (s != want) {
        fprintf(stderr, "exitloss: %sround %d: damaged result from t%x\n", what, r, src);
        return 1;
    }
    return 0;
}

/* A child's job (round, child) from its parent; 0, or -1 (said) if none
 * came within 60 s. */
static int get_job(const char *who, int job[2])
{
    struct timeval tv = { 60, 0 };
    if (pvm_trecv(pvm_parent(), TAG_JOB, &tv) <= 0 || pvm_upkint(job, 2, 1) < 0) {
        fprintf(stderr, "exitloss %s t%x: no job\n", who, pvm_mytid());
        return -1;
    }
    return 0;
}

/* A child's last steps: its lines of output (25 bytes each), its result
 * (seed, then n values into res, which must outlive the send under
 * PvmDataInPlace) and at once pvm_exit: what was sent must still arrive. */
static int finish(int round, int me, int lines, int seed, double *res, int n, int enc)
{
    for (int i = 0; i < lines; i++)
        printf("r%6d c%d l%5d .....\n", round, me, i);
    fflush(stdout);
    for (int i = 0; i < n; i++)
        res[i] = val(seed, i);
    pvm_initsend(enc);
    pvm_pkint(&seed, 1, 1);
    pvm_pkdouble(res, n, 1);
    pvm_send(pvm_parent(), TAG_RES);
    pvm_exit();
    return 0;
}

static int child(void)
{
    static double res[NDBL];
    int job[2];
    if (get_job("child", job) < 0) {
        pvm_exit();
        return 1;
    }
    return finish(job[0], job[1], NLINES, job[0] * NCHILD + job[1], res, NDBL, PvmDataInPlace);
}

/* A fan-in child: answer the job, print, send the result, exit at once. */
static int fan_child(void)
{
    static double res[FAN_DBL];
    int parent = pvm_parent(), job[2];
    if (get_job("fan-in child", job) < 0) {
        pvm_exit();
        return 1;
    }
    int me = -1, tids[NFAN];
    if (pvm_upkint(tids, NFAN, 1) >= 0)
        for (int i = 0; i < NFAN; i++)
            if (tids[i] == pvm_mytid())
                me = i;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    pvm_send(parent, TAG_ACK);
    return finish(job[0], me, FAN_LINES, job[0] * NFAN + me, res, FAN_DBL,
                  me % 2 ? PvmDataDefault : PvmDataInPlace);
}

/* One fan-in round; the number of results lost or damaged. */
static int fan_round(const char *self, int r, int wait_s)
{
    int tids[NFAN];
    int n = pvm_spawn((char *)self, (char *[]){ "fanchild", NULL }, PvmTaskDefault, "", NFAN,
                      tids);
    if (n != NFAN) {
        fprintf(stderr, "exitloss: fan-in round %d: spawned %d of %d\n", r, n, NFAN);
        for (int i = 0; i < n; i++)
            pvm_kill(tids[i]);
        return NFAN;
    }
    int job[2] = { r, 0 };
    pvm_initsend(PvmDataDefault);
    pvm_pkint(job, 2, 1);
    pvm_pkint(tids, NFAN, 1);
    pvm_mcast(tids, NFAN, TAG_JOB);
    int got[NFAN] = { 0 }, bad = 0, lost = 0;
    for (int k = 0; k < NFAN; k++) {   /* the answers first, as the torture's task 0 */
        struct timeval tv = { wait_s, 0 };
        if (pvm_trecv(-1, TAG_ACK, &tv) <= 0) {
            fprintf(stderr, "exitloss: fan-in round %d: %d answers of %d\n", r, k, NFAN);
            break;
        }
    }
    static double res[FAN_DBL];
    for (int k = 0; k < NFAN; k++) {
        struct timeval tv = { wait_s, 0 };
        int b = pvm_trecv(-1, TAG_RES, &tv);
        if (b <= 0) {
            for (int i = 0; i < NFAN; i++)
                if (!got[i]) {
                    fprintf(stderr, "exitloss: fan-in round %d: lost the result of t%x (%s)\n",
                            r, tids[i], i % 2 ? "PvmDataDefault" : "PvmDataInPlace");
                    lost++;
                }
            return lost + bad;
        }
        int len, tag, src;
        pvm_bufinfo(b, &len, &tag, &src);
        bad += check_result("fan-in ", r, src, tids, NFAN, got, res, FAN_DBL);
    }
    return bad;
}

/* Streams BIG-byte messages to the master until killed (60 s at most). */
static int streamer(void)
{
    int parent = pvm_parent(), pid = (int)getpid();
    char *buf = calloc(1, BIG);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&pid, 1, 1);
    pvm_send(parent, TAG_PID);
    for (time_t end = time(NULL) + 60; buf && time(NULL) < end;)
        if (pvm_psend(parent, TAG_BIG, buf, BIG, PVM_BYTE) < 0)
            break;
    free(buf);
    pvm_exit();
    return 0;
}

static long long ms_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* A sender killed while streaming; 0 if the master got over it in time. */
static int killed(const char *self)
{
    int tid, pid = 0;
    if (pvm_spawn((char *)self, (char *[]){ "streamer", NULL }, PvmTaskDefault, "", 1, &tid) != 1)
        return fprintf(stderr, "exitloss: cannot spawn the streamer\n"), 1;
    pvm_notify(PvmTaskExit, TAG_GONE, 1, &tid);
    struct timeval tv = { 20, 0 };
    if (pvm_trecv(tid, TAG_PID, &tv) <= 0 || pvm_upkint(&pid, 1, 1) < 0 || pid <= 0 ||
        pvm_trecv(tid, TAG_BIG, &tv) <= 0) {   /* it streams (over AM, once linked) */
        fprintf(stderr, "exitloss: the streamer did not start\n");
        pvm_kill(tid);
        return 1;
    }
    kill(pid, SIGKILL);   /* somewhere in its next message, most likely */
    long long t0 = ms_now();
    struct timeval gone = { KILL_MS / 1000, 0 };
    if (pvm_trecv(-1, TAG_GONE, &gone) <= 0) {
        fprintf(stderr, "exitloss: no exit notice for the killed streamer\n");
        return 1;
    }
    int more = 0;   /* whole messages it sent before, if any */
    struct timeval none = { 0, 0 };
    while (pvm_trecv(tid, TAG_BIG, &none) > 0)
        more++;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&pid, 1, 1);
    int was = pvm_setopt(PvmAutoErr, 0);
    int rc = pvm_send(tid, TAG_PID);   /* to a gone task: an error or nothing, at once */
    pvm_setopt(PvmAutoErr, was);
    long long took = ms_now() - t0;
    printf("killed streamer: notice and %d more whole messages in %lld ms, then a send "
           "returned %d\n", more, took, rc);
    return took > KILL_MS;
}

/* One round; the number of results lost or damaged. */
static int round_(const char *self, int r, int wait_s)
{
    int tids[NCHILD];
    int n = pvm_spawn((char *)self, (char *[]){ "child", NULL }, PvmTaskDefault, "", NCHILD,
                      tids);
    if (n != NCHILD) {
        fprintf(stderr, "exitloss: round %d: spawned %d of %d\n", r, n, NCHILD);
        for (int i = 0; i < n; i++)
            pvm_kill(tids[i]);
        return NCHILD;
    }
    for (int i = 0; i < NCHILD; i++) {
        int job[2] = { r, i };
        pvm_initsend(PvmDataDefault);
        pvm_pkint(job, 2, 1);
        pvm_send(tids[i], TAG_JOB);
    }
    int got[NCHILD] = { 0 }, bad = 0;
    static double res[NDBL];
    for (int k = 0; k < NCHILD; k++) {
        struct timeval tv = { wait_s, 0 };
        int b = pvm_trecv(-1, TAG_RES, &tv);
        if (b <= 0) {
            fprintf(stderr, "exitloss: round %d: result %d of %d not there after %d s (%d)\n",
                    r, k + 1, NCHILD, wait_s, b);
            for (int i = 0; i < NCHILD; i++)
                if (!got[i])
                    fprintf(stderr, "exitloss: round %d: lost the result of t%x\n", r,
                            tids[i]);
            return NCHILD - k;
        }
        int len, tag, src;
        pvm_bufinfo(b, &len, &tag, &src);
        bad += check_result("", r, src, tids, NCHILD, got, res, NDBL);
    }
    return bad;
}

int main(int argc, char **argv)
{
    if (argc > 1 && !strcmp(argv[1], "child"))
        return child();
    if (argc > 1 && !strcmp(argv[1], "streamer"))
        return streamer();
    if (argc > 1 && !strcmp(argv[1], "fanchild"))
        return fan_child();
    if (argc < 3)
        return fprintf(stderr, "usage: exitloss NAME ROUNDS [WAIT_S [FANIN_ROUNDS]]\n"), 2;
    int rounds = atoi(argv[2]);
    int wait_s = argc > 3 ? atoi(argv[3]) : 10;
    int fan_rounds = argc > 4 ? atoi(argv[4]) : 0;
    if (pvm_mytid() < 0)
        return 2;
    /* EXITLOSS_OUT: keep the children's output (and PVMAM_VERBOSE's log) */
    const char *out = getenv("EXITLOSS_OUT");
    FILE *sink = fopen(out ? out : "/dev/null", "w");
    pvm_catchout(sink);
    int lost = 0;
    for (int r = 0; r < rounds; r++)
        lost += round_(argv[1], r, wait_s);
    int fan_lost = 0;
    for (int r = 0; r < fan_rounds && !fan_lost; r++)   /* each loss costs WAIT_S */
        fan_lost += fan_round(argv[1], r, wait_s);
    int slow = killed(argv[1]);
    pvm_catchout(NULL);
    lost += fan_lost;
    printf("%s: %d of %d results lost or damaged (%d rounds of %d children, %d fan-in "
           "rounds of %d: %d)%s\n", lost || slow ? "FAIL" : "PASS", lost,
           rounds * NCHILD + fan_rounds * NFAN, rounds, NCHILD, fan_rounds, NFAN, fan_lost,
           slow ? "; the killed sender was not got over in time" : "");
    pvm_exit();
    if (sink)
        fclose(sink);
    return lost || slow ? 1 : 0;
}
