/*
 * ctrl.c - control messages between libpvm3am tasks over the daemon
 * route (docs/link-setup.md, "Roles and messages"): sending them, and
 * reading and checking their bodies.  What they do to a link is link.c's
 * and init.c's; this file calls neither, so both can send.
 */
#include <string.h>
#include "pvmam_int.h"

/* Strings travel as {int length, bytes} so a receiver can bound them;
 * everything is packed in pvm3's internal buffers (route.h), never the
 * user's current ones. */
int pvmx_ctrl_post(struct pmsg *m, int tag, const int *dsts, int n)
{
    int rc = 0;
    for (int i = 0; rc >= 0 && i < n; i++) {
        m->tag = tag;
        m->ctx = SYSCTX_TC;
        m->src = pvmx.mytid;
        m->dst = dsts[i];
        rc = pvmi_send_daemon(dsts[i], m);
    }
    pmsg_free(m);
    return rc;
}

int pvmx_send_ctrl(int dst, int tag, const int *ints, int nint, const char *str)
{
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return PvmNoMem;
    int rc = pvmi_put_ints(m, ints, nint);
    if (rc >= 0 && str)
        rc = pvmi_put_counted(m, str);
    if (rc < 0) {
        pmsg_free(m);
        return rc;
    }
    return pvmx_ctrl_post(m, tag, &dst, 1);
}

int pvmx_ctrl_unpack(struct pmsg *m, int *ints, int nint, char *str, size_t max)
{
    int rc = pvmi_get_ints(m, ints, nint);
    if (rc >= 0 && str)
        rc = pvmi_get_counted(m, str, max);
    return rc < 0 ? rc : 0;
}

/* REQ carries {its tid, its address list}, CONN {its tid, the one address
 * it connected from}, the others nothing we read.  The tid must be the
 * sender's and the list well-formed (addrs.c), or the message is not
 * acted on at all. */
int pvmx_ctrl_parse(struct pmsg *m, char *addr, size_t max)
{
    int with_addr = m->tag == PVMAM_TAG_REQ || m->tag == PVMAM_TAG_CONN;
    int who = 0;
    int rc = pvmx_ctrl_unpack(m, &who, with_addr, with_addr ? addr : NULL, max);
    char list[PVMX_NIFC][AM_ADDR_MAX];
    if (rc >= 0 && with_addr &&
        pvmx_addrs_split(addr, list, m->tag == PVMAM_TAG_CONN ? 1 : PVMX_NIFC) < 0)
        rc = PvmBadMsg;
    if (rc >= 0 && with_addr && who != m->src)
        rc = PvmBadMsg;
    return rc < 0 ? rc : 0;
}
