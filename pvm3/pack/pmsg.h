/*
 * pmsg.h - pvm3 internal: message buffers.
 *
 * A message body is a chain of segments.  Packing appends to the tail
 * segment (growing chunks, no fixed 4 KB fragments); PvmDataInPlace adds
 * segments that point at user memory; a received message is the chain of
 * its fragments' payloads, read straight off the socket (no copy).  The wire
 * fragmentation is done at send time by slicing the chain, so fragment size
 * is a property of the route, not of the buffer.
 *
 * Owned by the buffers/packing part of pvm3 (pmsg.c, buf.c, pack*.c); used
 * by the messaging part (send/receive) and by routes.
 */
#ifndef PVM3_PMSG_H
#define PVM3_PMSG_H

#include <stddef.h>
#include <stdint.h>

struct pvm_seg {
    struct pvm_seg *next;
    char *base;        /* first byte of data */
    size_t len;        /* bytes of data */
    size_t cap;        /* bytes writable from base (0: foreign memory) */
    void *mem;         /* block to free(), NULL when not owned (in place) */
};

/* Message flags */
#define PMSG_ALIEN   0x1   /* encoding word not ours: only byte unpacking */
#define PMSG_ROUTED  0x2   /* arrived over a registered route, not the pvmd */

struct pmsg {
    int mid;               /* buffer id (> 0), in the buffer table */
    int enc;               /* PvmDataDefault / Raw / InPlace / Trace */
    uint32_t encword;      /* encoding word as on the wire */
    int tag, ctx, wid, src, dst, crc;
    unsigned flags;        /* PMSG_* */
    struct pvm_seg *head, *tail;
    size_t len;            /* total body bytes */
    /* unpack cursor */
    struct pvm_seg *rseg;
    size_t roff;           /* offset in rseg */
    size_t rpos;           /* offset in the whole body */
    struct pmsg *qnext, *qprev;  /* receive-queue links (messaging part) */
};

/* Buffer table */
struct pmsg *pmsg_new(int enc);            /* allocated + assigned a mid */
struct pmsg *pmsg_new_rx(void);            /* for receive: enc set later */
void pmsg_free(struct pmsg *m);            /* unlinks from the table */
struct pmsg *pmsg_find(int mid);           /* NULL if no such buffer */
void pmsg_reset(struct pmsg *m, int enc);  /* drop body, new encoding */

/* Body: append (copy) bytes; take ownership of a malloc'd block holding
 * `len` bytes at `base` (mem == NULL: caller keeps the memory, e.g. in
 * place).  0 or a negative PVM error code. */
int pmsg_append(struct pmsg *m, const void *data, size_t len);
int pmsg_append_seg(struct pmsg *m, void *mem, char *base, size_t len);
/* Blocks for segment memory (mem of a segment is freed with
 * pmsg_blk_free): big ones are recycled instead of returned to the kernel. */
void *pmsg_blk_alloc(size_t n);
void pmsg_blk_free(void *p);
/* Reserve n writable bytes at the tail; returns pointer, commit with
 * pmsg_commit(m, n).  NULL on no memory. */
char *pmsg_reserve(struct pmsg *m, size_t n);
void pmsg_commit(struct pmsg *m, size_t n);

/* Unpack cursor: copy n body bytes out (PvmNoData past the end). */
void pmsg_rewind(struct pmsg *m);
int pmsg_read(struct pmsg *m, void *dst, size_t n);
int pmsg_skip(struct pmsg *m, size_t n);
/* Contiguous unread bytes at the cursor (NULL/0 at the end), and advance:
 * lets decoders convert straight out of the segments. */
const char *pmsg_peek(struct pmsg *m, size_t *avail);
void pmsg_advance(struct pmsg *m, size_t n);
size_t pmsg_unread(const struct pmsg *m);

/* Slicing a body into wire pieces without copying: start a cursor with
 * pmsg_slice_start, then each pmsg_slice call appends iovecs for up to max
 * more bytes (at most maxiov entries) and returns how many it added; the
 * bytes covered are added to *bytes.  pmsg_slice_left() is what remains. */
struct pmsg_slicer {
    const struct pvm_seg *seg;
    size_t off, left;
};
struct iovec;
void pmsg_slice_start(const struct pmsg *m, struct pmsg_slicer *s);
int pmsg_slice(struct pmsg_slicer *s, size_t max, struct iovec *iov, int maxiov, size_t *bytes);
static inline size_t pmsg_slice_left(const struct pmsg_slicer *s) { return s->left; }

/* Encoding word for enc, and enc for a received word (sets PMSG_ALIEN). */
uint32_t pmsg_encword(int enc);
void pmsg_set_encword(struct pmsg *m, uint32_t word);

/* Current send / receive buffers (pvm_getsbuf/pvm_setrbuf state). */
struct pmsg *pmsg_sbuf(void);
struct pmsg *pmsg_rbuf(void);
/* Make m the receive buffer, freeing the previous one (pvm_recv rule). */
void pmsg_set_rbuf_free_old(struct pmsg *m);
/* Set the current buffer id (0 = none); return the previous id. */
int pmsgi_set_sbuf(int mid);
int pmsgi_set_rbuf(int mid);

#define PVM_DSIG_NATIVE 0x00408c41u  /* LINUX64 data signature */
#define PVM_ENC_XDR     0x10000000u
#define PVM_ENC_TRACE   0x40000000u

#endif /* PVM3_PMSG_H */
