/*
 * cmd_trace.c - trace: show or change the trace mask, buffer size and
 * options spawned tasks get (pvm_settmask(PvmTaskChild), PvmTraceBuffer,
 * PvmTraceOptions); the words of one command act in turn, as stock's
 * console reads them.  The console starts with the mask "xpvm" (the
 * events XPVM draws), whole events and no buffering, as stock's does.
 * The tasks (stock or libpvm3am, pvm3/core/trace.c) generate the events;
 * spawn -@ makes the console their tracer (trace_jobs.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <pvmtev.h>
#include "cons.h"
#include "tev_names.h"   /* pvm3/core: the event names, shared with the tasks */

static const int xpvm[] = {
    TEV_BARRIER, TEV_BCAST, TEV_JOINGROUP, TEV_LVGROUP, TEV_MYTID, TEV_PARENT, TEV_SIBLINGS,
    TEV_SPAWN, TEV_SENDSIG, TEV_KILL, TEV_EXIT, TEV_MCAST, TEV_SEND, TEV_RECV, TEV_RECVF,
    TEV_NRECV, TEV_PSEND, TEV_PRECV, TEV_TRECV, TEV_PROBE, TEV_ADDMHF, TEV_DELMHF,
    TEV_MHF_INVOKE, TEV_USER_DEFINED,
};

static int tbuf = 0, topt = PvmTraceFull;   /* what "trace buf", "trace opt" report */

/* Events a program can ask for: not the pvmd's nor the summaries. */
static int listed(int e)
{
    return e != TEV_NEWTASK && e != TEV_ENDTASK && e != TEV_SPNTASK && e != TEV_TIMING &&
           e != TEV_PROFILING;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(tev_names[*(const int *)a], tev_names[*(const int *)b]);
}

/* The mask in columns, sorted down the columns, '*' for events traced. */
static void show(const char *mask)
{
    int order[TEV_MAX + 1], n = 0, maxlen = 0;
    for (int e = TEV_FIRST; e <= TEV_MAX; e++)
        if (listed(e)) {
            order[n++] = e;
            if ((int)strlen(tev_names[e]) > maxlen)
                maxlen = (int)strlen(tev_names[e]);
        }
    qsort(order, (size_t)n, sizeof order[0], by_name);
    int cols = 79 / (maxlen + 4), width = 79 / cols - 4, rows = (n + cols - 1) / cols;
    for (int r = 0; r < rows; r++)
        for (int c = 0; c < cols; c++) {
            int k = r + c * rows;
            if (k >= n) {
                printf("\n");
                continue;
            }
            printf(" %c %-*s%c", TEV_MASK_CHECK(mask, order[k]) ? '*' : ' ', width,
                   tev_names[order[k]], c == cols - 1 ? '\n' : ' ');
        }
}

static int find_ev(const char *w)
{
    const char *bare = strncmp(w, "pvm_", 4) ? w : w + 4;
    for (int e = TEV_FIRST; e <= TEV_MAX; e++)
        if (!strcmp(tev_names[e], bare) || !strcmp(tev_names[e], w))
            return e;
    return -1;
}

static void set_opt(const char *w)
{
    if (!strcmp(w, "full"))
        topt = PvmTraceFull;
    else if (!strcmp(w, "time"))
        topt = PvmTraceTime;
    else if (!strcmp(w, "count"))
        topt = PvmTraceCount;
    else
        printf("\nError:  Unknown Trace Option \"%s\"\n\n", w);
    pvm_setopt(PvmTraceOptions, topt);
}

static void say_opt(void)
{
    const char *s = topt == PvmTraceFull ? "full" : topt == PvmTraceTime ? "time"
                  : topt == PvmTraceCount ? "count" : NULL;
    if (s)
        printf("\nTrace Options set to \"%s\"\n\n", s);
    else
        printf("\nTrace Options set to \"<Unknown=%d>\"\n\n", topt);
}

int cmd_trace(int argc, char **argv)
{
    Pvmtmask mask;
    pvm_gettmask(PvmTaskChild, mask);
    if (argc == 1) {
        show(mask);
        return 0;
    }
    int on = 1, changed = 0;
    for (int i = 1; i < argc; i++) {
        const char *w = argv[i];
        if (!strcmp(w, "+") || !strcmp(w, "-")) {
            on = *w == '+';
        } else if (!strcmp(w, "*")) {
            for (int e = TEV_FIRST; e <= TEV_MAX; e++)
                if (on)
                    TEV_MASK_SET(mask, e);
                else
                    TEV_MASK_UNSET(mask, e);
            changed = 1;
        } else if (!strcmp(w, "buf")) {
            if (i + 1 < argc) {
                tbuf = atoi(argv[++i]);
                pvm_setopt(PvmTraceBuffer, tbuf);
            } else {
                printf("\nTrace Buffering set to %d bytes\n\n", tbuf);
            }
        } else if (!strcmp(w, "opt")) {
            if (i + 1 < argc)
                set_opt(argv[++i]);
            else
                say_opt();
        } else if (!strcmp(w, "xpvm")) {
            TEV_MASK_INIT(mask);
            for (size_t k = 0; k < sizeof xpvm / sizeof xpvm[0]; k++)
                TEV_MASK_SET(mask, xpvm[k]);
            changed = 1;
        } else {
            int e = find_ev(w);
            if (e < 0) {
                printf("no such event \"%s\"\n", w);
                continue;
            }
            if (on)
                TEV_MASK_SET(mask, e);
            else
                TEV_MASK_UNSET(mask, e);
            changed = 1;
        }
    }
    if (changed)
        pvm_settmask(PvmTaskChild, mask);
    return 0;
}

void cons_trace_init(void)
{
    char *argv[] = { "trace", "xpvm", NULL };
    pvm_setopt(PvmTraceOptions, PvmTraceFull);
    pvm_setopt(PvmTraceBuffer, 0);
    cmd_trace(2, argv);
}
