/*
 * compat_vars.c - stock libpvm3's global variables, which programs and
 * stock libgpvm3 read (pvmmytid, pvmtoplvl, pvmtrc, ...) or set
 * (pvmdebmask).  Values are stock's before the task connects and the
 * task's own once it has; pvmi_compat_publish() copies them from the
 * library's state whenever that changes.  Writes by a program are ignored
 * (next publish overwrites them) except pvmautoerr, which is the PvmAutoErr
 * option itself (perr.c), and pvmtoplvl, which only stock libgpvm3 uses.
 */
#include <string.h>
#include <unistd.h>
#include "lpvm.h"
#include "compat.h"

int pvm_useruid = -1;
int pvmdebmask;
int pvmfrgsiz = 4080;         /* stock's default fragment size */
int pvmrouteopt = PvmAllowDirect;
int pvmshowtaskid = 1;
int pvmtoplvl = 1;            /* stock libgpvm3: "called from outside the library" */
int pvmudpmtu = 4080;
int pvmmytid = -1;
int pvmmyptid = -1;
int pvmmydsig;
int pvmschedtid;
int pvmnsibs = -1;
int *pvmsibtids;
int pvmmyctx;
int pvmnoreset;
int pvmnoresetindex = -1;
int pvmrescode;
char *pvmmytaskname;
/* Trace sinks of this task and of its children.  libpvm3am makes its own
 * trace events (trace.c); tev_begin() below declines every event that
 * stock libgpvm3 would pack through pvmtrccodef, which stays NULL. */
struct Pvmtracer pvmtrc, pvmctrc;
void *pvmtrccodef;

void pvmi_compat_publish(void)
{
    int on = pvmi.tid > 0;
    pvmmytid = on ? pvmi.tid : -1;
    if (on) {
        pvm_useruid = (int)geteuid();
        pvmmyupid = (int)getpid();
        pvmmyptid = pvmi.ptid;
        pvmmydsig = pvmi.dsig;
        pvmudpmtu = pvmi.udpmax;
        pvmschedtid = pvmi.schedtid;
    }
    pvmdebmask = pvmi.debugmask;
    pvmfrgsiz = pvmi.fragsize ? pvmi.fragsize : 4080;
    pvmrouteopt = pvmi.route;
    pvmshowtaskid = pvmi.showtids;
    pvmnoreset = pvmi.noreset;
    pvmmyctx = pvmi.ctx;
    pvmnsibs = pvmi.nsiblings;
    pvmsibtids = pvmi.siblings;
    pvmtrc.trctid = pvmi.trctid;
    pvmtrc.trcctx = pvmi.trcctx;
    pvmtrc.trctag = pvmi.trctag;
    pvmtrc.outtid = pvmi.outtid;
    pvmtrc.outctx = pvmi.outctx;
    pvmtrc.outtag = pvmi.outtag;
    pvmtrc.trcbuf = pvmi.s_trcbuf;
    pvmtrc.trcopt = pvmi.s_trcopt;
    pvmctrc.trctid = pvmi.c_trctid;
    pvmctrc.trcctx = pvmi.c_trcctx;
    pvmctrc.trctag = pvmi.c_trctag;
    pvmctrc.outtid = pvmi.c_outtid;
    pvmctrc.outctx = pvmi.c_outctx;
    pvmctrc.outtag = pvmi.c_outtag;
    pvmctrc.trcbuf = pvmi.c_trcbuf;
    pvmctrc.trcopt = pvmi.c_trcopt;
    memcpy(pvmtrc.tmask, pvmi.tmask, sizeof pvmtrc.tmask);
    memcpy(pvmctrc.tmask, pvmi.tmask, sizeof pvmctrc.tmask);
    pvmi_tev_update();
}

/* Stock's trace-event entry points, called by stock libgpvm3 only when
 * pvmtrc names a tracer: we start no event for it (its records would be
 * packed through stock's own encoder table). */
int tev_begin(int kind, int entry_exit) { return 0; }
int tev_fin(void) { return 0; }
