/*
 * pmsg.c - message buffers: the buffer table, segment chains and the
 * unpack cursor.  See pmsg.h for the representation.
 */
#include <malloc.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <pvm3.h>
#include "pmsg.h"
#include "route.h"

#define CHUNK_MIN ((size_t)4096)
#define CHUNK_MAX ((size_t)1 << 20)

static struct pmsg **tab;   /* tab[mid] */
static int ntab;            /* slots allocated (index 0 unused) */
static int next_hint = 1;   /* where to start looking for a free mid */
static int sbuf_mid, rbuf_mid;

static int table_insert(struct pmsg *m)
{
    for (int pass = 0; pass < 2; pass++) {
        for (int i = pass ? 1 : next_hint; i < ntab; i++) {
            if (!tab[i]) {
                tab[i] = m;
                m->mid = i;
                next_hint = i + 1;
                return 0;
            }
        }
    }
    int n = ntab ? ntab * 2 : 64;
    struct pmsg **t = realloc(tab, (size_t)n * sizeof *t);
    if (!t)
        return PvmNoMem;
    memset(t + ntab, 0, (size_t)(n - ntab) * sizeof *t);
    int mid = ntab ? ntab : 1;
    tab = t;
    ntab = n;
    tab[mid] = m;
    m->mid = mid;
    next_hint = mid + 1;
    return 0;
}

/* ---- recycling ---------------------------------------------------------
 * Every message costs a struct pmsg, a segment or two and often a small
 * block; on the fast path (a few microseconds per message) malloc and free
 * of those were a fifth of the library's instructions (callgrind), so a
 * few of each are kept for reuse. */
#define POOL 32

static struct pmsg *msg_pool[POOL];
static int nmsg_pool;
static struct pvm_seg *seg_pool[POOL];
static int nseg_pool;

static struct pmsg *msg_get(void)
{
    if (nmsg_pool) {
        struct pmsg *m = msg_pool[--nmsg_pool];
        memset(m, 0, sizeof *m);
        return m;
    }
    return calloc(1, sizeof(struct pmsg));
}

static void msg_put(struct pmsg *m)
{
    if (nmsg_pool < POOL)
        msg_pool[nmsg_pool++] = m;
    else
        free(m);
}

static struct pvm_seg *seg_get(void)
{
    return nseg_pool ? seg_pool[--nseg_pool] : malloc(sizeof(struct pvm_seg));
}

static void seg_put(struct pvm_seg *s)
{
    if (nseg_pool < POOL)
        seg_pool[nseg_pool++] = s;
    else
        free(s);
}

static struct pmsg *alloc_msg(int enc)
{
    struct pmsg *m = msg_get();
    if (!m)
        return NULL;
    m->enc = enc;
    m->encword = pmsg_encword(enc);
    if (table_insert(m) < 0) {
        msg_put(m);
        return NULL;
    }
    return m;
}

struct pmsg *pmsg_new(int enc) { return alloc_msg(enc); }
struct pmsg *pmsg_new_rx(void) { return alloc_msg(PvmDataDefault); }

struct pmsg *pmsg_find(int mid)
{
    if (mid <= 0 || mid >= ntab)
        return NULL;
    return tab[mid];
}

/* ---- blocks ------------------------------------------------------------
 * Returning big blocks to the kernel and faulting them in again costs far
 * more than the copies themselves here (measured: 4 MiB packed round trips
 * fell from ~2.9 GB/s to ~0.2 GB/s once glibc started to trim or mmap them),
 * so a few recently freed big blocks are kept for the next message, and
 * glibc is asked (once) to keep 64 MiB of freed heap instead of trimming.
 * Small blocks (a packing chunk, a short received body) are kept too:
 * glibc's free of a 4 KiB chunk is not the cheap thread-cache path. */
#define BLK_MIN   ((size_t)64 << 10)
#define BLK_KEEP  ((size_t)96 << 20)

struct blk_cache {
    struct { void *p; size_t size; } s[16];   /* s[0..n), oldest first */
    int n, slots;
    size_t total, keep;
};
static struct blk_cache big = { .slots = 8, .keep = BLK_KEEP };
static struct blk_cache small = { .slots = 16, .keep = 16 * BLK_MIN };

/* The most recently kept block that fits n and wastes at most half or
 * 64 bytes (the newest is almost always right: messages repeat sizes). */
static void *cache_take(struct blk_cache *c, size_t n)
{
    for (int i = c->n - 1; i >= 0; i--) {
        size_t sz = c->s[i].size;
        if (sz >= n && (sz / 2 <= n || sz - n <= 64)) {
            void *p = c->s[i].p;
            c->total -= sz;
            c->n--;
            memmove(&c->s[i], &c->s[i + 1], sizeof c->s[0] * (size_t)(c->n - i));
            return p;
        }
    }
    return NULL;
}

static int cache_keep(struct blk_cache *c, void *p, size_t size)
{
    if (c->n == c->slots) {   /* full: the oldest goes, the newest stays */
        c->total -= c->s[0].size;
        free(c->s[0].p);
        c->n--;
        memmove(&c->s[0], &c->s[1], sizeof c->s[0] * (size_t)c->n);
    }
    if (size + c->total > c->keep)
        return 0;
    c->s[c->n].p = p;
    c->s[c->n].size = size;
    c->n++;
    c->total += size;
    return 1;
}

void *pmsg_blk_alloc(size_t n)
{
    static int tuned;
    if (!tuned) {
        tuned = 1;
        mallopt(M_TOP_PAD, 64 << 20);
    }
    if (n == 0)
        n = 1;
    void *p = cache_take(n >= BLK_MIN ? &big : &small, n);
    return p ? p : malloc(n);
}

void pmsg_blk_free(void *p)
{
    if (!p)
        return;
    size_t size = malloc_usable_size(p);
    if (!cache_keep(size >= BLK_MIN ? &big : &small, p, size))
        free(p);
}

static void drop_body(struct pmsg *m)
{
    struct pvm_seg *s = m->head;
    while (s) {
        struct pvm_seg *next = s->next;
        pmsg_blk_free(s->mem);
        seg_put(s);
        s = next;
    }
    m->head = m->tail = m->rseg = NULL;
    m->len = m->roff = m->rpos = 0;
}

void pmsg_reset(struct pmsg *m, int enc)
{
    drop_body(m);
    m->enc = enc;
    m->encword = pmsg_encword(enc);
    m->flags = 0;
}

void pmsg_free(struct pmsg *m)
{
    if (!m)
        return;
    drop_body(m);
    if (m->mid > 0 && m->mid < ntab && tab[m->mid] == m) {
        tab[m->mid] = NULL;
        if (m->mid < next_hint)
            next_hint = m->mid;
    }
    if (sbuf_mid == m->mid)
        sbuf_mid = 0;
    if (rbuf_mid == m->mid)
        rbuf_mid = 0;
    msg_put(m);
}

/* ---- body ---------------------------------------------------------- */

static struct pvm_seg *seg_link(struct pmsg *m, void *mem, char *base,
                                size_t len, size_t cap)
{
    struct pvm_seg *s = seg_get();
    if (!s)
        return NULL;
    s->next = NULL;
    s->base = base;
    s->len = len;
    s->cap = cap;
    s->mem = mem;
    if (m->tail)
        m->tail->next = s;
    else
        m->head = s;
    m->tail = s;
    m->len += len;
    return s;
}

char *pmsg_reserve(struct pmsg *m, size_t n)
{
    struct pvm_seg *t = m->tail;
    if (t && t->mem && t->cap - t->len >= n)
        return t->base + t->len;
    /* Chunks grow with the message so big packs take few mallocs. */
    size_t cap = m->len < CHUNK_MIN ? CHUNK_MIN : m->len;
    if (cap > CHUNK_MAX)
        cap = CHUNK_MAX;
    if (cap < n)
        cap = n;
    char *mem = pmsg_blk_alloc(cap);
    if (!mem)
        return NULL;
    if (!seg_link(m, mem, mem, 0, cap)) {
        free(mem);
        return NULL;
    }
    return mem;
}

void pmsg_commit(struct pmsg *m, size_t n)
{
    m->tail->len += n;
    m->len += n;
}

int pmsg_append(struct pmsg *m, const void *data, size_t len)
{
    if (len == 0)
        return 0;
    char *p = pmsg_reserve(m, len);
    if (!p)
        return PvmNoMem;
    memcpy(p, data, len);
    pmsg_commit(m, len);
    return 0;
}

int pmsg_append_seg(struct pmsg *m, void *mem, char *base, size_t len)
{
    /* A foreign tail must never be written into: cap 0 marks it. */
    if (!seg_link(m, mem, base, len, mem ? len : 0))
        return PvmNoMem;
    return 0;
}

/* ---- slicing for the wire ---------------------------------------------- */

void pmsg_slice_start(const struct pmsg *m, struct pmsg_slicer *s)
{
    s->seg = m->head;
    s->off = 0;
    s->left = m->len;
}

void pvmi_slice_bytes(struct pmsg_slicer *s, struct pvm_seg *seg, const void *buf, size_t len)
{
    *seg = (struct pvm_seg){ .base = (char *)buf, .len = len };
    s->seg = seg;
    s->off = 0;
    s->left = len;
}

int pmsg_slice(struct pmsg_slicer *s, size_t max, struct iovec *iov, int maxiov, size_t *bytes)
{
    int n = 0;
    size_t got = 0;
    while (s->left > 0 && got < max && n < maxiov) {
        while (s->seg && s->off >= s->seg->len) {
            s->seg = s->seg->next;
            s->off = 0;
        }
        size_t k = s->seg->len - s->off;
        if (k > max - got)
            k = max - got;
        iov[n++] = (struct iovec){ s->seg->base + s->off, k };
        s->off += k;
        got += k;
        s->left -= k;
    }
    *bytes += got;
    return n;
}

/* ---- unpack cursor --------------------------------------------------- */

void pmsg_rewind(struct pmsg *m)
{
    m->rseg = m->head;
    m->roff = 0;
    m->rpos = 0;
}

size_t pmsg_unread(const struct pmsg *m) { return m->len - m->rpos; }

const char *pmsg_peek(struct pmsg *m, size_t *avail)
{
    if (m->rpos == 0 && !m->rseg)
        m->rseg = m->head;
    while (m->rseg && m->roff >= m->rseg->len) {
        m->rseg = m->rseg->next;
        m->roff = 0;
    }
    if (!m->rseg) {
        *avail = 0;
        return NULL;
    }
    *avail = m->rseg->len - m->roff;
    return m->rseg->base + m->roff;
}

void pmsg_advance(struct pmsg *m, size_t n)
{
    m->roff += n;
    m->rpos += n;
}

int pmsg_read(struct pmsg *m, void *dst, size_t n)
{
    if (pmsg_unread(m) < n)
        return PvmNoData;
    char *d = dst;
    while (n > 0) {
        size_t avail;
        const char *p = pmsg_peek(m, &avail);
        size_t k = avail < n ? avail : n;
        if (d) {
            memcpy(d, p, k);
            d += k;
        }
        pmsg_advance(m, k);
        n -= k;
    }
    return 0;
}

int pmsg_skip(struct pmsg *m, size_t n) { return pmsg_read(m, NULL, n); }

/* ---- encodings ------------------------------------------------------- */

uint32_t pmsg_encword(int enc)
{
    switch (enc) {
    case PvmDataRaw:
    case PvmDataInPlace:
        return PVM_DSIG_NATIVE;
    case PvmDataTrace:
        return PVM_ENC_TRACE;
    default:
        return PVM_ENC_XDR;
    }
}

void pmsg_set_encword(struct pmsg *m, uint32_t word)
{
    m->encword = word;
    m->flags &= ~PMSG_ALIEN;
    if (word == PVM_ENC_XDR)
        m->enc = PvmDataDefault;
    else if (word == PVM_DSIG_NATIVE)
        m->enc = PvmDataRaw;
    else if (word == PVM_ENC_TRACE)
        m->enc = PvmDataTrace;
    else {
        m->enc = PvmDataRaw;
        m->flags |= PMSG_ALIEN;
    }
}

/* ---- current buffers ------------------------------------------------- */

struct pmsg *pmsg_sbuf(void) { return pmsg_find(sbuf_mid); }
struct pmsg *pmsg_rbuf(void) { return pmsg_find(rbuf_mid); }

int pmsgi_set_sbuf(int mid)
{
    int old = sbuf_mid;
    sbuf_mid = mid;
    return old;
}

int pmsgi_set_rbuf(int mid)
{
    int old = rbuf_mid;
    rbuf_mid = mid;
    return old;
}

void pmsg_set_rbuf_free_old(struct pmsg *m)
{
    struct pmsg *old = pmsg_rbuf();
    if (old && old != m)
        pmsg_free(old);
    rbuf_mid = m ? m->mid : 0;
    if (m)
        pmsg_rewind(m);
}
