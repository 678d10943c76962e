/*
 * hosts.c - pvm_addhosts, pvm_delhosts (TM_ADDHOST / TM_DELHOST) and
 * pvm_hostsync (TM_HOSTSYNC).  Like stock, add/delete return the number of
 * hosts that succeeded and put each host's tid or error code in svp[].
 */
#include <stdlib.h>
#include <sys/time.h>
#include "lpvm.h"
#include "trace.h"

#define MAXHOSTS (PVMI_TIDHOST >> 18)

static int host_req(const char *fn, int tag, char **names, int count, int *svp)
{
    int rc = pvmi_enter(fn);
    if (rc < 0)
        return rc;
    /* the pvmd drops bad counts without a reply: check first */
    if (count < 1 || count > MAXHOSTS || !names)
        return pvmi_err(fn, PvmBadParam);
    for (int i = 0; i < count; i++)
        if (!names[i])
            return pvmi_err(fn, PvmBadParam);
    struct pmsg *req = pvmi_xbuf(), *rep = NULL;
    int *sv = malloc(sizeof *sv * (size_t)count);
    if (!req || !sv) {
        rc = PvmNoMem;
        goto out;
    }
    pvmi_put_int(req, count);
    for (int i = 0; i < count; i++)
        pvmi_put_str(req, names[i]);
    if ((rc = pvmi_tm_call(tag, req, &rep)) < 0)
        goto out;
    int n;
    if ((rc = pvmi_get_int(rep, &n)) < 0)
        goto out;
    if (n < 0) {
        rc = n;
        goto out;
    }
    if (n != count) {
        rc = PvmOutOfRes;   /* stock: a count we did not ask for */
        goto out;
    }
    if (tag == TM_ADDHOST) {
        int narch;
        pvmi_get_int(rep, &narch);
    }
    int ok = 0;
    for (int i = 0; i < count; i++) {
        sv[i] = PvmSysErr;
        if ((rc = pvmi_get_int(rep, &sv[i])) < 0)
            goto out;
        if (tag == TM_ADDHOST) {   /* name, arch, speed, dsig */
            char tmp[256];
            int x;
            pvmi_get_str(rep, tmp, sizeof tmp);
            pvmi_get_str(rep, tmp, sizeof tmp);
            pvmi_get_int(rep, &x);
            pvmi_get_int(rep, &x);
        }
        if (sv[i] >= 0)
            ok++;
    }
    if (svp)
        for (int i = 0; i < count; i++)
            svp[i] = sv[i];
    rc = ok;
out:
    free(sv);
    pmsg_free(rep);
    pmsg_free(req);
    return pvmi_err(fn, rc);
}

int pvm_addhosts(char **names, int count, int *svp)
{
    PVMI_TEV(pvmi_tev_hosts(TEV_ADDHOSTS, names, count, svp));
    return host_req("pvm_addhosts", TM_ADDHOST, names, count, svp);
}

int pvm_delhosts(char **names, int count, int *svp)
{
    PVMI_TEV(pvmi_tev_hosts(TEV_DELHOSTS, names, count, svp));
    return host_req("pvm_delhosts", TM_DELHOST, names, count, svp);
}

/* The remote clock, and its offset from ours taken at the middle of the
 * round trip (a signed timeval with usec in 0..999999, as stock). */
int pvm_hostsync(int host, struct timeval *sclk, struct timeval *delta)
{
    int rc = pvmi_enter("pvm_hostsync");
    if (rc < 0)
        return rc;
    struct pmsg *req = pvmi_xbuf(), *rep;
    if (req)
        pvmi_put_int(req, host);
    struct timeval a, b;
    gettimeofday(&a, NULL);
    rc = pvmi_tm_ask("pvm_hostsync", TM_HOSTSYNC, req, &rep);
    gettimeofday(&b, NULL);
    if (rc < 0)
        return rc;
    int st, t[2] = { 0, 0 };
    if ((rc = pvmi_get_int(rep, &st)) >= 0 && st >= 0) {
        pvmi_get_int(rep, &t[0]);
        pvmi_get_int(rep, &t[1]);
    }
    pmsg_free(rep);
    if (rc < 0 || st < 0)
        return pvmi_err("pvm_hostsync", rc < 0 ? rc : st);
    if (sclk) {
        sclk->tv_sec = t[0];
        sclk->tv_usec = t[1];
    }
    if (delta) {
        long long mid = ((long long)a.tv_sec * 1000000 + a.tv_usec +
                         (long long)b.tv_sec * 1000000 + b.tv_usec) / 2;
        long long d = mid - ((long long)t[0] * 1000000 + t[1]);
        long long s = d >= 0 ? d / 1000000 : -((-d + 999999) / 1000000);
        delta->tv_sec = (time_t)s;
        delta->tv_usec = (suseconds_t)(d - s * 1000000);
    }
    return 0;
}
