/*
 * tm.c - requests to the local pvmd (docs/protocol.md): context
 * SYSCTX_TM, a fresh wait id, and the reply picked out of the incoming
 * stream by (src = pvmd, tag, wait id) while everything else is queued
 * (the matching is tm_match.c's).
 */
#include <stdlib.h>
#include <time.h>
#include "lpvm.h"

static int send_req(int tag, struct pmsg *req, int ctx, int wid)
{
    if (pvmi.dead || pvmi.pvmd.fd < 0)
        return PvmSysErr;
    req->tag = tag;
    req->ctx = ctx;
    req->wid = wid;
    /* requests are small: one fragment of any size is accepted */
    int rc = pvmi_conn_send(&pvmi.pvmd, PVMI_TIDPVMD, req, pvmi.connecting ? 4000 : (1u << 20));
    if (rc < 0)
        pvmi.dead = 1;
    return rc;
}

int pvmi_tm_call(int tag, struct pmsg *req, struct pmsg **reply)
{
    *reply = NULL;
    if (pvmi_tm_busy())   /* nested requests cannot happen: control work is deferred */
        return PvmSysErr;
    int wid = pvmi.nextwid++;
    int rc = send_req(tag, req, SYSCTX_TM, wid);
    if (rc < 0)
        return rc;
    pvmi_tm_expect(tag, wid);
    /* The handshake is bounded: a pvmd that refuses us closes the socket,
     * one that never answers must not hang the caller. */
    time_t deadline = pvmi.connecting ? time(NULL) + 30 : 0;
    while (!pvmi_tm_reply()) {
        rc = pvmi_progress(pvmi.connecting ? 1000 : -1);
        if (rc < 0 || pvmi.dead || (deadline && time(NULL) > deadline)) {
            pvmi_tm_expect(0, 0);   /* no longer waiting */
            return PvmSysErr;
        }
    }
    *reply = pvmi_tm_reply();
    pvmi_tm_expect_end();
    return 0;
}

int pvmi_tm_send(int tag, struct pmsg *req)
{
    /* stock sends fire-and-forget requests with context 0 and wait id 0 */
    return send_req(tag, req, 0, 0);
}

int pvmi_tm_post(int tag, struct pmsg *req)
{
    int rc = pvmi_tm_post_room();
    if (rc < 0)
        return rc;
    int wid = pvmi.nextwid++;
    rc = send_req(tag, req, SYSCTX_TM, wid);
    if (rc < 0)
        return rc;
    pvmi_tm_post_add(wid, tag);
    return wid;
}

/* ---- helpers for the public calls that talk to the pvmd ---------------- */

int pvmi_tm_ask(const char *fn, int tag, struct pmsg *req, struct pmsg **rep)
{
    *rep = NULL;
    int rc = req ? pvmi_tm_call(tag, req, rep) : PvmNoMem;
    pmsg_free(req);
    return rc < 0 ? pvmi_err(fn, rc) : 0;
}

int pvmi_tm_reply_status(struct pmsg *r)
{
    int v = PvmSysErr, rc = pvmi_get_int(r, &v);
    return rc < 0 ? rc : v;
}

int pvmi_tm_status(int tag, struct pmsg *req, struct pmsg **rep)
{
    struct pmsg *r = NULL;
    int rc = req ? pvmi_tm_call(tag, req, &r) : PvmNoMem;
    pmsg_free(req);
    if (rc >= 0)
        rc = pvmi_tm_reply_status(r);
    if (rep && rc >= 0)
        *rep = r;
    else
        pmsg_free(r);
    return rc;
}
