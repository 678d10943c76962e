/*
 * copy.c - big payloads over shm (libam/shm/shm.h lists the transport's
 * files).  A payload bigger than a record (INLINE_MAX) that does not fit
 * in the ring now goes as a BIG record, then streamed: the payload
 * follows in CHUNK records through the ring, each copied in by the
 * sender and out by the receiver (straight to a placer's buffer), both
 * at once, and the sender goes on once the last one is in the ring.
 * From CMA_FROM (libam/shm/shm.h; LIBAM_SHM_CMA_FROM overrides it) the
 * BIG record describes the sender's memory instead: the receiver copies
 * it with process_vm_readv, once, while the sender waits for the ring's
 * `done` count; from HELP_MIN the waiting sender is asked to write the
 * second half meanwhile (process_vm_writev): two cores copy.  Where the
 * kernel refuses to let the receiver read (ptrace rules, probed when the
 * link opens; or LIBAM_SHM_NO_CMA set in the receiver's environment, a
 * test knob), it streams whatever the size.
 *
 * The sender's side here only describes and helps: its waits (for room,
 * for done) are all in the send path (libam/tr_shm.c, wait_out).  The
 * one wait here is the receiver's for a help write the sender has
 * already claimed (help_finish): the sender only copies then, never
 * waits, so it ends.
 */
#define _GNU_SOURCE   /* process_vm_readv */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include "shm.h"

#define HELP_MIN (256u << 10)   /* a BIG_CMA payload this big is copied by both ends */

/* A buffer for an AM of len bytes that no placer took: e->buf, unless an
 * outer handler is still reading it (then a fresh one, freed after). */
static char *take_buf(struct shm_ep *e, size_t len)
{
    if (e->buf_busy)
        return malloc(len ? len : 1);
    if (e->buf_cap < len) {
        char *b = realloc(e->buf, len);
        if (!b)
            return NULL;
        e->buf = b;
        e->buf_cap = len;
    }
    return e->buf;
}

static int deliver_big(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                       char *buf, int placed, size_t hl, unsigned char *head)
{
    struct shm_ep *e = ep->tp;
    if (placed) {
        struct amx_hdr hh = *h;
        hh.len = (uint32_t)hl;
        return amx_input_placed(ifc, ep, &hh, (char *)head, h->len - hl);
    }
    int own = buf == e->buf;
    e->buf_busy += own;
    int n = amx_input(ifc, ep, h, buf);
    e->buf_busy -= own;
    if (!own)
        free(buf);
    return n;
}

/* Where a big AM's payload goes: a placer's buffer (*placed, *hl set;
 * the head's bytes past hl already copied there) or a buffer holding
 * the head.  Returns where the rest (after the head) goes, or NULL. */
static char *big_dest(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                      const struct big *b, char **buf, int *placed, size_t *hl)
{
    size_t l;
    char *d = amx_offer_place(ifc, ep, h, (const char *)b->head, b->head_len, &l);
    *placed = 0;
    *hl = 0;
    if (d) {
        memcpy(d, b->head + l, b->head_len - l);
        *placed = 1;
        *hl = l;
        *buf = NULL;
        return d + (b->head_len - l);
    }
    if (!(*buf = take_buf(ep->tp, h->len)))
        return NULL;
    memcpy(*buf, b->head, b->head_len);
    return *buf + b->head_len;
}

/* Go on after the first `done` bytes of v[*first..n): a partial copy. */
static void iov_skip(struct iovec *v, unsigned n, unsigned *first, size_t done)
{
    while (done > 0 && *first < n) {
        size_t k = done < v[*first].iov_len ? done : v[*first].iov_len;
        v[*first].iov_base = (char *)v[*first].iov_base + k;
        v[*first].iov_len -= k;
        done -= k;
        if (!v[*first].iov_len)
            ++*first;
    }
}

/* Copy len bytes of the peer's memory (spans, from byte skip on) to dst. */
static int cma_read(pid_t pid, char *dst, size_t skip, size_t len, const struct span *sp,
                    unsigned n)
{
    struct iovec r[MAX_IOV];
    for (unsigned i = 0; i < n; i++)
        r[i] = (struct iovec){ (void *)(uintptr_t)sp[i].base, (size_t)sp[i].len };
    unsigned first = 0;
    iov_skip(r, n, &first, skip);
    while (len > 0) {
        struct iovec l = { dst, len };
        ssize_t got = process_vm_readv(pid, &l, 1, r + first, n - first, 0);
        if (got <= 0)
            return -1;
        dst += got;
        len -= (size_t)got;
        iov_skip(r, n, &first, (size_t)got);
    }
    return 0;
}

/* Is the peer's process still there?  (Its pidfd, else its pid.) */
static int peer_alive(const struct shm_ep *e)
{
    if (e->pidfd >= 0) {
        struct pollfd p = { .fd = e->pidfd, .events = POLLIN };
        return poll(&p, 1, 0) == 0;
    }
    return e->pid > 0 && (kill(e->pid, 0) == 0 || errno == EPERM);
}

/* The part of BIG_CMA payload we asked the producer to write (from byte
 * mine on, to dst + mine): take it back if it has not started, and copy
 * it ourselves; else wait for its write (it runs: it only copies), and
 * copy ourselves if that failed.  0, or -1 if the copy failed. */
static int help_finish(am_interface_t *ifc, am_endpoint_t *ep, char *dst, size_t mine,
                       size_t rest, const struct span *sp, unsigned n)
{
    struct shm_ep *e = ep->tp;
    struct ring *q = e->rx.q;
    uint32_t st = HELP_ASKED;
    if (!__atomic_compare_exchange_n(&q->help_state, &st, HELP_TAKEN, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        uint64_t check = 0;
        for (unsigned spins = 0; (st = LOAD_ACQ(&q->help_state)) == HELP_WRITING; spins++) {
            __builtin_ia32_pause();
            if ((spins & 1023) != 1023)
                continue;
            if (ifc->cfg.wait == AM_WAIT_YIELD)
                sched_yield();
            uint64_t now = amx_now_us();
            if (now - check >= 1000) {   /* once a millisecond: did it die writing? */
                check = now;
                if (!peer_alive(e))
                    return -1;
            }
        }
        if (st == HELP_WRITTEN)
            return 0;
    }
    return cma_read(e->pid, dst + mine, mine, rest - mine, sp, n);
}

int amx_shm_on_big(am_interface_t *ifc, am_endpoint_t *ep, const char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    struct shm *s = ifc->trd;
    struct amx_hdr h;
    struct big b;
    struct span sp[MAX_IOV];
    if (size < AMX_HDR + sizeof b || amx_shm_parse_am(ifc, body, &h) < 0)
        return amx_shm_corrupt(ifc, ep);
    memcpy(&b, body + AMX_HDR, sizeof b);
    if (b.head_len > HEAD_INL || b.head_len > h.len)
        return amx_shm_corrupt(ifc, ep);
    size_t rest = h.len - b.head_len, sum = 0;
    if (b.mode == BIG_CMA) {
        if (s->no_cma || !LOAD_ACQ(&e->rx.q->cma_ok) || b.niov > MAX_IOV ||
            size != AMX_HDR + sizeof b + b.niov * sizeof *sp)
            return amx_shm_corrupt(ifc, ep);
        memcpy(sp, body + AMX_HDR + sizeof b, b.niov * sizeof *sp);
        for (unsigned i = 0; i < b.niov; i++) {
            if (sp[i].len > rest - sum)
                return amx_shm_corrupt(ifc, ep);
            sum += sp[i].len;
        }
        if (sum != rest)
            return amx_shm_corrupt(ifc, ep);
    } else if (b.mode != BIG_STREAM || size != AMX_HDR + sizeof b) {
        return amx_shm_corrupt(ifc, ep);
    }
    char *buf;
    int placed;
    size_t hl;
    char *dst = big_dest(ifc, ep, &h, &b, &buf, &placed, &hl);
    if (!dst) {   /* no memory: cannot take it, cannot skip it */
        amx_dead_note(ep, AM_DEATH_SYS, ENOMEM, "no room for a big AM");
        return amx_shm_corrupt(ifc, ep);
    }
    if (b.mode == BIG_CMA) {
        STORE_REL(&e->rx.q->copying, b.seq);   /* its sender need not sleep */
        /* A big one: the producer, which waits for done, writes the second
         * half (from a page boundary of ours) while we read the first. */
        size_t mine = rest;
        if (rest >= HELP_MIN && LOAD_ACQ(&e->tx.q->cma_ok)) {
            mine = (size_t)(((uintptr_t)dst + rest / 2 + 4095) & ~(uintptr_t)4095) -
                   (uintptr_t)dst;
            struct ring *q = e->rx.q;
            STORE(&q->help_state, HELP_ASKED);
            STORE(&q->help_dst, (uint64_t)(uintptr_t)(dst + mine));
            STORE(&q->help_len, rest - mine);
            STORE(&q->help_off, mine);
            STORE_REL(&q->help_seq, b.seq);
        }
        int bad = cma_read(e->pid, dst, 0, mine, sp, b.niov);
        if (mine < rest)
            bad = help_finish(ifc, ep, dst, mine, rest, sp, b.niov) < 0 || bad;
        STORE_REL(&e->rx.q->done, b.seq);   /* its memory is the sender's again */
        amx_shm_consumed(ifc, ep);
        if (bad) {
            if (buf && buf != e->buf)
                free(buf);
            if (!peer_alive(e))
                amx_dead_note(ep, AM_DEATH_EXITED, 0,
                              "the peer's process ended before its big AM was copied");
            else
                amx_dead_note(ep, AM_DEATH_CORRUPT, 0,
                              "a big AM described memory its sender has not");
            return amx_shm_corrupt(ifc, ep);   /* gone, or it described memory it has not */
        }
        ifc->rx_read += AMX_HDR + h.len;
        return deliver_big(ifc, ep, &h, buf, placed, hl, b.head);
    }
    e->landing = 1;
    e->land_h = h;
    e->land_placed = placed;
    e->land_discard = 0;
    e->land_total = hl;   /* the head length, while landing */
    memcpy(e->land_head, b.head, b.head_len);
    e->land_dst = dst;
    e->land_buf = buf;
    e->land_left = rest;
    ifc->rx_read += AMX_HDR + b.head_len;
    e->buf_busy += buf == e->buf;   /* e->buf is ours until delivered */
    return 0;
}

int amx_shm_on_chunk(am_interface_t *ifc, am_endpoint_t *ep, const char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    if (!e->landing || size > e->land_left || !size)
        return amx_shm_corrupt(ifc, ep);
    if (!e->land_discard)
        memcpy(e->land_dst, body, size);
    e->land_dst += size;
    e->land_left -= size;
    ifc->rx_read += size;
    if (e->land_left)
        return 0;
    struct amx_hdr h = e->land_h;
    unsigned char head[HEAD_INL];
    memcpy(head, e->land_head, sizeof head);
    int placed = e->land_placed;
    size_t hl = e->land_total;
    char *buf = e->land_buf;
    e->landing = 0;
    e->land_dst = e->land_buf = NULL;
    if (buf && buf == e->buf)
        e->buf_busy--;
    return deliver_big(ifc, ep, &h, buf, placed, hl, head);
}

/* A payload under way in CHUNKs is abandoned (the endpoint closes). */
void amx_shm_land_abandon(struct shm_ep *e)
{
    if (e->landing && e->land_buf && e->land_buf != e->buf)
        free(e->land_buf);
    e->landing = 0;
    e->land_dst = e->land_buf = NULL;
}

void amx_shm_placement_discard(am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    if (e->landing && e->land_placed)
        e->land_discard = 1;
}

/* ---- the sender's side ---------------------------------------------------- */

/* The consumer of our BIG_CMA `seq` asked us to write a part of it to
 * its memory (struct ring, help_*): claim it, write it, say how it went. */
void amx_shm_help_write(am_interface_t *ifc, am_endpoint_t *ep, uint64_t seq)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct ring *q = e->tx.q;
    uint32_t st = HELP_ASKED;
    if (!e->help_iov || s->help_knob == 1 || LOAD_ACQ(&q->help_seq) != seq ||
        !__atomic_compare_exchange_n(&q->help_state, &st, HELP_WRITING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    uint64_t dst = LOAD_ACQ(&q->help_dst), len = LOAD_ACQ(&q->help_len);
    uint64_t off = LOAD_ACQ(&q->help_off);
    int ok = s->help_knob != 2 && off <= e->help_total && len <= e->help_total - off &&
             e->help_n <= MAX_IOV;
    struct iovec l[MAX_IOV];
    unsigned n = ok ? (unsigned)e->help_n : 0, first = 0;
    memcpy(l, e->help_iov, sizeof *l * n);
    iov_skip(l, n, &first, e->help_from + (size_t)off);
    while (ok && len > 0) {
        struct iovec r = { (void *)(uintptr_t)dst, (size_t)len };
        ssize_t put = process_vm_writev(e->pid, l + first, n - first, &r, 1, 0);
        if (put <= 0) {
            ok = 0;
            break;
        }
        dst += (uint64_t)put;
        len -= (uint64_t)put;
        iov_skip(l, n, &first, (size_t)put);
    }
    STORE_REL(&q->help_state, ok ? HELP_WRITTEN : HELP_FAILED);
}

/* Copy len bytes starting at byte `from` of the iovecs to dst. */
void amx_shm_gather(char *dst, const struct iovec *iov, int n, size_t from, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        size_t l = iov[i].iov_len;
        if (from >= l) {
            from -= l;
            continue;
        }
        size_t k = l - from < len ? l - from : len;
        memcpy(dst, (char *)iov[i].iov_base + from, k);
        dst += k;
        len -= k;
        from = 0;
    }
}


/* The spans of the iovecs from byte `from` on. */
static unsigned spans_from(struct span *sp, const struct iovec *iov, int n, size_t from)
{
    unsigned k = 0;
    for (int i = 0; i < n && k < MAX_IOV; i++) {
        size_t l = iov[i].iov_len;
        if (from >= l) {
            from -= l;
            continue;
        }
        sp[k++] = (struct span){ (uintptr_t)iov[i].iov_base + from, l - from };
        from = 0;
    }
    return k;
}

/* The BIG record for the AM in iov (total bytes, header included), by
 * descriptor (cma: BIG_CMA) or streamed (BIG_STREAM): its header to hdr,
 * the record's own part to *b, the spans of the sender's memory the
 * receiver copies (BIG_CMA) to sp; *from: the first payload
 * byte the record itself does not carry.  Returns the record's size, or
 * AM_ERR_INVAL for an iovec the record cannot describe. */
int amx_shm_big_describe(struct shm_ep *e, const struct iovec *iov, int n, size_t total,
                         int cma, char *hdr, struct big *b, struct span *sp, size_t *from)
{
    size_t len = total - AMX_HDR;
    memset(b, 0, sizeof *b);
    amx_shm_gather(hdr, iov, n, 0, AMX_HDR);
    b->head_len = len < HEAD_INL ? (uint32_t)len : HEAD_INL;
    amx_shm_gather((char *)b->head, iov, n, AMX_HDR, b->head_len);
    *from = AMX_HDR + b->head_len;
    b->mode = cma ? BIG_CMA : BIG_STREAM;
    b->niov = cma ? spans_from(sp, iov, n, *from) : 0;
    if (b->niov > 65)
        return AM_ERR_INVAL;
    b->seq = cma ? e->big_seq + 1 : 0;
    return (int)(AMX_HDR + sizeof *b + b->niov * sizeof *sp);
}
