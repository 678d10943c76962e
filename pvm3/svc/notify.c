/*
 * notify.c - pvm_notify (TM_NOTIFY, docs/protocol.md).  The
 * request has no reply; the pvmd later sends the notification as an
 * ordinary message with the caller's context and tag, so it reaches the
 * receive queue like any other message.
 */
#include "lpvm.h"
#include "trace.h"

/* TM_NOTIFY {what, ctx, tag, count, ntids tids}: no reply. */
static int send_notify(int what, int ctx, int tag, int count, const int *tids, int ntids)
{
    struct pmsg *req = pvmi_xbuf();
    if (!req)
        return PvmNoMem;
    int hdr[4] = { what, ctx, tag, count };
    pvmi_put_ints(req, hdr, 4);
    pvmi_put_ints(req, tids, ntids);
    int rc = pvmi_tm_send(TM_NOTIFY, req);
    pmsg_free(req);
    return rc < 0 ? rc : 0;
}

int pvm_notify(int what, int code, int count, int *vals)
{
    PVMI_TEV(pvmi_tev_notify(what, code, count, vals));
    int rc = pvmi_enter("pvm_notify");
    if (rc < 0)
        return rc;
    int kind = what & ~PvmNotifyCancel;
    int ntids = count;
    if (code < 0 && !pvmi.resvtids)
        return pvmi_err("pvm_notify", PvmBadParam);
    switch (kind) {
    case PvmTaskExit:
        if (count < 1 || !vals)
            return pvmi_err("pvm_notify", PvmBadParam);
        for (int i = 0; i < count; i++)
            if (!PVMI_IS_TASK(vals[i]))
                return pvmi_err("pvm_notify", PvmBadParam);
        break;
    case PvmHostDelete:
        if (count < 1 || !vals)
            return pvmi_err("pvm_notify", PvmBadParam);
        break;
    case PvmHostAdd:
        ntids = 0;   /* count = times to fire (-1 forever, 0 cancel) */
        break;
    default:
        /* route add/delete are library-local in stock: we have no
         * direct routes of our own to report */
        return pvmi_err("pvm_notify", PvmBadParam);
    }
    return pvmi_err("pvm_notify", send_notify(what, pvmi.ctx, code, count, vals, ntids));
}

/* For routes: tell me (ctx, tag, body {tid}) when tid exits.  Their
 * control tags are outside the user range, so this skips pvm_notify's
 * checks; the pvmd takes any tag (docs/protocol.md 7.1). */
int pvmi_notify_exit(int tid, int ctx, int tag)
{
    return send_notify(PvmTaskExit, ctx, tag, 1, &tid, 1);
}

int pvmi_notify_exits(const int *tids, int n, int ctx, int tag)
{
    return n > 0 ? send_notify(PvmTaskExit, ctx, tag, n, tids, n) : 0;
}

int pvmi_notify_hosts(const int *hosts, int n, int ctx, int tag)
{
    return n > 0 ? send_notify(PvmHostDelete, ctx, tag, n, hosts, n) : 0;
}
