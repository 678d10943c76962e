/*
 * group_host.c - where a group's members run, as stock libgpvm3 reports
 * it: pvm_grphostinfo (one host) and pvm_grpvhostinfo (every host).
 * A frozen group answers from its map (group_cache.c); otherwise pvmgs is
 * asked (HOSTCHAR, HOSTCHARV) and a frozen map in the reply is kept.
 */
#include <stdlib.h>
#include "group.h"

/* Members on host's host, their coordinator, and the group's host count. */
int pvm_grphostinfo(char *group, int host, int *coord, int *nmem, int *nhosts)
{
    struct pmsg *rep;
    if (!coord || !nmem || !nhosts)
        return PvmBadParam;
    if (pvmi_gcache_hostinfo(group, host, coord, nmem, nhosts) == 0)
        return 0;
    int rc = pvmi_gs_call(group, GS_HOSTCHAR, &host, 1, &rep);
    if (rc < 0)
        return rc;
    if ((rc = pvmi_get_int(rep, nhosts)) >= 0 && (rc = pvmi_get_int(rep, nmem)) >= 0
            && (rc = pvmi_get_int(rep, coord)) >= 0)
        pvmi_gcache_take(rep);
    pmsg_free(rep);
    return rc;
}

/* Vectors valid until the next call (or, for a frozen group, until we
 * leave it), as stock documents. */
int pvm_grpvhostinfo(char *group, int **coordv, int **nmemv, int *nhosts)
{
    static int *cv, *nv;
    struct pmsg *rep;
    if (!coordv || !nmemv || !nhosts)
        return PvmBadParam;
    if (pvmi_gcache_vhostinfo(group, coordv, nmemv, nhosts) == 0)
        return 0;
    int rc = pvmi_gs_call(group, GS_HOSTCHARV, NULL, 0, &rep);
    if (rc < 0)
        return rc;
    int n = 0;
    rc = pvmi_get_int(rep, &n);
    if (rc >= 0 && (n < 0 || (size_t)n > pmsg_unread(rep) / 8))
        rc = n < 0 ? n : PvmBadMsg;
    if (rc >= 0) {
        int *c = malloc(sizeof *c * (size_t)(n + 1)), *m = malloc(sizeof *m * (size_t)(n + 1));
        if (!c || !m) {
            free(c);
            free(m);
            rc = PvmNoMem;
            goto out;
        }
        for (int i = 0; i < n; i++)
            pvmi_get_int(rep, &m[i]);
        for (int i = 0; i < n; i++)
            pvmi_get_int(rep, &c[i]);
        free(cv);
        free(nv);
        cv = c;
        nv = m;
        *coordv = cv;
        *nmemv = nv;
        *nhosts = n;
        pvmi_gcache_take(rep);
        rc = 0;
    }
out:
    pmsg_free(rep);
    return rc;
}
