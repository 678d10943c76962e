/*
 * cmd_spawn.c - spawn [options] file [args]: count, host or architecture,
 * working directory (the pvmd reads PVMSPAWNWD from the task's
 * environment), debugger, trace, and job output to the console or a file.
 * -! (or "preload on") starts the job with libpvm3am preloaded.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "cons.h"

int cons_preload_env(int on);   /* cmd_am.c */

struct spawn_opts {
    int count, flags, redirect, append, preload;
    char where[256], wd[1024], outfile[1024];
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
        s->flags |= PvmTaskTrace;
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
    /* where the job's output goes: the console (a job tag) or the pvmd log */
    int o_tid = pvm_setopt(PvmOutputTid, job ? cons.mytid : 0);
    int o_code = pvm_setopt(PvmOutputCode, job ? CONS_TAG_JOB0 + job : 0);
    int o_ctx = pvm_setopt(PvmOutputContext, job ? pvm_getcontext() : 0);
    struct saved_env wd_sv = { NULL, NULL };
    if (s.wd[0])
        env_push("PVMSPAWNWD", s.wd, &wd_sv);
    int preload = s.preload && !cons.preload;
    if (preload)
        cons_preload_env(1);
    int n = pvm_spawn((char *)file, argv + i + 1, s.flags, s.where[0] ? s.where : NULL, s.count,
                      tids);
    if (preload)
        cons_preload_env(0);
    if (s.wd[0])
        env_pop("PVMSPAWNWD", &wd_sv);
    pvm_setopt(PvmOutputTid, o_tid);
    pvm_setopt(PvmOutputCode, o_code);
    pvm_setopt(PvmOutputContext, o_ctx);
    if (n < 0) {
        cons_errline(argv[0], NULL, n);
        if (job)
            jobs_drop(job);
        free(tids);
        return 0;
    }
    printf("%d successful\n", n);
    for (int k = 0; k < s.count; k++) {
        if (tids[k] > 0) {
            printf("t%x\n", tids[k]);
            if (job)
                jobs_add_task(job, tids[k]);
        } else if (tids[k] < 0 && (k == 0 || tids[k] != tids[k - 1])) {
            printf("%s\n", cons_err(tids[k]));
        }
    }
    if (job && n == 0)
        jobs_drop(job);
    free(tids);
    return 0;
}
