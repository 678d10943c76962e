/*
 * cmd_trace.c - trace: show or change the trace mask, buffer and options
 * passed to spawned tasks (pvm_settmask(PvmTaskChild), PvmTraceBuffer,
 * PvmTraceOptions).  The tasks (stock or libpvm3am, pvm3/trace.c)
 * generate the events.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include <pvmtev.h>
#include "cons.h"

#define EV(x) { #x, TEV_##x }
static const struct { const char *name; int ev; } evs[] = {
    EV(ADDHOSTS), EV(BARRIER), EV(BCAST), EV(BUFINFO), EV(CONFIG), EV(DELETE), EV(DELHOSTS),
    EV(EXIT), EV(FREEBUF), EV(GETFDS), EV(GETINST), EV(GETOPT), EV(GETRBUF), EV(GETSBUF),
    EV(GETTID), EV(GSIZE), EV(HALT), EV(INITSEND), EV(INSERT), EV(JOINGROUP), EV(KILL),
    EV(LOOKUP), EV(LVGROUP), EV(MCAST), EV(MKBUF), EV(MSTAT), EV(MYTID), EV(NOTIFY), EV(NRECV),
    EV(PARENT), EV(PERROR), EV(PKBYTE), EV(PKCPLX), EV(PKDCPLX), EV(PKDOUBLE), EV(PKFLOAT),
    EV(PKINT), EV(PKUINT), EV(PKLONG), EV(PKULONG), EV(PKSHORT), EV(PKUSHORT), EV(PKSTR),
    EV(PROBE), EV(PSTAT), EV(RECV), EV(RECVF), EV(SEND), EV(SENDSIG), EV(SETOPT), EV(SETRBUF),
    EV(SETSBUF), EV(SPAWN), EV(START_PVMD), EV(TASKS), EV(TICKLE), EV(TIDTOHOST), EV(TRECV),
    EV(UPKBYTE), EV(UPKCPLX), EV(UPKDCPLX), EV(UPKDOUBLE), EV(UPKFLOAT), EV(UPKINT),
    EV(UPKUINT), EV(UPKLONG), EV(UPKULONG), EV(UPKSHORT), EV(UPKUSHORT), EV(UPKSTR),
    EV(VERSION), EV(REG_HOSTER), EV(REG_RM), EV(REG_TASKER), EV(REG_TRACER), EV(ARCHCODE),
    EV(CATCHOUT), EV(GETMWID), EV(GETTMASK), EV(HOSTSYNC), EV(PACKF), EV(PRECV), EV(PSEND),
    EV(REDUCE), EV(SETMWID), EV(SETTMASK), EV(UNPACKF), EV(GATHER), EV(SCATTER), EV(PUTINFO),
    EV(GETINFO), EV(DELINFO), EV(GETMBOXINFO), EV(NEWCONTEXT), EV(FREECONTEXT),
    EV(SETCONTEXT), EV(GETCONTEXT), EV(SIBLINGS), EV(GETMINFO), EV(SETMINFO), EV(ADDMHF),
    EV(DELMHF), EV(MHF_INVOKE), EV(USER_DEFINED),
};
#define NEVS ((int)(sizeof evs / sizeof evs[0]))

static int find_ev(const char *name)
{
    char up[64];
    size_t i = 0;
    for (; name[i] && i < sizeof up - 1; i++)
        up[i] = (char)toupper((unsigned char)name[i]);
    up[i] = '\0';
    for (int k = 0; k < NEVS; k++)
        if (!strcmp(evs[k].name, up))
            return k;
    return -1;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(evs[*(const int *)a].name, evs[*(const int *)b].name);
}

static void show(const char *mask)
{
    int order[NEVS];
    for (int k = 0; k < NEVS; k++)
        order[k] = k;
    qsort(order, NEVS, sizeof order[0], cmp_names);
    int rows = (NEVS + 3) / 4;
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < 4; c++) {
            int k = c * rows + r;
            if (k >= NEVS)
                break;
            char low[64];
            size_t i = 0;
            for (; evs[order[k]].name[i] && i < sizeof low - 1; i++)
                low[i] = (char)tolower((unsigned char)evs[order[k]].name[i]);
            low[i] = '\0';
            printf(" %c %-15s", TEV_MASK_CHECK(mask, evs[order[k]].ev) ? '*' : ' ', low);
        }
        printf("\n");
    }
}

int cmd_trace(int argc, char **argv)
{
    Pvmtmask mask;
    pvm_gettmask(PvmTaskChild, mask);
    if (argc == 1) {
        show(mask);
        return 0;
    }
    if (!strcmp(argv[1], "buf") || !strcmp(argv[1], "opt")) {
        int what = argv[1][0] == 'b' ? PvmTraceBuffer : PvmTraceOptions;
        if (argc == 2) {
            printf("%d\n", pvm_getopt(what));
            return 0;
        }
        int v;
        if (what == PvmTraceBuffer) {
            char *end;
            v = (int)strtol(argv[2], &end, 0);
            if (*end || v < 0) {
                printf("trace: buf %s: not a byte count\n", argv[2]);
                return 0;
            }
        } else if (!strcmp(argv[2], "full")) {
            v = PvmTraceFull;
        } else if (!strcmp(argv[2], "time")) {
            v = PvmTraceTime;
        } else if (!strcmp(argv[2], "count")) {
            v = PvmTraceCount;
        } else {
            printf("Error:  Unknown Trace Option \"%s\"\n", argv[2]);
            return 0;
        }
        pvm_setopt(what, v);
        return 0;
    }
    int set = 1, i = 1;
    if (!strcmp(argv[1], "+") || !strcmp(argv[1], "-")) {
        set = argv[1][0] == '+';
        i = 2;
    }
    if (i >= argc)
        return cons_wrongargs(argv[0]);
    for (; i < argc; i++) {
        if (!strcmp(argv[i], "*")) {
            for (int k = 0; k < NEVS; k++) {
                if (set)
                    TEV_MASK_SET(mask, evs[k].ev);
                else
                    TEV_MASK_UNSET(mask, evs[k].ev);
            }
            continue;
        }
        int k = find_ev(argv[i]);
        if (k < 0) {
            printf("no such event \"%s\"\n", argv[i]);
            continue;
        }
        if (set)
            TEV_MASK_SET(mask, evs[k].ev);
        else
            TEV_MASK_UNSET(mask, evs[k].ev);
    }
    int rc = pvm_settmask(PvmTaskChild, mask);
    if (rc < 0)
        cons_errline(argv[0], NULL, rc);
    return 0;
}
