/*
 * am_route.c - the AM route: registers with pvm3's route seam when the
 * library loads, brings libam up when the task connects to its pvmd, and
 * then asks pvm3 to watch the daemon socket (SIGIO) so the fast path makes
 * no system call for it.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "pvmam_int.h"

struct pvmam_state pvmam = { .cfg = { .transport = "off" } };

long long pvmam_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void pvmam_log(const char *fmt, ...)
{
    if (!pvmam.cfg.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "libpvm3am[t%x]: ", pvmam.mytid);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

/* ---- route operations -------------------------------------------------- */

/* No side effects (route.h): the first message to a peer goes through
 * the daemon, and r_sent_daemon starts the link from there. */
static int r_reaches(void *ctx, int tid)
{
    (void)ctx;
    if (!pvmam.on)
        return 0;
    struct pvmam_peer *p = pvmam_peer_find(tid);
    return p && p->tx_open;
}

static int r_send(void *ctx, int tid, struct pmsg *m)
{
    (void)ctx;
    struct pvmam_peer *p = pvmam_peer_find(tid);
    if (!p || p->dead)
        return PvmNoTask;   /* the peer died: as stock says for a gone task */
    return pvmam_frag_send(p, m);
}

static int r_send_bytes(void *ctx, int tid, int tag, int msgctx, const void *buf, size_t len)
{
    (void)ctx;
    struct pvmam_peer *p = pvmam_peer_find(tid);
    if (!p || p->dead)
        return PvmNoTask;
    return pvmam_frag_send_bytes(p, tag, msgctx, buf, len);
}

static int r_sent_daemon(void *ctx, int tid, const struct pmsg *m)
{
    (void)ctx;
    struct pvmam_peer *p = pvmam.on ? pvmam_peer_get(tid) : pvmam_peer_find(tid);
    if (p) {
        p->st.pvmd_msgs_sent++;
        p->st.pvmd_bytes_sent += m->len;
    }
    pvmam.total.pvmd_msgs_sent++;
    pvmam.total.pvmd_bytes_sent += m->len;
    /* link work (a lookup, CONN, REQ) before the message goes, from poll */
    return p && pvmam_link_want(p);
}

static int r_poll(void *ctx)
{
    (void)ctx;
    if (!pvmam.on) {
        pvmam_link_work();   /* refusals (NAK) are owed even without AM */
        return 0;
    }
    if (pvmam.placing)
        pvmam_frag_check_place();
    uint64_t before = am_bytes_read(pvmam.ifc);
    int rc = am_poll(pvmam.ifc);
    pvmam_link_work();
    return rc > 0 ? rc : am_bytes_read(pvmam.ifc) != before;
}

static int r_wait_fds(void *ctx, struct pollfd *fds, int max, int *timeout_ms)
{
    (void)ctx;
    if (!pvmam.on || max < 1)
        return 0;
    int t = am_next_timeout_ms(pvmam.ifc);
    if (t >= 0 && (*timeout_ms < 0 || t < *timeout_ms))
        *timeout_ms = t;
    fds[0] = (struct pollfd){ .fd = am_event_fd(pvmam.ifc), .events = POLLIN };
    return 1;
}

static int r_filter(void *ctx, struct pmsg *m)
{
    (void)ctx;
    if (PVMAM_IS_CTRL(m))
        return pvmam_ctrl_filter(m);
    if (m->ctx != SYSCTX_TC && m->ctx != SYSCTX_TM && !(m->flags & PMSG_ROUTED)) {
        struct pvmam_peer *p = pvmam.on ? pvmam_peer_find(m->src) : NULL;
        if (p) {
            p->st.pvmd_msgs_recv++;
            p->st.pvmd_bytes_recv += m->len;
        }
        pvmam.total.pvmd_msgs_recv++;
        pvmam.total.pvmd_bytes_recv += m->len;
        pvmam_saw_daemon_msg(m->src);
    }
    return 0;
}

static void on_dead(am_interface_t *ifc, int32_t tid, void *arg)
{
    (void)ifc;
    (void)arg;
    struct pvmam_peer *p = pvmam_peer_find(tid);
    if (p) {
        p->dead = 1;
        pvmam_peer_drop_rx(p);
        pvmam_log("t%x is dead (no answer within %u ms or connection lost)", tid,
                  pvmam.cfg.timeout_ms);
    }
}

static void r_connect(void *ctx)
{
    (void)ctx;
    pvmam.mytid = pvmi_mytid();
    pvmam_read_config(&pvmam.cfg);
    pvmam_export_env();
    if (!strcmp(pvmam.cfg.transport, "off"))
        return;
    /* From the moment our address is in the mailbox, peers may send CONN
     * or REQ: while we finish starting they are kept, not dropped. */
    pvmam.starting = 1;
    struct am_config c;
    am_config_default(&c);
    c.depth = pvmam.cfg.depth;
    c.timeout_max_us = pvmam.cfg.timeout_ms * 1000u;
    int rc = am_init(pvmam.cfg.transport, &c, &pvmam.ifc);
    if (rc >= 0)
        rc = pvmam.h_frag = pvmam_frag_bind();
    if (rc < 0) {
        fprintf(stderr, "libpvm3am: cannot start AM transport %s (%s); running without AM\n",
                pvmam.cfg.transport, am_strerror(rc));
        goto fail;
    }
    am_set_dead_handler(pvmam.ifc, on_dead, NULL);
    snprintf(pvmam.addr, sizeof pvmam.addr, "%s", am_task_address(pvmam.ifc, AM_TID_SELF));
    if (pvmam_publish() < 0) {
        fprintf(stderr, "libpvm3am: cannot publish the AM address; running without AM\n");
        goto fail;
    }
    pvmi_route_watch_daemon();
    pvmam.on = 1;
    pvmam.starting = 0;
    pvmam_log("AM on over %s at %s", pvmam.cfg.transport, pvmam.addr);
    pvmam_ctrl_replay_early();
    return;
fail:
    if (pvmam.ifc)
        am_shutdown(pvmam.ifc);
    pvmam.ifc = NULL;
    strcpy(pvmam.cfg.transport, "off");
    pvmam.starting = 0;
    pvmam_ctrl_replay_early();   /* refuses any CONN that came meanwhile */
}

static void r_exit(void *ctx)
{
    (void)ctx;
    pvmam.exiting = 1;
    if (!pvmam.on)
        return;
    pvmam.on = 0;
    if (pvmam.cfg.verbose) {   /* the totals, for a user wondering where messages went */
        struct pvmam_stats s;
        pvmam_stats(0, &s);
        pvmam_log("exit: sent %llu messages over AM, %llu via the pvmd; received %llu over AM, "
                  "%llu via the pvmd; %llu retransmits, %llu duplicates, %llu drops",
                  (unsigned long long)s.am_msgs_sent, (unsigned long long)s.pvmd_msgs_sent,
                  (unsigned long long)s.am_msgs_recv, (unsigned long long)s.pvmd_msgs_recv,
                  (unsigned long long)s.retransmits, (unsigned long long)s.duplicates,
                  (unsigned long long)s.drops);
    }
    am_shutdown(pvmam.ifc);   /* flushes what is in flight, bounded */
    pvmam.ifc = NULL;
    pvmam_peers_free();
}

static const struct pvm_route_ops am_ops = {
    .name = "am",
    .reaches = r_reaches,
    .send = r_send,
    .send_bytes = r_send_bytes,
    .poll = r_poll,
    .wait_fds = r_wait_fds,
    .filter = r_filter,
    .sent_daemon = r_sent_daemon,
    .on_connect = r_connect,
    .on_exit = r_exit,
    .mbox_prefix = PVMAM_MBOX_PREFIX,
};

__attribute__((constructor)) static void pvmam_register(void)
{
    pvmi_route_register(&am_ops, NULL);
}

const char *pvmam_transport(void) { return pvmam.on ? pvmam.cfg.transport : "off"; }
