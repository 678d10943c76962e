/*
 * group_coll.c - pvm_reduce, pvm_gather, pvm_scatter, moving data as stock
 * libgpvm3 does so stock and libpvm3am members can mix: messages with the
 * caller's tag in context SYSCTX_DG, in the same pattern.  Between two
 * tasks of one host the data goes raw, as pvm_psend sends it (no XDR, no
 * copy into a message buffer; over AM straight from the caller's array):
 * both have one data format, and stock unpacks by the message's encoding
 * (pvm_upkdouble... on a raw message), so a stock member still reads it.
 * Across hosts it stays XDR.
 *   reduce:  members send to their host's coordinator (named by pvmgs,
 *            HOSTCHAR), which folds them in with the function and sends the
 *            result on to the root unless it is the root; the root folds in
 *            one message per other host.
 *   gather:  every member sends to the root, which takes them in instance
 *            order (TIDLIST, no holes allowed).
 *   scatter: the root sends slice i to instance i.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "group.h"
#include "pack.h"
#include "route_int.h"
#include "trace.h"

/* Element size and codec type of a PVM data type; 0 if unsupported. */
static int dtype(int t, enum pvmi_type *pt)
{
    static const struct { int pvm; enum pvmi_type t; int size; } map[] = {
        { PVM_STR, PVMI_BYTE, 1 }, { PVM_BYTE, PVMI_BYTE, 1 },
        { PVM_SHORT, PVMI_SHORT, sizeof(short) }, { PVM_INT, PVMI_INT, sizeof(int) },
        { PVM_LONG, PVMI_LONG, sizeof(long) }, { PVM_FLOAT, PVMI_FLOAT, sizeof(float) },
        { PVM_DOUBLE, PVMI_DOUBLE, sizeof(double) },
        { PVM_CPLX, PVMI_CPLX, 2 * sizeof(float) },
        { PVM_DCPLX, PVMI_DCPLX, 2 * sizeof(double) },
    };
    for (unsigned i = 0; i < sizeof map / sizeof map[0]; i++)
        if (map[i].pvm == t) {
            *pt = map[i].t;
            return map[i].size;
        }
    return 0;
}

static int same_host(int tid) { return (tid & PVMI_TIDHOST) == (pvmi.tid & PVMI_TIDHOST); }

/* bytes at p, raw, the way pvm_psend sends them: over AM straight from p;
 * otherwise a message whose one segment is p, sent before we return.  It
 * waits as a big pvm_send already did (over shm until the receiver has
 * copied it); no cycle: in reduce a coordinator sends only after all its
 * receives and the root receives only after its one send, and in gather
 * and scatter only the root receives, or only the root sends. */
static int send_raw(int dst, int tag, const void *p, size_t bytes)
{
    int sent, rc = pvmi_routes_send_bytes(dst, tag, SYSCTX_DG, p, bytes, &sent);
    if (sent < 0 && pvmi_routes_settle(dst, bytes))
        rc = pvmi_routes_send_bytes(dst, tag, SYSCTX_DG, p, bytes, &sent);
    if (sent > 0)
        return rc;
    struct pmsg *m = pmsg_new(PvmDataRaw);
    if (!m)
        return PvmNoMem;
    rc = pmsg_append_seg(m, NULL, (char *)p, bytes);
    m->tag = tag;
    m->ctx = SYSCTX_DG;
    m->src = pvmi.tid;
    m->dst = dst;
    if (rc >= 0)
        rc = sent < 0 ? pvmi_send_via_daemon(dst, m) : pvmi_send_msg(dst, m);
    pmsg_free(m);
    return rc;
}

/* PVM_STR is packed as one string, as stock's pkstr/upkstr choice does. */
static int send_data(int dst, int tag, int type, const void *p, int count)
{
    enum pvmi_type t = PVMI_BYTE;
    int size = dtype(type, &t);
    if (type != PVM_STR && same_host(dst))
        return send_raw(dst, tag, p, (size_t)size * (size_t)count);
    struct pmsg *m = pmsg_new(PvmDataDefault);
    if (!m)
        return PvmNoMem;
    int rc = type == PVM_STR ? pvmi_codec_xdr.pkstr(m, p)
                             : pvmi_codec_xdr.pk(m, t, p, count, 1);
    if (rc >= 0)
        rc = pvmi_grp_send(dst, tag, SYSCTX_DG, m);
    pmsg_free(m);
    return rc;
}

static int recv_data(int src, int tag, int type, void *p, int count)
{
    enum pvmi_type t = PVMI_BYTE;
    dtype(type, &t);
    struct pmsg *m;
    int rc = pvmi_grp_recv(src, tag, SYSCTX_DG, &m);
    if (rc < 0)
        return rc;
    /* raw from a task of this host, XDR from others and from stock members */
    const struct pvmi_codec *c = pvmi_codec_upk(m);
    rc = type == PVM_STR ? c->upkstr(m, p) : c->upk(m, t, p, count, 1);
    pmsg_free(m);
    return rc;
}

typedef void (*redfn)(int *, void *, void *, int *, int *);

/* One contribution from src folded into data: f(data, y).  A raw message
 * (from a task of this host) whose body is one aligned piece is folded
 * straight from where it arrived, so the root does not copy each
 * member's data once more before reading it (1 MiB: one memcpy of the
 * whole block per member); otherwise it is unpacked into *work first
 * (allocated on first use).
 * Returns the fold's info, or a negative PVM code. */
static int recv_fold(redfn f, int src, int tag, int type, void *data, void **work, int count,
                     size_t size)
{
    struct pmsg *m;
    int rc = pvmi_grp_recv(src, tag, SYSCTX_DG, &m);
    if (rc < 0)
        return rc;
    const struct pvmi_codec *c = pvmi_codec_upk(m);
    size_t avail = 0, bytes = size * (size_t)count, align = size < 8 ? size : 8;
    const char *y = c == &pvmi_codec_raw && type != PVM_STR ? pmsg_peek(m, &avail) : NULL;
    if (!y || avail < bytes || ((uintptr_t)y & (align - 1))) {
        enum pvmi_type t = PVMI_BYTE;
        dtype(type, &t);
        if (!*work && !(*work = malloc(bytes)))
            rc = PvmNoMem;
        else
            rc = type == PVM_STR ? c->upkstr(m, *work) : c->upk(m, t, *work, count, 1);
        if (rc < 0) {
            pmsg_free(m);
            return rc;
        }
        y = *work;
    }
    rc = 0;
    f(&type, data, (void *)y, &count, &rc);
    pmsg_free(m);
    return rc;
}

static int reduce(redfn f, void *data, int count, int type, int tag, char *group, int rootinst)
{
    enum pvmi_type t = PVMI_BYTE;
    int size, me = pvmi.tid, rc;
    if (!data || count <= 0 || !f)
        return PvmBadParam;
    if ((rc = pvmi_gs_int(group, GS_GETINST, &me, 1)) < 0)
        return rc;
    int root = pvmi_gs_int(group, GS_GETTID, &rootinst, 1);
    if (root < 0)
        return root;
    if (!(size = dtype(type, &t)))
        return PvmBadParam;
    void *work = NULL;
    int coord = me, nmem = 1, nhosts = 1;
    pvm_grphostinfo(group, me & PVMI_TIDHOST, &coord, &nmem, &nhosts);   /* stock ignores errors too */
    rc = 0;
    if (me == coord) {
        for (int i = nmem - 1; i > 0 && rc >= 0; i--)
            rc = recv_fold(f, -1, tag, type, data, &work, count, (size_t)size);
    } else {
        rc = send_data(coord, tag, type, data, count);
    }
    if (rc >= 0 && me == coord && me != root)
        rc = send_data(root, tag, type, data, count);
    if (rc >= 0 && me == root) {
        if (me != coord)
            rc = recv_data(coord, tag, type, data, count);
        for (int i = nhosts - 1; i > 0 && rc >= 0; i--)
            rc = recv_fold(f, -1, tag, type, data, &work, count, (size_t)size);
    }
    free(work);
    return rc < 0 ? rc : 0;
}

int pvm_reduce(void (*f)(int *, void *, void *, int *, int *), void *data, int count,
               int datatype, int tag, char *group, int root)
{
    PVMI_TEV(pvmi_tev_reduce(f, data, count, datatype, tag, group, root));
    int rc = pvmi_beatask();
    if (rc >= 0)
        rc = reduce(f, data, count, datatype, tag, group, root);
    return pvmi_err("pvm_reduce", rc);
}

int pvm_gather(void *result, void *data, int count, int datatype, int tag, char *group,
               int rootinst)
{
    PVMI_TEV(pvmi_tev_gather(TEV_GATHER, result, data, count, datatype, tag, group, rootinst));
    enum pvmi_type t = PVMI_BYTE;
    int me = pvmi_beatask(), size, n, *tids = NULL;
    if (me < 0)
        return pvmi_err("pvm_gather", me);
    me = pvmi.tid;
    if (!data || count <= 0 || !(size = dtype(datatype, &t)))
        return pvmi_err("pvm_gather", PvmBadParam);
    int root = pvmi_gs_int(group, GS_GETTID, &rootinst, 1);
    if (root < 0)
        return pvmi_err("pvm_gather", root);
    int inst = pvmi_gs_int(group, GS_GETINST, &me, 1);
    if (inst < 0)
        return pvmi_err("pvm_gather", inst);
    if (inst != rootinst)
        return pvmi_err("pvm_gather", send_data(root, tag, datatype, data, count));
    if (!result)
        return pvmi_err("pvm_gather", PvmBadParam);
    int rc = pvmi_gs_tids(group, GS_TIDLIST, &tids, &n);
    size_t slice = (size_t)size * (size_t)count;
    for (int i = 0; rc >= 0 && i < n; i++) {
        if (i == inst)
            memcpy((char *)result + i * slice, data, slice);
        else
            rc = recv_data(tids[i], tag, datatype, (char *)result + i * slice, count);
    }
    free(tids);
    return pvmi_err("pvm_gather", rc < 0 ? rc : 0);
}

int pvm_scatter(void *result, void *data, int count, int datatype, int tag, char *group,
                int rootinst)
{
    PVMI_TEV(pvmi_tev_gather(TEV_SCATTER, result, data, count, datatype, tag, group, rootinst));
    enum pvmi_type t = PVMI_BYTE;
    int me = pvmi_beatask(), size, n, *tids = NULL;
    if (me < 0)
        return pvmi_err("pvm_scatter", me);
    me = pvmi.tid;
    if (!result || count <= 0 || !(size = dtype(datatype, &t)))
        return pvmi_err("pvm_scatter", PvmBadParam);
    int root = pvmi_gs_int(group, GS_GETTID, &rootinst, 1);
    if (root < 0)
        return pvmi_err("pvm_scatter", root);
    int inst = pvmi_gs_int(group, GS_GETINST, &me, 1);
    if (inst < 0)
        return pvmi_err("pvm_scatter", inst);
    if (inst != rootinst)
        return pvmi_err("pvm_scatter", recv_data(root, tag, datatype, result, count));
    if (!data)
        return pvmi_err("pvm_scatter", PvmBadParam);
    int rc = pvmi_gs_tids(group, GS_TIDLIST, &tids, &n);
    size_t slice = (size_t)size * (size_t)count;
    for (int i = 0; rc >= 0 && i < n; i++) {
        if (i == inst)
            memcpy(result, (char *)data + i * slice, slice);
        else
            rc = send_data(tids[i], tag, datatype, (char *)data + i * slice, count);
    }
    free(tids);
    return pvmi_err("pvm_scatter", rc < 0 ? rc : 0);
}
