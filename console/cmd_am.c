/*
 * cmd_am.c - the fast-path commands: transport (PVMAM_TRANSPORT for
 * spawned tasks), amstat (live AM statistics from libpvm3am tasks) and
 * preload (spawn unmodified stock binaries with libpvm3am preloaded).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "pvmam.h"
#include "cons.h"

/* What libpvm3am takes (pvmam/pvmam.h): tcp, udp, shm or ucx (when built
 * with UCX; libpvm3am reports it otherwise), or two of them
 * separated by a comma (shm,tcp), or off. */
static int transport_ok(const char *t)
{
    static const char *const names[] = { "tcp", "udp", "shm", "ucx" };
    if (!strcmp(t, "off"))
        return 1;
    int seen[4] = { 0 }, n = 0;
    for (const char *a = t;; a++) {
        size_t len = strcspn(a, ",");
        int k = 0;
        while (k < 4 && (strlen(names[k]) != len || strncmp(a, names[k], len)))
            k++;
        if (k == 4 || seen[k] || ++n > 2)
            return 0;
        seen[k] = 1;
        a += len;
        if (!*a)
            return 1;
    }
}

int cmd_transport(int argc, char **argv)
{
    if (argc > 2)
        return cons_wrongargs(argv[0]);
    if (argc == 2) {
        const char *t = argv[1];
        if (!strcmp(t, "default")) {
            unsetenv("PVMAM_TRANSPORT");
            cons_unexport("PVMAM_TRANSPORT");
        } else if (transport_ok(t)) {
            setenv("PVMAM_TRANSPORT", t, 1);
            cons_export("PVMAM_TRANSPORT");
        } else {
            printf("transport: %s: not a transport (tcp, udp, shm, two of them in order of "
                   "preference such as shm,tcp, off or default)\n", t);
            return 0;
        }
    }
    const char *t = getenv("PVMAM_TRANSPORT");
    if (t)
        printf("PVMAM_TRANSPORT=%s for spawned tasks\n", t);
    else
        printf("PVMAM_TRANSPORT not set: spawned libpvm3am tasks use shm,tcp\n");
    return 0;
}

/* ---- amstat ------------------------------------------------------------- */

static void row(const char *who, const char *route, const struct pvmam_stats *s)
{
    printf("%16s %5s %7s %10llu %12llu %10llu %12llu %7llu %6llu %6llu %6llu\n", who, route,
           s->transport[0] ? s->transport : "-",
           (unsigned long long)(s->am_msgs_sent + s->am_msgs_recv),
           (unsigned long long)(s->am_bytes_sent + s->am_bytes_recv),
           (unsigned long long)(s->pvmd_msgs_sent + s->pvmd_msgs_recv),
           (unsigned long long)(s->pvmd_bytes_sent + s->pvmd_bytes_recv),
           (unsigned long long)s->retransmits, (unsigned long long)s->duplicates,
           (unsigned long long)s->drops, (unsigned long long)s->auth_drops);
}

static void one(int tid, const char *cmd, int wait_ms)
{
    static struct pvmam_report r;   /* big: not on the stack */
    int rc = pvmam_report(tid, wait_ms, &r);
    printf("t%x (%s) ", tid, cmd && *cmd ? cmd : "-");
    if (rc == PvmNotFound) {
        printf("stock task: no AM\n");
        return;
    }
    if (rc == PvmNoData) {
        printf("libpvm3am: no answer within %d ms\n", wait_ms);
        return;
    }
    if (rc < 0) {
        printf("%s\n", cons_err(rc));
        return;
    }
    printf("libpvm3am, transport %s, %d AM link%s\n", r.transport, r.total.peers_am,
           r.total.peers_am == 1 ? "" : "s");
    printf("%16s %5s %7s %10s %12s %10s %12s %7s %6s %6s %6s\n", "PEER", "ROUTE", "VIA",
           "AM-MSGS", "AM-BYTES",
           "PVMD-MSGS", "PVMD-BYTES", "RETRANS", "DUPS", "DROPS", "AUTH");
    row("total", "-", &r.total);
    static const char *const routes[] = { "pvmd", "am", "dead" };
    for (int i = 0; i < r.npeers; i++) {
        char who[16];
        snprintf(who, sizeof who, "t%x", r.peer[i].tid);
        int k = r.peer[i].route;
        row(who, k >= 0 && k <= 2 ? routes[k] : "?", &r.peer[i].st);
    }
    if (r.more)
        printf("%16s (%d more peers)\n", "", r.more);
}

int cmd_amstat(int argc, char **argv)
{
    int wait_ms = cons.amstat_ms, i = 1;
    if (i < argc && !strncmp(argv[i], "-w", 2)) {
        const char *v = argv[i][2] ? argv[i] + 2 : (i + 1 < argc ? argv[++i] : "");
        char *end;
        long w = strtol(v, &end, 10);
        if (!*v || *end || w < 0 || w > 600000) {
            printf("amstat: -w %s: milliseconds from 0 to 600000\n", v);
            return 0;
        }
        wait_ms = (int)w;
        i++;
    }
    int nt;
    struct pvmtaskinfo *ti;
    int rc = pvm_tasks(0, &nt, &ti);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    /* keep what we print: later calls reuse the library's array */
    struct { int tid; char cmd[256]; } *t = malloc(sizeof *t * (size_t)(nt ? nt : 1));
    if (!t) {
        printf("amstat: out of memory\n");
        return 0;
    }
    for (int k = 0; k < nt; k++) {
        t[k].tid = ti[k].ti_tid;
        snprintf(t[k].cmd, sizeof t[k].cmd, "%s", ti[k].ti_a_out ? ti[k].ti_a_out : "");
    }
    if (i == argc) {
        for (int k = 0; k < nt; k++)
            if (t[k].tid != cons.mytid && t[k].cmd[0])
                one(t[k].tid, t[k].cmd, wait_ms);
    }
    for (; i < argc; i++) {
        int tid, k;
        if (cons_tid(argv[i], &tid) < 0) {
            printf("amstat: %s: not a task id\n", argv[i]);
            continue;
        }
        for (k = 0; k < nt && t[k].tid != tid; k++)
            ;
        if (k == nt) {
            printf("amstat: t%x: %s\n", tid, cons_err(PvmNoTask));
            continue;
        }
        one(tid, t[k].cmd, wait_ms);
    }
    free(t);
    return 0;
}

/* ---- preload ------------------------------------------------------------ */

/* The library to preload: $PVMAM_PRELOAD_LIB (tests use the build tree's)
 * or the installed one. */
static const char *cons_preload_lib(void)
{
    const char *l = getenv("PVMAM_PRELOAD_LIB");
    return l && *l ? l : PVMAM_LIBDIR "/libpvm3am.so.0";
}

/* Spawned tasks get LD_PRELOAD through PVM_EXPORT (and pass it on to
 * their own children the same way). */
int cons_preload_env(int on)
{
    static char *saved;
    static int active, had;
    if (on && !active) {
        const char *old = getenv("LD_PRELOAD");
        had = old != NULL;
        saved = old ? strdup(old) : NULL;
        char buf[4096];
        snprintf(buf, sizeof buf, "%s%s%s", cons_preload_lib(), old && *old ? ":" : "",
                 old ? old : "");
        setenv("LD_PRELOAD", buf, 1);
        cons_export("LD_PRELOAD");
        active = 1;
    } else if (!on && active) {
        if (had)
            setenv("LD_PRELOAD", saved ? saved : "", 1);
        else
            unsetenv("LD_PRELOAD");
        cons_unexport("LD_PRELOAD");
        free(saved);
        saved = NULL;
        active = 0;
    }
    return 0;
}

int cmd_preload(int argc, char **argv)
{
    if (argc > 2)
        return cons_wrongargs(argv[0]);
    if (argc == 2) {
        if (!strcmp(argv[1], "on"))
            cons.preload = 1;
        else if (!strcmp(argv[1], "off"))
            cons.preload = 0;
        else {
            printf("preload: %s: say on or off\n", argv[1]);
            return 0;
        }
        cons_preload_env(cons.preload);
    }
    printf("preload %s (%s)\n", cons.preload ? "on" : "off", cons_preload_lib());
    return 0;
}
