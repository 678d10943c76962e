/*
 * cmd_spawn.c - spawn [options] file [args]: count, host or architecture,
 * working directory (the pvmd reads PVMSPAWNWD from the task's
 * environment), debugger, trace, and job output to the console or a file.
 * -@ and -@file make the console the job's tracer (trace_jobs.c): events,
 * and output as events, to the console or the file, as stock's console.
 * -! (or "preload on") starts the job with libpvm3am preloaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "cons.h"
#include "trace.h"


struct spawn_opts {
    int count, flags, redirect, append, preload, trace;
    char where[256], wd[1024], outfile[1024], tracefile[1024];
};

static int is_arch(const char *name)
{
    int nh, na;
    struct pvmhostinfo *h;
    if (pvm_config(&nh, &na, &h) < 0)
        return 0;
    for (int i = 0; i < nh; i++)
        if (!strcmp(h[i].hi_arch, name))
            return 1;
    return 0;
}

/* One option word (without its '-'); 0 or -1 (message printed). */
static int option(const char *o, struct spawn_opts *s)
{
    if (*o >= '0' && *o <= '9') {
        char *end;
        long n = strtol(o, &end, 10);
        if (*end || n < 1 || n > 100000) {
            printf("spawn: -%s: not a task count\n", o);
            return -1;
        }
        s->count = (int)n;
    } else if (o[0] == '>') {
        s->redirect = 1;
        s->append = o[1] == '>';
        snprintf(s->outfile, sizeof s->outfile, "%s", o + 1 + s->append);
    } else if (!strcmp(o, "?")) {
        s->flags |= PvmTaskDebug;
    } else if (o[0] == '@') {
        s->trace = 1;
        snprintf(s->tracefile, sizeof s->tracefile, "%s", o + 1);
    } else if (!strcmp(o, "!")) {
        s->preload = 1;
    } else {
        /* -host, -ARCH, -host:wd, -:wd, --host=IP[:wd] */
        const char *h = o;
        if (!strncmp(h, "-host=", 6))
            h += 6;
        const char *colon = strchr(h, ':');
        size_t hl = colon ? (size_t)(colon - h) : strlen(h);
        if (colon)
            snprintf(s->wd, sizeof s->wd, "%s", colon + 1);
        if (hl >= sizeof s->where) {
            printf("spawn: -%s: host name too long\n", o);
            return -1;
        }
        if (hl) {
            memcpy(s->where, h, hl);
            s->where[hl] = '\0';
            s->flags &= ~(PvmTaskHost | PvmTaskArch);
            s->flags |= h == o && is_arch(s->where) ? PvmTaskArch : PvmTaskHost;
        }
    }
    return 0;
}

/* Set or clear an environment variable and its place in PVM_EXPORT, for
 * one spawn; the old state comes back with restore. */
struct saved_env {
    char *val, *exp;
};

static void env_push(const char *name, const char *val, struct saved_env *sv)
{
    const char *v = getenv(name), *e = getenv("PVM_EXPORT");
    sv->val = v ? strdup(v) : NULL;
    sv->exp = e ? strdup(e) : NULL;
    setenv(name, val, 1);
    char buf[2048];
    snprintf(buf, sizeof buf, "%s%s%s", e ? e : "", e && *e ? ":" : "", name);
    setenv("PVM_EXPORT", buf, 1);
}

static void env_pop(const char *name, struct saved_env *sv)
{
    if (sv->val)
        setenv(name, sv->val, 1);
    else
        unsetenv(name);
    if (sv->exp)
        setenv("PVM_EXPORT", sv->exp, 1);
    else
        unsetenv("PVM_EXPORT");
    free(sv->val);
    free(sv->exp);
}

/* Where events and output of the next spawn go (tid 0: nowhere);
 * returns the old settings in old[6]. */
static void sinks(int ttid, int ttag, int otid, int otag, int *old)
{
    int ctx = pvm_getcontext();
    old[0] = pvm_setopt(PvmTraceTid, ttid);
    old[1] = pvm_setopt(PvmTraceCode, ttag);
    old[2] = pvm_setopt(PvmTraceContext, ttid ? ctx : 0);
    old[3] = pvm_setopt(PvmOutputTid, otid);
    old[4] = pvm_setopt(PvmOutputCode, otag);
    old[5] = pvm_setopt(PvmOutputContext, otid ? ctx : 0);
}

static void sinks_back(const int *old)
{
    pvm_setopt(PvmTraceTid, old[0]);
    pvm_setopt(PvmTraceCode, old[1]);
    pvm_setopt(PvmTraceContext, old[2]);
    pvm_setopt(PvmOutputTid, old[3]);
    pvm_setopt(PvmOutputCode, old[4]);
    pvm_setopt(PvmOutputContext, old[5]);
}

static int start(struct spawn_opts *s, const char *file, char **args, int *tids);
static void report(const struct spawn_opts *s, int n, const int *tids, int job);

/* spawn -@[file]: the console traces the job (two job numbers, as stock). */
static int spawn_traced(struct spawn_opts *s, const char *file, char **args)
{
    int no = jobs_reserve(2);
    printf("[%d]\n", no);
    struct tjob *j = tj_start(no, s->tracefile, s->redirect, s->outfile);
    if (!j)
        return 0;
    int *tids = calloc((size_t)s->count, sizeof *tids);
    if (!tids) {
        printf("spawn: out of memory\n");
        tj_drop(j);
        return 0;
    }
    int old[6];
    sinks(cons.mytid, CONS_TAG_JOB0 + no, cons.mytid, CONS_TAG_JOB0 + no + 1, old);
    int n = start(s, file, args, tids);
    sinks_back(old);
    if (n <= 0)
        tj_drop(j);
    report(s, n, tids, 0);
    free(tids);
    return 0;
}

int cmd_spawn(int argc, char **argv)
{
    /* tasks started from the console have no parent (as with stock) */
    struct spawn_opts s = { .count = 1, .flags = PvmNoSpawnParent };
    int i = 1;
    for (; i < argc && argv[i][0] == '-' && argv[i][1]; i++)
        if (option(argv[i] + 1, &s) < 0)
            return 0;
    if (i >= argc)
        return cons_wrongargs(argv[0]);
    const char *file = argv[i];
    if (s.trace)
        return spawn_traced(&s, file, argv + i + 1);
    FILE *out = stdout;
    int job = 0;
    if (s.redirect && s.outfile[0]) {
        if (!(out = fopen(s.outfile, s.append ? "a" : "w"))) {
            printf("spawn: %s: %s\n", s.outfile, strerror(errno));
            return 0;
        }
    }
    if (s.redirect) {
        if ((job = jobs_new(out, file)) < 0) {
            if (out != stdout)
                fclose(out);
            printf("spawn: out of memory\n");
            return 0;
        }
        printf("[%d]\n", job);
    }
    int *tids = calloc((size_t)s.count, sizeof *tids);
    if (!tids) {
        printf("spawn: out of memory\n");
        if (job)
            jobs_drop(job);
        return 0;
    }
    /* where the job's output goes: the console (a job tag) or the pvmd
     * log; no tracer (as stock: only -@ traces) */
    int old[6];
    sinks(0, 0, job ? cons.mytid : 0, job ? CONS_TAG_JOB0 + job : 0, old);
    int n = start(&s, file, argv + i + 1, tids);
    sinks_back(old);
    if (n < 0 && job)
        jobs_drop(job);
    report(&s, n, tids, job);
    if (job && n == 0)
        jobs_drop(job);
    free(tids);
    return 0;
}

/* The spawn itself, with the working directory and preload of s. */
static int start(struct spawn_opts *s, const char *file, char **args, int *tids)
{
    struct saved_env wd_sv = { NULL, NULL };
    if (s->wd[0])
        env_push("PVMSPAWNWD", s->wd, &wd_sv);
    int preload = s->preload && !cons.preload;
    if (preload)
        cons_preload_env(1);
    int n = pvm_spawn((char *)file, args, s->flags, s->where[0] ? s->where : NULL, s->count, tids);
    if (preload)
        cons_preload_env(0);
    if (s->wd[0])
        env_pop("PVMSPAWNWD", &wd_sv);
    return n;
}

/* "N successful" and the tids or errors; a plain job learns its tasks. */
static void report(const struct spawn_opts *s, int n, const int *tids, int job)
{
    if (n < 0) {
        cons_errline("spawn", NULL, n);
        return;
    }
    printf("%d successful\n", n);
    for (int k = 0; k < s->count; k++) {
        if (tids[k] > 0) {
            printf("t%x\n", tids[k]);
            if (job)
                jobs_add_task(job, tids[k]);
        } else if (tids[k] < 0 && (k == 0 || tids[k] != tids[k - 1])) {
            printf("%s\n", cons_err(tids[k]));
        }
    }
}
