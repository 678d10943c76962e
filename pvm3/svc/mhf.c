/*
 * mhf.c - message handlers (pvm_addmhf, pvm_delmhf).
 *
 * Stock semantics: a handler is keyed by (src, tag, ctx), -1 = any.  A
 * message that arrives matching a handler never reaches the receive queue;
 * the handler runs inside a later PVM call (at the safe point where control
 * messages run) with the message as the receive buffer, no send buffer and
 * the message's context; afterwards whatever buffers it left are freed and
 * the caller's buffers and context come back.  Stock keeps its own TC_*
 * handlers in the same table, so a new key overlapping one of them is
 * refused with PvmExists, as is one overlapping another user handler.
 */
#include <stdio.h>
#include <stdlib.h>
#include "lpvm.h"
#include "trace.h"
#include "compat.h"

struct mhf {
    int src, tag, ctx;
    int (*fn)(int);
    int used;
};

/* Slots 0 .. NSYS-1 stand for the library's control handlers (stock hands
 * out the following ids to users). */
#define NSYS (TC_LAST - TC_FIRST + 1)

static struct mhf *tab;
static int ntab;

static int overlaps(int a, int b) { return a == -1 || b == -1 || a == b; }

static int sys_overlap(int src, int tag, int ctx)
{
    (void)src;
    if (!overlaps(ctx, SYSCTX_TC))
        return 0;
    return tag == -1 || (tag >= TC_FIRST && tag <= TC_LAST);
}

int pvm_addmhf(int src, int tag, int ctx, int (*f)(int))
{
    PVMI_TEV(pvmi_tev_addmhf(src, tag, ctx, f));
    if (!f)
        return pvmi_err("pvm_addmhf", PvmBadParam);
    if (sys_overlap(src, tag, ctx))
        return pvmi_err("pvm_addmhf", PvmExists);
    int freeslot = -1;
    for (int i = 0; i < ntab; i++) {
        if (!tab[i].used) {
            if (freeslot < 0)
                freeslot = i;
            continue;
        }
        if (overlaps(tab[i].src, src) && overlaps(tab[i].tag, tag) && overlaps(tab[i].ctx, ctx))
            return pvmi_err("pvm_addmhf", PvmExists);
    }
    if (freeslot < 0) {
        struct mhf *t = realloc(tab, sizeof *t * (size_t)(ntab + 1));
        if (!t)
            return pvmi_err("pvm_addmhf", PvmNoMem);
        tab = t;
        freeslot = ntab++;
    }
    tab[freeslot] = (struct mhf){ src, tag, ctx, f, 1 };
    return NSYS + freeslot;
}

int pvm_delmhf(int mhid)
{
    PVMI_TEV(pvmi_tev_delmhf(mhid));
    if (mhid < 0)
        return pvmi_err("pvm_delmhf", PvmBadParam);
    int i = mhid - NSYS;
    if (i < 0 || i >= ntab || !tab[i].used)
        return pvmi_err("pvm_delmhf", PvmNotFound);
    tab[i].used = 0;
    return 0;
}

static struct mhf *find(const struct pmsg *m)
{
    for (int i = ntab - 1; i >= 0; i--) {
        struct mhf *h = &tab[i];
        if (h->used && (h->src == -1 || h->src == m->src) &&
            (h->tag == -1 || h->tag == m->tag) && (h->ctx == -1 || h->ctx == m->ctx))
            return h;
    }
    return NULL;
}

/* rxq.c: is this incoming message for a handler (then it is deferred)? */
int pvmi_mhf_match(const struct pmsg *m) { return ntab > 0 && find(m) != NULL; }

/* rxq.c, at the safe point: run the handler; takes ownership of m. */
void pvmi_mhf_run(struct pmsg *m)
{
    struct mhf *h = find(m);   /* may have been deleted meanwhile */
    if (!h) {
        pmsg_free(m);
        return;
    }
    int (*fn)(int) = h->fn;
    int mid = m->mid;
    pmsg_rewind(m);
    int ssave = pmsgi_set_sbuf(0);
    int rsave = pmsgi_set_rbuf(mid);
    int csave = pvmi.ctx;
    /* traced: the frame's events, and the handler's own calls are traced
     * as if the program made them (stock's rule), even inside a call */
    int live = pvmi_tev_live, tr = pvmi_tev_traced();
    if (tr) {
        pvmi_tev_mhf_begin(h->src, h->tag, h->ctx, m, ssave, rsave, csave);
        pvmi_tev_live = 1;
    }
    pvmi.ctx = m->ctx;
    fn(mid);
    int cwas = pvmi.ctx;
    pvmi.ctx = csave;
    /* free what the handler left as current buffers, then restore ours */
    int s = pmsgi_set_sbuf(ssave), r = pmsgi_set_rbuf(rsave);
    if (tr) {
        pvmi_tev_live = 0;
        pvmi_tev_mhf_end(csave, cwas, ssave, s > 0 ? s : 0, rsave, r > 0 ? r : 0);
        pvmi_tev_live = live;
    }
    struct pmsg *ms = s > 0 && s != ssave && s != rsave ? pmsg_find(s) : NULL;
    struct pmsg *mr = r > 0 && r != ssave && r != rsave ? pmsg_find(r) : NULL;
    if (ms)
        pmsg_free(ms);
    if (mr && mr != ms)
        pmsg_free(mr);
}

/* pvm_exit: stock removes every handler. */
void pvmi_mhf_clear(void)
{
    free(tab);
    tab = NULL;
    ntab = 0;
}

/* Stock exports this debugging dump of the handler table and the Debian
 * mhf_server example calls it; ours lists the user handlers only. */
void pvmdisplaymhfinfo(char *who, char *msg, int tid)
{
    printf("\n%s t%x: Display Message Handler Information: %d user handlers\n",
           who ? who : "", tid, ntab);
    printf("%s t%x: %s\n", who ? who : "", tid, msg ? msg : "");
    for (int i = 0; i < ntab; i++)
        if (tab[i].used)
            printf("  mhid %d: src t%x tag %d ctx %d\n", NSYS + i, tab[i].src, tab[i].tag,
                   tab[i].ctx);
}

/* Stock's internal error reporter, also used by some example programs. */
int lpvmerr(char *fn, int code) { return pvmi_err(fn, code); }
