/*
 * group.h - pvm3 internal: the client side of the dynamic group server
 * pvmgs (docs/protocol.md), shared by group.c (membership, barrier,
 * broadcast) and group_coll.c (reduce, gather, scatter).
 */
#ifndef PVM3_GROUP_H
#define PVM3_GROUP_H

#include "lpvm.h"

/* pvmgs request codes (message tags in context SYSCTX_DG). */
enum {
    GS_JOIN = 1, GS_LEAVE = 2, GS_BARRIER = 3, GS_BCAST = 4, GS_GETINST = 5,
    GS_GETTID = 6, GS_GSIZE = 7, GS_TIDLIST = 12, GS_STATICGROUP = 13,
    GS_DUMP = 9, GS_HOSTCHAR = 14, GS_HOSTCHARV = 15
};

/* Group state word pvmgs appends to some replies; STATIC is followed by
 * the frozen map (docs/protocol.md). */
#define PVMI_GS_STATIC 1

/* Ask pvmgs (found or started on first use); the reply in *rep. */
int pvmi_gs_call(const char *group, int req, const int *args, int nargs, struct pmsg **rep);
/* One-int query (JOIN, LEAVE, BARRIER, GETINST, GETTID, GSIZE, ...). */
int pvmi_gs_int(const char *group, int req, const int *args, int nargs);
/* Member tids in instance order (BCAST: current members, TIDLIST: no
 * holes allowed); *tids is malloc'd. */
int pvmi_gs_tids(const char *group, int req, int **tids, int *ntids);

/* Wait for a message from src (-1 any) with tag in context ctx. */
int pvmi_grp_recv(int src, int tag, int ctx, struct pmsg **out);
/* Send m to dst with tag in context ctx (m stays the caller's). */
int pvmi_grp_send(int dst, int tag, int ctx, struct pmsg *m);
/* group.c: pvm_bcast's send; the tids it went to in *sent when asked
 * (the traced call reports them, trace_group.c). */
int pvmi_bcast(char *group, int tag, int **sent, int *nsent);

/* Stock libgpvm3 exports these without a prototype in pvm3.h. */
int pvm_grphostinfo(char *group, int host, int *coord, int *nmem, int *nhosts);
int pvm_grpvhostinfo(char *group, int **coordv, int **nmemv, int *nhosts);
void pvm_gsdump(void);

/* group_cache.c: frozen groups kept locally, as stock does.  take()
 * reads the state word (and the map after STATIC) from a reply; the
 * lookups return a negative PVM code on a miss (then ask pvmgs). */
int pvmi_gcache_take(struct pmsg *m);
void pvmi_gcache_drop(const char *name);
int pvmi_gcache_gettid(const char *name, int inst);
int pvmi_gcache_getinst(const char *name, int tid);
int pvmi_gcache_gsize(const char *name);
int pvmi_gcache_tids(const char *name, int noholes, int **tids, int *ntids);
int pvmi_gcache_hostinfo(const char *name, int host, int *coord, int *nmem, int *nhosts);
int pvmi_gcache_vhostinfo(const char *name, int **coordv, int **nmemv, int *nhosts);

#endif /* PVM3_GROUP_H */
