/*
 * unimpl.c - pvm3.h calls that belong to the services issue (notify,
 * mailbox, message handlers, hosts, output, groups, registration).  They
 * link and report PvmNotImpl until that work lands; nothing here is
 * claimed done.
 */
#include <stdio.h>
#include "lpvm.h"

#define NOTIMPL(name) return pvmi_err(#name, PvmNotImpl)

int pvm_addhosts(char **names, int count, int *svp) { NOTIMPL(pvm_addhosts); }
int pvm_delhosts(char **names, int count, int *svp) { NOTIMPL(pvm_delhosts); }
int pvm_addmhf(int src, int tag, int ctx, int (*f)(int)) { NOTIMPL(pvm_addmhf); }
int pvm_delmhf(int mhid) { NOTIMPL(pvm_delmhf); }
int pvm_catchout(FILE *ff) { NOTIMPL(pvm_catchout); }
int pvm_notify(int what, int code, int count, int *vals) { NOTIMPL(pvm_notify); }
int pvm_hostsync(int host, struct timeval *sclk, struct timeval *delta) { NOTIMPL(pvm_hostsync); }
int pvm_getnoresets(int **tids, int *ntids) { NOTIMPL(pvm_getnoresets); }
int pvm_getmboxinfo(char *pattern, int *nclasses, struct pvmmboxinfo **classes) { NOTIMPL(pvm_getmboxinfo); }
int pvm_insert(char *name, int req, int data) { NOTIMPL(pvm_insert); }
int pvm_lookup(char *name, int req, int *datap) { NOTIMPL(pvm_lookup); }
int pvm_delete(char *name, int req) { NOTIMPL(pvm_delete); }
int pvm_export(char *name) { NOTIMPL(pvm_export); }
int pvm_unexport(char *name) { NOTIMPL(pvm_unexport); }
int pvm_reg_hoster(void) { NOTIMPL(pvm_reg_hoster); }
int pvm_reg_rm(struct pvmhostinfo **hip) { NOTIMPL(pvm_reg_rm); }
int pvm_reg_tasker(void) { NOTIMPL(pvm_reg_tasker); }
int pvm_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt)
{ NOTIMPL(pvm_reg_tracer); }
/* group library */
int pvm_joingroup(char *group) { NOTIMPL(pvm_joingroup); }
int pvm_lvgroup(char *group) { NOTIMPL(pvm_lvgroup); }
int pvm_getinst(char *group, int tid) { NOTIMPL(pvm_getinst); }
int pvm_gettid(char *group, int inst) { NOTIMPL(pvm_gettid); }
int pvm_gsize(char *group) { NOTIMPL(pvm_gsize); }
int pvm_barrier(char *group, int count) { NOTIMPL(pvm_barrier); }
int pvm_bcast(char *group, int tag) { NOTIMPL(pvm_bcast); }
int pvm_freezegroup(char *group, int size) { NOTIMPL(pvm_freezegroup); }
int pvm_reduce(void (*f)(int *, void *, void *, int *, int *), void *data, int count,
               int datatype, int tag, char *group, int root) { NOTIMPL(pvm_reduce); }
int pvm_gather(void *result, void *data, int count, int datatype, int tag, char *group,
               int root) { NOTIMPL(pvm_gather); }
int pvm_scatter(void *result, void *data, int count, int datatype, int tag, char *group,
                int root) { NOTIMPL(pvm_scatter); }
void PvmMax(int *t, void *x, void *y, int *n, int *info) { *info = PvmNotImpl; }
void PvmMin(int *t, void *x, void *y, int *n, int *info) { *info = PvmNotImpl; }
void PvmSum(int *t, void *x, void *y, int *n, int *info) { *info = PvmNotImpl; }
void PvmProduct(int *t, void *x, void *y, int *n, int *info) { *info = PvmNotImpl; }
