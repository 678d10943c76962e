/*
 * worker.c - one task of a torture scenario: draws the shape from the
 * seed, plays its own script (shape.h) and checks every message it gets
 * against the one its sender was to send: in order, exactly once, the
 * same data.  Task 0 spawns the others (and catches their output when the
 * shape says so).  It tells the runner how it went (TAG_REPORT) and
 * exits; every wait is bounded (TORTURE_STALL seconds without a message).
 */
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

static void report(int final)
{
    int v[5] = { (int)(uint32_t)s.seed, (int)(uint32_t)(s.seed >> 32), me, final, nfail == 0 };
    pvm_initsend(PvmDataDefault);
    pvm_pkint(v, 5, 1);
    pvm_pkstr(failtxt);
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

/* A data message from task src: the next one it was to send us? */
static void on_data(int bufid, int src, int tag)
{
    int k = tag - TAG_DATA;
    if (pos[src] >= nexp[src] || exp_idx[src][pos[src]] != k) {
        int want = pos[src] < nexp[src] ? exp_idx[src][pos[src]] : -1;
        int seen = 0;
        for (int j = 0; j < pos[src]; j++)
            seen |= exp_idx[src][j] == k;
        fail("from w%d: got message #%d, expected #%d (%s)", src, k, want,
             seen ? "duplicate" : want < 0 ? "one more than sent" : "out of order or lost one");
        return;
    }
    const struct t_msg *m = &s.t[src].msg[k];
    int bytes = -1, t2, tid2;
    pvm_bufinfo(bufid, &bytes, &t2, &tid2);
    /* XDR pads bytes to 4 */
    if (bytes < (int)m->size || bytes > (int)m->size + 3)
        fail("from w%d: message #%d is %d bytes, sent %u", src, k, bytes, m->size);
    size_t sz = m->size ? m->size : 1;
    char *got = malloc(sz), *want = malloc(sz);
    if (!got || !want) {
        fail("out of memory");
    } else {
        memset(got, 0x5a, sz);
        shape_fill(s.seed, src, k, m, want);
        int rc = unpack(m, got);
        if (rc < 0) {
            fail("from w%d: unpacking message #%d (%u B): %d", src, k, m->size, rc);
        } else if (memcmp(got, want, m->size)) {
            size_t d = 0;
            while (got[d] == want[d])
                d++;
            fail("from w%d: message #%d (%u B) differs from byte %zu on, checksum %016llx, "
                 "sent %016llx", src, k, m->size, d, (unsigned long long)sum(got, m->size),
                 (unsigned long long)sum(want, m->size));
        }
    }
    free(got);
    free(want);
    pos[src]++;
    nrecvd++;
    last_progress = now_s();
}

static void maybe_quit(void)
{
    if (s.t[me].ending == E_QUIT && nrecvd >= s.t[me].kill_after)
        finish();
}

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
    int bytes, tag, tid;
    pvm_bufinfo(bufid, &bytes, &tag, &tid);
    if (tag == TAG_EXIT) {
        int who = -1;
        pvm_upkint(&who, 1, 1);
        int i = index_of(who);
        if (i >= 0) {
            exited[i] = 1;
            gone_at[i] = now_s();
        }
    } else if (tag == TAG_TABLE && me == 0) {
        /* a late acknowledgement (spawn_others) */
    } else if (tag >= TAG_DATA && index_of(tid) >= 0) {
        on_data(bufid, index_of(tid), tag);
        maybe_quit();
    } else {
        fail("unexpected message tag %d from t%x, %d bytes", tag, tid, bytes);
    }
    return 1;
}

/* torture_stock has no pvmam: the weak reference is NULL there. */
extern int pvmam_stats(int tid, struct pvmam_stats *out) __attribute__((weak));

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
    snprintf(buf, size, "; pvmam: %llu over AM, %llu via the pvmd from it, link %s%s%s, "
             "%llu drops", (unsigned long long)st.am_msgs_recv,
             (unsigned long long)st.pvmd_msgs_recv, st.transport[0] ? st.transport : "none",
             st.peers_am ? " (AM)" : "", st.peers_opening ? " (still opening)" : "",
             (unsigned long long)st.drops);
}

/* Until `cnt` messages came from src, or src went away by design. */
static void wait_for(int src, int cnt)
{
    while (pos[src] < cnt) {
        double t = now_s();
        if (exited[src] && shape_gone(&s, src) && t - gone_at[src] > GRACE)
            return;
        if (t - last_progress > stall) {
            char note[200];
            link_note(src, note, sizeof note);
            fail("stalled %.0f s waiting for w%d: got %d of its %d messages (w%d %s)%s", stall,
                 src, pos[src], cnt, src, exited[src] ? "has exited" : "still runs", note);
            finish();
        }
        recv_one(exited[src] ? 0.05 : 0.5);
    }
}

static void drain(void)
{
    while (recv_one(0))
        ;
}

static int pvm_type(int type) { return type == T_BYTE ? PVM_BYTE : type == T_INT ? PVM_INT : PVM_DOUBLE; }

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
    int dl[TW_MAX], nd = 0, anystay = 0, rc;
    for (int j = 0; j < s.n; j++)
        if (m->dst & (1u << j)) {
            dl[nd++] = tids[j];
            anystay |= !shape_gone(&s, j);
        }
    int n = shape_count(m), tag = TAG_DATA + k;
    if (m->how == H_PSEND) {
        rc = pvm_psend(dl[0], tag, buf, n, pvm_type(m->type));
    } else {
        pvm_initsend(m->enc);
        rc = m->type == T_BYTE ? pvm_pkbyte(buf, n, 1)
           : m->type == T_INT ? pvm_pkint((int *)buf, n, 1) : pvm_pkdouble((double *)buf, n, 1);
        if (rc < 0)
            fail("packing message #%d (%u B): %d", k, m->size, rc);
        else
            rc = m->how == H_MCAST ? pvm_mcast(dl, nd, tag) : pvm_send(dl[0], tag);
    }
    /* Once pvm_send has returned the data is ours again (PvmDataInPlace
     * included): scribble on it, a library still reading it sends garbage. */
    memset(buf, 0xa5, sz);
    free(buf);
    if (rc < 0 && anystay)
        fail("sending message #%d (%u B) to t%x: %d", k, m->size, dl[0], rc);
    if (rc >= 0)
        nsent++;
    if (s.t[me].ending == E_KILL && nsent == s.t[me].kill_after)
        raise(SIGKILL);
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
    finish();
    return 0;
}
