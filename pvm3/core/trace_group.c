/*
 * trace_group.c - traced versions (trace.h) of the dynamic-group calls,
 * as stock libgpvm3 3.4.6 traces them: the group name (GN) and at most
 * one int in, one int out; pvm_bcast also reports the tids it sent to.
 * Stock does not trace pvm_freezegroup or the host-info calls.
 */
#include <stdlib.h>
#include "lpvm.h"
#include "trace.h"
#include "group.h"


/* The entry int's did per kind (-1: none), and the exit's. */
static void dids(int kind, int *in, int *out)
{
    *in = -1;
    *out = TEV_DID_CC;
    switch (kind) {
    case TEV_GETINST: *in = TEV_DID_GT; *out = TEV_DID_GI; break;
    case TEV_GETTID: *in = TEV_DID_GI; *out = TEV_DID_GT; break;
    case TEV_GSIZE: *out = TEV_DID_GS; break;
    case TEV_BARRIER: *in = TEV_DID_GBC; break;
    case TEV_BCAST: case TEV_REDUCE: case TEV_GATHER: case TEV_SCATTER:
        *in = TEV_DID_MC; break;
    default: break;
    }
}

static int entry(int kind, const char *group, int arg)
{
    int t = pvmi_tev_in(), in, out;
    dids(kind, &in, &out);
    if (t && pvmi_tev_begin(kind, TEV_EVENT_ENTRY)) {
        pvmi_tev_str(TEV_DID_GN, group);
        if (in >= 0)
            pvmi_tev_int(in, arg);
        pvmi_tev_fin();
    }
    return t;
}

static int leave(int t, int kind, int cc)
{
    int in, out;
    dids(kind, &in, &out);
    if (t && pvmi_tev_begin(kind, TEV_EVENT_EXIT)) {
        pvmi_tev_int(out, cc);
        pvmi_tev_fin();
    }
    pvmi_tev_out();
    return cc;
}

/* joingroup, lvgroup, getinst, gettid, gsize, barrier */
int pvmi_tev_group(int kind, char *group, int arg)
{
    int t = entry(kind, group, arg), cc;
    switch (kind) {
    case TEV_JOINGROUP: cc = pvm_joingroup(group); break;
    case TEV_LVGROUP: cc = pvm_lvgroup(group); break;
    case TEV_GETINST: cc = pvm_getinst(group, arg); break;
    case TEV_GETTID: cc = pvm_gettid(group, arg); break;
    case TEV_GSIZE: cc = pvm_gsize(group); break;
    default: cc = pvm_barrier(group, arg); break;
    }
    return leave(t, kind, cc);
}

int pvmi_tev_bcast(char *group, int tag)
{
    int t = entry(TEV_BCAST, group, tag), *tids = NULL, n = 0;
    int cc = pvmi_bcast(group, tag, &tids, &n);
    if (t && pvmi_tev_begin(TEV_BCAST, TEV_EVENT_EXIT)) {
        pvmi_tev_int(TEV_DID_CC, cc);
        pvmi_tev_ints(TEV_DID_MDL, tids, cc < 0 || !tids ? 0 : n);
        pvmi_tev_fin();
    }
    free(tids);
    pvmi_tev_out();
    return cc;
}

int pvmi_tev_reduce(void (*f)(int *, void *, void *, int *, int *), void *data, int count,
                    int datatype, int tag, char *group, int root)
{
    int t = entry(TEV_REDUCE, group, tag);
    return leave(t, TEV_REDUCE, pvm_reduce(f, data, count, datatype, tag, group, root));
}

/* pvm_gather and pvm_scatter */
int pvmi_tev_gather(int kind, void *result, void *data, int count, int datatype, int tag,
                    char *group, int root)
{
    int t = entry(kind, group, tag);
    int cc = kind == TEV_GATHER ? pvm_gather(result, data, count, datatype, tag, group, root)
                                : pvm_scatter(result, data, count, datatype, tag, group, root);
    return leave(t, kind, cc);
}
