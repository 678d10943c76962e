/*
 * runner.c - runs torture scenarios one after another in one virtual
 * machine and judges each: every task that was not to go away reports
 * success (its own checks: worker.c) and exits, within a bound; then no
 * task is left and the runner's descriptors did not grow.  A failure
 * prints the seed, the shape in words and the one command that replays
 * it.
 *
 *   torture RUN --am PATH --stock PATH --transport NAME
 *               [--seed S | --from S [--count N] [--minutes M]] [--pidfile F]
 */
#include <dirent.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>
#include "../integration/selfstat.h"
#include "shape.h"
#include "torture.h"

struct opts {
    const char *am, *stock, *transport, *pidfile;
    uint64_t from;
    long count;
    const char *seeds;   /* a comma list instead of from.. */
    double minutes;
};

/* The group server stays from one scenario to the next (the runner
 * starts it: torture_runner); it is not a task left behind. */
static int is_gs(const struct pvmtaskinfo *ti) { return strstr(ti->ti_a_out, "pvmgs") != NULL; }

/* Every task but us: kill it, by the pvmd then by pid; 0 if none was left. */
static int clean_tasks(int mytid, char *why, size_t size)
{
    int left = 0;
    for (int round = 0; round < 50; round++) {
        struct pvmtaskinfo *ti;
        int nt = 0;
        if (pvm_tasks(0, &nt, &ti) < 0)
            return -1;
        int others = 0;
        for (int i = 0; i < nt; i++) {
            if (ti[i].ti_tid == mytid || is_gs(&ti[i]))
                continue;
            others++;
            if (round == 0) {
                size_t l = strlen(why);
                snprintf(why + l, size - l, " t%x(pid %d)", ti[i].ti_tid, ti[i].ti_pid);
            }
            if (round == 0 || round == 20)
                pvm_kill(ti[i].ti_tid);
            else if (round == 30 && ti[i].ti_pid > 0)   /* a task of our private VM */
                kill(ti[i].ti_pid, SIGKILL);
        }
        if (round == 0)
            left = others;
        if (!others)
            return left;
        usleep(100000);
    }
    return left ? left : -1;
}

struct result {
    int tab, exited[TW_MAX], final[TW_MAX], ok[TW_MAX];
    int tids[TW_MAX];
    char text[4096];
    char dead[TW_MAX][1024];   /* each task's ended AM links, why (its last report) */
};

__attribute__((format(printf, 2, 3)))
static void add(struct result *r, const char *fmt, ...)
{
    size_t l = strlen(r->text);
    va_list ap;
    va_start(ap, fmt);
    if (l + 100 < sizeof r->text)
        vsnprintf(r->text + l, sizeof r->text - l, fmt, ap);
    va_end(ap);
}

static int index_of(const struct result *r, const struct t_shape *s, int tid)
{
    for (int i = 0; r->tab && i < s->n; i++)
        if (r->tids[i] == tid)
            return i;
    return -1;
}

/* One message for the runner; returns 0 on timeout. */
static int take(const struct t_shape *s, struct result *r, double wait)
{
    struct timeval tv = { (long)wait, (long)((wait - (long)wait) * 1e6) };
    int bufid = pvm_trecv(-1, -1, &tv);
    if (bufid <= 0)
        return 0;
    int bytes, tag, tid, v[5];
    pvm_bufinfo(bufid, &bytes, &tag, &tid);
    if (tag == TAG_EXIT) {
        int who = -1;
        pvm_upkint(&who, 1, 1);
        int i = index_of(r, s, who);
        if (i >= 0)
            r->exited[i] = 1;
        else if (!r->tab && who == r->tids[0])
            r->exited[0] = 1;
        return 1;
    }
    if (tag == TAG_TABLE && pvm_upkint(v, 2, 1) >= 0 &&
        ((uint64_t)(uint32_t)v[1] << 32 | (uint32_t)v[0]) == s->seed) {
        pvm_upkint(r->tids, s->n, 1);
        r->tab = 1;
        pvm_notify(PvmTaskExit, TAG_EXIT, s->n - 1, r->tids + 1);
        return 1;
    }
    if (tag == TAG_REPORT && pvm_upkint(v, 5, 1) >= 0 &&
        ((uint64_t)(uint32_t)v[1] << 32 | (uint32_t)v[0]) == s->seed && v[2] >= 0 && v[2] < s->n) {
        char txt[2048] = "";
        pvm_upkstr(txt);
        if (pvm_upkstr(r->dead[v[2]]) < 0)
            r->dead[v[2]][0] = '\0';
        r->final[v[2]] |= v[3];
        if (!v[4] && r->ok[v[2]]) {
            r->ok[v[2]] = 0;
            add(r, "%s", txt);
        }
        return 1;
    }
    return 1;   /* late, from an earlier scenario */
}

/* Tasks but us in the VM, or -1. */
static int others(int mytid)
{
    struct pvmtaskinfo *ti;
    int nt = 0, c = 0;
    if (pvm_tasks(0, &nt, &ti) < 0)
        return -1;
    for (int i = 0; i < nt; i++)
        c += ti[i].ti_tid != mytid && !is_gs(&ti[i]);
    return c;
}

/* Without the table (task 0 went away before sending it) the others are
 * known only to the pvmd. */
static int all_exited(const struct t_shape *s, const struct result *r, int mytid)
{
    if (!r->tab)
        return r->exited[0] && others(mytid) == 0;
    for (int i = 0; i < s->n; i++)
        if (!r->exited[i])
            return 0;
    return 1;
}

static int reports_missing(const struct t_shape *s, const struct result *r)
{
    int m = 0;
    for (int i = 0; i < s->n && r->tab; i++)
        m += !r->final[i] && !shape_gone(s, i);
    return m;
}

/* One scenario; 0 if it passed, else prints why. */
static int scenario(const struct opts *o, uint64_t seed, int mytid, int fd0)
{
    static struct t_shape s;
    static struct result r;
    shape_draw(seed, &s);
    memset(&r, 0, sizeof r);
    for (int i = 0; i < TW_MAX; i++)
        r.ok[i] = 1;
    char sd[24], me[16];
    snprintf(sd, sizeof sd, "%llu", (unsigned long long)seed);
    snprintf(me, sizeof me, "%x", mytid);
    char *args[] = { "W", sd, "0", me, (char *)o->pidfile, (char *)o->am, (char *)o->stock, NULL };
    double slow = torture_slow(), t0 = now_s();
    double bound = (30 + (double)shape_bytes(&s) / 4e6) * slow;
    int bad = 0;
    if (pvm_spawn(s.t[0].stock ? (char *)o->stock : (char *)o->am, args, PvmTaskDefault, "", 1,
                  &r.tids[0]) != 1) {
        add(&r, "spawning w0 failed: %d\n", r.tids[0]);
        bad = 1;
        goto judge;
    }
    pvm_notify(PvmTaskExit, TAG_EXIT, 1, &r.tids[0]);
    double all_gone_at = 0;
    while (!bad) {
        double t = now_s();
        if (all_exited(&s, &r, mytid)) {
            if (!all_gone_at)
                all_gone_at = t;
            if (!reports_missing(&s, &r) || t - all_gone_at > 3 * slow)
                break;
        }
        if (t - t0 > bound) {
            add(&r, "hang: not over after %.0f s; still running:", bound);
            for (int i = 0; i < s.n; i++)
                if (!r.exited[i])
                    add(&r, " w%d%s", i, r.final[i] ? " (reported)" : "");
            add(&r, "%s\n", r.tab ? "" : " (w0 never sent its table)");
            bad = 1;
        }
        take(&s, &r, 0.2);
    }
    while (take(&s, &r, 0.01))   /* a report of failure after a task's last */
        ;
    if (!r.tab && !bad && !shape_gone(&s, 0)) {
        add(&r, "w0 exited without sending its table\n");
        bad = 1;
    }
    for (int i = 0; i < s.n; i++) {
        if (!r.ok[i])
            bad = 1;
        if (r.tab && r.exited[i] && !r.final[i] && !shape_gone(&s, i)) {
            add(&r, "w%d exited without its last report (a message lost before pvm_exit, or "
                "it crashed)\n", i);
            bad = 1;
        }
    }
judge:;
    char left[512] = "";
    int nleft = clean_tasks(mytid, left, sizeof left);
    if (nleft && !bad) {
        add(&r, "tasks left after the scenario:%s\n", left);
        bad = 1;
    }
    if (nleft < 0)
        add(&r, "could not clean up tasks:%s\n", left);
    int fd1 = selfstat_fds();
    if (fd1 > fd0 + 4 && !bad) {   /* slack: the runner's own AM interfaces */
        add(&r, "the runner's descriptors grew: %d -> %d\n", fd0, fd1);
        bad = 1;
    }
    if (!bad && now_s() - t0 > 5 * slow)   /* what makes a run slow */
        printf("slow: seed %llu took %.1f s\n", (unsigned long long)seed, now_s() - t0);
    if (bad) {
        for (int i = 0; i < s.n; i++)   /* why links ended (worker.c, dead_links) */
            if (r.dead[i][0])
                add(&r, "w%d's AM links that ended:%s\n", i, r.dead[i]);
        static char desc[16384];
        shape_describe(&s, desc, sizeof desc);
        printf("FAIL seed %llu transport %s after %.1f s:\n%s%s"
               "replay: tests/torture/torture.sh --seed %llu --transport %s\n\n",
               (unsigned long long)seed, o->transport, now_s() - t0, r.text, desc,
               (unsigned long long)seed, o->transport);
        fflush(stdout);
    }
    return bad;
}

int torture_runner(int argc, char **argv)
{
    struct opts o = { "", "", "default", "-", 1, 1, NULL, 0 };
    for (int i = 2; i + 1 < argc; i += 2) {
        const char *k = argv[i], *v = argv[i + 1];
        if (!strcmp(k, "--am")) o.am = v;
        else if (!strcmp(k, "--stock")) o.stock = v;
        else if (!strcmp(k, "--transport")) o.transport = v;
        else if (!strcmp(k, "--pidfile")) o.pidfile = v;
        else if (!strcmp(k, "--seeds")) o.seeds = v;
        else if (!strcmp(k, "--seed")) o.from = strtoull(v, NULL, 10), o.count = 1;
        else if (!strcmp(k, "--from")) o.from = strtoull(v, NULL, 10);
        else if (!strcmp(k, "--count")) o.count = atol(v);
        else if (!strcmp(k, "--minutes")) o.minutes = atof(v), o.count = o.count > 1 ? o.count : 0;
        else return fprintf(stderr, "torture: unknown option %s\n", k), 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int mytid = pvm_mytid();
    if (mytid < 0)
        return 1;
    /* Start pvmgs here, once, rather than in whichever member joins first:
     * stock libgpvm3 would start it as a child of that member, and a
     * catching task 0's pvm_exit waits for its children's output to end
     * (pvm_catchout(3PVM)), which a server's never does. */
    if (pvm_joingroup("torture.runner") < 0 || pvm_lvgroup("torture.runner") < 0)
        fprintf(stderr, "torture: could not start the group server (pvmgs)\n");
    int fd0 = selfstat_fds(), failed = 0;
    long n = 0;
    double t0 = now_s();
    const char *list = o.seeds;
    if (list)
        o.from = strtoull(list, NULL, 10), o.count = 0;
    for (uint64_t seed = o.from;; seed++) {
        if (list) {
            if (!*list)
                break;
            seed = strtoull(list, (char **)&list, 10);
            list += *list == ',';
        }
        if (o.count && n >= o.count)
            break;
        if (o.minutes > 0 && now_s() - t0 > o.minutes * 60)
            break;
        failed += scenario(&o, seed, mytid, fd0);
        n++;
    }
    double dt = now_s() - t0;
    printf("torture: transport %s: %ld scenario(s), %d failed, %.0f s (%.0f per minute), ",
           o.transport, n, failed, dt, dt > 0 ? n * 60 / dt : 0);
    if (o.seeds)
        printf("seeds %s\n", o.seeds);
    else
        printf("seeds %llu..%llu\n", (unsigned long long)o.from,
               (unsigned long long)(o.from + (uint64_t)n - 1));
    pvm_exit();
    return failed ? 1 : 0;
}
