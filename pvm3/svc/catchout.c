/*
 * catchout.c - pvm_catchout: children's stdout/stderr come to us as
 * TC_OUTPUT control messages (the pvmd sends output to the sink we give
 * spawned tasks, docs/protocol.md) and are written to a FILE line by
 * line, "[tNNN] " in front when PvmShowTids is on, as stock does.  At
 * pvm_exit we wait until every child we heard of has closed its output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "compat.h"

struct tout {
    struct tout *next;
    int tid;
    int state;        /* GOT_SPAWN | GOT_EOF */
    char *buf;        /* partial line */
    size_t len, cap;
};
#define GOT_SPAWN 1
#define GOT_EOF   2

static struct tout *list;
static FILE *outff;

static struct tout *find(int tid, int create)
{
    for (struct tout *o = list; o; o = o->next)
        if (o->tid == tid)
            return o;
    if (!create)
        return NULL;
    struct tout *o = calloc(1, sizeof *o);
    if (!o)
        return NULL;
    o->tid = tid;
    o->next = list;
    list = o;
    if (outff && pvmi.showtids)
        fprintf(outff, "[t%x] BEGIN\n", tid);
    return o;
}

static void drop(struct tout *o)
{
    for (struct tout **pp = &list; *pp; pp = &(*pp)->next)
        if (*pp == o) {
            *pp = o->next;
            break;
        }
    free(o->buf);
    free(o);
}

static void line(int tid, const char *s)
{
    if (!outff)
        return;
    if (pvmi.showtids)
        fprintf(outff, "[t%x] %s\n", tid, s);
    else
        fprintf(outff, "%s\n", s);
}

static void maybe_done(struct tout *o)
{
    if ((o->state & (GOT_SPAWN | GOT_EOF)) != (GOT_SPAWN | GOT_EOF))
        return;
    if (outff && pvmi.showtids)
        fprintf(outff, "[t%x] EOF\n", o->tid);
    drop(o);
}

static void data(struct tout *o, struct pmsg *m, int n)
{
    if (o->len + (size_t)n + 1 > o->cap) {
        char *b = realloc(o->buf, o->len + (size_t)n + 1);
        if (!b)
            return;
        o->buf = b;
        o->cap = o->len + (size_t)n + 1;
    }
    if (pmsg_read(m, o->buf + o->len, (size_t)n) < 0)
        return;
    o->len += (size_t)n;
    o->buf[o->len] = '\0';
    char *p, *start = o->buf;
    while ((p = strchr(start, '\n'))) {
        *p = '\0';
        line(o->tid, start);
        start = p + 1;
    }
    o->len -= (size_t)(start - o->buf);
    memmove(o->buf, start, o->len + 1);
}

/* ctrl.c: one TC_OUTPUT message {tid, n, bytes | 0 EOF | -1 SPAWN | -2 NEW}. */
static void catchout_msg(struct pmsg *m)
{
    int tid, n;
    if (pvmi_get_int(m, &tid) < 0 || pvmi_get_int(m, &n) < 0)
        return;
    struct tout *o;
    if (n > 0) {
        if (!(o = find(tid, 0)))
            pvmlogprintf("pvmclaimo() bogus message, no task t%x\n", tid);   /* as stock */
        else if ((size_t)n <= pmsg_unread(m))
            data(o, m, n);
    } else if (n == TO_EOF) {
        if (!(o = find(tid, 0))) {
            pvmlogprintf("pvmclaimo() bogus message, no task t%x\n", tid);
            return;
        }
        if (o->len > 0) {
            line(tid, o->buf);
            o->len = 0;
        }
        o->state |= GOT_EOF;
        maybe_done(o);
    } else if (n == TO_SPAWN) {
        if ((o = find(tid, 1))) {
            o->state |= GOT_SPAWN;
            maybe_done(o);
        }
    } else if (n == TO_NEW) {
        find(tid, 1);
    }
}

static void catchout_flush(void);

int pvm_catchout(FILE *ff)
{
    /* TC_OUTPUT is sent to us only once this has been called with a file
     * (the c_out* options below): from then on ctrl.c and pvm_exit
     * reach this file through these hooks. */
    pvmi.output_msg = catchout_msg;
    pvmi.output_flush = catchout_flush;
    if (ff) {
        int rc = pvmi_enter("pvm_catchout");
        if (rc < 0)
            return rc;
        pvmi.c_outtid = pvmi.tid;
        pvmi.c_outctx = SYSCTX_TC;
        pvmi.c_outtag = TC_OUTPUT;
    } else {
        pvmi.c_outtid = pvmi.outtid;
        pvmi.c_outctx = pvmi.outctx;
        pvmi.c_outtag = pvmi.outtag;
    }
    outff = ff;
    return 0;
}

/* pvm_exit: children still writing are waited for, saying so on stderr
 * as stock does (while PvmShowTids is on), then the records go. */
static void catchout_flush(void)
{
    if (outff) {
        /* output-control messages that came with the last reply (TO_NEW
         * precedes the spawn reply) may still wait to be run */
        if (!pvmi.dead)
            pvmi_progress(0);
        if (list && !pvmi.dead && pvmi.showtids)
            pvmlogerror("child task(s) still running.  waiting...\n");
        while (list && !pvmi.dead)
            if (pvmi_progress(-1) < 0)
                break;
        fflush(outff);
        pvm_catchout(NULL);
    }
    while (list)
        drop(list);
}
