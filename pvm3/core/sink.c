/*
 * sink.c - receive in place: a blocked pvm_precv offers its buffer, and the
 * route that sees the start of a matching message writes the payload there
 * directly, instead of into message blocks that precv would copy again.
 *
 * Only one message may land at a time, and once one has started landing
 * precv waits for exactly that message (its data is already in the user's
 * buffer); a message from another source completing meanwhile stays queued.
 * PVM orders messages per pair only, so this is a legal arrival order.
 */
#include <string.h>
#include "lpvm.h"
#include "route_int.h"

static struct {
    int armed;            /* a precv is waiting */
    int src, tag, ctx;    /* its match (-1 wildcards for src and tag) */
    int bytes_only;       /* 1: every encoding is a plain copy (BYTE/STR) */
    char *buf;
    size_t cap;
    int landing;          /* a message has been claimed */
    size_t got;           /* payload bytes seen so far (may exceed cap) */
    int dsrc, dtag;       /* the claimed message's source and tag */
    int done;             /* ...and it is complete */
    unsigned gen;         /* this arming; a route holds it while landing */
    int closed;           /* a matching message was queued: no landing */
    struct pvm_recv_bytes rb;   /* the same wish, for a route's recv_bytes */
} s;
static unsigned generation;

void pvmi_sink_arm(int src, int tag, int ctx, int bytes_only, void *buf, size_t cap)
{
    memset(&s, 0, sizeof s);
    s.armed = 1;
    s.gen = ++generation ? generation : ++generation;
    s.src = src;
    s.tag = tag;
    s.ctx = ctx;
    s.bytes_only = bytes_only;
    s.buf = buf;
    s.cap = cap;
    s.rb = (struct pvm_recv_bytes){ tag, ctx, bytes_only, buf, cap, 0, 0 };
}

int pvmi_sink_landing(void) { return s.armed && s.landing; }

int pvmi_sink_wants(size_t min)
{
    return s.armed && !s.landing && !s.done && !s.closed && s.src != -1 && s.cap >= min ? s.src
                                                                                       : 0;
}

static int matches(int src, int tag, int ctx)
{
    return (s.src == -1 || s.src == src) && (s.tag == -1 || s.tag == tag) && s.ctx == ctx;
}

/* A message went to the receive queue.  If precv could take it, no later
 * message may land: precv must take the queued one first (it may have been
 * on its way before precv was called), or per-pair order would break. */
void pvmi_sink_saw(const struct pmsg *m)
{
    if (s.armed && matches(m->src, m->tag, m->ctx))
        s.closed = 1;
}

int pvmi_sink_take(int *src, int *tag)
{
    if (!s.done)
        return 0;
    s.done = 0;
    *src = s.dsrc;
    *tag = s.dtag;
    return 1;
}

void pvmi_sink_disarm(void)
{
    /* A message still landing is abandoned: the route discards its rest. */
    s.done = 0;
    s.armed = 0;
}

/* Returns a nonzero token if the message starting now should land. */
static inline unsigned claim(int src, int tag, int ctx, uint32_t encword)
{
    if (!s.armed || s.landing || s.done || s.closed || !matches(src, tag, ctx))
        return 0;
    /* XDR numbers must be decoded by precv; everything else is a copy. */
    if (encword == PVM_ENC_XDR && !s.bytes_only)
        return 0;
    if (encword == PVM_ENC_TRACE)
        return 0;
    s.landing = 1;
    s.got = 0;
    s.dsrc = src;
    s.dtag = tag;
    return s.gen;
}

unsigned pvmi_sink_claim(int src, int tag, int ctx, uint32_t encword)
{
    return claim(src, tag, ctx, encword);
}

static int live(unsigned token) { return s.armed && s.landing && token == s.gen; }

int pvmi_sink_live(unsigned token) { return live(token); }

/* Where the next payload bytes go; NULL: discard them (past the user's
 * length, or the precv gave up). */
void *pvmi_sink_dest(unsigned token, size_t *room)
{
    if (!live(token) || s.got >= s.cap) {
        *room = 0;
        return NULL;
    }
    *room = s.cap - s.got;
    return s.buf + s.got;
}

void pvmi_sink_wrote(unsigned token, size_t n)
{
    if (live(token))
        s.got += n;
}

void pvmi_sink_complete(unsigned token, struct pmsg *m)
{
    pmsg_free(m);      /* precv needs only source, tag and length */
    if (!live(token))  /* abandoned: nobody wants it */
        return;
    s.landing = 0;
    s.done = 1;
    pvmi_note_input();
}

/* The message being landed will never complete (its sender is gone or it
 * was malformed): free it, and let precv take other messages again. */
void pvmi_sink_cancel(unsigned token, struct pmsg *m)
{
    pmsg_free(m);
    if (live(token)) {
        s.landing = 0;
        s.got = 0;
    }
}

int pvmi_sink_put(int src, int tag, int ctx, uint32_t encword, const void *data, size_t len)
{
    if (!claim(src, tag, ctx, encword))   /* inline: every short message asks */
        return 0;
    memcpy(s.buf, data, len < s.cap ? len : s.cap);
    s.got = len;   /* what precv reports, even past its length */
    s.landing = 0;
    s.done = 1;
    pvmi_note_input();
    return 1;
}

/* The route's recv_bytes lands a whole message under claim()'s rules
 * (its own check of encoding and match: route.h), so only when claim
 * could: armed, nothing landing or landed, no matching message queued
 * (closed), and tid the source waited for. */
int pvmi_sink_pull(const struct pvm_route_ops *ops, void *ctx, int tid)
{
    if (!s.armed || s.landing || s.done || s.closed || (s.src != -1 && s.src != tid))
        return -1;
    int rc = ops->recv_bytes(ctx, tid, &s.rb);
    if (rc != 1)
        return rc;
    s.got = s.rb.rlen;
    s.dsrc = tid;
    s.dtag = s.rb.rtag;
    s.done = 1;
    pvmi_note_input();
    return 1;
}

size_t pvmi_sink_total(void) { return s.got; }
