/*
 * rxq.c - where incoming messages go: the pending daemon reply, the
 * library's control handlers (TC_*, run later at a safe point), a route's
 * own traffic, or the one receive queue the pvm_recv family matches on.
 * pvmi_progress() waits on every source at once (wait.c).
 */
#include <stdlib.h>
#include "lpvm.h"
#include "route_int.h"

static struct pmsg *qhead, *qtail;          /* user receive queue */
static struct pmsg *chead, *ctail;          /* control work, deferred */
static unsigned long ndelivered;
static unsigned long ninput;   /* anything at all arrived (replies too) */
static int depth;

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

static void run_control(void)
{
    while (chead) {
        struct pmsg *m = chead;
        chead = m->qnext;
        if (!chead)
            ctail = NULL;
        m->qnext = m->qprev = NULL;
        if (m->ctx == SYSCTX_TC && m->tag >= TC_FIRST && m->tag <= TC_LAST) {
            pvmi_ctrl(m);
            pmsg_free(m);
        } else {
            pvmi_mhf_run(m);
        }
    }
}

void pvmi_run_pending(void)
{
    if (chead && depth == 0 && !pvmi_tm_busy())
        run_control();
}

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

/* Control work this pvmi_progress (depth 1) can run when its wait ends.
 * Work deferred behind a pending daemon request or an outer call is no
 * reason to stop waiting: counting it made every wait of a request
 * whose reply came after a control message (TC_SIBLINGS at start-up) a
 * busy loop of zero-timeout polls. */
static int control_runnable(void)
{
    return chead && depth == 1 && !pvmi_tm_busy();
}

/* Something arrived since the wait began, or there is work to run. */
static int woken(const void *in_before)
{
    return ninput != *(const unsigned long *)in_before || control_runnable() || pvmi.dead;
}

int pvmi_progress(int timeout_ms)
{
    unsigned long before = ndelivered, in_before = ninput;
    int rc = 0;

    if (pvmi.dead || pvmi.pvmd.fd < 0)
        return PvmSysErr;
    depth++;
    /* progress made here (a link that opened, say) is news for the
     * caller's loop: look again before sleeping */
    if (pvmi_routes_poll() > 0 || ndelivered != before || control_runnable())
        timeout_ms = 0;
    rc = pvmi_wait(timeout_ms, woken, &in_before);
    depth--;
    if (rc < 0)
        return rc;
    if (depth == 0 && !pvmi_tm_busy())
        run_control();
    if (pvmi.dead)
        return PvmSysErr;
    return (int)(ndelivered - before);
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
