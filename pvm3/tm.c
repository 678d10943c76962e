/*
 * tm.c - requests to the local pvmd (docs/protocol.md): context
 * SYSCTX_TM, a fresh wait id, and the reply picked out of the incoming
 * stream by (src = pvmd, tag, wait id) while everything else is queued.
 */
#include <stdlib.h>
#include <time.h>
#include "lpvm.h"

/* The request being waited for; rxq.c hands its reply over. */
static int wait_tag, wait_wid;
static struct pmsg *wait_reply;

/* Requests whose replies come whenever they come (pvmi_tm_post), by wait
 * id; a reply waits here until its poster collects it. */
struct posted {
    int wid, tag;
    struct pmsg *reply;
};
static struct posted *posts;
static int nposts, capposts;
static unsigned long arrivals;

/* A reply is the pvmd's message with the request's tag and wait id (the
 * pvmd echoes both, docs/protocol.md 5): with posted requests of the same
 * kind outstanding, the tag alone would not say whose it is. */
int pvmi_tm_take_reply(struct pmsg *m)
{
    if (m->src != PVMI_TIDPVMD)
        return 0;
    if (wait_tag && !wait_reply && m->tag == wait_tag && m->wid == wait_wid) {
        wait_reply = m;
        return 1;
    }
    for (int i = 0; i < nposts; i++)
        if (posts[i].wid == m->wid && posts[i].tag == m->tag && !posts[i].reply) {
            posts[i].reply = m;
            arrivals++;
            return 1;
        }
    return 0;
}

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
    if (wait_tag)   /* nested requests cannot happen: control work is deferred */
        return PvmSysErr;
    int wid = pvmi.nextwid++;
    int rc = send_req(tag, req, SYSCTX_TM, wid);
    if (rc < 0)
        return rc;
    wait_tag = tag;
    wait_wid = wid;
    /* The handshake is bounded: a pvmd that refuses us closes the socket,
     * one that never answers must not hang the caller. */
    time_t deadline = pvmi.connecting ? time(NULL) + 30 : 0;
    while (!wait_reply) {
        rc = pvmi_progress(pvmi.connecting ? 1000 : -1);
        if (rc < 0 || pvmi.dead || (deadline && time(NULL) > deadline)) {
            wait_tag = 0;
            return PvmSysErr;
        }
    }
    *reply = wait_reply;
    wait_reply = NULL;
    wait_tag = 0;
    return 0;
}

int pvmi_tm_send(int tag, struct pmsg *req)
{
    /* stock sends fire-and-forget requests with context 0 and wait id 0 */
    return send_req(tag, req, 0, 0);
}

int pvmi_tm_busy(void) { return wait_tag != 0; }

int pvmi_tm_post(int tag, struct pmsg *req)
{
    if (nposts == capposts) {
        int cap = capposts ? capposts * 2 : 16;
        struct posted *np = realloc(posts, sizeof *np * (size_t)cap);
        if (!np)
            return PvmNoMem;
        posts = np;
        capposts = cap;
    }
    int wid = pvmi.nextwid++;
    int rc = send_req(tag, req, SYSCTX_TM, wid);
    if (rc < 0)
        return rc;
    posts[nposts++] = (struct posted){ .wid = wid, .tag = tag };
    return wid;
}

struct pmsg *pvmi_tm_collect(int wid)
{
    for (int i = 0; i < nposts; i++)
        if (posts[i].wid == wid) {
            struct pmsg *m = posts[i].reply;
            if (m)
                posts[i] = posts[--nposts];
            return m;
        }
    return NULL;
}

unsigned long pvmi_tm_arrivals(void) { return arrivals; }

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
