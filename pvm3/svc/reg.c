/*
 * reg.c - registration of resource manager, tasker, hoster and tracer
 * (TM_SCHED / TM_TASKER / TM_HOSTER / TM_TRACER, each also announced in
 * its mailbox class as stock does), trace masks, and PVM_EXPORT editing.
 *
 * We register but do not act as these agents: the pvmd's SM_* requests to
 * a resource manager, or start requests to a tasker/hoster, reach the
 * registering program as ordinary messages for it to handle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvmtev.h>
#include "lpvm.h"
#include "trace.h"

/* Announce (or withdraw) ourselves in a mailbox class. */
static void announce(const char *cls, int on, int *index, const int *extra, int nextra,
                     const char *str, int flags)
{
    if (on) {
        struct pmsg *m = pmsg_new(PvmDataDefault);
        if (!m)
            return;
        pvmi_put_int(m, pvmi.tid);
        pvmi_put_ints(m, extra, nextra);
        if (str) {
            pvmi_put_str(m, str);
            pvmi_put_ints(m, extra + nextra, 2);
        }
        *index = pvmi_mbox_put(cls, -1, flags, m->mid);
        pmsg_free(m);
    } else if (*index >= 0) {
        int save = pvmi_autoerr;
        pvmi_autoerr = 0;
        if (pvm_delinfo((char *)cls, *index, PvmMboxDefault) >= 0)
            *index = -1;
        pvmi_autoerr = save;
    }
}

/* Tasker and hoster: each call toggles registration. */
static int toggle(const char *fn, int tag, const char *cls, int *imit, int *index)
{
    int rc = pvmi_enter(fn);
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf();
    if (req)
        pvmi_put_int(req, !*imit);
    rc = pvmi_tm_status(tag, req, NULL);
    if (rc == 0) {
        *imit = !*imit;
        announce(cls, *imit, index, NULL, 0, NULL, PvmMboxMultiInstance);
    }
    return pvmi_err(fn, rc);
}

int pvm_reg_tasker(void)
{
    PVMI_TEV(pvmi_tev_reg0(TEV_REG_TASKER, NULL));
    static int imit, index = -1;
    return toggle("pvm_reg_tasker", TM_TASKER, PVMTASKERCLASS, &imit, &index);
}

int pvm_reg_hoster(void)
{
    PVMI_TEV(pvmi_tev_reg0(TEV_REG_HOSTER, NULL));
    static int imit, index = -1;
    return toggle("pvm_reg_hoster", TM_HOSTER, PVMHOSTERCLASS, &imit, &index);
}

int pvm_reg_tracer(int tctx, int ttag, int octx, int otag, char *tmask, int tbuf, int topt)
{
    PVMI_TEV(pvmi_tev_reg_tracer(tctx, ttag, octx, otag, tmask, tbuf, topt));
    static int imit, index = -1;
    int rc = pvmi_enter("pvm_reg_tracer");
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf();
    int v[6] = { tctx, ttag, octx, otag, tbuf, topt };
    if (req) {
        pvmi_put_int(req, !imit);
        if (!imit) {
            pvmi_put_ints(req, v, 4);
            pvmi_put_str(req, tmask ? tmask : "");
            pvmi_put_ints(req, v + 4, 2);
        }
    }
    rc = pvmi_tm_status(TM_TRACER, req, NULL);
    if (rc == 0) {
        imit = !imit;
        announce(PVMTRACERCLASS, imit, &index, v, 4, tmask ? tmask : "", PvmMboxDefault);
    }
    return pvmi_err("pvm_reg_tracer", rc);
}

int pvm_reg_rm(struct pvmhostinfo **hip)
{
    PVMI_TEV(pvmi_tev_reg0(TEV_REG_RM, hip));
    static struct pvmhostinfo hi;
    static int index = -1;
    int rc = pvmi_enter("pvm_reg_rm");
    if (rc < 0)
        return rc;
    struct pmsg *rep = NULL;
    rc = pvmi_tm_status(TM_SCHED, pvmi_xbuf(), &rep);
    if (rc >= 0) {
        free(hi.hi_name);
        free(hi.hi_arch);
        memset(&hi, 0, sizeof hi);
        pvmi_get_int(rep, &hi.hi_tid);
        hi.hi_name = pvmi_get_strdup(rep);
        hi.hi_arch = pvmi_get_strdup(rep);
        pvmi_get_int(rep, &hi.hi_speed);
        pvmi_get_int(rep, &hi.hi_dsig);
        if (hip)
            *hip = &hi;
        if (index >= 0)
            announce(PVMRMCLASS, 0, &index, NULL, 0, NULL, 0);
        announce(PVMRMCLASS, 1, &index, NULL, 0, NULL, PvmMboxMultiInstance);
    }
    pmsg_free(rep);
    return pvmi_err("pvm_reg_rm", rc);
}

/* ---- trace masks: this task's own (trace.c) and its children's ------- */

static char *mask_of(int who)
{
    if (who == PvmTaskChild)
        return pvmi.tmask;
    if (who != PvmTaskSelf)
        return NULL;
    if (!pvmi_tev_self_mask[0]) {
        if (pvmi.tmask[0])
            memcpy(pvmi_tev_self_mask, pvmi.tmask, TEV_MASK_LENGTH);
        else
            TEV_MASK_INIT(pvmi_tev_self_mask);
    }
    return pvmi_tev_self_mask;
}

int pvm_gettmask(int who, Pvmtmask tmask)
{
    char *m = mask_of(who);
    if (!m || !tmask)
        return pvmi_err("pvm_gettmask", PvmBadParam);
    if (!m[0])
        TEV_MASK_INIT(m);
    memcpy(tmask, m, TEV_MASK_LENGTH);
    return 0;
}

int pvm_settmask(int who, Pvmtmask tmask)
{
    char *m = mask_of(who);
    if (!m || !tmask)
        return pvmi_err("pvm_settmask", PvmBadParam);
    memcpy(m, tmask, TEV_MASK_LENGTH);
    m[TEV_MASK_LENGTH - 1] = '\0';
    return 0;
}

/* ---- PVM_EXPORT: the colon list of variables passed to children ------- */

static int has_name(const char *list, const char *name, const char **at, size_t *len)
{
    size_t l = strlen(name);
    for (const char *p = list; *p;) {
        while (*p == ':')
            p++;
        const char *q = p;
        while (*q && *q != ':')
            q++;
        if ((size_t)(q - p) == l && !strncmp(p, name, l)) {
            *at = p;
            *len = l;
            return 1;
        }
        p = q;
    }
    return 0;
}

int pvm_export(char *name)
{
    if (!name || !*name)
        return 0;
    const char *e = getenv("PVM_EXPORT"), *at;
    size_t l;
    if (e && has_name(e, name, &at, &l))
        return 0;
    size_t n = (e ? strlen(e) : 0) + strlen(name) + 2;
    char *v = malloc(n);
    if (!v)
        return pvmi_err("pvm_export", PvmNoMem);
    snprintf(v, n, "%s%s%s", e ? e : "", e && *e ? ":" : "", name);
    setenv("PVM_EXPORT", v, 1);
    free(v);
    return 0;
}

int pvm_unexport(char *name)
{
    const char *e = getenv("PVM_EXPORT"), *at;
    size_t l;
    if (!name || !*name || !e || !has_name(e, name, &at, &l))
        return 0;
    char *v = strdup(e);
    if (!v)
        return pvmi_err("pvm_unexport", PvmNoMem);
    size_t off = (size_t)(at - e), end = off + l;
    if (v[end] == ':')
        end++;
    else if (off > 0 && v[off - 1] == ':')
        off--;
    memmove(v + off, v + end, strlen(v + end) + 1);
    setenv("PVM_EXPORT", v, 1);
    free(v);
    return 0;
}
