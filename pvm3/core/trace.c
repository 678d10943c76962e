/*
 * trace.c - trace event records as a PVM 3.4.6 task sends them to its
 * tracer (the console, tracer, XPVM), so that their decoders read ours:
 *
 *   message (XDR, tag/context/destination = the task's trace code,
 *   context, tid):  [-1 if buffered]  record ...  [-2 if buffered]
 *   record:  -5 (descriptor) or -7 (plain), kind|ENTRY or kind|EXIT,
 *            the event name (descriptor only), then the fields TS, TU,
 *            TID and the event's own, and -6 or -8 at its end.
 *   field in a descriptor: did, type (TEV_DATA_*, |0x80 for an array),
 *            [count if array], data;  in a plain record: [count], data.
 *   string data: int length+1, then the bytes with the NUL (XDR bytes).
 *
 * The first record of each kind and direction is a descriptor, the rest
 * plain ones.  With a trace buffer size (PvmTraceBuffer, PVMTRCBUF) the
 * records collect in one message until it reaches that size; without,
 * each goes alone.  PvmTraceTime and PvmTraceCount send nothing per call:
 * times and counts per kind go as one "timing" or "profiling" descriptor
 * when the task flushes (at pvm_exit).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include "lpvm.h"
#include "pack.h"
#include "compat.h"
#include "tev_names.h"
#include "trace.h"

/* Before the task joins, the first traced call decides (see in()). */
int pvmi_tev_live = 1;
char pvmi_tev_self_mask[TEV_MASK_LENGTH];

static int decided;          /* the pre-join decision was made */
static int seen_tid;         /* the tid the descriptor state is for */
static unsigned char desc_sent[TEV_MAX + 1];   /* entry/exit bits */
static struct {
    struct timeval mark, total;
    int count;
} tstat[TEV_MAX + 1];
static int cur_kind = -1;    /* kind of the record being built */
static int cur_desc;         /* it is a descriptor */
static struct pmsg *buf;     /* records not yet sent */


/* Traced at all: a tracer that is not this task (stock's rule). */
static int traced(void)
{
    return pvmi.tid > 0 && pvmi.trctid > 0 && pvmi.trctid != pvmi.tid;
}

int pvmi_tev_traced(void)
{
    return traced();
}

void pvmi_tev_update(void)
{
    if (!pvmi_tev_self_mask[0] && pvmi.tmask[0])   /* PVMTMASK (conn.c) */
        memcpy(pvmi_tev_self_mask, pvmi.tmask, TEV_MASK_LENGTH);
    if (pvmi.tid > 0 && pvmi.tid != seen_tid) {
        /* a new task: every descriptor goes again, counts start over */
        seen_tid = pvmi.tid;
        memset(desc_sent, 0, sizeof desc_sent);
        memset(tstat, 0, sizeof tstat);
    }
    if (pvmi.tid > 0 || decided)
        pvmi_tev_live = traced();
}

/* Before joining, stock's traced calls join first (to learn the tracer).
 * We join early only when the spawner asked for events (a trace mask
 * with a bit set in PVMTMASK): other programs keep joining when they
 * choose.  Returns whether this call is traced. */
int pvmi_tev_in(void)
{
    pvmi_tev_live = 0;
    if (pvmi.tid <= 0 && !decided) {
        decided = 1;
        const char *m = getenv("PVMTMASK");
        int any = 0;
        for (int i = 0; m && m[i] && i < TEV_MASK_LENGTH - 1; i++)
            any |= m[i] & 0xf;
        if (any)
            pvmi_beatask();
        pvmi_tev_live = 0;
    }
    return traced() && pvmtoplvl;
}

void pvmi_tev_out(void)
{
    pvmi_tev_update();
}

static void put_int(int v)
{
    pvmi_codec_xdr.pk(buf, PVMI_INT, &v, 1, 1);
}

/* A field's did and type, in descriptors only. */
static void field(int did, int type)
{
    if (cur_desc) {
        put_int(did);
        put_int(type);
    }
}

void pvmi_tev_int(int did, int v)
{
    if (cur_kind < 0)
        return;
    field(did, TEV_DATA_INT);
    put_int(v);
}

void pvmi_tev_long(int did, long v)
{
    if (cur_kind < 0)
        return;
    field(did, TEV_DATA_LONG);
    pvmi_codec_xdr.pk(buf, PVMI_LONG, &v, 1, 1);
}

void pvmi_tev_ints(int did, const int *v, int n)
{
    if (cur_kind < 0)
        return;
    field(did, TEV_DATA_INT | TEV_DATA_ARRAY);
    put_int(n);
    if (n > 0)
        pvmi_codec_xdr.pk(buf, PVMI_INT, v, n, 1);
}

void pvmi_tev_str(int did, const char *s)
{
    if (cur_kind < 0)
        return;
    if (!s)
        s = "";
    int n = (int)strlen(s) + 1;
    field(did, TEV_DATA_STRING);
    put_int(n);
    pvmi_codec_xdr.pk(buf, PVMI_BYTE, s, n, 1);
}

/* A string array: the count, then each string as pvmi_tev_str packs it. */
void pvmi_tev_strs(int did, char *const *v, int n)
{
    if (cur_kind < 0)
        return;
    if (!v || n < 0)
        n = 0;
    field(did, TEV_DATA_STRING | TEV_DATA_ARRAY);
    put_int(n);
    for (int i = 0; i < n; i++) {
        const char *s = v[i] ? v[i] : "";
        int l = (int)strlen(s) + 1;
        put_int(l);
        pvmi_codec_xdr.pk(buf, PVMI_BYTE, s, l, 1);
    }
}

static int mask_has(int kind)
{
    return pvmi_tev_self_mask[0] && TEV_MASK_CHECK(pvmi_tev_self_mask, kind);
}

int pvmi_tev_begin(int kind, int entry_exit)
{
    cur_kind = -1;
    if (kind < 0 || kind > TEV_MAX || !traced() || !mask_has(kind))
        return 0;
    struct timeval now;
    if (pvmi.s_trcopt != PvmTraceCount)
        gettimeofday(&now, NULL);
    if (pvmi.s_trcopt == PvmTraceTime || pvmi.s_trcopt == PvmTraceCount) {
        if (pvmi.s_trcopt == PvmTraceTime)
            tstat[kind].mark = now;
        cur_kind = kind;
        cur_desc = -1;   /* nothing packed: fin() counts */
        return 1;
    }
    int bit = entry_exit == TEV_EVENT_ENTRY ? 1 : 2;
    if (!buf) {
        if (!(buf = pvmi_xbuf()))
            return 0;
        if (pvmi.s_trcbuf)
            put_int(TEV_MARK_EVENT_BUFFER);
    }
    cur_kind = kind;
    cur_desc = !(desc_sent[kind] & bit);
    desc_sent[kind] |= bit;
    put_int(cur_desc ? TEV_MARK_EVENT_DESC : TEV_MARK_EVENT_RECORD);
    put_int(kind | entry_exit);
    if (cur_desc)
        pvmi_codec_xdr.pkstr(buf, tev_names[kind]);
    pvmi_tev_int(TEV_DID_TS, (int)now.tv_sec);
    pvmi_tev_int(TEV_DID_TU, (int)now.tv_usec);
    pvmi_tev_int(TEV_DID_TID, pvmi.tid);
    return 1;
}

/* Send the collected records; new events start a new message, so an
 * event made while this one is under way (a control handler run by the
 * send) cannot disturb it. */
static void send_buf(void)
{
    struct pmsg *m = buf;
    buf = NULL;
    if (!m)
        return;
    m->tag = pvmi.trctag;
    m->ctx = pvmi.trcctx;
    m->wid = 0;
    m->src = pvmi.tid;
    m->dst = pvmi.trctid;
    if (traced())
        pvmi_send_msg(pvmi.trctid, m);
    pmsg_free(m);
}

void pvmi_tev_fin(void)
{
    int kind = cur_kind;
    cur_kind = -1;
    if (kind < 0)
        return;
    if (cur_desc < 0) {
        if (pvmi.s_trcopt == PvmTraceTime) {
            struct timeval now, d;
            gettimeofday(&now, NULL);
            timersub(&now, &tstat[kind].mark, &d);
            timeradd(&tstat[kind].total, &d, &tstat[kind].total);
        }
        tstat[kind].count++;
        return;
    }
    put_int(cur_desc ? TEV_MARK_EVENT_DESC_END : TEV_MARK_EVENT_RECORD_END);
    if (!pvmi.s_trcbuf || buf->len >= (size_t)pvmi.s_trcbuf) {
        if (pvmi.s_trcbuf)
            put_int(TEV_MARK_EVENT_BUFFER_END);
        send_buf();
    }
}

/* The summary of PvmTraceTime / PvmTraceCount: one descriptor record
 * with the kinds called, their total times (timing only) and counts. */
static void summary(void)
{
    int timing = pvmi.s_trcopt == PvmTraceTime;
    int kind = timing ? TEV_TIMING : TEV_PROFILING;
    int n = 0, secs[TEV_MAX + 1], usecs[TEV_MAX + 1], counts[TEV_MAX + 1];
    const char *which[TEV_MAX + 1];
    for (int k = 0; k <= TEV_MAX; k++) {
        if (tstat[k].count <= 0)
            continue;
        which[n] = tev_names[k];
        secs[n] = (int)tstat[k].total.tv_sec;
        usecs[n] = (int)tstat[k].total.tv_usec;
        counts[n++] = tstat[k].count;
        memset(&tstat[k], 0, sizeof tstat[k]);
    }
    struct timeval now;
    gettimeofday(&now, NULL);
    if (!(buf = pvmi_xbuf()))
        return;
    cur_kind = kind;
    cur_desc = 1;
    put_int(TEV_MARK_EVENT_DESC);
    put_int(kind);   /* stock sends these without an entry/exit bit */
    pvmi_codec_xdr.pkstr(buf, tev_names[kind]);
    pvmi_tev_int(TEV_DID_TS, (int)now.tv_sec);
    pvmi_tev_int(TEV_DID_TU, (int)now.tv_usec);
    pvmi_tev_int(TEV_DID_TID, pvmi.tid);
    pvmi_tev_int(TEV_DID_VCT, n);
    field(TEV_DID_VID, TEV_DATA_STRING | TEV_DATA_ARRAY);
    put_int(n);
    for (int i = 0; i < n; i++) {
        int l = (int)strlen(which[i]) + 1;
        put_int(l);
        pvmi_codec_xdr.pk(buf, PVMI_BYTE, which[i], l, 1);
    }
    if (timing) {
        pvmi_tev_ints(TEV_DID_TGS, secs, n);
        pvmi_tev_ints(TEV_DID_TGU, usecs, n);
    }
    pvmi_tev_ints(TEV_DID_PRF, counts, n);
    put_int(TEV_MARK_EVENT_DESC_END);
    cur_kind = -1;
    send_buf();
}

void pvmi_tev_flush(void)
{
    if (!traced())
        return;
    if (pvmi.s_trcopt == PvmTraceTime || pvmi.s_trcopt == PvmTraceCount) {
        summary();
        return;
    }
    if (buf && pvmi.s_trcbuf)
        put_int(TEV_MARK_EVENT_BUFFER_END);
    send_buf();
}

/* One call of the handler frame: entry with its argument, exit with its
 * result. */
static void frame_call(int kind, int did_in, int arg, int did_out, int ret)
{
    if (pvmi_tev_begin(kind, TEV_EVENT_ENTRY)) {
        pvmi_tev_int(did_in, arg);
        pvmi_tev_fin();
    }
    if (pvmi_tev_begin(kind, TEV_EVENT_EXIT)) {
        pvmi_tev_int(did_out, ret);
        pvmi_tev_fin();
    }
}

/* Stock runs a message handler as if the program called it (even inside
 * another traced call): an mhf_invoke event describing the handler's key
 * and the message, then its frame - send buffer none, receive buffer the
 * message, the message's context - made of traced calls.  sbf, rbf and
 * octx are the buffers and context the frame replaced. */
void pvmi_tev_mhf_begin(int src, int tag, int ctx, const struct pmsg *m, int sbf, int rbf,
                        int octx)
{
    if (!traced())
        return;
    if (pvmi_tev_begin(TEV_MHF_INVOKE, TEV_EVENT_ENTRY)) {
        pvmi_tev_int(TEV_DID_RST, src);
        pvmi_tev_int(TEV_DID_RMC, tag);
        pvmi_tev_int(TEV_DID_RCX, ctx);
        pvmi_tev_int(TEV_DID_MB, m->mid);
        pvmi_tev_int(TEV_DID_MNB, (int)m->len);
        pvmi_tev_int(TEV_DID_MC, m->tag);
        pvmi_tev_int(TEV_DID_MCX, m->ctx);
        pvmi_tev_int(TEV_DID_SRC, m->src);
        pvmi_tev_fin();
    }
    frame_call(TEV_SETSBUF, TEV_DID_MB, 0, TEV_DID_MSB, sbf);
    frame_call(TEV_SETRBUF, TEV_DID_MB, m->mid, TEV_DID_MRB, rbf);
    frame_call(TEV_SETCONTEXT, TEV_DID_CXS, m->ctx, TEV_DID_CC, octx);
}

/* The frame's end: context back, then each buffer back with the one the
 * handler left freed (stock: freebuf(setsbuf(saved)), the same for the
 * receive buffer).  *_was are what the handler left current. */
void pvmi_tev_mhf_end(int ctx_back, int ctx_was, int sbf_back, int sbf_was, int rbf_back,
                      int rbf_was)
{
    if (!traced())
        return;
    frame_call(TEV_SETCONTEXT, TEV_DID_CXS, ctx_back, TEV_DID_CC, ctx_was);
    frame_call(TEV_SETSBUF, TEV_DID_MB, sbf_back, TEV_DID_MSB, sbf_was);
    frame_call(TEV_FREEBUF, TEV_DID_MB, sbf_was, TEV_DID_CC, 0);
    frame_call(TEV_SETRBUF, TEV_DID_MB, rbf_back, TEV_DID_MRB, rbf_was);
    frame_call(TEV_FREEBUF, TEV_DID_MB, rbf_was, TEV_DID_CC, 0);
}

/* Stock takes the sibling list in its own message handler: the same
 * events, with this task's buffers and context, so that counts per kind
 * agree.  The handler unpacks the count and the tids and frees the
 * message. */
void pvmi_tev_siblings(const struct pmsg *m, int n)
{
    if (!traced())
        return;
    int live = pvmi_tev_live;
    struct pmsg *sb = pmsg_sbuf(), *rb = pmsg_rbuf();
    int sbf = sb ? sb->mid : 0, rbf = rb ? rb->mid : 0, ctx = pvmi.ctx;
    int ints[2] = { 1, n };
    pvmi_tev_mhf_begin(-1, TC_SIBLINGS, SYSCTX_TC, m, sbf, rbf, ctx);
    for (int i = 0; i < 2; i++) {
        if (pvmi_tev_begin(TEV_UPKINT, TEV_EVENT_ENTRY)) {
            pvmi_tev_long(TEV_DID_PDA, (long)(size_t)&ints[i]);
            pvmi_tev_int(TEV_DID_PC, ints[i]);
            pvmi_tev_int(TEV_DID_PSD, 1);
            pvmi_tev_fin();
        }
        if (pvmi_tev_begin(TEV_UPKINT, TEV_EVENT_EXIT)) {
            pvmi_tev_int(TEV_DID_CC, 0);
            pvmi_tev_fin();
        }
    }
    frame_call(TEV_FREEBUF, TEV_DID_MB, m->mid, TEV_DID_CC, 0);
    pvmi_tev_mhf_end(ctx, SYSCTX_TC, sbf, 0, rbf, 0);
    pvmi_tev_live = live;
}
