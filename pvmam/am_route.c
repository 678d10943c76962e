/*
 * am_route.c - the AM route (pvmx_am_route, named in PVM3_ROUTES of
 * pvmam/local.mk, so pvm3 registers it before it connects): brings libam
 * up when the task connects to its pvmd, then asks pvm3 to watch the
 * daemon socket (SIGIO) so the fast path makes no system call for it.
 */
#include <stdio.h>
#include <string.h>
#include "pvmam_int.h"

/* ---- route operations -------------------------------------------------- */

/* No side effects (route.h): the first message to a peer goes through
 * the daemon, and r_sent_daemon starts the link from there. */
static int r_reaches(void *ctx, int tid)
{
    (void)ctx;
    if (!pvmx.on)
        return 0;
    struct pvmx_peer *p = pvmx_peer_find(tid);
    return p && pvmx_link_tx(p);
}

/* A send to p fails: its link ended (why, logged) or the pvmd said it
 * exited.  As stock says for a gone task. */
static int gone(const struct pvmx_peer *p)
{
    pvmx_log("send to t%x: No such task: %s", p->tid,
             pvmx_link_dead(p) ? p->why : "the pvmd said it exited (its link is closing)");
    return PvmNoTask;
}

static int r_send(void *ctx, int tid, struct pmsg *m)
{
    (void)ctx;
    struct pvmx_peer *p = pvmx_peer_find(tid);
    if (!p)
        return PvmNoTask;
    if (pvmx_link_dead(p) || p->need_close)
        return gone(p);   /* the peer died or exited */
    if (m->len <= PVMX_SHORT &&
        (pvmx.short_all || m->len + PVMX_SHORT_HDR <= am_max_payload(p->ifc))) {
        int rc = pvmx_short_send_msg(p, m);
        if (rc <= 0)
            return rc;
    }
    return pvmx_frag_send(p, m);
}

static int r_send_bytes(void *ctx, int tid, int tag, int msgctx, const void *buf, size_t len)
{
    (void)ctx;
    struct pvmx_peer *p = pvmx.on ? pvmx_peer_find(tid) : NULL;
    if (!p || !pvmx_link_tx(p))   /* r_reaches's no (route.h) */
        return PVM_ROUTE_NOT_HERE;
    if (pvmx_link_dead(p) || p->need_close)
        return gone(p);
    if (len <= PVMX_SHORT && (pvmx.short_all || len + PVMX_SHORT_HDR <= am_max_payload(p->ifc)))
        return pvmx_short_send_bytes(p, tag, msgctx, buf, len);
    return pvmx_frag_send_bytes(p, tag, msgctx, buf, len);
}

static int r_sent_daemon(void *ctx, int tid, const struct pmsg *m)
{
    (void)ctx;
    struct pvmx_peer *p = pvmx.on ? pvmx_peer_get(tid) : pvmx_peer_find(tid);
    if (p) {
        /* a user message: pvmam_init's mesh must not skip SWITCH/READY to
         * it (init.c).  Not pvm3's own in the TC context (pvm_spawn's
         * TC_SIBLINGS to each child): those are read by the library as
         * they come, and nothing orders them against user messages. */
        if (m->ctx != SYSCTX_TC)
            p->daemon_sent = 1;
        p->st.pvmd_msgs_sent++;
        p->st.pvmd_bytes_sent += m->len;
    }
    pvmx.total.pvmd_msgs_sent++;
    pvmx.total.pvmd_bytes_sent += m->len;
    /* link work (a lookup, CONN, REQ) before the message goes, from poll */
    return p && pvmx_link_want(p);
}

/* A pvm_precv waiting for one peer's message with room for a big one
 * (route.h pvmi_sink_wants): during this poll other peers' big AMs wait
 * unread (am_hold_big; libam bounds each wait), so a contribution that
 * comes while the root of a reduce waits for another member lands in the
 * next pvm_precv's buffer rather than in a message block it would copy
 * again (docs/performance.md, "the 1 MiB reduce's second copy").  Returns
 * the interface held, to be let go after the poll (NULL: none). */
#define HOLD_MIN (64u << 10)

static am_interface_t *hold_begin(void)
{
    int tid = pvmi_sink_wants(HOLD_MIN);
    struct pvmx_peer *p = tid ? pvmx_peer_find(tid) : NULL;
    if (!p || !p->ep)
        return NULL;
    am_hold_big(p->ifc, p->ep);
    return p->ifc;
}

static void hold_end(am_interface_t *ifc)
{
    if (ifc)
        am_hold_big(ifc, NULL);
}

static int r_poll(void *ctx)
{
    (void)ctx;
    if (!pvmx.on) {
        pvmx_link_work();   /* refusals (NAK) are owed even without AM */
        return 0;
    }
    if (pvmx.placing)
        pvmx_frag_check_place();
    int n = 0, moved = 0;
    am_interface_t *held = hold_begin();
    for (int i = 0; i < pvmx.nifc; i++) {
        uint64_t before = am_bytes_read(pvmx.ifc[i]);
        int rc = am_poll(pvmx.ifc[i]);
        n += rc > 0 ? rc : 0;
        moved |= am_bytes_read(pvmx.ifc[i]) != before;
    }
    hold_end(held);
    int changed = pvmx_link_work();
    return n > 0 ? n : moved || changed;
}

/* A pvm_precv or pvm_recv waiting for tid (pvmi_progress_from): its
 * link's endpoint alone (am_poll_ep), the handlers as in r_poll.  Not
 * while the link is not delivering yet (its messages are held for the
 * daemon route, released by link work), is closing, or a placement is
 * being checked: those are r_poll's work. */
static int r_poll_from(void *ctx, int tid)
{
    (void)ctx;
    if (!pvmx.on || pvmx.placing)
        return -1;
    struct pvmx_peer *p = pvmx_peer_find(tid);
    if (!p || !p->ep || !pvmx_link_rx(p) || pvmx_link_dead(p) || p->need_close)
        return -1;
    am_interface_t *held = hold_begin();
    int rc = am_poll_ep(p->ifc, p->ep);
    hold_end(held);
    return rc > 0 ? rc : 0;
}

/* A pvm_precv waiting for tid's message (route.h recv_bytes): a short
 * message straight into its buffer (short.c), under r_poll_from's
 * conditions. */
static int r_recv_bytes(void *ctx, int tid, struct pvm_recv_bytes *rb)
{
    (void)ctx;
    if (!pvmx.on || pvmx.placing)
        return -1;
    struct pvmx_peer *p = pvmx_peer_find(tid);
    if (!p || !p->ep || pvmx_link_dead(p) || p->need_close)
        return -1;
    return pvmx_short_recv(p, rb);
}

/* Wake by t ms (t < 0: no need) if that is sooner. */
static void wake_by(int *timeout_ms, int t)
{
    if (t >= 0 && (*timeout_ms < 0 || t < *timeout_ms))
        *timeout_ms = t;
}

static int r_wait_fds(void *ctx, struct pollfd *fds, int max, int *timeout_ms)
{
    (void)ctx;
    if (!pvmx.on)
        return 0;
    int n = 0;
    for (int i = 0; i < pvmx.nifc && n < max; i++) {
        wake_by(timeout_ms, am_next_timeout_ms(pvmx.ifc[i]));
        fds[n++] = (struct pollfd){ .fd = am_event_fd(pvmx.ifc[i]), .events = POLLIN };
    }
    long long due = pvmx_link_close_due();   /* an exited peer's link closes by then */
    if (due >= 0) {
        long long left = due - pvmx_now_ms();
        wake_by(timeout_ms, left < 0 ? 0 : left > 1000000 ? 1000000 : (int)left);
    }
    return n;
}

static void r_batch(void *ctx, int on)
{
    (void)ctx;
    pvmx_frag_batch(on);
}

static int r_filter(void *ctx, struct pmsg *m)
{
    (void)ctx;
    if (PVMAM_IS_CTRL(m)) {
        if (!PVMAM_IS_INIT(m->tag))
            return pvmx_ctrl_filter(m);
        pvmx_init_note(m);   /* pvmam_init's own (init.c) */
        pmsg_free(m);
        return 1;
    }
    if (m->ctx != SYSCTX_TC && m->ctx != SYSCTX_TM && !(m->flags & PMSG_ROUTED)) {
        struct pvmx_peer *p = pvmx.on ? pvmx_peer_find(m->src) : NULL;
        if (p) {
            p->st.pvmd_msgs_recv++;
            p->st.pvmd_bytes_recv += m->len;
        }
        pvmx.total.pvmd_msgs_recv++;
        pvmx.total.pvmd_bytes_recv += m->len;
        pvmx_saw_daemon_msg(m->src);
    }
    return 0;
}

static void on_dead(am_interface_t *ifc, int32_t tid, void *arg)
{
    (void)arg;
    struct pvmx_peer *p = pvmx_peer_find(tid);
    if (p && p->ifc == ifc) {
        pvmx_link_die(p, p->ep ? am_task_dead_reason(p->ep) : NULL);
        /* whole messages held for its SWITCH or READY stay: that is
         * still on its way through the pvmd and releases them (link.c) */
        pvmx_peer_drop_partial(p);
        pvmx_link_ended(p);
        /* libam's reason (an exit and a failure may look the same: a
         * closed tcp link), and the timeout that bounds a silent one */
        pvmx_log("t%x: AM link lost: %s (PVMAM_TIMEOUT %u ms)", tid, p->why, pvmx.cfg.timeout_ms);
    }
}

static void stop_ifcs(void)
{
    pvmx.short_all = 0;
    while (pvmx.nifc > 0) {
        pvmx.nifc--;
        am_shutdown(pvmx.ifc[pvmx.nifc]);
        pvmx.ifc[pvmx.nifc] = NULL;
    }
    pvmx.running[0] = '\0';
}

/* A send waiting on one interface serves the others (am_set_wait_hook):
 * a task blocked in a shm send whose peer is blocked in a tcp send to a
 * third task that waits on shm would otherwise wait for ever.  Not nested:
 * a reply made in there may wait too. */
static void serve_others(am_interface_t *waiting, void *arg)
{
    static int busy;
    (void)arg;
    if (busy)
        return;
    busy = 1;
    for (int i = 0; i < pvmx.nifc; i++)
        if (pvmx.ifc[i] != waiting)
            am_poll(pvmx.ifc[i]);
    busy = 0;
}

/* One interface per configured transport, in order.  One that cannot
 * start is reported and left out (shm,tcp still reaches every peer over
 * tcp); -1 only when none starts. */
static int start_ifcs(const struct am_config *c)
{
    for (int i = 0; i < pvmx.cfg.ntr; i++) {
        const char *t = pvmx.cfg.tr[i];
        am_interface_t *ifc;
        struct am_config cc = *c;
        /* shm copies a big fragment once, from the sender's memory, after a
         * handshake (a 4 MiB message in 1 MiB fragments paid four of them);
         * over ucx a big fragment is one rendezvous UCX fetches in place
         * (libam/tr_ucx.c): fewer, bigger fragments on both */
        if (!strcmp(t, "shm") || !strcmp(t, "ucx"))
            cc.max_payload = PVMX_SHM_PAYLOAD;
        int rc = am_init(t, &cc, &ifc);
        if (rc < 0) {
            fprintf(stderr, "libpvm3am: cannot start AM transport %s (%s); %s\n", t,
                    am_strerror(rc), i + 1 < pvmx.cfg.ntr || pvmx.nifc ? "going on without it"
                                                                    : "running without AM");
            continue;
        }
        am_set_dead_handler(ifc, on_dead, NULL);
        size_t l = strlen(pvmx.running);
        snprintf(pvmx.running + l, sizeof pvmx.running - l, "%s%s", l ? "," : "", t);
        pvmx.ifc[pvmx.nifc++] = ifc;
    }
    for (int i = 0; pvmx.nifc > 1 && i < pvmx.nifc; i++)
        am_set_wait_hook(pvmx.ifc[i], serve_others, NULL);
    pvmx.short_all = 1;
    for (int i = 0; i < pvmx.nifc; i++)
        if (am_max_payload(pvmx.ifc[i]) < PVMX_SHORT + PVMX_SHORT_HDR)
            pvmx.short_all = 0;
    return pvmx.nifc ? 0 : -1;
}

static void r_connect(void *ctx)
{
    (void)ctx;
    pvmx.mytid = pvmi_mytid();
    pvmx_read_config(&pvmx.cfg);
    pvmx_export_env();
    if (!strcmp(pvmx.cfg.transport, "off"))
        return;
    /* From the moment our address is in the mailbox, peers may send CONN
     * or REQ: while we finish starting they are kept, not dropped. */
    pvmx.starting = 1;
    struct am_config c;
    am_config_default(&c);
    c.depth = pvmx.cfg.depth;
    c.timeout_max_us = pvmx.cfg.timeout_ms * 1000u;
    /* libam waits itself only while a send window is full: alike */
    const char *w = pvmi_wait_name();
    c.wait = !strcmp(w, "spin") ? AM_WAIT_SPIN : !strcmp(w, "block") ? AM_WAIT_BLOCK
                                                                      : AM_WAIT_YIELD;
    if (start_ifcs(&c) < 0)
        goto fail;
    int rc = pvmx.h_frag = pvmx_frag_bind();
    if (rc >= 0)
        rc = pvmx_short_bind();
    if (rc < 0) {
        fprintf(stderr, "libpvm3am: cannot start AM (%s); running without AM\n",
                am_strerror(rc));
        goto fail;
    }
    if (pvmx_addrs_make() < 0 || pvmx_publish() < 0) {
        fprintf(stderr, "libpvm3am: cannot publish the AM address; running without AM\n");
        goto fail;
    }
    pvmi_route_watch_daemon();
    pvmx.on = 1;
    pvmx.starting = 0;
    pvmx_log("AM on over %s at %s, waiting: %s", pvmx.running, pvmx.addr,
              pvmi_wait_name());
    pvmx_ctrl_replay_early();
    return;
fail:
    stop_ifcs();
    strcpy(pvmx.cfg.transport, "off");
    pvmx.starting = 0;
    pvmx_ctrl_replay_early();   /* refuses any CONN that came meanwhile */
}

/* pvm_exit, before it tells the pvmd (route.h flush): wait until every
 * AM we sent is acknowledged, at most PVMAM_TIMEOUT.  A receiver
 * acknowledges once the handler ran, so the message is its own then.
 * The pvmd reports our exit to peers watching us (link.c watch_exit),
 * which then close their links; were our last AMs still in flight (a
 * tcp stream half read, a udp AM lost once), the exit notice would
 * overtake them.  No cycle of waits: a task acknowledges whenever it
 * polls (every PVM or libam wait, and am_event_fd before it blocks),
 * and we poll every source meanwhile (pvmi_progress). */
static void r_flush(void *ctx)
{
    (void)ctx;
    if (!pvmx.on)
        return;
    long long end = pvmx_now_ms() + pvmx.cfg.timeout_ms;
    for (;;) {
        unsigned out = 0;
        for (int i = 0; i < pvmx.nifc; i++)
            out += am_outstanding(pvmx.ifc[i]);
        long long left = end - pvmx_now_ms();
        if (!out)
            return;
        if (left <= 0 || pvmi_progress(left < 100 ? (int)left : 100) < 0)
            break;
    }
    pvmx_log("exit: not every AM we sent was acknowledged within %u ms",
             pvmx.cfg.timeout_ms);
}

/* At exit, under PVMAM_VERBOSE: whole messages a peer sent over AM that
 * are still held for its SWITCH or READY (which never came: a peer that
 * died right after sending it, its last daemon-route message lost with
 * it), or one half received, are dropped with the peer table; say so, for
 * a user (or tests/torture) looking for a message that never arrived. */
static void say_undelivered(void)
{
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        int held = 0;
        for (const struct pmsg *m = p->hold.head; m; m = m->qnext)
            held++;
        if (held || p->rbusy)
            pvmx_log("exit: from t%x (link %s) %d message(s) still held for its %s%s: dropped",
                     p->tid, pvmx_link_table[p->link].name, held,
                     pvmx.mytid < p->tid ? "SWITCH" : "READY",
                     p->rbusy ? ", and one half received" : "");
    }
}

static void r_exit(void *ctx)
{
    (void)ctx;
    pvmx.exiting = 1;
    if (!pvmx.on)
        return;
    pvmx.on = 0;
    if (pvmx.cfg.verbose) {   /* the totals, for a user wondering where messages went */
        struct pvmam_stats s;
        pvmam_stats(0, &s);
        pvmx_log("exit: sent %llu messages over AM, %llu via the pvmd; received %llu over AM, "
                  "%llu via the pvmd; %llu retransmits, %llu duplicates, %llu drops, "
                  "%llu without our secret",
                  (unsigned long long)s.am_msgs_sent, (unsigned long long)s.pvmd_msgs_sent,
                  (unsigned long long)s.am_msgs_recv, (unsigned long long)s.pvmd_msgs_recv,
                  (unsigned long long)s.retransmits, (unsigned long long)s.duplicates,
                  (unsigned long long)s.drops, (unsigned long long)s.auth_drops);
    }
    if (pvmx.cfg.verbose)
        say_undelivered();
    pvmx_link_close_exited();
    stop_ifcs();   /* each flushes what is in flight, bounded */
    for (int i = 0; i < pvmx_peer_count(); i++)
        pvmx_peer_drop_rx(pvmx_peer_at(i));
    pvmx_peers_free();
}

/* Named in PVM3_ROUTES (pvmam/local.mk). */
const struct pvm_route_ops pvmx_am_route = {
    .name = "am",
    .reaches = r_reaches,
    .send = r_send,
    .send_bytes = r_send_bytes,
    .poll = r_poll,
    .poll_from = r_poll_from,
    .recv_bytes = r_recv_bytes,
    .wait_fds = r_wait_fds,
    .filter = r_filter,
    .sent_daemon = r_sent_daemon,
    .settle = pvmx_settle,
    .batch = r_batch,
    .flush = r_flush,
    .on_connect = r_connect,
    .on_exit = r_exit,
    .mbox_prefix = PVMAM_MBOX_PREFIX,
};
