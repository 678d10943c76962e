/*
 * recv.c - the receive family: pvm_recv, pvm_nrecv, pvm_trecv, pvm_probe,
 * pvm_precv and pvm_recvf.  Messages from every route share one queue;
 * matching is on source, tag and the current context (or the user's
 * pvm_recvf function).
 */
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include "lpvm.h"
#include "pack.h"
#include "route_int.h"
#include "trace.h"


static int (*match_fn)(int, int, int);

static __attribute__((noinline)) struct pmsg *find_fn(int src, int tag)
{
    return pvmi_rxq_match_fn(src, tag, match_fn);
}

/* Inline, the pvm_recvf case apart: every receive asks, mostly of an
 * empty queue. */
static inline struct pmsg *find(int src, int tag)
{
    if (__builtin_expect(match_fn != NULL, 0))
        return find_fn(src, tag);
    return pvmi_rxq_match(src, tag, pvmi.ctx);
}

static long now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000L + ts.tv_nsec / 1000000L;
}

/* Wait up to timeout_ms (-1 forever, 0 poll once) for a match. */
static int wait_match(const char *fn, int src, int tag, long timeout_ms, struct pmsg **out)
{
    int rc = pvmi_enter(fn);
    if (rc < 0)
        return rc;
    long deadline = timeout_ms > 0 ? now_ms() + timeout_ms : 0;
    int polled = 0;
    /* a wait for one source looks at that source alone once first (see
     * precv_wait); a poll (timeout 0) stays one full pvmi_progress */
    int quick = src != -1 && timeout_ms != 0 && !match_fn;
    *out = NULL;
    for (;;) {
        /* handlers first: a message they take must not be matched here,
         * even if it came in while a daemon request held them back */
        pvmi_run_pending();
        if ((*out = find(src, tag)))
            return 0;
        if (quick) {
            quick = 0;
            rc = pvmi_progress_from(src);
            if (rc < -1)
                return pvmi_err(fn, rc);
            if (rc > 0)
                continue;
        }
        long wait = -1;
        if (timeout_ms == 0) {
            if (polled)
                return 0;
            wait = 0;
        } else if (timeout_ms > 0) {
            wait = deadline - now_ms();
            if (wait <= 0) {
                if (polled)
                    return 0;
                wait = 0;
            }
        }
        rc = pvmi_progress_for(match_fn ? -1 : src, (int)(wait > 1000000 ? 1000000 : wait));
        if (rc < 0)
            return pvmi_err(fn, rc);
        polled = 1;
    }
}

static int take(struct pmsg *m)
{
    pvmi_rxq_remove(m);
    pmsg_set_rbuf_free_old(m);
    return m->mid;
}

int pvm_recv(int tid, int tag)
{
    PVMI_TEV(pvmi_tev_recv(TEV_RECV, tid, tag, NULL));
    struct pmsg *m;
    int rc = wait_match("pvm_recv", tid, tag, -1, &m);
    return rc < 0 ? rc : take(m);
}

int pvm_nrecv(int tid, int tag)
{
    PVMI_TEV(pvmi_tev_recv(TEV_NRECV, tid, tag, NULL));
    struct pmsg *m;
    int rc = wait_match("pvm_nrecv", tid, tag, 0, &m);
    return rc < 0 ? rc : m ? take(m) : 0;
}

int pvm_trecv(int tid, int tag, struct timeval *tmout)
{
    PVMI_TEV(pvmi_tev_recv(TEV_TRECV, tid, tag, tmout));
    struct pmsg *m;
    long ms = -1;
    if (tmout) {
        if (tmout->tv_sec < 0 || tmout->tv_usec < 0)
            return pvmi_err("pvm_trecv", PvmBadParam);
        ms = tmout->tv_sec * 1000L + (tmout->tv_usec + 999) / 1000;
    }
    int rc = wait_match("pvm_trecv", tid, tag, ms, &m);
    return rc < 0 ? rc : m ? take(m) : 0;
}

int pvm_probe(int tid, int tag)
{
    PVMI_TEV(pvmi_tev_recv(TEV_PROBE, tid, tag, NULL));
    struct pmsg *m;
    int rc = wait_match("pvm_probe", tid, tag, 0, &m);
    return rc < 0 ? rc : m ? m->mid : 0;
}

/* Wait for pvm_precv's message, offering buf to the routes so that a
 * matching message arriving now lands there directly (sink.c).  *landed
 * says which happened (then *lsrc, *ltag, *lrlen tell its source, tag and
 * whole length). */
static int precv_wait(int src, int tag, int bytes_only, void *buf, size_t cap,
                      struct pmsg **out, int *landed, int *lsrc, int *ltag, size_t *lrlen)
{
    int rc = pvmi_enter("pvm_precv");
    if (rc < 0)
        return rc;
    *landed = 0;
    pvmi_run_pending();   /* as in wait_match */
    if ((*out = find(src, tag)) || match_fn)
        return *out ? 0 : wait_match("pvm_precv", src, tag, -1, out);
    /* from one source, its message is likely there already: look at that
     * source alone first (progress.c), and first of all at its next
     * message, which a route may receive straight into buf (route.h
     * recv_bytes; nothing matching is queued, find() just said, so it
     * overtakes nothing, as pvmi_sink_claim's rule asks).  Whatever the
     * poll delivered is taken below exactly as after pvmi_progress. */
    int quick = -1;
    if (src != -1 && pvmi_progress_quick()) {
        struct pvm_recv_bytes rb = { tag, pvmi.ctx, bytes_only, buf, cap, 0, 0 };
        quick = pvmi_routes_recv_bytes(src, &rb);
        if (quick == 1) {
            pvmi_note_input();
            *landed = 1;
            *lsrc = src;
            *ltag = rb.rtag;
            *lrlen = rb.rlen;
            return 0;
        }
        pvmi_sink_arm(src, tag, pvmi.ctx, bytes_only, buf, cap);
        if (quick < 0)
            quick = pvmi_progress_poll_from(src);
    } else {
        pvmi_sink_arm(src, tag, pvmi.ctx, bytes_only, buf, cap);
    }
    if (quick < -1) {
        pvmi_sink_disarm();
        return pvmi_err("pvm_precv", quick);
    }
    for (;;) {
        if (pvmi_sink_take(lsrc, ltag)) {
            *landed = 1;
            *lrlen = pvmi_sink_total();
            break;
        }
        /* once a message is landing, its data is in buf: wait for it
         * (the first time round, when the quick look did nothing, nothing
         * ran since find() above) */
        if (!pvmi_sink_landing() && quick != -1 && (*out = find(src, tag)))
            break;
        quick = 0;
        rc = pvmi_progress_for(src, -1);
        if (rc < 0) {
            pvmi_sink_disarm();
            return pvmi_err("pvm_precv", rc);
        }
    }
    pvmi_sink_disarm();
    return 0;
}

int pvm_precv(int tid, int tag, void *buf, int len, int type,
              int *rtid, int *rtag, int *rlen)
{
    PVMI_TEV(pvmi_tev_precv(tid, tag, buf, len, type, rtid, rtag, rlen));
    size_t es = pvmi_psend_size(type);
    if (!es || len < 0 || (len > 0 && !buf))
        return pvmi_err("pvm_precv", PvmBadParam);
    struct pmsg *m = NULL;
    int landed = 0, lsrc = 0, ltag = 0;
    size_t want = es * (size_t)len, lrlen = 0;
    int rc = precv_wait(tid, tag, type == PVM_STR || type == PVM_BYTE, buf, want, &m, &landed,
                        &lsrc, &ltag, &lrlen);
    if (rc < 0)
        return rc;
    if (landed) {
        if (rlen)
            *rlen = (int)lrlen;
        if (rtid)
            *rtid = lsrc;
        if (rtag)
            *rtag = ltag;
        return 0;
    } else if (m->enc == PvmDataDefault && !(m->flags & PMSG_ALIEN) && type != PVM_STR &&
        type != PVM_BYTE) {
        pvmi_rxq_remove(m);
        /* an XDR message (pvm_send from a packing peer): decode items */
        static const enum pvmi_type tmap[] = {
            [PVM_SHORT] = PVMI_SHORT, [PVM_INT] = PVMI_INT, [PVM_FLOAT] = PVMI_FLOAT,
            [PVM_CPLX] = PVMI_CPLX, [PVM_DOUBLE] = PVMI_DOUBLE, [PVM_DCPLX] = PVMI_DCPLX,
            [PVM_LONG] = PVMI_LONG, [PVM_USHORT] = PVMI_USHORT, [PVM_UINT] = PVMI_UINT,
            [PVM_ULONG] = PVMI_ULONG };
        size_t ws = (type == PVM_DOUBLE) ? 8 : (type == PVM_DCPLX) ? 16 : (type == PVM_CPLX) ? 8 : 4;
        int n = (int)(m->len / ws);
        if (n > len)
            n = len;
        rc = pvmi_codec_xdr.upk(m, tmap[type], buf, n, 1);
        if (rlen)   /* in native bytes, as stock reports it */
            *rlen = (int)(m->len / ws * es);
    } else {
        pvmi_rxq_remove(m);
        size_t n = m->len < want ? m->len : want;
        rc = pmsg_read(m, buf, n);
        if (rlen)
            *rlen = (int)m->len;
    }
    if (rtid)
        *rtid = m->src;
    if (rtag)
        *rtag = m->tag;
    pmsg_free(m);
    return pvmi_err("pvm_precv", rc < 0 ? rc : 0);
}

/* pvm3.h declares the result with an odd function type; callers cast it
 * back to the matcher type, so we return the old matcher in that form. */
typedef int (*pvmi_recvf_ret)(int (*)(int, int, int));

int (*pvm_recvf(int (*fn)(int, int, int)))(int (*)(int, int, int))
{
    if (__builtin_expect(pvmi_tev_live, 0))
        pvmi_tev_recvf();
    int (*old)(int, int, int) = match_fn;
    match_fn = fn;
    return (pvmi_recvf_ret)(void (*)(void))old;
}
