/*
 * mbox.c - the message mailbox (TM_DB, docs/protocol.md): pvm_putinfo,
 * pvm_recvinfo, pvm_delinfo, pvm_getmboxinfo, the 3.3 calls pvm_insert,
 * pvm_lookup, pvm_delete, and pvm_getnoresets.  Stored messages travel in
 * the packed-message format of pvm_pkmesg (9.5).
 */
#include <stdlib.h>
#include <string.h>
#include "lpvm.h"
#include "route_int.h"
#include "trace.h"

/* Request header shared by every opcode. */
static struct pmsg *db_req(int op, const char *name, int index, int flags)
{
    struct pmsg *req = pvmi_xbuf();
    if (!req)
        return NULL;
    pvmi_put_int(req, op);
    pvmi_put_int(req, pvmi.tid);
    pvmi_put_str(req, name);
    pvmi_put_int(req, index);
    pvmi_put_int(req, flags);
    return req;
}

/* pvm_pkmesg / pvm_upkmesg work on the current buffers: borrow them. */
static int pack_inner(struct pmsg *req, int mid)
{
    int save = pmsgi_set_sbuf(req->mid);
    int ae = pvmi_autoerr;
    pvmi_autoerr = 0;
    int rc = pvm_pkmesg(mid);
    pvmi_autoerr = ae;
    pmsgi_set_sbuf(save);
    return rc;
}

static struct pmsg *unpack_inner(struct pmsg *rep)
{
    int save = pmsgi_set_rbuf(rep->mid);
    int ae = pvmi_autoerr;
    pvmi_autoerr = 0;
    int mid = pvm_upkmesg();
    pvmi_autoerr = ae;
    pmsgi_set_rbuf(save);
    return mid > 0 ? pmsg_find(mid) : NULL;
}

int pvmi_mbox_put(const char *name, int index, int flags, int mid)
{
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    struct pmsg *req = db_req(TMDB_PUT, name, index, flags);
    if (!req)
        return PvmNoMem;
    rc = pack_inner(req, mid);
    if (rc < 0) {
        pmsg_free(req);
        return rc;
    }
    return pvmi_tm_status(TM_DB, req, NULL);
}

/* The stored message as a new buffer in *out (index returned). */
int pvmi_mbox_get(const char *name, int index, int flags, struct pmsg **out)
{
    *out = NULL;
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    struct pmsg *rep = NULL;
    rc = pvmi_tm_status(TM_DB, db_req(TMDB_GET, name, index, flags), &rep);
    if (rc >= 0) {
        if (!(*out = unpack_inner(rep)))
            rc = PvmBadMsg;
        pmsg_free(rep);
    }
    return rc;
}

static int mbox_del(const char *name, int index, int flags)
{
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    return pvmi_tm_status(TM_DB, db_req(TMDB_REMOVE, name, index, flags), NULL);
}

/* Stock reports some expected outcomes only through pvm_errno. */
static int quiet(const char *fn, int rc, int ok1, int ok2)
{
    if (rc < 0 && (rc == ok1 || rc == ok2)) {
        pvm_errno = rc;
        return rc;
    }
    return pvmi_err(fn, rc);
}

int pvm_putinfo(char *name, int mid, int flags)
{
    PVMI_TEV(pvmi_tev_putinfo(name, mid, flags));
    if (!name || !*name)
        return pvmi_err("pvm_putinfo", PvmBadParam);
    if (mid <= 0 || !pmsg_find(mid))
        return pvmi_err("pvm_putinfo", mid <= 0 ? PvmBadParam : PvmNoSuchBuf);
    int rc = pvmi_mbox_put(name, -1, flags, mid);
    return quiet("pvm_putinfo", rc, PvmDenied, PvmExists);
}

int pvmi_mbox_index;

int pvm_recvinfo(char *name, int index, int flags)
{
    PVMI_TEV(pvmi_tev_recvinfo(name, index, flags));
    if (!name || !*name || index < 0)
        return pvmi_err("pvm_recvinfo", PvmBadParam);
    int rc = pvmi_enter("pvm_recvinfo");
    if (rc < 0)
        return rc;
    pmsg_set_rbuf_free_old(NULL);   /* like a receive, the old buffer goes */
    struct pmsg *m;
    rc = pvmi_mbox_get(name, index, flags, &m);
    if (rc < 0)
        return quiet("pvm_recvinfo", rc, PvmNotFound, PvmNotFound);
    pmsg_set_rbuf_free_old(m);
    pvmi_mbox_index = rc;
    return m->mid;
}

int pvm_delinfo(char *name, int index, int flags)
{
    PVMI_TEV(pvmi_tev_delinfo(name, index, flags));
    if (!name || !*name || index < 0)
        return pvmi_err("pvm_delinfo", PvmBadParam);
    return quiet("pvm_delinfo", mbox_del(name, index, flags), PvmDenied, PvmNotFound);
}

static struct pvmmboxinfo *clist;
static int nclist;

static void free_list(void)
{
    for (int i = 0; i < nclist; i++) {
        free(clist[i].mi_name);
        free(clist[i].mi_indices);
        free(clist[i].mi_owners);
        free(clist[i].mi_flags);
    }
    free(clist);
    clist = NULL;
    nclist = 0;
}

int pvm_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes)
{
    PVMI_TEV(pvmi_tev_getmboxinfo(pattern, nclasses, classes));
    free_list();
    int rc = pvmi_enter("pvm_getmboxinfo");
    if (rc < 0)
        return rc;
    struct pmsg *rep = NULL;
    rc = pvmi_tm_status(TM_DB, db_req(TMDB_NAMES, pattern ? pattern : "", 0, 0), &rep);
    if (rc < 0)
        return pvmi_err("pvm_getmboxinfo", rc);
    int n;
    rc = pvmi_get_int(rep, &n);
    if (rc >= 0 && (n < 0 || (size_t)n * 8 > pmsg_unread(rep)))
        rc = PvmBadMsg;
    if (rc >= 0 && !(clist = calloc((size_t)n + 1, sizeof *clist)))
        rc = PvmNoMem;
    for (int i = 0; rc >= 0 && i < n; i++) {
        struct pvmmboxinfo *c = &clist[i];
        nclist = i + 1;
        int k;
        if (!(c->mi_name = pvmi_get_strdup(rep)) || pvmi_get_int(rep, &k) < 0 ||
            k < 0 || (size_t)k * 12 > pmsg_unread(rep)) {
            rc = PvmBadMsg;
            break;
        }
        c->mi_nentries = k;
        c->mi_indices = malloc(sizeof(int) * (size_t)(k + 1));
        c->mi_owners = malloc(sizeof(int) * (size_t)(k + 1));
        c->mi_flags = malloc(sizeof(int) * (size_t)(k + 1));
        if (!c->mi_indices || !c->mi_owners || !c->mi_flags) {
            rc = PvmNoMem;
            break;
        }
        for (int j = 0; j < k; j++) {
            pvmi_get_int(rep, &c->mi_indices[j]);
            pvmi_get_int(rep, &c->mi_owners[j]);
            pvmi_get_int(rep, &c->mi_flags[j]);
        }
    }
    pmsg_free(rep);
    if (rc < 0) {
        free_list();
        return pvmi_err("pvm_getmboxinfo", rc);
    }
    /* a route's own entries (route.h: mbox_prefix) are not the user's
     * business; stock tasks listing the mailbox do see them */
    int kept = 0;
    for (int i = 0; i < n; i++) {
        struct pvmmboxinfo *c = &clist[i];
        if (!pvmi_routes_own_name(c->mi_name)) {
            clist[kept++] = *c;
            continue;
        }
        free(c->mi_name);
        free(c->mi_indices);
        free(c->mi_owners);
        free(c->mi_flags);
    }
    memset(clist + kept, 0, sizeof *clist * (size_t)(n - kept));
    n = kept;
    nclist = n;
    if (nclasses)
        *nclasses = n;
    if (classes)
        *classes = clist;
    return 0;
}

/* ---- PVM 3.3 database calls, on top of the mailbox ---------------------- */

int pvm_insert(char *name, int req, int data)
{
    PVMI_TEV(pvmi_tev_mbox33(TEV_INSERT, name, req, data, NULL));
    if (!name || !*name || req < -1)
        return pvmi_err("pvm_insert", PvmBadParam);
    struct pmsg *m = pmsg_new(PvmDataDefault);
    if (!m)
        return pvmi_err("pvm_insert", PvmNoMem);
    pvmi_put_int(m, data);
    int rc = pvmi_mbox_put(name, req, PvmMboxMultiInstance | PvmMboxPersistent, m->mid);
    pmsg_free(m);
    return quiet("pvm_insert", rc, PvmDupEntry, PvmDupEntry);
}

int pvm_lookup(char *name, int req, int *datap)
{
    PVMI_TEV(pvmi_tev_mbox33(TEV_LOOKUP, name, req, 0, datap));
    if (!name || !*name || req < -1)
        return pvmi_err("pvm_lookup", PvmBadParam);
    int flags = PvmMboxDefault;
    if (req < 0) {
        flags |= PvmMboxFirstAvail;
        req = 0;
    }
    struct pmsg *m;
    int rc = pvmi_mbox_get(name, req, flags, &m);
    if (rc >= 0) {
        pmsg_rewind(m);
        if (datap)
            pvmi_get_int(m, datap);
        pmsg_free(m);
    }
    return quiet("pvm_lookup", rc, PvmNoEntry, PvmNoEntry);
}

int pvm_delete(char *name, int req)
{
    PVMI_TEV(pvmi_tev_mbox33(TEV_DELETE, name, req, 0, NULL));
    if (!name || !*name || req < 0)
        return pvmi_err("pvm_delete", PvmBadParam);
    return quiet("pvm_delete", mbox_del(name, req, PvmMboxDefault), PvmNoEntry, PvmNoEntry);
}

/* Tasks that asked not to be reset (class PVMNORESETCLASS, one int each). */
int pvm_getnoresets(int **tids, int *ntids)
{
    static int *list;
    static int cap;
    int n = 0;
    for (int index = 0;; index++) {
        struct pmsg *m;
        int got = pvmi_mbox_get(PVMNORESETCLASS, index, PvmMboxFirstAvail, &m);
        if (got < 0)
            break;
        if (n == cap) {
            int *l = realloc(list, sizeof *l * (size_t)(cap ? cap * 2 : 16));
            if (!l) {
                pmsg_free(m);
                break;
            }
            list = l;
            cap = cap ? cap * 2 : 16;
        }
        pmsg_rewind(m);
        pvmi_get_int(m, &list[n++]);
        pmsg_free(m);
        index = got;
    }
    if (tids)
        *tids = list;
    if (ntids)
        *ntids = n;
    return 0;
}

/* Ask for name's first entry, now or whenever it is put (WaitForInfo):
 * the pvmd holds the request until then.  A wait id, or an error. */
int pvmi_mbox_watch(const char *name)
{
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    struct pmsg *req = db_req(TMDB_GET, name, 0, PvmMboxWaitForInfo);
    if (!req)
        return PvmNoMem;
    rc = pvmi_tm_post(TM_DB, req);
    pmsg_free(req);
    return rc;
}

/* 0 while the watch waits; 1 with the entry in *out (caller frees); or an
 * error (the pvmd's answer was not an entry). */
int pvmi_mbox_watched(int wid, struct pmsg **out)
{
    *out = NULL;
    struct pmsg *rep = pvmi_tm_collect(wid);
    if (!rep)
        return 0;
    int rc = pvmi_tm_reply_status(rep);
    if (rc >= 0)
        rc = (*out = unpack_inner(rep)) ? 1 : PvmBadMsg;
    pmsg_free(rep);
    return rc;
}
