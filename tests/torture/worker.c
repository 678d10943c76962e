/*
 * worker.c - one task of a torture scenario: draws the shape from the
 * seed, plays its own script (shape.h) and checks every message it gets
 * against the one its sender was to send: in order, exactly once, the
 * same data.  It receives by the shape's receive mode (any, fixed source,
 * exact tag, pvm_precv, probe or nrecv loops; any source by tag,
 * pvm_precv(-1, tag), a pvm_recvf matcher, pvm_probe(-1, tag)), and
 * members of a collective phase play it first (coll_phase).  It may
 * pvm_kill another task mid-stream ('K'), and multicasts to lists that
 * hold itself or a receiver twice (self_check).  Task 0 spawns the others
 * (and catches their output when the shape says so).  It tells the runner how it went (TAG_REPORT) and
 * exits; every wait is bounded (TORTURE_STALL seconds without a message).
 */
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>
#include "../../pvmam/pvmam.h"
#include "shape.h"
#include "torture.h"

#define GRACE 0.3   /* s: late messages of a task that went away by design */

static struct t_shape s;
static int me, runner, tids[TW_MAX];
static int nexp[TW_MAX], *exp_idx[TW_MAX], pos[TW_MAX], exited[TW_MAX];
/* took[src][k]: src's message #k came; head[src]: the first of exp_idx[src]
 * that did not (a receive by tag from any source may take a message of
 * another sender before its turn) */
static char *took[TW_MAX];
static int head[TW_MAX];
static double gone_at[TW_MAX];
static int nsent, nrecvd, nfail;
static char failtxt[2048];
static double stall, last_progress;

static void fail(const char *fmt, ...)
{
    size_t l = strlen(failtxt);
    nfail++;
    if (l + 80 < sizeof failtxt) {
        snprintf(failtxt + l, sizeof failtxt - l, "w%d: ", me);
        l = strlen(failtxt);
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(failtxt + l, sizeof failtxt - l, fmt, ap);
        va_end(ap);
        l = strlen(failtxt);
        snprintf(failtxt + l, sizeof failtxt - l, "\n");
    }
}

/* torture_stock has no pvmam: the weak references are NULL there. */
extern int pvmam_stats(int tid, struct pvmam_stats *out) __attribute__((weak));
extern const char *pvmam_dead_reason(int tid) __attribute__((weak));

/* Every AM link of ours that ended, and why (pvmam_dead_reason): the
 * runner prints them for a scenario that failed or stalled, so a link
 * that died under a live task shows how. */
static void dead_links(char *buf, size_t size)
{
    buf[0] = '\0';
    for (int i = 0, l = 0; pvmam_dead_reason && i < s.n && l + 40 < (int)size; i++) {
        const char *why = i != me && tids[i] > 0 ? pvmam_dead_reason(tids[i]) : NULL;
        if (why)
            l += snprintf(buf + l, size - (size_t)l, "%s w%d%s: %s", l ? ";" : "", i,
                          exited[i] ? " (exited)" : "", why);
    }
}

static void report(int final)
{
    int v[5] = { (int)(uint32_t)s.seed, (int)(uint32_t)(s.seed >> 32), me, final, nfail == 0 };
    char dead[1024];
    dead_links(dead, sizeof dead);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, 5, 1);
    pvm_pkstr(failtxt);
    pvm_pkstr(dead);
    int rc = pvm_send(runner, TAG_REPORT);
    if (rc < 0)
        fprintf(stderr, "torture w%d: report to the runner: %d\n", me, rc);
}

static void finish(void)
{
    report(1);
    pvm_exit();
    exit(0);
}

static int index_of(int tid)
{
    for (int i = 0; i < s.n; i++)
        if (tids[i] == tid)
            return i;
    return -1;
}

static uint64_t sum(const void *p, size_t n)   /* FNV-1a */
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++)
        h = (h ^ ((const unsigned char *)p)[i]) * 0x100000001b3ull;
    return h;
}

static int unpack(const struct t_msg *m, void *buf)
{
    int n = shape_count(m);
    switch (m->type) {
    case T_BYTE: return pvm_upkbyte(buf, n, 1);
    case T_INT: return pvm_upkint(buf, n, 1);
    default: return pvm_upkdouble(buf, n, 1);
    }
}

/* Is message #k one src was to send us and not yet came, and, for a
 * receive that took src's messages by any tag (exact 0), the next one?
 * If not, say why. */
static int in_order(int src, int k, int exact)
{
    int want = head[src] < nexp[src] ? exp_idx[src][head[src]] : -1;
    int ours = k >= 0 && k < s.t[src].nmsg && (s.t[src].msg[k].dst & (1u << me));
    if (ours && !took[src][k] && (exact || k == want)) {
        took[src][k] = 1;
        while (head[src] < nexp[src] && took[src][exp_idx[src][head[src]]])
            head[src]++;
        return 1;
    }
    fail("from w%d: got message #%d, expected #%d%s (%s)", src, k, want, exact ? " or a later one" : "",
         !ours ? (k >= 0 && k < s.t[src].nmsg ? "not sent to us" : "one more than sent")
         : took[src][k] ? "duplicate" : want < 0 ? "one more than sent" : "out of order or lost one");
    return 0;
}

/* `got` (size bytes, of the message's type) against what was sent. */
static void check_data(const char *what, const void *gotp, const void *wantp, uint32_t size)
{
    const unsigned char *got = gotp, *want = wantp;
    if (!memcmp(got, want, size))
        return;
    size_t d = 0;
    while (got[d] == want[d])
        d++;
    fail("%s (%u B) differs from byte %zu on, checksum %016llx, sent %016llx", what, size, d,
         (unsigned long long)sum(got, size), (unsigned long long)sum(want, size));
}

/* XDR pads bytes to 4 */
static int length_ok(int bytes, uint32_t size) { return bytes >= (int)size && bytes <= (int)size + 3; }

static void progress(int src)
{
    pos[src]++;
    nrecvd++;
    last_progress = now_s();
}

/* A data message from task src: the next one it was to send us (exact:
 * taken by its tag, so one of src's later ones may come first)? */
static void on_data(int bufid, int src, int tag, int exact)
{
    int k = tag - TAG_DATA;
    if (!in_order(src, k, exact))
        return;
    const struct t_msg *m = &s.t[src].msg[k];
    int bytes = -1, t2, tid2;
    pvm_bufinfo(bufid, &bytes, &t2, &tid2);
    if (!length_ok(bytes, m->size))
        fail("from w%d: message #%d is %d bytes, sent %u", src, k, bytes, m->size);
    size_t sz = m->size ? m->size : 1;
    char *got = malloc(sz), *want = malloc(sz);
    if (!got || !want) {
        fail("out of memory");
    } else {
        memset(got, 0x5a, sz);
        shape_fill(s.seed, src, k, m, want);
        int rc = unpack(m, got);
        char what[64];
        snprintf(what, sizeof what, "from w%d: message #%d", src, k);
        if (rc < 0)
            fail("from w%d: unpacking message #%d (%u B): %d", src, k, m->size, rc);
        else
            check_data(what, got, want, m->size);
    }
    free(got);
    free(want);
    progress(src);
}

static void maybe_quit(void)
{
    if (s.t[me].ending == E_QUIT && nrecvd >= s.t[me].kill_after)
        finish();
}

static void on_exit_notice(void)
{
    int who = -1;
    pvm_upkint(&who, 1, 1);
    int i = index_of(who);
    if (i >= 0 && !exited[i]) {
        exited[i] = 1;
        gone_at[i] = now_s();
    }
}

static void dispatch(int bufid, int fsrc, int ftag);

/* Receive and check one message, waiting at most `wait` s; 0 if none. */
static int recv_one(double wait)
{
    struct timeval tv = { (long)wait, (long)((wait - (long)wait) * 1e6) };
    int bufid = wait > 0 ? pvm_trecv(-1, -1, &tv) : pvm_nrecv(-1, -1);
    if (bufid < 0) {
        fail("pvm_trecv: %d", bufid);
        finish();
    }
    if (bufid == 0)
        return 0;
    dispatch(bufid, -1, -1);
    return 1;
}

/* A message taken by a receive for source fsrc and tag ftag (-1: any):
 * data, an exit notice or a late ack. */
static void dispatch(int bufid, int fsrc, int ftag)
{
    int bytes, tag, tid;
    pvm_bufinfo(bufid, &bytes, &tag, &tid);
    if ((fsrc != -1 && tid != fsrc) || (ftag != -1 && tag != ftag))
        fail("a receive for t%x tag %d took a message from t%x, tag %d, %d bytes", fsrc, ftag, tid,
             tag, bytes);
    if (tag == TAG_EXIT) {
        on_exit_notice();
    } else if (tag == TAG_TABLE && me == 0) {
        /* a late acknowledgement (spawn_others) */
    } else if (tag >= TAG_DATA && index_of(tid) >= 0) {
        on_data(bufid, index_of(tid), tag, ftag != -1);
        maybe_quit();
    } else {
        fail("unexpected message tag %d from t%x, %d bytes", tag, tid, bytes);
    }
}

/* For a stall: what pvmam knows of src's messages to us, so the report
 * tells whether a missing one never arrived (nothing over AM or via the
 * pvmd), arrived over AM but was not delivered (held for the sender's
 * SWITCH or READY while its link was opening), or went astray above. */
static void link_note(int src, char *buf, size_t size)
{
    struct pvmam_stats st;
    buf[0] = '\0';
    if (!pvmam_stats || pvmam_stats(tids[src], &st) < 0)
        return;
    const char *why = pvmam_dead_reason ? pvmam_dead_reason(tids[src]) : NULL;
    snprintf(buf, size, "; pvmam: %llu over AM, %llu via the pvmd from it (to it: %llu, %llu), "
             "link %s%s%s%s%s, %llu drops", (unsigned long long)st.am_msgs_recv,
             (unsigned long long)st.pvmd_msgs_recv, (unsigned long long)st.am_msgs_sent,
             (unsigned long long)st.pvmd_msgs_sent, st.transport[0] ? st.transport : "none",
             st.peers_am ? " (AM)" : "", st.peers_opening ? " (still opening)" : "",
             why ? " ended: " : "", why ? why : "", (unsigned long long)st.drops);
}

static int pvm_type(int type) { return type == T_BYTE ? PVM_BYTE : type == T_INT ? PVM_INT : PVM_DOUBLE; }

/* pvm_precv and the group calls have no timeout: a timer bounds them.
 * When it fires, the handler jumps back out of the library call; the task
 * then only reports the stall and exits. */
static sigjmp_buf wd_jmp;
static volatile sig_atomic_t wd_armed;
static timer_t wd_timer;
static int wd_ready;

static void on_watchdog(int sig)
{
    (void)sig;
    if (wd_armed) {
        wd_armed = 0;
        siglongjmp(wd_jmp, 1);
    }
}

static void wd_arm(double secs)
{
    if (!wd_ready) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_watchdog;
        sigaction(SIGUSR2, &sa, NULL);
        struct sigevent ev;
        memset(&ev, 0, sizeof ev);
        ev.sigev_notify = SIGEV_SIGNAL;
        ev.sigev_signo = SIGUSR2;
        if (timer_create(CLOCK_MONOTONIC, &ev, &wd_timer) < 0)
            return;
        wd_ready = 1;
    }
    struct itimerspec it = { { 0, 0 }, { (time_t)secs, (long)((secs - (double)(time_t)secs) * 1e9) } };
    wd_armed = 1;
    timer_settime(wd_timer, 0, &it, NULL);
}

static void wd_disarm(void)
{
    wd_armed = 0;
    struct itimerspec it;
    memset(&it, 0, sizeof it);
    if (wd_ready)
        timer_settime(wd_timer, 0, &it, NULL);
}

/* Stock pvm_precv unpacks every message as bytes (lpvm.c): a message
 * packed with PvmDataDefault lands there as XDR, big-endian; libpvm3am's
 * decodes it (pvm3/core/recv.c).  What a stock task must find, then. */
static void as_precv_sees(const struct t_msg *m, void *buf)
{
    if (pvmam_stats || m->how == H_PSEND || m->enc != PvmDataDefault || m->type == T_BYTE)
        return;
    int n = shape_count(m);
    for (int i = 0; i < n; i++) {
        if (m->type == T_INT) {
            uint32_t v;
            memcpy(&v, (char *)buf + 4 * i, 4);
            v = __builtin_bswap32(v);
            memcpy((char *)buf + 4 * i, &v, 4);
        } else {
            uint64_t v;
            memcpy(&v, (char *)buf + 8 * i, 8);
            v = __builtin_bswap64(v);
            memcpy((char *)buf + 8 * i, &v, 8);
        }
    }
}

/* pvm_precv of message k from src (tag k, or any tag), straight into our
 * array: for a short message libpvm3am takes it out of the shm ring
 * (pvmam/short.c).  anysrc: pvm_precv(-1, tag k), when no other sender's
 * message to us still to come has that tag. */
static void recv_precv(int src, int k, int exact, int anysrc)
{
    const struct t_msg *m = &s.t[src].msg[k];
    size_t sz = m->size ? m->size : 1;
    char *got = malloc(sz), *want = malloc(sz);
    if (!got || !want) {
        fail("out of memory");
        finish();
    }
    memset(got, 0x5a, sz);
    int rtid = -1, rtag = -1, rlen = -1;
    if (sigsetjmp(wd_jmp, 1)) {
        char note[256];
        link_note(src, note, sizeof note);
        fail("stalled %.0f s in pvm_precv(%s, %s) for w%d's message #%d: got %d of its %d "
             "messages (w%d %s)%s", stall, anysrc ? "-1" : "src", exact ? "tag" : "-1", src, k,
             pos[src], nexp[src], src, exited[src] ? "has exited" : "still runs", note);
        finish();
    }
    wd_arm(stall);
    int rc = pvm_precv(anysrc ? -1 : tids[src], exact ? TAG_DATA + k : -1, got, shape_count(m),
                       pvm_type(m->type), &rtid, &rtag, &rlen);
    wd_disarm();
    if (rc < 0) {
        fail("pvm_precv from w%d: %d", src, rc);
        finish();
    }
    if (rtid != tids[src])
        fail("pvm_precv(w%d) returned source t%x, not t%x", src, rtid, tids[src]);
    if (!in_order(src, rtag - TAG_DATA, exact))
        finish();   /* the data is another message's: nothing more to check */
    if (!length_ok(rlen, m->size))
        fail("from w%d: pvm_precv says message #%d is %d bytes, sent %u", src, k, rlen, m->size);
    shape_fill(s.seed, src, k, m, want);
    as_precv_sees(m, want);
    char what[96];
    static const char *const hn[] = { "send", "psend", "mcast" }, *const tn[] = { "byte", "int",
        "double" };
    snprintf(what, sizeof what, "from w%d: message #%d (%s enc %d %s) by pvm_precv", src, k,
             hn[m->how], m->enc, tn[m->type]);
    check_data(what, got, want, m->size);
    free(got);
    free(want);
    progress(src);
    maybe_quit();
}

/* Poll until a message or `wait` s: pvm_nrecv(tid, tag), or with probe
 * set pvm_probe(-1, tag) and then pvm_recv of what it saw (which must be
 * the same message). */
static int poll_recv(int tid, int tag, int probe, double wait)
{
    double end = now_s() + wait;
    int b;
    while (!(b = probe ? pvm_probe(-1, tag) : pvm_nrecv(tid, tag)) && now_s() < end)
        usleep(1000);
    if (b > 0 && probe) {
        int bytes = -1, ptag = -1, ptid = -1, j, k;
        pvm_bufinfo(b, &bytes, &ptag, &ptid);
        /* what the probe says of the buffer before it is received */
        if (tag != -1 && ptag != tag)
            fail("pvm_probe(-1, %d) saw a message with tag %d (t%x)", tag, ptag, ptid);
        if (ptag >= TAG_DATA && (j = index_of(ptid)) >= 0 && j != me &&
            (k = ptag - TAG_DATA) < s.t[j].nmsg && !length_ok(bytes, s.t[j].msg[k].size))
            fail("pvm_bufinfo of a probed message: w%d's #%d is %d bytes, sent %u", j, k, bytes,
                 s.t[j].msg[k].size);
        int b2 = pvm_recv(ptid, ptag);
        if (b2 != b)
            fail("pvm_probe(-1, %d) saw buffer %d (t%x tag %d), pvm_recv(t%x, %d) took %d",
                 tag, b, ptid, ptag, ptid, ptag, b2);
        b = b2;
    }
    return b;
}

/* The pvm_recvf matcher of R_RECVF: takes the message from (tid, tag), the
 * receive's arguments; or, ranking (struct t_task fnbest), from mf_tid and
 * mf_tag with the receive's arguments -1, returning 2 so that the library
 * must look at the whole queue for a better one.  Everything else stays
 * queued for later receives. */
static int mf_tid, mf_tag;
static int matcher(int mid, int tid, int tag)
{
    int bytes, mtag, mtid;
    if (pvm_bufinfo(mid, &bytes, &mtag, &mtid) < 0)
        return -1;
    if (s.t[me].fnbest)
        return mtid == mf_tid && mtag == mf_tag ? 2 : 0;
    return mtid == tid && mtag == tag;
}

/* Is tag TAG_DATA + k, of src's message #k to us, one no other sender's
 * message still to come to us has? */
static int tag_unique(int src, int k)
{
    for (int j = 0; j < s.n; j++)
        if (j != me && j != src && k < s.t[j].nmsg && (s.t[j].msg[k].dst & (1u << me)) &&
            !took[j][k])
            return 0;
    return 1;
}

/* Receive one message while waiting for src, by the shape's receive mode
 * for src's next message, waiting at most `wait` s (pvm_precv: until it
 * comes, bounded by the watchdog). */
static void recv_from(int src, double wait)
{
    int mode = shape_recv_mode(&s, me, src, pos[src]);
    if (mode == R_ANY) {
        recv_one(wait);
        return;
    }
    /* the pvmd's exit notices: a selective receive does not see them */
    while (pvm_nrecv(-1, TAG_EXIT) > 0)
        on_exit_notice();
    int k = exp_idx[src][head[src]], tid = tids[src], b, tag = TAG_DATA + k, fsrc = -1, ftag = -1;
    /* a sender that may go away may never send it: not a blocking
     * pvm_precv then, but its tag with a timeout */
    if (mode == R_PRECV && !shape_gone(&s, src)) {
        recv_precv(src, k, s.t[me].exact, 0);
        return;
    }
    if (mode == R_PRECVANY && !shape_gone(&s, src) && tag_unique(src, k)) {
        recv_precv(src, k, 1, 1);
        return;
    }
    struct timeval tv = { (long)wait, (long)((wait - (long)wait) * 1e6) };
    switch (mode) {
    case R_SRC: b = pvm_trecv(fsrc = tid, -1, &tv); break;
    case R_EXACT: case R_PRECV: b = pvm_trecv(fsrc = tid, ftag = tag, &tv); break;
    case R_NRECV: b = poll_recv(fsrc = tid, -1, 0, wait); break;
    case R_ANYTAG: case R_PRECVANY: b = pvm_trecv(-1, ftag = tag, &tv); break;
    case R_PROBETAG: b = poll_recv(-1, ftag = tag, 1, wait); break;
    case R_RECVF: {
        mf_tid = fsrc = tid;
        mf_tag = ftag = tag;
        int (*old)(int, int, int) = (int (*)(int, int, int))(void (*)(void))pvm_recvf(matcher);
        b = s.t[me].fnbest ? pvm_trecv(-1, -1, &tv) : pvm_trecv(tid, tag, &tv);
        pvm_recvf(old);
        break;
    }
    default: b = poll_recv(-1, -1, 1, wait); break;
    }
    if (b < 0) {
        fail("receiving from w%d (%s): %d", src, shape_recv_name(mode), b);
        finish();
    }
    if (b > 0)
        dispatch(b, fsrc, ftag);
}

/* Until `cnt` messages came from src, or src went away by design. */
static void wait_for(int src, int cnt)
{
    while (pos[src] < cnt) {
        double t = now_s();
        if (exited[src] && shape_gone(&s, src) && t - gone_at[src] > GRACE)
            return;
        if (t - last_progress > stall) {
            char note[256];
            link_note(src, note, sizeof note);
            fail("stalled %.0f s waiting for w%d: got %d of its %d messages (w%d %s)%s", stall,
                 src, pos[src], cnt, src, exited[src] ? "has exited" : "still runs", note);
            finish();
        }
        /* a selective receive does not wake for the pvmd's exit notice:
         * short slices while src may go away */
        recv_from(src, exited[src] || shape_gone(&s, src) ? 0.05 : 0.5);
    }
}

static void drain(void)
{
    while (recv_one(0))
        ;
}

/* pvm_mcast(3PVM): "The message is not sent to the caller even if listed".
 * A task that listed itself sends itself a marker at the end: what the
 * pvmd brings it from itself comes in order, so a copy of its own
 * multicast would be queued by the time the marker is. */
static void self_check(void)
{
    int any = 0, b;
    for (int k = 0; k < s.t[me].nmsg; k++)
        any |= s.t[me].msg[k].how == H_MCAST && (s.t[me].msg[k].list & M_SELF);
    if (!any)
        return;
    struct timeval tv = { (long)stall, 0 };
    pvm_initsend(PvmDataDefault);
    if ((b = pvm_send(tids[me], TAG_SELF)) < 0 || (b = pvm_trecv(tids[me], TAG_SELF, &tv)) <= 0) {
        fail("a marker to itself (after its multicasts that listed it): %d", b);
        return;
    }
    while ((b = pvm_nrecv(tids[me], -1)) > 0)
        dispatch(b, tids[me], -1);   /* one of its own: "not sent to us" */
}

static void send_msg(int k)
{
    const struct t_msg *m = &s.t[me].msg[k];
    size_t sz = m->size ? m->size : 1;
    char *buf = malloc(sz);
    if (!buf) {
        fail("out of memory");
        return;
    }
    shape_fill(s.seed, me, k, m, buf);
    int dl[TW_MAX + 2], nd = 0, anystay = 0, rc;
    for (int j = 0; j < s.n; j++)
        if (m->dst & (1u << j)) {
            dl[nd++] = tids[j];
            anystay |= !shape_gone(&s, j);
        }
    /* pvm_mcast(3PVM): not sent to the caller even if listed; and each
     * receiver once (stock's pvmd sorts the list and drops repeats) */
    int first = dl[0];
    if (m->list & M_SELF) {   /* in the middle of the list */
        dl[nd] = dl[nd / 2];
        dl[nd / 2] = tids[me];
        nd++;
    }
    if (m->list & M_DUP)
        dl[nd++] = first;
    int n = shape_count(m), tag = TAG_DATA + k;
    if (m->how == H_PSEND) {
        rc = pvm_psend(first, tag, buf, n, pvm_type(m->type));
    } else {
        pvm_initsend(m->enc);
        rc = m->type == T_BYTE ? pvm_pkbyte(buf, n, 1)
           : m->type == T_INT ? pvm_pkint((int *)buf, n, 1) : pvm_pkdouble((double *)buf, n, 1);
        if (rc < 0)
            fail("packing message #%d (%u B): %d", k, m->size, rc);
        else
            rc = m->how == H_MCAST ? pvm_mcast(dl, nd, tag) : pvm_send(first, tag);
    }
    /* Once pvm_send has returned the data is ours again (PvmDataInPlace
     * included): scribble on it, a library still reading it sends garbage. */
    memset(buf, 0xa5, sz);
    free(buf);
    if (rc < 0 && anystay) {
        const char *why = pvmam_dead_reason ? pvmam_dead_reason(first) : NULL;
        fail("sending message #%d (%u B) to t%x: %d%s%s", k, m->size, first, rc,
             why ? "; its AM link ended: " : "", why ? why : "");
    }
    if (rc >= 0) {
        nsent++;
        /* a stall is a receive that waits: a flood's sends under load may
         * take longer than the stall time before the first receive */
        last_progress = now_s();
    }
    if (s.t[me].ending == E_KILL && nsent == s.t[me].kill_after)
        raise(SIGKILL);
}

/* The collective phase (shape.h struct t_collph).  Every array is known
 * from the seed, so each member computes what it must get with plain
 * loops.  Its messages have tags of their own (TAG_COLL), and every one
 * sent to a member is taken inside its phase, before its script's
 * any-tag receives; the others' data messages queue up meanwhile and the
 * group calls' receives must skip them. */
static char group[64];
static const char *volatile coll_step = "";
static volatile int coll_round = -1;

static void coll_fill(int r, int who, int type, void *buf, int n)
{
    for (int k = 0; k < n; k++) {
        int v = shape_coll_value(s.seed, r, who, k);
        if (type == T_INT)
            ((int *)buf)[k] = v;
        else
            ((double *)buf)[k] = v;
    }
}

static void coll_check(const char *what, int r, const void *got, const void *want, size_t n)
{
    char w[96];
    snprintf(w, sizeof w, "collective round %d: %s", r, what);
    check_data(w, got, want, (uint32_t)n);
}

static int coll_bcast(int r, int inst)
{
    const struct t_round *rd = &s.coll.r[r];
    struct t_msg m = { 0, (uint32_t)rd->count, H_SEND, rd->enc, rd->type, 0 };
    size_t sz = m.size ? m.size : 1;
    char *buf = malloc(sz), *want = malloc(sz);
    int rc = 0, n = shape_count(&m), tag = TAG_COLL + r;
    if (!buf || !want) {
        fail("out of memory");
        finish();
    }
    shape_fill(s.seed, TW_OLD + r, 0, &m, want);
    if (inst == rd->root) {
        pvm_initsend(m.enc);
        rc = m.type == T_BYTE ? pvm_pkbyte(want, n, 1)
           : m.type == T_INT ? pvm_pkint((int *)want, n, 1) : pvm_pkdouble((double *)want, n, 1);
        if (rc >= 0)
            rc = pvm_bcast(group, tag);
        memset(want, 0xa5, sz);   /* as send_msg: ours again once it returned */
        goto out;
    }
    int rt = pvm_gettid(group, rd->root);
    if (rt < 0) {
        rc = rt;
        goto out;
    }
    memset(buf, 0x5a, sz);
    int mode = shape_recv_mode(&s, me, TW_OLD, r), bytes = -1, b;
    if (mode == R_PRECV || mode == R_PRECVANY) {
        int rtid = -1, rtag = -1;
        rc = pvm_precv(mode == R_PRECV ? rt : -1, tag, buf, n, pvm_type(m.type), &rtid, &rtag, &bytes);
        if (rc >= 0 && (rtid != rt || rtag != tag))
            fail("collective round %d: pvm_precv(t%x, %d) returned t%x tag %d", r, rt, tag, rtid, rtag);
        as_precv_sees(&m, want);
    } else {
        b = mode == R_ANY || mode == R_ANYTAG ? pvm_recv(-1, tag)
          : mode == R_NRECV ? poll_recv(rt, tag, 0, 2 * stall)
          : mode == R_PROBE || mode == R_PROBETAG ? poll_recv(-1, tag, 1, 2 * stall) : pvm_recv(rt, tag);
        if (b <= 0) {
            rc = b ? b : PvmNoData;
            goto out;
        }
        int t2, tid2;
        pvm_bufinfo(b, &bytes, &t2, &tid2);
        if (tid2 != rt)
            fail("collective round %d: pvm_bcast message from t%x, root is t%x", r, tid2, rt);
        rc = unpack(&m, buf);
    }
    if (rc >= 0) {
        if (!length_ok(bytes, m.size))
            fail("collective round %d: pvm_bcast message is %d bytes, sent %u", r, bytes, m.size);
        coll_check("pvm_bcast's data", r, buf, want, m.size);
    }
out:
    free(buf);
    free(want);
    return rc;
}

/* pvm_reduce, pvm_gather or pvm_scatter of round r, and its check. */
static int coll_data(int r, int inst, int nm)
{
    const struct t_round *rd = &s.coll.r[r];
    int n = rd->count, type = rd->type, pt = type == T_INT ? PVM_INT : PVM_DOUBLE, rc = 0;
    size_t el = (size_t)shape_elsize(type), one = el * (size_t)n, all = one * (size_t)nm;
    char *mine = malloc(all), *got = malloc(all), *want = malloc(all);
    if (!mine || !got || !want) {
        fail("out of memory");
        finish();
    }
    memset(got, 0x5a, all);
    if (rd->kind == CO_REDUCE) {
        void (*fn)(int *, void *, void *, int *, int *) =
            rd->func == F_SUM ? PvmSum : rd->func == F_MAX ? PvmMax : PvmMin;
        coll_fill(r, me, type, mine, n);
        rc = pvm_reduce(fn, mine, n, pt, TAG_COLL + r, group, rd->root);
        if (rc >= 0 && inst == rd->root) {
            for (int k = 0; k < n; k++) {
                long v = 0;
                int first = 1;
                for (int j = 0; j < s.n; j++) {
                    if (!(s.coll.members & (1u << j)))
                        continue;
                    long x = shape_coll_value(s.seed, r, j, k);
                    v = first ? x : rd->func == F_SUM ? v + x : rd->func == F_MAX ? (x > v ? x : v)
                      : (x < v ? x : v);
                    first = 0;
                }
                if (type == T_INT)
                    ((int *)want)[k] = (int)v;
                else
                    ((double *)want)[k] = (double)v;
            }
            coll_check("pvm_reduce's result", r, mine, want, one);
        }
    } else if (rd->kind == CO_GATHER) {
        coll_fill(r, me, type, mine, n);
        rc = pvm_gather(got, mine, n, pt, TAG_COLL + r, group, rd->root);
        if (rc >= 0 && inst == rd->root) {
            for (int i = 0; i < nm; i++) {
                int j = index_of(pvm_gettid(group, i));
                if (j < 0) {
                    fail("collective round %d: instance %d is t%x, not a member", r, i,
                         pvm_gettid(group, i));
                    continue;
                }
                coll_fill(r, j, type, want + (size_t)i * one, n);
            }
            coll_check("pvm_gather's result", r, got, want, all);
        }
    } else {   /* CO_SCATTER: slice i for instance i */
        if (inst == rd->root)
            for (int i = 0; i < nm; i++)
                coll_fill(r, TW_OLD + i, type, mine + (size_t)i * one, n);
        rc = pvm_scatter(got, mine, n, pt, TAG_COLL + r, group, rd->root);
        if (rc >= 0) {
            coll_fill(r, TW_OLD + inst, type, want, n);
            coll_check("pvm_scatter's slice", r, got, want, one);
        }
    }
    free(mine);
    free(got);
    free(want);
    return rc;
}

/* No cycle of waits: a member waits here only for other members, which
 * all start their phase right after the table, before any wait of their
 * scripts; whatever the others send meanwhile is queued by the library
 * while it waits (as for an all-sends-first script), so no sender waits
 * on a member's phase. */
static void coll_phase(void)
{
    const struct t_collph *c = &s.coll;
    if (!(c->members & (1u << me)))
        return;
    snprintf(group, sizeof group, "torture.%llu.%x", (unsigned long long)s.seed, tids[0]);
    int nm = shape_members(&s), rc, inst;
    if (sigsetjmp(wd_jmp, 1)) {
        fail("stalled %.0f s in the collective phase: %s, round %d", stall, coll_step, coll_round);
        finish();
    }
    coll_step = "pvm_joingroup";
    wd_arm(stall);
    if ((inst = rc = pvm_joingroup(group)) < 0)
        goto bad;
    coll_step = "pvm_barrier";
    if ((rc = pvm_barrier(group, nm)) < 0)
        goto bad;
    for (int r = 0; r < c->nround; r++) {
        static const char *const names[] = { "pvm_bcast", "pvm_reduce", "pvm_gather",
                                             "pvm_scatter", "pvm_barrier" };
        coll_round = r;
        coll_step = names[c->r[r].kind];
        wd_arm(stall);
        rc = c->r[r].kind == CO_BARRIER ? pvm_barrier(group, nm)
           : c->r[r].kind == CO_BCAST ? coll_bcast(r, inst) : coll_data(r, inst, nm);
        if (rc < 0)
            goto bad;
    }
    coll_round = -1;
    coll_step = "the last pvm_barrier";
    wd_arm(stall);
    if ((rc = pvm_barrier(group, nm)) < 0)
        goto bad;
    coll_step = "pvm_lvgroup";
    if (c->leave && (rc = pvm_lvgroup(group)) < 0)
        goto bad;
    wd_disarm();
    last_progress = now_s();
    return;
bad:
    wd_disarm();
    fail("collective phase: %s, round %d: %d", coll_step, coll_round, rc);
    finish();
}

static void print_some(int bytes)
{
    static const char line[] = "torture output: the quick brown fox jumps over the lazy dog 0123456789\n";
    for (int b = 0; b < bytes; b += (int)sizeof line - 1)
        fputs(line, stdout);
    fflush(stdout);
}

static void on_alarm(int sig)
{
    (void)sig;
    raise(SIGKILL);
}

/* Task 0: spawn the others, hand out the table of tids. */
static int spawn_others(char **argv)
{
    if (s.catchout) {
        FILE *null = fopen("/dev/null", "w");
        if (!null || pvm_catchout(null) < 0)
            return fail("pvm_catchout failed"), -1;
    }
    tids[0] = pvm_mytid();
    for (int i = 1; i < s.n; i++) {
        char idx[16];
        snprintf(idx, sizeof idx, "%d", i);
        char *args[] = { "W", argv[A_SEED], idx, argv[A_RUNNER], argv[A_PIDFILE], argv[A_AM],
                         argv[A_STOCK], NULL };
        int rc = pvm_spawn(s.t[i].stock ? argv[A_STOCK] : argv[A_AM], args, PvmTaskDefault, "", 1,
                           &tids[i]);
        if (rc != 1) {
            fail("spawning w%d: %d (tid %d)", i, rc, tids[i]);
            for (int j = 1; j < i; j++)
                pvm_kill(tids[j]);
            return -1;
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(tids, s.n, 1);
    if (s.n > 1 && pvm_mcast(tids + 1, s.n - 1, TAG_TABLE) < 0)
        return fail("sending the table"), -1;
    /* Everyone has the table before task 0 may be killed (else a lost
     * table would leave the others nothing to do but wait).  A task killed
     * by design may take its acknowledgement with it. */
    pvm_notify(PvmTaskExit, TAG_EXIT, s.n - 1, tids + 1);
    int acked[TW_MAX] = { 0 }, left = s.n - 1, bytes, tag, tid;
    double t0 = now_s();
    while (left > 0) {
        if (now_s() - t0 > 30 * torture_slow())
            return fail("not every task acknowledged the table in 30 s"), -1;
        struct timeval tv = { 0, 100000 };
        int b = pvm_trecv(-1, TAG_TABLE, &tv), i;
        if (b > 0 && pvm_bufinfo(b, &bytes, &tag, &tid) >= 0 && (i = index_of(tid)) > 0 &&
            !acked[i]) {
            acked[i] = 1;
            left--;
        }
        while ((b = pvm_nrecv(-1, TAG_EXIT)) > 0) {
            int who = 0;
            pvm_upkint(&who, 1, 1);
            if ((i = index_of(who)) > 0 && !exited[i]) {
                exited[i] = 1;
                gone_at[i] = now_s();
            }
        }
        /* The ack and the pvmd's exit notice take different paths: give
         * the ack of a task that exited time to come. */
        for (i = 1; i < s.n; i++) {
            if (acked[i] || !exited[i])
                continue;
            if (shape_gone(&s, i) || now_s() - gone_at[i] > 3 * torture_slow()) {
                if (!shape_gone(&s, i))
                    fail("w%d exited without acknowledging the table", i);
                acked[i] = 1;
                left--;
            }
        }
    }
    int v[2] = { (int)(uint32_t)s.seed, (int)(uint32_t)(s.seed >> 32) };
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, 2, 1);
    pvm_pkint(tids, s.n, 1);
    return pvm_send(runner, TAG_TABLE) < 0 ? -1 : 0;
}

/* The table from task 0.  A task 0 that goes away by design may take it
 * with it (only a killed sender may lose messages): then we are done. */
static int get_table(void)
{
    int parent = pvm_parent(), bytes, tag, tid;
    double t0 = now_s(), gone = 0;
    pvm_notify(PvmTaskExit, TAG_EXIT, 1, &parent);
    for (;;) {
        double t = now_s();
        if (gone && t - gone > GRACE && shape_gone(&s, 0))
            return -1;
        if (t - t0 > 30 * torture_slow()) {
            fail("no table of tids from w0 (t%x) in %.0f s%s", parent, t - t0,
                 gone ? ", it has exited" : "");
            return -1;
        }
        struct timeval tv = { 0, 200000 };
        /* not any tag: the others' data may come before the table */
        int b = pvm_trecv(parent, TAG_TABLE, &tv);
        if (b < 0) {
            fail("waiting for the table: pvm_trecv %d", b);
            return -1;
        }
        if (b > 0) {
            if (pvm_upkint(tids, s.n, 1) < 0)
                return -1;
            pvm_initsend(PvmDataDefault);   /* task 0 starts once all have it */
            return pvm_send(parent, TAG_TABLE) < 0 ? -1 : 0;
        }
        if ((b = pvm_nrecv(-1, TAG_EXIT)) > 0 && pvm_bufinfo(b, &bytes, &tag, &tid) >= 0)
            gone = now_s();
    }
}

int torture_worker(int argc, char **argv)
{
    if (argc < A_N)
        return 2;
    uint64_t seed = strtoull(argv[A_SEED], NULL, 10);
    me = atoi(argv[A_INDEX]);
    runner = (int)strtol(argv[A_RUNNER], NULL, 16);
    shape_draw(seed, &s);
    stall = 10 * torture_slow();
    if (pvm_mytid() < 0)
        return 1;
    if (strcmp(argv[A_PIDFILE], "-")) {
        FILE *f = fopen(argv[A_PIDFILE], "a");
        if (f)
            fprintf(f, "%d\n", (int)getpid()), fclose(f);
    }
    if (me == 0) {
        if (spawn_others(argv) < 0)
            finish();
    } else if (get_table() < 0) {
        finish();
    }
    for (int i = 0; i < s.n; i++) {
        nexp[i] = i == me ? 0 : shape_expected(&s, i, me, NULL);
        exp_idx[i] = calloc((size_t)nexp[i] + 1, sizeof(int));
        shape_expected(&s, i, me, exp_idx[i]);
        took[i] = calloc((size_t)s.t[i].nmsg + 1, 1);
        if (i != me)
            shape_recv_order(&s, me, i, exp_idx[i], nexp[i]);
        if (i != me)
            pvm_notify(PvmTaskExit, TAG_EXIT, 1, &tids[i]);
    }
    const struct t_task *t = &s.t[me];
    if (t->ending == E_KILLTIMER) {
        signal(SIGALRM, on_alarm);
        struct itimerval it = { { 0, 0 }, { t->kill_after / 1000, t->kill_after % 1000 * 1000 + 1 } };
        setitimer(ITIMER_REAL, &it, NULL);
    }
    last_progress = now_s();
    coll_phase();
    if (s.catchout && me > 0)
        print_some(s.print_bytes / 2);
    maybe_quit();
    for (int o = 0; o < t->nop; o++) {
        const struct t_op *op = &t->op[o];
        if (o == t->nop - 1) {
            if (s.catchout && me > 0)
                print_some(s.print_bytes - s.print_bytes / 2);
            if (t->ending == E_EXITNOW)
                report(1);
        }
        if (op->kind == 'S')
            send_msg(op->a);
        else if (op->kind == 'K')
            pvm_kill(tids[op->a]);   /* mid-stream; it may be gone already */
        else if (op->kind == 'W')
            wait_for(op->a, op->b);
        else
            drain();
    }
    if (t->ending == E_EXITNOW) {
        if (nfail || t->nop == 0)
            report(1);
        pvm_exit();
        return 0;
    }
    drain();
    self_check();
    finish();
    return 0;
}
