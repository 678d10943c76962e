/*
 * mbox.c - the message mailbox (pvm-protocol.md TM_DB): pvm_putinfo,
 * pvm_recvinfo and pvm_delinfo.  The pvmd keeps the entries; a stored
 * message travels in the pvm_pkmesg format.
 */
#include <string.h>
#include "lpvm.h"

#define TMDB_PUT    1
#define TMDB_REMOVE 2
#define TMDB_GET    3

static int db_request(int op, const char *name, int index, int flags,
                      struct pmsg *data, struct pmsg **reply)
{
    int rc = pvmi_beatask();
    if (rc < 0)
        return rc;
    if (!name || !*name)
        return PvmBadParam;
    struct pmsg *req = pvmi_xbuf();
    if (!req)
        return PvmNoMem;
    rc = pvmi_put_int(req, op);
    if (rc >= 0) rc = pvmi_put_int(req, pvmi.tid);
    if (rc >= 0) rc = pvmi_put_str(req, name);
    if (rc >= 0) rc = pvmi_put_int(req, index);
    if (rc >= 0) rc = pvmi_put_int(req, flags);
    if (rc >= 0 && data) {   /* the message, as pvm_pkmesg writes it */
        int save = pmsgi_set_sbuf(req->mid);
        rc = pvm_pkmesg(data->mid);
        pmsgi_set_sbuf(save);
    }
    if (rc >= 0)
        rc = pvmi_tm_call(TM_DB, req, reply);
    pmsg_free(req);
    return rc;
}

/* The reply starts with the index or an error code. */
static int reply_status(struct pmsg *rep, int *index)
{
    int rc = pvmi_get_int(rep, index);
    if (rc < 0)
        return PvmBadMsg;
    return *index < 0 ? *index : 0;
}

int pvm_putinfo(char *name, int mid, int flags)
{
    struct pmsg *m = pmsg_find(mid);
    if (mid <= 0 || !m)
        return pvmi_err("pvm_putinfo", mid <= 0 ? PvmBadParam : PvmNoSuchBuf);
    struct pmsg *rep = NULL;
    int index = -1;
    int rc = db_request(TMDB_PUT, name, -1, flags, m, &rep);
    if (rc >= 0)
        rc = reply_status(rep, &index);
    pmsg_free(rep);
    return rc < 0 ? pvmi_err("pvm_putinfo", rc) : index;
}

int pvm_recvinfo(char *name, int index, int flags)
{
    struct pmsg *rep = NULL;
    int got = -1;
    int rc = db_request(TMDB_GET, name, index, flags, NULL, &rep);
    if (rc >= 0)
        rc = reply_status(rep, &got);
    if (rc >= 0) {
        /* unpack the stored message from the reply, keeping the user's
         * receive buffer as it was */
        int save = pmsgi_set_rbuf(rep->mid);
        rc = pvm_upkmesg();
        pmsgi_set_rbuf(save);
    }
    pmsg_free(rep);
    if (rc == PvmNotFound)   /* a normal answer, not worth a message */
        return rc;
    return rc < 0 ? pvmi_err("pvm_recvinfo", rc) : rc;
}

int pvm_delinfo(char *name, int index, int flags)
{
    struct pmsg *rep = NULL;
    int got = -1;
    int rc = db_request(TMDB_REMOVE, name, index, flags, NULL, &rep);
    if (rc >= 0)
        rc = reply_status(rep, &got);
    pmsg_free(rep);
    if (rc == PvmNotFound)
        return rc;
    return rc < 0 ? pvmi_err("pvm_delinfo", rc) : 0;
}
