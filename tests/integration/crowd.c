/*
 * crowd.c - more tasks than cores: N tasks (default 8) on this
 * 2-core machine exchange all-to-all, reduce to the master and meet at a
 * barrier, ROUNDS times, every message checked; then the workers wait in
 * pvm_recv with nothing coming and the master reads their CPU time from
 * /proc/<pid>/stat over a second: a waiting task must not spin.
 *
 *   crowd MASTER [N [ROUNDS]]      (the workers are spawned copies)
 *
 * Exit 0 when everything arrived intact and the idle workers used at most
 * IDLE_TICKS clock ticks in that second (a spinning one uses ~100).  The
 * whole run is bounded by an alarm.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

enum { TAG_TIDS = 0x6300, TAG_A2A, TAG_RED, TAG_BAR, TAG_GO, TAG_IDLE, TAG_END };
#define MAXT 32
#define IDLE_TICKS 1
#define LIMIT_S 120

static int ntasks, me, tids[MAXT];
static const int sizes[] = { 8, 1000, 70000 };   /* one, several AMs */

static void die(const char *what, int rc)
{
    fprintf(stderr, "crowd[t%x]: %s (%d)\n", pvm_mytid(), what, rc);
    pvm_exit();
    exit(1);
}
#define CK(call) do { int rc_ = (call); if (rc_ < 0) die(#call, rc_); } while (0)

/* The word at position i of the message from a to b in round r. */
static unsigned word(int a, int b, int r, int i)
{
    return (unsigned)a * 2654435761u ^ (unsigned)b * 40503u ^ (unsigned)r * 97u ^ (unsigned)i;
}

static void all_to_all(int r)
{
    int n = sizes[r % 3] / 4;
    unsigned *buf = malloc(sizeof *buf * (size_t)n);
    if (!buf)
        die("malloc", -1);
    for (int k = 1; k < ntasks; k++) {   /* everyone sends to me + k first */
        int to = (me + k) % ntasks;
        for (int i = 0; i < n; i++)
            buf[i] = word(me, to, r, i);
        CK(pvm_psend(tids[to], TAG_A2A, buf, n, PVM_UINT));
    }
    for (int k = 1; k < ntasks; k++) {
        int from = (me - k + ntasks) % ntasks, tid, tag, cnt;
        CK(pvm_precv(tids[from], TAG_A2A, buf, n, PVM_UINT, &tid, &tag, &cnt));
        for (int i = 0; i < n; i++)
            if (cnt != n * 4 || buf[i] != word(from, me, r, i))   /* rlen: bytes */
                die("all-to-all: wrong data", i);
    }
    free(buf);
}

/* Workers send {me, r} packed; the master checks the sum. */
static void reduce(int r)
{
    if (me) {
        int v[2] = { me, r };
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_pkint(v, 2, 1));
        CK(pvm_send(tids[0], TAG_RED));
        return;
    }
    long sum = 0;
    for (int k = 1; k < ntasks; k++) {
        int v[2];
        CK(pvm_recv(-1, TAG_RED));
        CK(pvm_upkint(v, 2, 1));
        if (v[1] != r)
            die("reduce: wrong round", v[1]);
        sum += v[0];
    }
    if (sum != (long)ntasks * (ntasks - 1) / 2)
        die("reduce: wrong sum", (int)sum);
}

static void barrier(void)
{
    if (me) {
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_send(tids[0], TAG_BAR));
        CK(pvm_recv(tids[0], TAG_GO));
        return;
    }
    for (int k = 1; k < ntasks; k++)
        CK(pvm_recv(-1, TAG_BAR));
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_mcast(tids + 1, ntasks - 1, TAG_GO));
}

/* utime + stime of pid, in clock ticks (fields 14 and 15). */
static long cpu_ticks(int pid)
{
    char path[64], b[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    size_t n = fread(b, 1, sizeof b - 1, f);
    fclose(f);
    b[n] = '\0';
    char *p = strrchr(b, ')');   /* the command name may hold spaces */
    unsigned long ut, st;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
        return -1;
    return (long)(ut + st);
}

static int idle_check(void)
{
    struct pvmtaskinfo *ti;
    int nt, bad = 0, pid[MAXT] = { 0 };
    long t0[MAXT];
    CK(pvm_tasks(0, &nt, &ti));
    for (int k = 1; k < ntasks; k++)
        for (int j = 0; j < nt; j++)
            if (ti[j].ti_tid == tids[k])
                pid[k] = ti[j].ti_pid;
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_mcast(tids + 1, ntasks - 1, TAG_IDLE));
    for (int k = 1; k < ntasks; k++)
        CK(pvm_recv(-1, TAG_IDLE));   /* each is about to wait */
    /* Any spin is long over by then, and so is the last round's own
     * work (owed blank replies paid, their receivers back asleep), which
     * under a sanitizer build took more than the 200 ms this once was. */
    sleep(1);
    for (int k = 1; k < ntasks; k++)
        t0[k] = pid[k] ? cpu_ticks(pid[k]) : -1;
    sleep(1);
    for (int k = 1; k < ntasks; k++) {
        long t1 = pid[k] ? cpu_ticks(pid[k]) : -1;
        if (t0[k] < 0 || t1 < 0) {
            printf("idle: cannot read /proc/%d/stat of t%x\n", pid[k], tids[k]);
            bad = 1;
            continue;
        }
        printf("idle: t%x (pid %d) used %ld ticks of %ld in 1 s\n", tids[k], pid[k], t1 - t0[k],
               sysconf(_SC_CLK_TCK));
        if (t1 - t0[k] > IDLE_TICKS)
            bad = 1;
    }
    return bad;
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char m[] = "crowd: time limit reached (a hang)\n";
    if (write(2, m, sizeof m - 1) < 0)
        _exit(3);
    _exit(3);
}

int main(int argc, char **argv)
{
    int master = argc > 1 && !strcmp(argv[1], "MASTER");
    int rounds = 30, rc = 0;
    signal(SIGALRM, on_alarm);
    alarm(LIMIT_S);
    if (master) {
        ntasks = argc > 2 ? atoi(argv[2]) : 8;
        rounds = argc > 3 ? atoi(argv[3]) : rounds;
        if (ntasks < 2 || ntasks > MAXT || rounds < 1) {
            fprintf(stderr, "usage: %s MASTER [N (2..%d) [ROUNDS]]\n", argv[0], MAXT);
            return 2;
        }
        tids[0] = pvm_mytid();
        if (tids[0] < 0)
            die("pvm_mytid", tids[0]);
        char *args[] = { "WORKER", NULL };
        int got = pvm_spawn(argv[0], args, PvmTaskDefault, "", ntasks - 1, tids + 1);
        if (got != ntasks - 1)
            die("pvm_spawn", got);
        int hdr[2] = { ntasks, rounds };
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_pkint(hdr, 2, 1));
        CK(pvm_pkint(tids, ntasks, 1));
        CK(pvm_mcast(tids + 1, ntasks - 1, TAG_TIDS));
    } else {
        int hdr[2];
        if (pvm_mytid() < 0)
            return 1;
        CK(pvm_recv(pvm_parent(), TAG_TIDS));
        CK(pvm_upkint(hdr, 2, 1));
        ntasks = hdr[0];
        rounds = hdr[1];
        if (ntasks < 2 || ntasks > MAXT)
            die("bad task count", ntasks);
        CK(pvm_upkint(tids, ntasks, 1));
        for (me = 1; me < ntasks && tids[me] != pvm_mytid(); me++)
            ;
    }
    for (int r = 0; r < rounds; r++) {
        all_to_all(r);
        reduce(r);
        barrier();
    }
    if (master) {
        rc = idle_check();
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_mcast(tids + 1, ntasks - 1, TAG_END));
        printf("crowd: %d tasks, %d rounds of all-to-all, reduce and barrier: %s\n", ntasks,
               rounds, rc ? "FAIL (idle tasks used CPU)" : "ok");
    } else {
        CK(pvm_recv(tids[0], TAG_IDLE));
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_send(tids[0], TAG_IDLE));
        CK(pvm_recv(tids[0], TAG_END));   /* nothing comes for a while */
    }
    pvm_exit();
    return rc;
}
