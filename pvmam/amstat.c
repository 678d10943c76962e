/*
 * amstat.c - live AM statistics on request (the console's amstat), and the
 * mailbox mark that tells libpvm3am tasks from stock ones (its ps).
 *
 * Every libpvm3am task, AM on or off, puts "pvmam.lib.<tid>" in the
 * mailbox when it connects (the pvmd drops it when the task exits).
 * A query is a control message (SYSCTX_TC, tag AMSTAT_Q, {int seq}) sent
 * through the pvmd; the task answers it inside its next PVM call (any
 * call that waits or polls: pvm_recv, pvm_send to an AM peer, pvm_nrecv
 * ...), never in the middle of another send, with AMSTAT_A {seq, version,
 * transport, totals, peers}; totals and each peer's counters end with a
 * transport string (the peer's link's, or the task's).  A task busy outside PVM calls answers late;
 * the asker's wait is bounded and it reports "no answer".
 *
 * This file is a route of its own (pvm3's route seam, route.h; named in
 * PVM3_ROUTES of pvmam/local.mk) that carries no user messages: it only filters the two control tags and
 * answers from the route's poll, a safe point for sending.
 */
#include <stdio.h>
#include <string.h>
#include <time.h>
#include "pvmam_int.h"

/* Outside the TC_* range and next to link.c's PVMAM_TAG_* (not in its
 * PVMAM_IS_CTRL range, so neither filter takes the other's messages). */
#define AMSTAT_Q ((int)0x80a30011)
#define AMSTAT_A ((int)0x80a30012)
#define AMSTAT_VERSION 3   /* 2: auth_drops; 3: transport per peer */
#define MAX_ASKERS 16
#define MARK_FMT PVMAM_MBOX_PREFIX "lib.%x"

static struct {
    int askers[MAX_ASKERS][2];   /* {tid, seq} waiting for our answer */
    int nask;
    int seq;                     /* our last query */
    int want_tid;                /* its target (0: none in flight) */
    int got;                     /* its answer arrived (1) or was bad (<0) */
    struct pvmam_report *out;
} as;

/* ---- answering ------------------------------------------------------- */

static void put64(struct pmsg *m, uint64_t v)
{
    pvmi_put_int(m, (int)(uint32_t)(v >> 32));
    pvmi_put_int(m, (int)(uint32_t)v);
}

static void put_stats(struct pmsg *m, const struct pvmam_stats *s)
{
    const uint64_t v[] = { s->am_msgs_sent, s->am_msgs_recv, s->am_bytes_sent, s->am_bytes_recv,
                           s->pvmd_msgs_sent, s->pvmd_msgs_recv, s->pvmd_bytes_sent,
                           s->pvmd_bytes_recv, s->retransmits, s->duplicates, s->drops,
                           s->auth_drops };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        put64(m, v[i]);
    pvmi_put_int(m, s->peers_am);
    pvmi_put_str(m, s->transport);
}

static int route_of(const struct pvmx_peer *p)
{
    if (pvmx_link_dead(p))
        return PVMAM_ROUTE_DEAD;
    return pvmx_link_tx(p) ? PVMAM_ROUTE_AM : PVMAM_ROUTE_PVMD;
}

static void answer(int dst, int seq)
{
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return;
    struct pvmam_stats s;
    pvmam_stats(0, &s);
    pvmi_put_int(m, seq);
    pvmi_put_int(m, AMSTAT_VERSION);
    pvmi_put_str(m, pvmam_transport());
    put_stats(m, &s);
    int n = pvmx_peer_count();
    pvmi_put_int(m, n);
    for (int i = 0; i < n; i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        pvmam_stats(p->tid, &s);
        pvmi_put_int(m, p->tid);
        pvmi_put_int(m, route_of(p));
        put_stats(m, &s);
    }
    m->tag = AMSTAT_A;
    m->ctx = SYSCTX_TC;
    pvmi_send_daemon(dst, m);
    pmsg_free(m);
}

/* ---- reading an answer -------------------------------------------------- */

static int get64(struct pmsg *m, uint64_t *v)
{
    int hi, lo;
    if (pvmi_get_int(m, &hi) < 0 || pvmi_get_int(m, &lo) < 0)
        return PvmBadMsg;
    *v = (uint64_t)(uint32_t)hi << 32 | (uint32_t)lo;
    return 0;
}

static int get_stats(struct pmsg *m, struct pvmam_stats *s)
{
    uint64_t *v[] = { &s->am_msgs_sent, &s->am_msgs_recv, &s->am_bytes_sent, &s->am_bytes_recv,
                      &s->pvmd_msgs_sent, &s->pvmd_msgs_recv, &s->pvmd_bytes_sent,
                      &s->pvmd_bytes_recv, &s->retransmits, &s->duplicates, &s->drops,
                      &s->auth_drops };
    for (size_t i = 0; i < sizeof v / sizeof v[0]; i++)
        if (get64(m, v[i]) < 0)
            return PvmBadMsg;
    if (pvmi_get_int(m, &s->peers_am) < 0 ||
        pvmi_get_str(m, s->transport, sizeof s->transport) < 0)
        return PvmBadMsg;
    return 0;
}

static int read_answer(struct pmsg *m, struct pvmam_report *r)
{
    int version, n;
    memset(r, 0, sizeof *r);
    if (pvmi_get_int(m, &version) < 0 || version != AMSTAT_VERSION ||
        pvmi_get_str(m, r->transport, sizeof r->transport) < 0 || get_stats(m, &r->total) < 0 ||
        pvmi_get_int(m, &n) < 0 || n < 0)
        return PvmBadMsg;
    for (int i = 0; i < n; i++) {
        struct pvmam_peer_report pr;
        if (pvmi_get_int(m, &pr.tid) < 0 || pvmi_get_int(m, &pr.route) < 0 ||
            get_stats(m, &pr.st) < 0)
            return PvmBadMsg;
        if (r->npeers < PVMAM_REPORT_PEERS)
            r->peer[r->npeers++] = pr;
        else
            r->more++;
    }
    return 0;
}

/* ---- the route: filter and poll --------------------------------------- */

static int s_filter(void *ctx, struct pmsg *m)
{
    (void)ctx;
    if (m->ctx != SYSCTX_TC || (m->tag != AMSTAT_Q && m->tag != AMSTAT_A))
        return 0;
    int seq;
    if (pvmi_get_int(m, &seq) < 0) {
        pmsg_free(m);
        return 1;
    }
    if (m->tag == AMSTAT_Q) {
        /* answered from s_poll: we may be inside a send right now */
        if (as.nask < MAX_ASKERS) {
            as.askers[as.nask][0] = m->src;
            as.askers[as.nask][1] = seq;
            as.nask++;
        }
    } else if (as.want_tid && seq == as.seq && m->src == as.want_tid && !as.got) {
        as.got = read_answer(m, as.out) < 0 ? -1 : 1;
    }
    pmsg_free(m);
    return 1;
}

static int s_poll(void *ctx)
{
    (void)ctx;
    if (!as.nask || pvmi_mytid() <= 0)
        return 0;
    int n = as.nask;
    as.nask = 0;
    for (int i = 0; i < n; i++)
        answer(as.askers[i][0], as.askers[i][1]);
    return 0;
}

static int s_reaches(void *ctx, int tid) { (void)ctx; (void)tid; return 0; }
static int s_send(void *ctx, int tid, struct pmsg *m) { (void)ctx; (void)tid; (void)m; return PvmSysErr; }

static void s_connect(void *ctx)
{
    (void)ctx;
    char name[32];
    snprintf(name, sizeof name, MARK_FMT, pvmi_mytid());
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return;
    if (pvmi_put_int(m, AMSTAT_VERSION) >= 0)
        pvmi_mbox_put(name, -1, PvmMboxDefault, m->mid);
    pmsg_free(m);
}

static void s_exit(void *ctx)
{
    (void)ctx;
    as.nask = 0;
}

/* Named in PVM3_ROUTES (pvmam/local.mk). */
const struct pvm_route_ops pvmx_amstat_route = {
    .name = "amstat",
    .reaches = s_reaches,
    .send = s_send,
    .poll = s_poll,
    .filter = s_filter,
    .on_connect = s_connect,
    .on_exit = s_exit,
};

/* ---- the asking side (public, pvmam.h) ---------------------------------- */

int pvmam_is_amtask(int tid)
{
    if (!PVMI_IS_TASK(tid))
        return PvmBadParam;
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    char name[32];
    snprintf(name, sizeof name, MARK_FMT, tid);
    struct pmsg *m = NULL;
    rc = pvmi_mbox_get(name, 0, PvmMboxDefault, &m);
    if (m)
        pmsg_free(m);
    if (rc == PvmNotFound)
        return 0;
    return rc < 0 ? rc : 1;
}

static long long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

int pvmam_report(int tid, int timeout_ms, struct pvmam_report *out)
{
    if (!out || timeout_ms < 0 || !PVMI_IS_TASK(tid))
        return PvmBadParam;
    int rc = pvmam_is_amtask(tid);
    if (rc <= 0)
        return rc == 0 ? PvmNotFound : rc;
    struct pmsg *q = pvmi_xbuf();
    if (!q)
        return PvmNoMem;
    as.seq++;
    as.want_tid = tid;
    as.got = 0;
    as.out = out;
    pvmi_put_int(q, as.seq);
    q->tag = AMSTAT_Q;
    q->ctx = SYSCTX_TC;
    rc = pvmi_send_daemon(tid, q);
    pmsg_free(q);
    long long end = now_ms() + timeout_ms;
    while (rc >= 0 && !as.got) {
        long long left = end - now_ms();
        if (left <= 0)
            break;
        rc = pvmi_progress((int)left);
    }
    int got = as.got;
    as.want_tid = 0;
    as.out = NULL;
    if (rc < 0)
        return rc;
    if (got < 0)
        return PvmBadMsg;
    return got ? 0 : PvmNoData;
}
