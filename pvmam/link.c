/*
 * link.c - opening AM links between libpvm3am tasks, on demand.
 *
 * Every task with AM publishes its address in the pvmd's mailbox under
 * "pvmam.<tid>"; a task absent from the mailbox is a stock task (or has AM
 * off) and keeps the daemon route.  Of two tasks the smaller tid connects
 * and the larger accepts (thesis 6.5).  Order across the switch: each side
 * sends a last control message over the daemon route (CONN from the
 * connector, SWITCH from the acceptor) after its last daemon-route message;
 * AM messages that overtake it are held until it arrives.
 *
 *   S (smaller) wants to talk: connect, insert, CONN(addr) ->, AM from now.
 *   L (larger) wants to talk:  REQ(addr) -> S, daemon route until CONN.
 *   L on CONN: accept, insert, AM from now, SWITCH -> S.
 *   A daemon-route message from an unknown task makes us look it up too,
 *   so the link opens whichever side speaks first.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pvmam_int.h"

static int pending;      /* peers with deferred work */
static int working;      /* pvmam_link_work is on the stack */

static void mbox_name(char *buf, size_t n, int tid) { snprintf(buf, n, "pvmam.%x", tid); }

/* ---- control messages over the daemon route ---------------------------- */

/* Strings travel as {int length, bytes} so a receiver can bound them. */
int pvmam_pk_str(const char *s)
{
    int n = (int)strlen(s);
    int rc = pvm_pkint(&n, 1, 1);
    return rc < 0 ? rc : pvm_pkbyte((char *)s, n, 1);
}

int pvmam_upk_str(char *s, size_t max)
{
    int n = -1;
    int rc = pvm_upkint(&n, 1, 1);
    if (rc >= 0 && (n < 0 || (size_t)n >= max))
        rc = PvmBadMsg;
    if (rc >= 0)
        rc = pvm_upkbyte(s, n, 1);
    if (rc >= 0)
        s[n] = '\0';
    return rc;
}

/* Send the packed buffer mid as control message tag to each of dsts over
 * the daemon route; frees mid. */
int pvmam_ctrl_post(int mid, int tag, const int *dsts, int n)
{
    struct pmsg *m = pmsg_find(mid);
    int rc = m ? 0 : PvmNoSuchBuf;
    for (int i = 0; rc >= 0 && i < n; i++) {
        m->tag = tag;
        m->ctx = SYSCTX_TC;
        m->src = pvmam.mytid;
        m->dst = dsts[i];
        rc = pvmi_send_daemon(dsts[i], m);
    }
    pvm_freebuf(mid);
    return rc;
}

int pvmam_send_ctrl(int dst, int tag, const int *ints, int nint, const char *str)
{
    int mid = pvm_mkbuf(PvmDataDefault);
    if (mid < 0)
        return mid;
    int old = pvm_setsbuf(mid);
    int rc = nint ? pvm_pkint((int *)ints, nint, 1) : 0;
    if (rc >= 0 && str)
        rc = pvmam_pk_str(str);
    pvm_setsbuf(old);
    if (rc < 0) {
        pvm_freebuf(mid);
        return rc;
    }
    return pvmam_ctrl_post(mid, tag, &dst, 1);
}

int pvmam_ctrl_unpack(struct pmsg *m, int *ints, int nint, char *str, size_t max)
{
    int old = pvm_setrbuf(m->mid);
    int rc = nint ? pvm_upkint(ints, nint, 1) : 0;
    if (rc >= 0 && str)
        rc = pvmam_upk_str(str, max);
    pvm_setrbuf(old);
    return rc < 0 ? rc : 0;
}

/* ---- the mailbox ------------------------------------------------------- */

int pvmam_publish(void)
{
    char name[32];
    mbox_name(name, sizeof name, pvmam.mytid);
    int mid = pvm_mkbuf(PvmDataDefault);
    if (mid < 0)
        return mid;
    int old = pvm_setsbuf(mid);
    int rc = pvmam_pk_str(pvmam.addr);
    pvm_setsbuf(old);
    if (rc >= 0)
        rc = pvm_putinfo(name, mid, PvmMboxDefault);
    pvm_freebuf(mid);
    return rc < 0 ? rc : 0;
}

void pvmam_unpublish(void)
{
    char name[32];
    mbox_name(name, sizeof name, pvmam.mytid);
    pvm_delinfo(name, 0, PvmMboxDefault);
}

/* 1 found (p->addr set), 0 not there, <0 error.  The user's receive
 * buffer is left alone (pvm_recvinfo would replace it). */
static int lookup(struct pvmam_peer *p)
{
    char name[32];
    mbox_name(name, sizeof name, p->tid);
    struct pmsg *m = NULL;
    int rc = pvmi_mbox_get(name, 0, PvmMboxDefault, &m);
    if (rc < 0)
        return rc == PvmNotFound ? 0 : rc;
    rc = pvmam_ctrl_unpack(m, NULL, 0, p->addr, sizeof p->addr);
    if (rc >= 0 && !p->addr[0])
        rc = PvmBadMsg;
    pmsg_free(m);
    return rc < 0 ? rc : 1;
}

/* ---- opening links ----------------------------------------------------- */

static void give_up(struct pvmam_peer *p, const char *why, int rc)
{
    pvmam_log("no AM link to t%x (%s: %s); using the daemon route", p->tid, why,
              am_strerror(rc));
    if (p->ep) {
        am_remove_task(pvmam.ifc, p->tid);
        am_deallocate_task(pvmam.ifc, p->ep);
        p->ep = NULL;
    }
    p->kind = PEER_STOCK;
}

int pvmam_link_connect(struct pvmam_peer *p)
{
    if (p->tx_open || p->kind != PEER_AM || p->dead)
        return 0;
    int rc = am_allocate_task(pvmam.ifc, &p->ep);
    if (rc < 0)
        return give_up(p, "allocate", rc), rc;
    rc = am_connect_task(pvmam.ifc, p->ep, p->addr);
    if (rc < 0)
        return give_up(p, "connect", rc), rc;
    rc = am_insert_task(pvmam.ifc, p->ep, p->tid);
    if (rc < 0)
        return give_up(p, "insert", rc), rc;
    /* CONN is our last daemon-route message to p: AM from here on */
    if (pvmam_send_ctrl(p->tid, PVMAM_TAG_CONN, &pvmam.mytid, 1, pvmam.addr) < 0)
        return give_up(p, "daemon", AM_ERR_SYS), PvmSysErr;
    p->tx_open = 1;
    pvmam_log("connected to t%x at %s", p->tid, p->addr);
    return 0;
}

/* As the larger tid: accept the connector's link (CONN arrived). */
static void link_accept(struct pvmam_peer *p)
{
    if (p->tx_open)
        return;
    int rc = am_allocate_task(pvmam.ifc, &p->ep);
    if (rc >= 0)
        rc = am_accept_task(pvmam.ifc, p->ep, p->addr);
    if (rc >= 0)
        rc = am_insert_task(pvmam.ifc, p->ep, p->tid);
    if (rc < 0) {
        give_up(p, "accept", rc);
        return;
    }
    p->tx_open = 1;
    p->need_switch = 1;   /* sent from a safe point: we may be mid-input */
    pending++;
    pvmam_log("accepted t%x at %s", p->tid, p->addr);
}

void pvmam_link_consider(struct pvmam_peer *p)
{
    if (!pvmam.on || p->tx_open || p->dead || p->kind == PEER_STOCK || p->tid == pvmam.mytid)
        return;
    if (p->kind == PEER_UNKNOWN) {
        long long now = pvmam_now_ms();
        if (now < p->retry_ms || !pvmi_route_may_request())
            return;
        int rc = lookup(p);
        if (rc <= 0) {
            /* not (yet) there: it may still be starting; try again later,
             * and after a few tries take it for a stock task */
            if (++p->lookups >= 3 || rc < 0)
                p->kind = PEER_STOCK;
            p->retry_ms = now + 500;
            return;
        }
        p->kind = PEER_AM;
    }
    if (pvmam.mytid < p->tid) {
        pvmam_link_connect(p);
    } else if (!p->requested) {
        if (pvmam_send_ctrl(p->tid, PVMAM_TAG_REQ, &pvmam.mytid, 1, pvmam.addr) >= 0)
            p->requested = 1;
    }
}

/* ---- incoming control ---------------------------------------------------- */

int pvmam_ctrl_filter(struct pmsg *m)
{
    if (!PVMAM_IS_CTRL(m))
        return 0;
    if (m->tag >= PVMAM_TAG_HELLO) {
        pvmam_init_note(m);
        pmsg_free(m);
        return 1;
    }
    struct pvmam_peer *p = pvmam.on ? pvmam_peer_get(m->src) : NULL;
    if (!p) {
        pmsg_free(m);
        return 1;
    }
    int who = 0;
    char addr[sizeof p->addr];
    int rc = pvmam_ctrl_unpack(m, &who, m->tag == PVMAM_TAG_SWITCH ? 0 : 1,
                         m->tag == PVMAM_TAG_SWITCH ? NULL : addr, sizeof addr);
    if (rc < 0 || (m->tag != PVMAM_TAG_SWITCH && who != m->src)) {
        pvmam_log("malformed control message from t%x dropped", m->src);
        pmsg_free(m);
        return 1;
    }
    if (m->tag != PVMAM_TAG_SWITCH) {
        strcpy(p->addr, addr);
        if (p->kind != PEER_AM && !p->tx_open) {
            p->kind = PEER_AM;
        }
    }
    switch (m->tag) {
    case PVMAM_TAG_REQ:       /* we are the smaller tid: connect */
        if (!p->tx_open && pvmam.mytid < p->tid) {
            p->need_connect = 1;
            pending++;
        }
        break;
    case PVMAM_TAG_CONN:      /* its last daemon message: accept */
        p->rx_open = 1;
        link_accept(p);
        pvmam_release_held(p);
        break;
    case PVMAM_TAG_SWITCH:    /* its last daemon message */
        pvmam_log("t%x switched to AM", p->tid);
        p->rx_open = 1;
        pvmam_release_held(p);
        break;
    }
    pmsg_free(m);
    return 1;
}

/* A user message came through the daemon from src. */
void pvmam_saw_daemon_msg(int src)
{
    if (!pvmam.on || src == pvmam.mytid || src <= 0 || (src & 0x3ffff) == 0)
        return;
    struct pvmam_peer *p = pvmam_peer_get(src);
    if (p && p->kind == PEER_UNKNOWN && !p->check) {
        p->check = 1;
        pending++;
    }
}

void pvmam_link_work(void)
{
    if (!pending || working)
        return;
    working = 1;
    int left = 0;
    for (int i = 0; i < pvmam_peer_count(); i++) {
        struct pvmam_peer *p = pvmam_peer_at(i);
        if (p->need_switch) {
            p->need_switch = 0;
            pvmam_log("switching to AM towards t%x", p->tid);
            if (pvmam_send_ctrl(p->tid, PVMAM_TAG_SWITCH, NULL, 0, NULL) < 0)
                p->dead = 1;
        }
        if (p->need_connect) {
            p->need_connect = 0;
            pvmam_link_connect(p);
        }
        if (p->check) {
            if (!pvmi_route_may_request()) {
                left++;
                continue;
            }
            p->check = 0;
            p->retry_ms = 0;
            p->lookups = 2;   /* it spoke to us: one lookup decides */
            pvmam_link_consider(p);
        }
    }
    pending = left;
    working = 0;
}
