/*
 * progress.c - the progress engine: pvmi_progress() waits on every source
 * at once (wait.c) until input arrives, then runs the deferred control
 * work (ctrl.c, mhf.c) from the receive queue's control list (rxq.c) at
 * the safe point: outside any other pvmi_progress and with no daemon
 * request waiting for its reply (tm_match.c).  Kept apart from the queue
 * so that the queue, which the input path fills, calls nothing that waits.
 */
#include <stdlib.h>
#include "lpvm.h"
#include "route_int.h"

static int depth;

static void run_control(void)
{
    struct pmsg *m;
    while ((m = pvmi_ctrlq_take())) {
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
    if (pvmi_ctrlq_pending() && depth == 0 && !pvmi_tm_busy())
        run_control();
}

/* Control work this pvmi_progress (depth 1) can run when its wait ends.
 * Work deferred behind a pending daemon request or an outer call is no
 * reason to stop waiting: counting it made every wait of a request
 * whose reply came after a control message (TC_SIBLINGS at start-up) a
 * busy loop of zero-timeout polls. */
static int control_runnable(void)
{
    return pvmi_ctrlq_pending() && depth == 1 && !pvmi_tm_busy();
}

/* Something arrived since the wait began, or there is work to run. */
static int woken(const void *in_before)
{
    return pvmi_rxq_inputs() != *(const unsigned long *)in_before || control_runnable() ||
           pvmi.dead;
}

/* A receive that waits for tid's message first polls only what tid sends
 * (route.h poll_from): the message is usually there already, and this
 * skips the wait (wait.c) and the other routes' and peers' polls.  Never
 * waits.  Only when nothing else is due: not nested in a pvmi_progress,
 * the daemon socket quiet (its signal, dwatch.c; so a message or control
 * work from the pvmd is never passed over: the caller then makes a full
 * pvmi_progress), and not more than QUICK_MAX - 1 times in a row, so that the
 * routes' own work (link changes, other peers' input) runs at least that
 * often in a receive loop that always finds its message.  Control work
 * the poll queued runs as after pvmi_progress.  Returns > 0 progress, 0
 * none, -1 not done (use pvmi_progress), or a PVM error. */
#define QUICK_MAX 16

int pvmi_progress_quick(void)
{
    static unsigned quick;
    if (depth || pvmi.dead || pvmi.pvmd.fd < 0 || !pvmi_dwatch_quiet() ||
        ++quick >= QUICK_MAX) {
        quick = 0;
        return 0;
    }
    return 1;
}

int pvmi_progress_from(int tid)
{
    return pvmi_progress_quick() ? pvmi_progress_poll_from(tid) : -1;
}

int pvmi_progress_poll_from(int tid)
{
    depth++;
    int rc = pvmi_routes_poll_from(tid);
    depth--;
    if (rc < 0)
        return -1;
    if (pvmi_ctrlq_pending() && !pvmi_tm_busy())
        run_control();
    return pvmi.dead ? PvmSysErr : rc;
}

int pvmi_progress(int timeout_ms) { return pvmi_progress_for(-1, timeout_ms); }

int pvmi_progress_for(int tid, int timeout_ms)
{
    unsigned long before = pvmi_rxq_delivered(), in_before = pvmi_rxq_inputs();
    int rc = 0;

    if (pvmi.dead || pvmi.pvmd.fd < 0)
        return PvmSysErr;
    depth++;
    /* progress made here (a link that opened, say) is news for the
     * caller's loop: look again before sleeping */
    if (pvmi_routes_poll() > 0 || pvmi_rxq_delivered() != before || control_runnable())
        timeout_ms = 0;
    rc = pvmi_wait(timeout_ms, tid, woken, &in_before);
    depth--;
    if (rc < 0)
        return rc;
    if (depth == 0 && !pvmi_tm_busy())
        run_control();
    if (pvmi.dead)
        return PvmSysErr;
    return (int)(pvmi_rxq_delivered() - before);
}
