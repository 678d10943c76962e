/*
 * cmd_task.c - tasks: ps, pstat, kill, sig, reset, id, jobs.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "pvmam.h"
#include "cons.h"

/* pvm_tasks' ti_flag bits (the pvmd's task flags, as the pvmd reports
 * them; pvm3.h does not name them). */
static const struct { int bit; const char *letter; } flagtab[] = {
    { 4, "c" },        /* connected */
    { 2, "f" },        /* started by the pvmd */
    { 8, "a" },        /* authorization pending */
    { 16, "o" },       /* closing */
    { 0x200, "H" },    /* hoster */
    { 0x100, "R" },    /* resource manager */
    { 0x400, "T" },    /* tasker */
};

static int host_by_name(const struct pvmhostinfo *h, int nh, const char *name)
{
    for (int i = 0; i < nh; i++)
        if (!strcmp(h[i].hi_name, name))
            return h[i].hi_tid;
    return 0;
}

int cmd_ps(int argc, char **argv)
{
    int all = 0, longfmt = 0, showall = 0, where = -1;
    int nh = 0, na;
    struct pvmhostinfo *h = NULL;
    int rc = pvm_config(&nh, &na, &h);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    for (int i = 1; i < argc; i++) {
        if (argv[i][0] != '-') {
            printf("ps: %s: not an option (ps -alx -hhost -nhost)\n", argv[i]);
            continue;
        }
        for (const char *o = argv[i] + 1; *o; o++) {
            if (*o == 'a') {
                all = 1;
            } else if (*o == 'l') {
                longfmt = 1;
            } else if (*o == 'x') {
                showall = 1;
            } else if (*o == 'h' || *o == 'n') {
                int t = 0;
                if (*o == 'h' ? cons_tid(o + 1, &t) < 0 : !(t = host_by_name(h, nh, o + 1)))
                    printf("unknown host %s\n", o + 1);
                else
                    where = t;
                break;
            } else {
                printf("unknown flag -%c\n", *o);
            }
        }
    }
    if (where == -1)
        where = all ? 0 : pvm_tidtohost(cons.mytid);
    int nt;
    struct pvmtaskinfo *ti;
    /* the host list may change under pvm_tasks: copy the names we print */
    struct { int tid; char name[64]; } hosts[64];
    int nhosts = nh < 64 ? nh : 64;
    for (int i = 0; i < nhosts; i++) {
        hosts[i].tid = h[i].hi_tid;
        snprintf(hosts[i].name, sizeof hosts[i].name, "%s", h[i].hi_name);
    }
    rc = pvm_tasks(where, &nt, &ti);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    /* pvm_tasks' array is the library's: mark libpvm3am tasks before the
     * mailbox lookups below could reuse it */
    struct pvmtaskinfo *copy = malloc(sizeof *copy * (size_t)(nt ? nt : 1));
    char (*names)[256] = malloc(sizeof *names * (size_t)(nt ? nt : 1));
    if (!copy || !names) {
        free(copy);
        free(names);
        printf("ps: out of memory\n");
        return 0;
    }
    memcpy(copy, ti, sizeof *copy * (size_t)nt);
    for (int i = 0; i < nt; i++) {
        snprintf(names[i], sizeof names[i], "%s", ti[i].ti_a_out ? ti[i].ti_a_out : "");
        copy[i].ti_a_out = names[i];
    }
    if (longfmt)
        printf("                    HOST      TID     PTID    PID   FLAG 0x COMMAND\n");
    else
        printf("                    HOST      TID   FLAG 0x COMMAND\n");
    for (int i = 0; i < nt; i++) {
        struct pvmtaskinfo *t = &copy[i];
        int me = t->ti_tid == cons.mytid;
        if (!showall && (me || !*t->ti_a_out))
            continue;
        const char *hn = "?";
        for (int k = 0; k < nhosts; k++)
            if (hosts[k].tid == t->ti_host)
                hn = hosts[k].name;
        char flags[64];
        int l = snprintf(flags, sizeof flags, "%x/", (unsigned)t->ti_flag);
        int first = 1;
        for (size_t k = 0; k < sizeof flagtab / sizeof flagtab[0]; k++)
            if (t->ti_flag & flagtab[k].bit) {
                l += snprintf(flags + l, sizeof flags - (size_t)l, "%s%s", first ? "" : ",",
                              flagtab[k].letter);
                first = 0;
            }
        if (pvmam_is_amtask(t->ti_tid) == 1)
            snprintf(flags + l, sizeof flags - (size_t)l, "%sam", first ? "" : ",");
        if (me)
            printf("%24s %8s", hn, "(cons)");
        else
            printf("%24s %8x", hn, t->ti_tid);
        if (longfmt)
            printf(" %8x %6d", t->ti_ptid, t->ti_pid);
        printf(" %9s %-12s\n", flags, *t->ti_a_out ? t->ti_a_out : "-");
    }
    free(copy);
    free(names);
    return 0;
}

int cmd_pstat(int argc, char **argv)
{
    if (argc < 2)
        return cons_wrongargs(argv[0]);
    for (int i = 1; i < argc; i++) {
        int tid;
        if (cons_tid(argv[i], &tid) < 0) {
            printf("pstat: %s: not a task id\n", argv[i]);
            continue;
        }
        int rc = pvm_pstat(tid);
        printf("t%8x  %s\n", tid, rc == PvmOk ? "run" : cons_err(rc));
    }
    return 0;
}

int cmd_kill(int argc, char **argv)
{
    int children = 0, i = 1;
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-c"))
            children = 1;
        else
            printf("kill: unknown option %s\n", argv[i]);
    }
    if (i >= argc)
        return cons_wrongargs(argv[0]);
    int nt = 0;
    struct pvmtaskinfo *ti = NULL;
    if (children && pvm_tasks(0, &nt, &ti) < 0)
        nt = 0;
    /* copy: pvm_kill must not see the library's array change under it */
    int *kids = malloc(sizeof *kids * (size_t)(nt ? nt : 1)), nk = 0;
    int *kidp = malloc(sizeof *kidp * (size_t)(nt ? nt : 1));
    for (int k = 0; kids && kidp && k < nt; k++) {
        kids[nk] = ti[k].ti_tid;
        kidp[nk++] = ti[k].ti_ptid;
    }
    for (; i < argc; i++) {
        int tid;
        if (cons_tid(argv[i], &tid) < 0) {
            printf("kill: %s: not a task id\n", argv[i]);
            continue;
        }
        if (tid == cons.mytid) {
            printf("t%x: that's me.\n", tid);
            continue;
        }
        /* a task that does not exist: nothing to say, as stock */
        for (int k = 0; children && kids && kidp && k < nk; k++)
            if (kidp[k] == tid && kids[k] != cons.mytid) {
                int rc = pvm_kill(kids[k]);
                if (rc < 0)
                    cons_errline(argv[0], argv[i], rc);
            }
        int rc = pvm_kill(tid);
        if (rc < 0)
            printf("kill: t%x: %s\n", tid, cons_err(rc));
    }
    free(kids);
    free(kidp);
    return 0;
}

int cmd_sig(int argc, char **argv)
{
    if (argc < 3)
        return cons_wrongargs(argv[0]);
    char *end;
    long sig = strtol(argv[1], &end, 10);
    if (*end || sig <= 0 || sig >= NSIG) {
        printf("sig: %s: not a signal number\n", argv[1]);
        return 0;
    }
    for (int i = 2; i < argc; i++) {
        int tid;
        if (cons_tid(argv[i], &tid) < 0) {
            printf("sig: %s: not a task id\n", argv[i]);
            continue;
        }
        int rc = pvm_pstat(tid) == PvmNoTask ? PvmNoTask : pvm_sendsig(tid, (int)sig);
        if (rc < 0)
            printf("sig: t%x: %s\n", tid, cons_err(rc));
    }
    return 0;
}

/* Every task but those that asked not to be reset (consoles do). */
int cmd_reset(int argc, char **argv)
{
    if (argc > 1) {
        printf("reset: \"%s\" not supported here (reset takes no arguments)\n", argv[1]);
        return 0;
    }
    int nt, *keep = NULL, nkeep = 0;
    struct pvmtaskinfo *ti;
    int rc = pvm_tasks(0, &nt, &ti);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    int *tids = malloc(sizeof *tids * (size_t)(nt ? nt : 1));
    if (!tids) {
        printf("reset: out of memory\n");
        return 0;
    }
    for (int i = 0; i < nt; i++)
        tids[i] = ti[i].ti_tid;
    pvm_getnoresets(&keep, &nkeep);
    int *kept = malloc(sizeof *kept * (size_t)(nkeep ? nkeep : 1));
    if (kept && nkeep)
        memcpy(kept, keep, sizeof *kept * (size_t)nkeep);
    for (int i = 0; i < nt; i++) {
        int skip = tids[i] == cons.mytid;
        for (int k = 0; kept && k < nkeep && !skip; k++)
            skip = kept[k] == tids[i];
        if (!skip)
            pvm_kill(tids[i]);
    }
    free(kept);
    free(tids);
    return 0;
}

int cmd_id(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("t%x\n", cons.mytid);
    return 0;
}

int cmd_jobs(int argc, char **argv)
{
    int longfmt = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-l"))
            longfmt = 1;
        else
            printf("jobs: unknown option %s\n", argv[i]);
    }
    jobs_list(longfmt);
    return 0;
}
