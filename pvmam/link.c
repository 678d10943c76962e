/*
 * link.c - opening AM links between libpvm3am tasks, on demand.
 *
 * Every task with AM publishes its address in the pvmd's mailbox under
 * "pvmam.<tid>"; a task absent from the mailbox is a stock task (or has AM
 * off) and keeps the daemon route.  Of two tasks the smaller tid S
 * connects and the larger L accepts (thesis 6.5).  The switch is a
 * three-way exchange over the daemon route, so that neither side sends an
 * AM before the other has an endpoint for it, and per-pair order holds:
 *
 *   S: connect, insert, CONN(addr) -> L      S keeps the daemon route
 *   L: accept, insert, SWITCH -> S           L's AMs from here on
 *   S: READY -> L                            S's AMs from here on
 *
 * SWITCH and READY are each side's last daemon-route message to the other;
 * AMs that overtake them are held until they arrive.  If L cannot accept
 * it answers NAK and both stay on the daemon route.  L asks S to begin
 * with REQ(addr) when L speaks first.  Control messages that arrive while
 * AM is still starting are kept and handled once it is up (or refused with
 * NAK if it never comes up).  docs/link-setup.md has the whole state table.
 *
 * A task may run two interfaces (shm for its host, tcp or udp for the
 * others; addrs.c): S picks the link's transport, and its CONN carries its
 * one address on that transport, which tells L the interface to accept on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pvmam_int.h"

static int pending;      /* peers with deferred work */

static void mbox_name(char *buf, size_t n, int tid)
{
    snprintf(buf, n, PVMAM_MBOX_PREFIX "%x", tid);
}

/* ---- the mailbox ------------------------------------------------------- */

int pvmx_publish(void)
{
    char name[32];
    mbox_name(name, sizeof name, pvmx.mytid);
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return PvmNoMem;
    int rc = pvmi_put_counted(m, pvmx.addr);
    if (rc >= 0)
        rc = pvmi_mbox_put(name, -1, PvmMboxDefault, m->mid);
    pmsg_free(m);
    return rc < 0 ? rc : 0;
}

/* 1 found (p->addr set), 0 not there, <0 error.  The user's receive
 * buffer is left alone (pvm_recvinfo would replace it). */
/* Is p's address in the mailbox (docs/link-setup.md)?  The first time,
 * ask the pvmd to answer when it is, now or whenever p publishes it
 * (PvmMboxWaitForInfo): a child that is still starting, here or on a
 * slow remote host, is never taken for a stock task, and its link opens
 * as soon as its entry is there, with no polling.  1 found (p->addr), 0
 * not yet, < 0 cannot tell (then the daemon route for good). */
static int lookup(struct pvmx_peer *p)
{
    if (!p->watch_wid) {
        char name[32];
        mbox_name(name, sizeof name, p->tid);
        int w = pvmi_mbox_watch(name);
        if (w < 0)
            return w;
        p->watch_wid = w;
    }
    struct pmsg *m = NULL;
    int rc = pvmi_mbox_watched(p->watch_wid, &m);
    if (rc == 0)
        return 0;
    p->watch_wid = 0;
    if (rc > 0) {
        char list[PVMX_NIFC][AM_ADDR_MAX], got[PVMX_ADDRS_MAX];
        rc = pvmx_ctrl_unpack(m, NULL, 0, got, sizeof got);
        if (rc >= 0 && pvmx_addrs_split(got, list, PVMX_NIFC) < 0)
            rc = PvmBadMsg;   /* not an address list: no AM link to it */
        if (rc >= 0)
            rc = pvmx_peer_set_addr(p, got);
        pmsg_free(m);
    }
    return rc < 0 ? rc : 1;
}

/* ---- opening links ----------------------------------------------------- */

/* No AM link to p from now on: close what there is and keep the daemon
 * route for good (a refused or failed link is not retried). */
static void give_up(struct pvmx_peer *p, const char *why, int rc)
{
    pvmx_log("no AM link to t%x (%s: %s); using the daemon route", p->tid, why,
              am_strerror(rc));
    if (p->ep) {
        am_remove_task(p->ifc, p->tid);
        am_deallocate_task(p->ifc, p->ep);
        p->ep = NULL;
    }
    p->ifc = NULL;
    pvmx_link_set(p, PVMX_STOCK);
}

static void set_self_watch(struct pvmx_peer *p);

static void defer(int *flag)
{
    if (!*flag) {
        *flag = 1;
        pending++;
    }
}

/* Links close when the pvmd says the peer exited: its socket and buffers
 * must not outlive it (a task farm would run out of descriptors), and a
 * udp peer that exited silently would otherwise only be noticed by
 * retransmissions (docs/link-setup.md). */
static void watch_exit(struct pvmx_peer *p)
{
    p->need_watch = 0;
    if (pvmi_notify_exit(p->tid, SYSCTX_TC, PVMAM_TAG_EXIT) < 0)
        pvmx_log("cannot ask the pvmd to watch t%x", p->tid);
}

/* What it sent before it exited is read first, to the end of its
 * stream: libam says when nothing more can come (am_task_ended: tcp's
 * EOF, shm's closed socket; at once over udp, where what it sent was
 * handled when we acknowledged it).  It exited in pvm_exit only after
 * its AMs were acknowledged (r_flush in am_route.c), so usually that is
 * at once; one killed, or whose flush ran out of time, is waited for by
 * polling (r_poll reads before link work), at most PVMAM_TIMEOUT from
 * the notice, never in a blocking loop here: this runs inside r_poll.
 * Then its endpoint goes and sends to it fail as for any dead peer.
 * force: close now (we are exiting). */
static int close_exited(struct pvmx_peer *p, int force)
{
    if (!p->ep) {
        p->need_close = 0;
        return 0;
    }
    long long now = pvmx_now_ms();
    if (!p->close_by)
        p->close_by = now + pvmx.cfg.timeout_ms;
    if (!force && !am_task_ended(p->ep) && now < p->close_by)
        return 0;   /* still reading it: need_close stays */
    p->need_close = 0;
    p->close_by = 0;
    pvmx_log("t%x exited: closing its link%s", p->tid,
             am_task_ended(p->ep) ? "" : " (its stream did not end in time)");
    pvmx_peer_drop_partial(p);   /* held whole messages wait for its SWITCH */
    /* A waiter must look again only if this changed something it can
     * wait for: the link's death, or AMs in flight that r_flush waits
     * out.  Counting every close made each task that waited (pvm_recv,
     * pvmam_init, pvm_exit's flush) spin its yield window again at every
     * exit around it: at 64 tasks 40% of the job's CPU
     * (docs/performance.md). */
    int was_dead = pvmx_link_dead(p);
    unsigned out = am_outstanding(p->ifc);
    pvmx_link_die(p, am_task_dead(p->ep) ? am_task_dead_reason(p->ep)
                     : am_task_ended(p->ep) ? "the pvmd said the task exited"
                     : "the pvmd said the task exited; its stream did not end in time");
    am_remove_task(p->ifc, p->tid);
    am_deallocate_task(p->ifc, p->ep);
    p->ep = NULL;
    return !was_dead || am_outstanding(p->ifc) != out;
}

/* At exit: the pvmd may have said, while answering our last requests,
 * that peers are gone.  Their links go now, so the flush of what is in
 * flight does not wait out PVMAM_TIMEOUT on a peer known dead (a host
 * whose pvmd stopped and that then fell silent). */
void pvmx_link_close_exited(void)
{
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (p->need_close)
            close_exited(p, 1);
    }
}

long long pvmx_link_close_due(void)
{
    long long due = -1;
    for (int i = 0; pending && i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (p->need_close && p->close_by && (due < 0 || p->close_by < due))
            due = p->close_by;
    }
    return due;
}

/* Connect to p over the first of our interfaces, in our order, that p
 * published an address for and that reaches it: libam says
 * AM_ERR_BADADDR for an address its interface cannot reach (an shm
 * address of another host), and the next one is tried. */
static int connect_some(struct pvmx_peer *p, char *addr)
{
    int rc = AM_ERR_BADADDR, i = 0;
    am_interface_t *ifc;
    while ((ifc = pvmx_ifc_next(p, &i, addr))) {
        p->ifc = ifc;
        rc = am_allocate_task(ifc, &p->ep);
        if (rc < 0)
            return rc;
        rc = am_connect_task(ifc, p->ep, addr);
        if (rc != AM_ERR_BADADDR)
            return rc;
        am_deallocate_task(ifc, p->ep);
        p->ep = NULL;
        p->ifc = NULL;
    }
    return rc;
}

/* As the smaller tid: connect and announce it (CONN, with our address on
 * the link's transport).  Our user messages keep the daemon route until
 * L's SWITCH says it has accepted. */
int pvmx_link_connect(struct pvmx_peer *p)
{
    if (p->ep || p->link != PVMX_KNOWN)
        return 0;
    char addr[AM_ADDR_MAX];
    int rc = connect_some(p, addr);
    if (rc < 0)
        return give_up(p, "connect", rc), rc;
    rc = am_insert_task(p->ifc, p->ep, p->tid);
    if (rc < 0)
        return give_up(p, "insert", rc), rc;
    if (pvmx_send_ctrl(p->tid, PVMAM_TAG_CONN, &pvmx.mytid, 1,
                       am_task_address(p->ifc, AM_TID_SELF)) < 0)
        return give_up(p, "daemon", AM_ERR_SYS), PvmSysErr;
    pvmx_link_set(p, PVMX_S_CONNECTING);
    /* one that exits before it answers closes the link: over shm and tcp
     * the connection says so (self_watched), elsewhere the pvmd */
    set_self_watch(p);
    if (!p->self_watch)
        watch_exit(p);
    pvmx_log("connected to t%x at %s", p->tid, addr);
    return 0;
}

/* ---- pvmam_init's mesh (init.c): links opened without per-link messages --
 *
 * Between two tasks that have sent each other no user message through the
 * daemon, nothing on the daemon route can be overtaken, so the hold rule's
 * SWITCH and READY have nothing to mark; rule 1 (no AM before the receiver
 * has an endpoint) is kept by pvmam_init's barriers instead: S connects
 * without CONN, the master tells L whom to accept (ACCEPTS), and S's side
 * opens only at GO, which comes after every L accepted.  L's side opens
 * when it accepts: S holds L's AMs (S-CONNECTING) until GO.  If S's
 * pvmam_init fails before GO it falls back to the per-link exchange (CONN
 * now, mesh_fallback); L, whose side may be open already, answers that
 * CONN with SWITCH and holds S's AMs until READY (docs/link-setup.md,
 * "pvmam_init's mesh"). */

/* shm and tcp links, the mesh's and those opened on demand, are not
 * watched by the pvmd per peer: a watch per pair made the pvmd keep 4,032
 * records at 64 tasks and send as many exit notices, which cost the job
 * more than all of its links' set-up; and the pvmd passes a remote tid's
 * watch on to that host's pvmd, about 49,000 messages between the pvmds
 * at 256 tasks on 4 hosts, queued ahead of pvmam_init's DONE and GO, and
 * on demand (two watches per link, and two exit notices) ahead of the
 * links' CONN, SWITCH and READY and of the user messages that go through
 * the pvmds while links open: with one message per pair, one waited up to
 * 160 s (docs/performance.md).  The peer's end is libam's word already,
 * after what it sent was read: shm's socket closes or its pidfd says it
 * exited (libam/tr_shm.c peer_event); tcp's connection ends (EOF, or a
 * reset) when the peer's process ends, however it ends, since the kernel
 * closes its sockets (libam/tr_tcp.c read_in), and its pvm_exit closes
 * its interfaces.  What a connection cannot say is that a remote host went
 * silent (crashed, cable out) or was deleted while its tasks live on: one
 * PvmHostDelete watch per remote host says that (watch_host).  udp (no
 * connection: a dead peer is seen only when sent to, and only if its
 * host answers with ICMP) and ucx keep the pvmd's watch per peer. */
static int self_watched(const struct pvmx_peer *p)
{
    const char *t = p->ifc ? am_transport_name(p->ifc) : "";
    return !strcmp(t, "shm") || !strcmp(t, "tcp");
}

void pvmx_link_ended(struct pvmx_peer *p)
{
    if (p->self_watch && p->ep)
        defer(&p->need_close);
}

/* Hosts (index = host part >> 18) whose deletion we asked the pvmd to
 * tell us about (HOST_ASKED), or mean to (HOST_WANTED).  The pvmd keeps
 * a host's record itself (no message to that host), and answers at once
 * for a host that is gone already. */
#define HOST_SHIFT 18
#define NHOSTS ((PVMI_TIDHOST >> HOST_SHIFT) + 1)
enum { HOST_NONE, HOST_WANTED, HOST_ASKED };
static unsigned char host_watch[NHOSTS];
static int hosts_wanted;   /* some host is HOST_WANTED */

static void watch_host(const struct pvmx_peer *p)
{
    int h = (p->tid & PVMI_TIDHOST) >> HOST_SHIFT;
    /* a tcp link: our own host failing ends us too */
    if (strcmp(am_transport_name(p->ifc), "tcp") ||
        (p->tid & PVMI_TIDHOST) == (pvmx.mytid & PVMI_TIDHOST) || host_watch[h])
        return;
    host_watch[h] = HOST_WANTED;
    hosts_wanted = 1;
}

/* Ask for the hosts wanted (pvmam_init, and link work for the links
 * opened on demand: a send to the pvmd, so never while input is read). */
void pvmx_link_watch_hosts(void)
{
    int v[NHOSTS], n = 0;
    if (!hosts_wanted)
        return;
    for (int h = 0; h < NHOSTS; h++)
        if (host_watch[h] == HOST_WANTED)
            v[n++] = h << HOST_SHIFT;
    hosts_wanted = 0;
    if (!n)
        return;
    if (pvmi_notify_hosts(v, n, SYSCTX_TC, PVMAM_TAG_HOSTDEL) < 0) {
        pvmx_log("cannot ask the pvmd to watch %d hosts", n);
        hosts_wanted = 1;   /* still wanted: the next call asks again */
        return;
    }
    for (int i = 0; i < n; i++)
        host_watch[v[i] >> HOST_SHIFT] = HOST_ASKED;
}

/* The pvmd says a host was deleted or failed: every link to a task there
 * closes as on that task's exit notice (close_exited: what it sent is
 * read first, at most PVMAM_TIMEOUT).  The host's slot may come back as
 * another host: its links will ask again. */
static void host_gone(int host)
{
    host &= PVMI_TIDHOST;
    host_watch[host >> HOST_SHIFT] = HOST_NONE;
    pvmx_log("the pvmd says host %x is gone: closing the links to its tasks", host);
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (p->ep && (p->tid & PVMI_TIDHOST) == host)
            defer(&p->need_close);
    }
}

static void set_self_watch(struct pvmx_peer *p)
{
    p->self_watch = self_watched(p);
    if (p->self_watch)
        watch_host(p);
}

int pvmx_link_mesh_connect(struct pvmx_peer *p)
{
    if (p->ep || p->link != PVMX_KNOWN)
        return PvmSysErr;
    char addr[AM_ADDR_MAX];
    int rc = connect_some(p, addr);
    if (rc >= 0)
        rc = am_insert_task(p->ifc, p->ep, p->tid);
    if (rc < 0)
        return give_up(p, "connect", rc), PvmSysErr;
    pvmx_link_set(p, PVMX_S_CONNECTING);
    p->mesh = 1;
    set_self_watch(p);
    int idx = 0;
    while (idx < pvmx.nifc && pvmx.ifc[idx] != p->ifc)
        idx++;
    pvmx_log("connected to t%x at %s (mesh)", p->tid, addr);
    return idx;
}

int pvmx_link_mesh_accept(struct pvmx_peer *p, const char *addr)
{
    if (p->ep || pvmx_link_dead(p))
        return PvmSysErr;
    if (pvmx_peer_set_addr(p, addr) < 0)
        return PvmNoMem;
    pvmx_link_set(p, PVMX_KNOWN);
    p->ifc = pvmx_ifc_of(addr);
    int rc = p->ifc ? am_allocate_task(p->ifc, &p->ep) : AM_ERR_BADADDR;
    if (rc >= 0)
        rc = am_accept_task(p->ifc, p->ep, addr);
    if (rc >= 0)
        rc = am_insert_task(p->ifc, p->ep, p->tid);
    if (rc < 0)
        return give_up(p, "accept", rc), PvmSysErr;
    pvmx_link_set(p, PVMX_L_ACCEPTED);
    pvmx_link_set(p, PVMX_OPEN);
    p->mesh = 1;   /* kept: a CONN from S later means S fell back */
    set_self_watch(p);
    pvmx_log("accepted t%x at %s (mesh)", p->tid, addr);
    return 0;
}

void pvmx_link_mesh_go(struct pvmx_peer *p, int refused)
{
    if (!p->mesh || pvmx.mytid > p->tid)
        return;
    p->mesh = 0;
    if (refused) {   /* L could not accept: nothing of ours reached it */
        if (p->link == PVMX_S_CONNECTING)
            give_up(p, "refused by the peer", AM_ERR_STATE);
        return;
    }
    if (p->link != PVMX_S_CONNECTING && p->link != PVMX_DEAD_HELD)
        return;
    pvmx_link_set(p, p->link == PVMX_S_CONNECTING ? PVMX_OPEN : PVMX_DEAD);
    pvmx_release_held(p);
}

void pvmx_link_mesh_fallback(struct pvmx_peer *p)
{
    if (!p->mesh || pvmx.mytid > p->tid)
        return;
    p->mesh = 0;
    if (p->link != PVMX_S_CONNECTING && p->link != PVMX_DEAD_HELD)
        return;
    pvmx_log("pvmam_init did not finish: CONN to t%x", p->tid);
    const char *mine = p->ifc ? am_task_address(p->ifc, AM_TID_SELF) : NULL;
    if (!mine || pvmx_send_ctrl(p->tid, PVMAM_TAG_CONN, &pvmx.mytid, 1, mine) < 0)
        pvmx_log("cannot send CONN to t%x", p->tid);
}

/* As the larger tid: accept the connector's link (its CONN arrived).  Our
 * AMs may go once SWITCH is out (link work, at a safe point): S holds any
 * that overtake it. */
static void link_accept(struct pvmx_peer *p)
{
    if (p->link != PVMX_KNOWN || p->ep)
        return;
    /* its CONN named the transport it chose: one we published */
    p->ifc = pvmx_ifc_of(pvmx_peer_addr(p));
    int rc = p->ifc ? am_allocate_task(p->ifc, &p->ep) : AM_ERR_BADADDR;
    if (rc >= 0)
        rc = am_accept_task(p->ifc, p->ep, pvmx_peer_addr(p));
    if (rc >= 0)
        rc = am_insert_task(p->ifc, p->ep, p->tid);
    if (rc < 0) {
        give_up(p, "accept", rc);
        defer(&p->need_nak);   /* S must not wait for a SWITCH */
        return;
    }
    pvmx_link_set(p, PVMX_L_ACCEPTED);
    defer(&p->need_switch);   /* sent from a safe point: we may be mid-input */
    set_self_watch(p);   /* its host's watch is asked from link work */
    p->need_watch = !p->self_watch;
    pvmx_log("accepted t%x at %s", p->tid, pvmx_peer_addr(p));
}

void pvmx_link_consider(struct pvmx_peer *p)
{
    if (!pvmx.on || p->ep || pvmx_link_dead(p) || p->link == PVMX_STOCK ||
        p->tid == pvmx.mytid)
        return;
    if (p->link == PVMX_UNKNOWN) {
        int rc = lookup(p);
        if (rc < 0)
            pvmx_link_set(p, PVMX_STOCK);
        if (rc <= 0)   /* not there yet: its entry, when it comes, brings us back */
            return;
        pvmx_link_set(p, PVMX_KNOWN);
    }
    if (pvmx.mytid < p->tid) {
        pvmx_link_connect(p);
    } else if (!p->requested) {
        if (pvmx_send_ctrl(p->tid, PVMAM_TAG_REQ, &pvmx.mytid, 1, pvmx.addr) >= 0)
            p->requested = 1;
    }
}

/* ---- incoming control ---------------------------------------------------- */

/* Control messages that came while AM was starting, in arrival order. */
static struct pvmi_msgq early;

void pvmx_ctrl_replay_early(void)
{
    struct pmsg *m;
    while ((m = pvmi_msgq_take(&early)))
        pvmx_ctrl_filter(m);
}

/* AM is off here (or failed to start): a connector must not wait. */
static void refuse(struct pmsg *m)
{
    if (m->tag == PVMAM_TAG_CONN && !pvmx.exiting) {
        struct pvmx_peer *p = pvmx_peer_get(m->src);
        if (p) {
            pvmx_link_set(p, PVMX_STOCK);
            defer(&p->need_nak);
        }
    }
    pmsg_free(m);
}

int pvmx_ctrl_filter(struct pmsg *m)
{
    if (!PVMAM_IS_CTRL(m))
        return 0;
    if (m->tag == PVMAM_TAG_EXIT) {   /* from the pvmd: {tid} exited */
        int tid = 0;
        struct pvmx_peer *p = NULL;
        if (pvmx.on && pvmx_ctrl_unpack(m, &tid, 1, NULL, 0) >= 0)
            p = pvmx_peer_find(tid);
        if (p && p->ep)
            defer(&p->need_close);
        pmsg_free(m);
        return 1;
    }
    if (m->tag == PVMAM_TAG_HOSTDEL) {   /* from the pvmd: {host} is gone */
        int host = 0;
        if (pvmx.on && pvmx_ctrl_unpack(m, &host, 1, NULL, 0) >= 0)
            host_gone(host);
        pmsg_free(m);
        return 1;
    }
    if (pvmx.starting) {   /* our address is out already: handle it once up */
        pvmi_msgq_put(&early, m);
        return 1;
    }
    struct pvmx_peer *p = pvmx.on ? pvmx_peer_get(m->src) : NULL;
    if (!p) {
        refuse(m);
        return 1;
    }
    if ((m->tag == PVMAM_TAG_SWITCH || m->tag == PVMAM_TAG_READY) && pvmx_link_dead(p) &&
        !pvmx_link_rx(p)) {
        /* Its link ended (it exited) before its last daemon message came,
         * with whole AMs it sent after that held here: theirs is the turn
         * now, as on an open link.  Nothing to answer: it is gone. */
        pvmx_log("t%x's link ended before its %s: releasing what it sent", p->tid,
                 m->tag == PVMAM_TAG_SWITCH ? "SWITCH" : "READY");
        pvmx_link_set(p, p->link == PVMX_DEAD_HELD ? PVMX_DEAD_S_SWITCHING : PVMX_DEAD);
        pvmx_release_held(p);
        pmsg_free(m);
        return 1;
    }
    int with_addr = m->tag == PVMAM_TAG_REQ || m->tag == PVMAM_TAG_CONN;
    char addr[PVMX_ADDRS_MAX];
    if (pvmx_ctrl_parse(m, addr, sizeof addr) < 0) {
        pvmx_log("malformed control message from t%x dropped", m->src);
        if (m->tag == PVMAM_TAG_CONN)
            defer(&p->need_nak);
        pmsg_free(m);
        return 1;
    }
    if (with_addr && !p->ep && !pvmx_link_dead(p)) {   /* no link under way: take the address */
        if (pvmx_peer_set_addr(p, addr) < 0) {
            pvmx_log("no memory for t%x's address: its control message dropped", m->src);
            if (m->tag == PVMAM_TAG_CONN)
                defer(&p->need_nak);
            pmsg_free(m);
            return 1;
        }
        pvmx_link_set(p, PVMX_KNOWN);
    }
    switch (m->tag) {
    case PVMAM_TAG_REQ:       /* we are the smaller tid: connect */
        if (pvmx.mytid < p->tid && !p->ep)
            defer(&p->need_connect);
        break;
    case PVMAM_TAG_CONN:      /* accept; its READY will open our receive side */
        if (pvmx.mytid > p->tid && p->mesh && (p->link == PVMX_OPEN || p->link == PVMX_DEAD)) {
            p->mesh = 0;   /* S fell back (pvmam_init failed there): SWITCH */
            defer(&p->need_switch);
        } else if (pvmx.mytid > p->tid) {
            link_accept(p);
        }
        else
            defer(&p->need_nak);   /* the smaller tid never accepts */
        break;
    case PVMAM_TAG_SWITCH:    /* L accepted: its last daemon message */
        if (p->link != PVMX_S_CONNECTING)
            break;
        pvmx_log("t%x accepted; switching to AM", p->tid);
        pvmx_link_set(p, PVMX_S_SWITCHING);
        pvmx_release_held(p);
        defer(&p->need_ready);
        break;
    case PVMAM_TAG_READY:     /* S's last daemon message */
        if (p->link != PVMX_L_SWITCHED)
            break;
        pvmx_log("t%x switched to AM", p->tid);
        pvmx_link_set(p, PVMX_OPEN);
        pvmx_release_held(p);
        break;
    case PVMAM_TAG_NAK:       /* L will not take AMs from us */
        if (p->link == PVMX_S_CONNECTING)
            give_up(p, "refused by the peer", AM_ERR_STATE);
        break;
    }
    pmsg_free(m);
    return 1;
}

int pvmx_link_opening(const struct pvmx_peer *p)
{
    return p->ep && (p->link == PVMX_S_CONNECTING || p->link == PVMX_S_SWITCHING ||
                     p->link == PVMX_L_ACCEPTED || p->link == PVMX_L_SWITCHED);
}

/* A user message came through the daemon from src. */
void pvmx_saw_daemon_msg(int src)
{
    if (!pvmx.on || src == pvmx.mytid || src <= 0 || (src & 0x3ffff) == 0)
        return;
    struct pvmx_peer *p = pvmx_peer_get(src);
    if (p && p->link == PVMX_UNKNOWN)
        defer(&p->check);
}

static int has_work(const struct pvmx_peer *p)
{
    return p->need_nak || (pvmx.on && (p->need_switch || p->need_ready || p->need_connect ||
                                        p->check || p->consider || p->need_watch ||
                                        p->need_close));
}

int pvmx_link_want(struct pvmx_peer *p)
{
    if (!pvmx.on)
        return 0;
    if (!p->ep && (p->link == PVMX_UNKNOWN || p->link == PVMX_KNOWN) && p->tid != pvmx.mytid)
        defer(&p->consider);
    return pending != 0;
}

/* Watched mailbox entries came (pvm3 counts the replies): their peers
 * are worth a look. */
static void watches_answered(void)
{
    static unsigned long seen;
    unsigned long a = pvmi_tm_arrivals();
    if (a == seen)
        return;
    seen = a;
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (p->watch_wid)
            defer(&p->consider);
    }
}

int pvmx_link_work(void)
{
    int opened = 0;
    watches_answered();
    if (!pending) {
        pvmx_link_watch_hosts();   /* one whose request failed before */
        return 0;
    }
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (p->need_nak) {
            p->need_nak = 0;
            pvmx_log("refusing an AM link from t%x", p->tid);
            pvmx_send_ctrl(p->tid, PVMAM_TAG_NAK, NULL, 0, NULL);
        }
        if (!pvmx.on)
            continue;
        if (p->need_switch) {
            p->need_switch = 0;
            pvmx_log("switching to AM towards t%x", p->tid);
            int rc = pvmx_send_ctrl(p->tid, PVMAM_TAG_SWITCH, NULL, 0, NULL);
            /* SWITCH is our last daemon-route message to p (a mesh link
             * open here, or dead, answers S's fallback CONN: OPEN holds
             * S's AMs again until READY; DEAD has nothing to hold for) */
            if (p->link != PVMX_DEAD)
                pvmx_link_set(p, p->link == PVMX_DEAD_HELD ? PVMX_DEAD_L_SWITCHED
                                                           : PVMX_L_SWITCHED);
            if (rc < 0)
                pvmx_link_die(p, "sending SWITCH through the pvmd failed");
            opened++;
        }
        if (p->need_watch)
            watch_exit(p);
        if (p->need_close)
            opened += close_exited(p, 0);
        if (p->need_ready) {
            /* READY is our last daemon-route message to p: AM after it */
            p->need_ready = 0;
            int rc = pvmx_send_ctrl(p->tid, PVMAM_TAG_READY, NULL, 0, NULL);
            pvmx_link_set(p, p->link == PVMX_DEAD_S_SWITCHING ? PVMX_DEAD : PVMX_OPEN);
            if (rc < 0)
                pvmx_link_die(p, "sending READY through the pvmd failed");
            opened++;
        }
        if (p->need_connect) {
            p->need_connect = 0;
            pvmx_link_connect(p);
        }
        if (p->consider) {
            p->consider = 0;
            pvmx_link_consider(p);
        }
        if (p->check) {   /* it spoke to us through the daemon */
            p->check = 0;
            pvmx_link_consider(p);
        }
    }
    /* the hosts of tcp links opened above (set_self_watch) */
    pvmx_link_watch_hosts();
    /* Recount: the sends above read input, and control messages that
     * arrived meanwhile may have deferred work for peers already passed. */
    pending = 0;
    for (int i = 0; i < pvmx_peer_count(); i++)
        pending += has_work(pvmx_peer_at(i));
    return opened;
}
