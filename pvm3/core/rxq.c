/*
 * rxq.c - where incoming messages go: the pending daemon reply, the
 * library's control handlers (TC_*, run later at a safe point), a route's
 * own traffic, or the one receive queue the pvm_recv family matches on.
 * The input path (wire.c, sink.c) calls in here; nothing here waits: the
 * progress engine that waits and runs the control list is progress.c.
 */
#include <stdlib.h>
#include "lpvm.h"
#include "route_int.h"

static struct pmsg *qhead, *qtail;          /* user receive queue */
static struct pmsg *chead, *ctail;          /* control work, deferred */
static unsigned long ndelivered;
static unsigned long ninput;   /* anything at all arrived (replies too) */

static void append(struct pmsg **h, struct pmsg **t, struct pmsg *m)
{
    m->qnext = NULL;
    m->qprev = *t;
    if (*t)
        (*t)->qnext = m;
    else
        *h = m;
    *t = m;
}

/* Something arrived that bypassed pvmi_deliver (a message landed in a
 * pvm_precv buffer): waiting must stop too. */
void pvmi_note_input(void) { ninput++; }

void pvmi_deliver(struct pmsg *m)
{
    ninput++;
    if (pvmi_tm_take_reply(m))
        return;
    if (m->ctx == SYSCTX_TC && m->tag >= TC_FIRST && m->tag <= TC_LAST) {
        /* handlers may send: never in the middle of another send */
        append(&chead, &ctail, m);
        return;
    }
    if (pvmi_routes_filter(m))
        return;
    if (pvmi_mhf_match(m)) {
        /* user message handler: runs at the safe point, like control */
        append(&chead, &ctail, m);
        return;
    }
    append(&qhead, &qtail, m);
    pvmi_sink_saw(m);
    ndelivered++;
}

void pvmi_rxq_remove(struct pmsg *m)
{
    if (m->qprev)
        m->qprev->qnext = m->qnext;
    else
        qhead = m->qnext;
    if (m->qnext)
        m->qnext->qprev = m->qprev;
    else
        qtail = m->qprev;
    m->qnext = m->qprev = NULL;
}

struct pmsg *pvmi_rxq_match(int src, int tag, int ctx)
{
    for (struct pmsg *m = qhead; m; m = m->qnext)
        if ((src == -1 || m->src == src) && (tag == -1 || m->tag == tag) &&
            m->ctx == ctx)
            return m;
    return NULL;
}

/* pvm_recvf semantics: <0 stop with nothing, 1 take this one, >1 take the
 * best after scanning all, 0 skip. */
struct pmsg *pvmi_rxq_match_fn(int src, int tag, int (*fn)(int, int, int))
{
    struct pmsg *best = NULL;
    int bestv = 0;
    for (struct pmsg *m = qhead; m; m = m->qnext) {
        int v = fn(m->mid, src, tag);
        if (v < 0)
            return NULL;
        if (v == 1)
            return m;
        if (v > bestv) {
            bestv = v;
            best = m;
        }
    }
    return best;
}

/* The control list, for the progress engine (progress.c): the oldest
 * entry, unlinked, or NULL. */
struct pmsg *pvmi_ctrlq_take(void)
{
    struct pmsg *m = chead;
    if (!m)
        return NULL;
    chead = m->qnext;
    if (!chead)
        ctail = NULL;
    m->qnext = m->qprev = NULL;
    return m;
}

int pvmi_ctrlq_pending(void) { return chead != NULL; }
unsigned long pvmi_rxq_delivered(void) { return ndelivered; }
unsigned long pvmi_rxq_inputs(void) { return ninput; }

/* Queues a route keeps for itself (route.h): the same link as the
 * receive queue, which a held message is not on. */
void pvmi_msgq_put(struct pvmi_msgq *q, struct pmsg *m)
{
    m->qnext = NULL;
    if (q->tail)
        q->tail->qnext = m;
    else
        q->head = m;
    q->tail = m;
}

struct pmsg *pvmi_msgq_take(struct pvmi_msgq *q)
{
    struct pmsg *m = q->head;
    if (!m)
        return NULL;
    q->head = m->qnext;
    if (!q->head)
        q->tail = NULL;
    m->qnext = NULL;
    return m;
}

/* Drop everything queued (tests and fuzzing start each input clean). */
void pvmi_rxq_reset(void)
{
    struct pmsg **heads[] = { &qhead, &chead };
    for (int i = 0; i < 2; i++)
        while (*heads[i]) {
            struct pmsg *m = *heads[i];
            *heads[i] = m->qnext;
            pmsg_free(m);
        }
    qtail = ctail = NULL;
}
