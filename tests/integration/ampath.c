/*
 * ampath.c - the AM fast path end to end, in a private VM:
 *   ampath MASTER ntasks pvmd-pid
 * spawns ntasks-1 copies of itself; all call pvmam_init(ntasks); every task
 * sends every other one a packed and a psend message and checks what it
 * gets; then task 1 streams 8 MiB to the master and back.  With a
 * transport on, the counters must show AM traffic and the pvmd must have
 * read none of the payload (/proc/<pvmd>/io); with PVMAM_TRANSPORT=off the
 * opposite must hold.  Idle tasks blocked in pvm_recv must use no CPU.
 * Finally the master kills a task with SIGKILL while streaming to it: it
 * must get PvmNoTask within PVMAM_TIMEOUT and its pvm_notify message, and
 * (shm) keep no descriptor or mapping of that link.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#include "pvmam.h"

#define BIG (8 << 20)
static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); } } while (0)

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static long long pvmd_read(int pid)
{
    char path[64], line[128];
    snprintf(path, sizeof path, "/proc/%d/io", pid);
    FILE *f = fopen(path, "r");
    long long v = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "rchar: %lld", &v) == 1)
            break;
    if (f)
        fclose(f);
    return v;
}

/* utime + stime of a process, in clock ticks (-1 if unknown) */
static long long cpu_ticks(int pid)
{
    char path[64], buf[1024];
    snprintf(path, sizeof path, "/proc/%d/stat", pid);
    FILE *f = fopen(path, "r");
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    if (f)
        fclose(f);
    buf[n] = '\0';
    char *p = strrchr(buf, ')');   /* the name may hold spaces */
    unsigned long long ut, st;
    if (!p || sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %llu %llu", &ut, &st) != 2)
        return -1;
    return (long long)(ut + st);
}

static int task_pid(int tid)
{
    struct pvmtaskinfo *ti;
    int nt = 0;
    if (pvm_tasks(tid, &nt, &ti) < 0 || nt != 1)
        return -1;
    return ti[0].ti_pid;
}

/* Our descriptors whose target contains what, and mappings naming it. */
static int count_fds(const char *what)
{
    int k = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *de; d && (de = readdir(d));) {
        char path[300], to[256];
        snprintf(path, sizeof path, "/proc/self/fd/%s", de->d_name);
        ssize_t l = readlink(path, to, sizeof to - 1);
        if (l > 0) {
            to[l] = '\0';
            k += strstr(to, what) != NULL;
        }
    }
    if (d)
        closedir(d);
    return k;
}

static int count_maps(const char *what)
{
    char line[512];
    int k = 0;
    FILE *f = fopen("/proc/self/maps", "r");
    while (f && fgets(line, sizeof line, f))
        k += strstr(line, what) != NULL;
    if (f)
        fclose(f);
    return k;
}

/* all-to-all: each pair exchanges a packed and a psend message */
static void all_to_all(int *tids, int n, int me)
{
    for (int i = 0; i < n; i++) {
        if (tids[i] == me)
            continue;
        int v[2] = { me, tids[i] };
        pvm_initsend(PvmDataDefault);
        pvm_pkint(v, 2, 1);
        pvm_send(tids[i], 10);
        pvm_psend(tids[i], 11, v, 2, PVM_INT);
    }
    for (int i = 0; i < n; i++) {
        if (tids[i] == me)
            continue;
        int v[2] = { 0, 0 }, w[2] = { 0, 0 }, t, g, l;
        pvm_recv(tids[i], 10);
        pvm_upkint(v, 2, 1);
        pvm_precv(tids[i], 11, w, 2, PVM_INT, &t, &g, &l);
        CHECK(v[0] == tids[i] && v[1] == me && w[0] == tids[i] && w[1] == me,
              "t%x: from t%x got %x %x / %x %x", me, tids[i], v[0], v[1], w[0], w[1]);
    }
}

static int slave(void)
{
    int parent = pvm_parent(), n, tids[16];
    pvm_recv(parent, 1);
    pvm_upkint(&n, 1, 1);
    pvm_upkint(tids, n, 1);
    int rc = pvmam_init(n);
    if (rc < 0)
        printf("slave pvmam_init: %d\n", rc);
    all_to_all(tids, n, pvm_mytid());
    char *buf = malloc(BIG);
    int t, g, l;
    for (;;) {    /* echo until told to stop (tag 3) */
        int id = pvm_recv(parent, -1);
        int bytes, tag;
        pvm_bufinfo(id, &bytes, &tag, &t);
        if (tag == 3)
            break;
        if (tag == 20) {
            pvm_upkbyte(buf, BIG, 1);
            pvm_initsend(PvmDataDefault);
            pvm_pkbyte(buf, BIG, 1);
            pvm_send(parent, 20);
            pvm_precv(parent, 21, buf, BIG, PVM_BYTE, &t, &g, &l);
            pvm_psend(parent, 21, buf, l, PVM_BYTE);
        }
    }
    free(buf);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "MASTER"))
        return slave();
    setvbuf(stdout, NULL, _IONBF, 0);
    int n = argc > 2 ? atoi(argv[2]) : 2, pvmd = argc > 3 ? atoi(argv[3]) : 0;
    int me = pvm_mytid(), tids[16];
    int on = strcmp(pvmam_transport(), "off") != 0;   /* known once connected */
    if (me < 0 || n < 2 || n > 16)
        return 2;
    tids[0] = me;
    int got = pvm_spawn(argv[0], (char *[]){ "slave", NULL }, PvmTaskDefault, "", n - 1, tids + 1);
    CHECK(got == n - 1, "spawned %d of %d", got, n - 1);
    if (got != n - 1)
        return 1;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&n, 1, 1);
    pvm_pkint(tids, n, 1);
    pvm_mcast(tids + 1, n - 1, 1);
    double t0 = now();
    int rc = pvmam_init(n);
    CHECK(rc == 0, "pvmam_init(%d) = %d", n, rc);
    printf("pvmam_init(%d) over %s: %.3f s\n", n, pvmam_transport(), now() - t0);
    all_to_all(tids, n, me);
    struct pvmam_stats s;
    pvmam_stats(0, &s);
    CHECK(s.peers_am == (on ? n - 1 : 0), "AM peers %d, expected %d", s.peers_am, on ? n - 1 : 0);

    /* 8 MiB packed and psend with task 1, watching what the pvmd reads */
    char *a = malloc(BIG), *b = malloc(BIG);
    for (int i = 0; i < BIG; i++)
        a[i] = (char)(i * 131 + 7);
    long long r0 = pvmd_read(pvmd);
    struct pvmam_stats s0, s1;
    pvmam_stats(tids[1], &s0);
    pvm_initsend(PvmDataDefault);
    pvm_pkbyte(a, BIG, 1);
    pvm_send(tids[1], 20);
    pvm_recv(tids[1], 20);
    memset(b, 0, BIG);
    pvm_upkbyte(b, BIG, 1);
    CHECK(memcmp(a, b, BIG) == 0, "8 MiB packed echo differs");
    int t, g, l;
    pvm_psend(tids[1], 21, a, BIG, PVM_BYTE);
    memset(b, 0, BIG);
    pvm_precv(tids[1], 21, b, BIG, PVM_BYTE, &t, &g, &l);
    CHECK(l == BIG && memcmp(a, b, BIG) == 0, "8 MiB psend echo differs (len %d)", l);
    long long r1 = pvmd_read(pvmd);
    pvmam_stats(tids[1], &s1);
    long long am_bytes = (long long)(s1.am_bytes_sent - s0.am_bytes_sent + s1.am_bytes_recv - s0.am_bytes_recv);
    printf("32 MiB moved: AM bytes %lld, pvmd read %lld bytes\n", am_bytes, r1 - r0);
    if (pvmd > 0 && r0 >= 0) {
        if (on)
            CHECK(r1 - r0 < (1 << 20) && am_bytes >= 4LL * BIG,
                  "AM path: pvmd read %lld bytes, AM carried %lld", r1 - r0, am_bytes);
        else
            CHECK(r1 - r0 >= 4LL * BIG && am_bytes == 0,
                  "daemon path: pvmd read %lld bytes, AM carried %lld", r1 - r0, am_bytes);
    }

    /* idle tasks (blocked in pvm_recv, past the spin) use no CPU */
    long long c0[16], c1[16];
    int pids[16];
    for (int i = 1; i < n; i++) {
        pids[i] = task_pid(tids[i]);
        c0[i] = cpu_ticks(pids[i]);
    }
    sleep(1);
    long long hz = sysconf(_SC_CLK_TCK), most = 0;
    for (int i = 1; i < n; i++) {
        c1[i] = cpu_ticks(pids[i]);
        if (c1[i] - c0[i] > most)
            most = c1[i] - c0[i];
        CHECK(c0[i] >= 0 && c1[i] >= 0 && (c1[i] - c0[i]) * 10 < hz,
              "idle t%x (pid %d) used %lld of %lld ticks in 1 s", tids[i], pids[i],
              c1[i] - c0[i], hz);
    }
    printf("idle tasks over 1 s: at most %lld of %lld CPU ticks\n", most, hz);

    /* SIGKILL the last task while streaming to it: PvmNoTask in bounded
     * time, and the pvm_notify message still comes */
    if (on) {
        int victim = tids[n - 1], vpid = task_pid(victim);
        struct pvmam_stats vs;   /* the link's transport: shm alone or in a list */
        int shm = pvmam_stats(victim, &vs) == 0 && !strcmp(vs.transport, "shm");
        pvm_notify(PvmTaskExit, 40, 1, &victim);
        for (int i = 0; i < 20; i++)
            pvm_psend(victim, 30, a, 65536, PVM_BYTE);
        CHECK(vpid > 0 && kill(vpid, SIGKILL) == 0, "cannot kill t%x (pid %d)", victim, vpid);
        double k0 = now();
        int err = 0;
        while (now() - k0 < 20 && err >= 0)
            err = pvm_psend(victim, 30, a, 65536, PVM_BYTE);
        double dt = now() - k0;
        const char *lim = getenv("PVMAM_TIMEOUT");
        double limit = 2 * (lim ? atof(lim) : 30000) / 1000 + 1;
        printf("send to a killed task: %d after %.2f s (limit %.1f s)\n", err, dt, limit);
        CHECK(err == PvmNoTask && dt < limit, "sends to a killed task: %d after %.2f s", err, dt);
        int who = 0;
        struct timeval tmo = { 10, 0 };
        if (pvm_trecv(-1, 40, &tmo) > 0)
            pvm_upkint(&who, 1, 1);
        CHECK(who == victim, "no task-exit notification for t%x (got t%x)", victim, who);
        n--;
        if (shm) {   /* the dead link's descriptors and segment are gone */
            int live = n - 1, ok = 0;
            for (double w0 = now(); now() - w0 < 10 && !ok;) {
                struct timeval t10 = { 0, 10000 };
                pvm_trecv(-1, 999, &t10);   /* the library's own work goes on meanwhile */
                ok = count_fds("pidfd") == live && count_maps("memfd:pvmam-shm") == live;
            }
            printf("after the kill: %d pidfds, %d segments mapped, %d memfds open, %d live peers\n",
                   count_fds("pidfd"), count_maps("memfd:pvmam-shm"), count_fds("memfd:"), live);
            CHECK(ok && count_fds("memfd:") == 0, "the dead link left descriptors or mappings");
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_mcast(tids + 1, n - 1, 3);
    free(a);
    free(b);
    printf("ampath master done: %d failure(s)\n", fails);
    pvm_exit();
    return fails != 0;
}
