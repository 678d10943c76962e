/*
 * mpbench.c - MPBench-style benchmark of the PVM message-passing API.
 * One source, built against stock libpvm3 (mpbench_stock) and against
 * libpvm3am (mpbench_am), so both are measured by the same code.
 *
 * The master spawns copies of itself (by absolute path, as the pvmd wants)
 * and plays root in every test; the ping-pong pair is pinned to cores 0/1.
 * Tests: latency, roundtrip, bandwidth, bibandwidth, broadcast, reduce,
 * allreduce; each in two variants: psend (pvm_psend/pvm_precv) and pack
 * (pvm_initsend+pvm_pk*+pvm_send or pvm_mcast / pvm_recv+pvm_upk*).
 * In both, collectives are plain messages through the root.  A third
 * variant, group (-V group, collectives only), uses PVM's own: pvm_bcast,
 * pvm_reduce(PvmSum) to the root, and for allreduce pvm_reduce then
 * pvm_bcast (PVM has no allreduce), in a frozen group of all the tasks.
 * Run with -h for the options.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include "common.h"

#ifndef MPB_LIB
#define MPB_LIB "pvm"
#endif

enum { TAG_CMD = 0x4d50, TAG_READY, TAG_DATA, TAG_ACK };
enum { V_PSEND, V_PACK, V_GROUP, NVARIANTS };
static const char *const vnames[NVARIANTS] = { "psend", "pack", "group" };
#define GROUP "mpbench"
enum { CMD_JOIN = 100 };   /* join GROUP and freeze it at cmd[3] members */
/* pvm_reduce takes no empty array: below 8 bytes the group variant
 * reduces one double */
static int group_count(long n) { return n < 8 ? 1 : (int)(n / 8); }

static int enc = PvmDataDefault;   /* -e: encoding of the pack variant */
static int window = 8;             /* -W: messages in flight before an ack */
static char *buf, *acc;            /* message data; reduce's sums */
static int tids[64], nslaves;      /* spawned tasks */

static void fail(const char *what, int rc)
{
    fprintf(stderr, "mpbench: %s failed (%d)\n", what, rc);
    for (int i = 0; i < nslaves; i++)
        pvm_kill(tids[i]);
    pvm_exit();
    exit(1);
}
#define CK(call) do { int rc_ = (call); if (rc_ < 0) fail(#call, rc_); } while (0)

/* ---- one message, in either variant ------------------------------------ */

static void xsend(int tid, int var, void *p, long n, int dbl)
{
    if (var == V_PSEND) {
        CK(pvm_psend(tid, TAG_DATA, p, (int)(dbl ? n / 8 : n), dbl ? PVM_DOUBLE : PVM_BYTE));
        return;
    }
    CK(pvm_initsend(enc));
    CK(dbl ? pvm_pkdouble(p, (int)(n / 8), 1) : pvm_pkbyte(p, (int)n, 1));
    CK(pvm_send(tid, TAG_DATA));
}

/* The same message to every slave: pvm_mcast in the pack variant. */
static void xbcast(int var, void *p, long n, int dbl)
{
    if (var == V_GROUP) {
        CK(pvm_initsend(enc));
        CK(dbl ? pvm_pkdouble(p, (int)(n / 8), 1) : pvm_pkbyte(p, (int)n, 1));
        CK(pvm_bcast(GROUP, TAG_DATA));
        return;
    }
    if (var == V_PSEND || nslaves == 1) {
        for (int i = 0; i < nslaves; i++)
            xsend(tids[i], var, p, n, dbl);
        return;
    }
    CK(pvm_initsend(enc));
    CK(dbl ? pvm_pkdouble(p, (int)(n / 8), 1) : pvm_pkbyte(p, (int)n, 1));
    CK(pvm_mcast(tids, nslaves, TAG_DATA));
}

static void xrecv(int tid, int var, void *p, long n, int dbl)
{   /* V_GROUP: pvm_bcast's messages are received like V_PACK's */
    if (var == V_PSEND) {
        int t, g, l;
        CK(pvm_precv(tid, TAG_DATA, p, (int)(dbl ? n / 8 : n), dbl ? PVM_DOUBLE : PVM_BYTE, &t, &g, &l));
        return;
    }
    CK(pvm_recv(tid, TAG_DATA));
    CK(dbl ? pvm_upkdouble(p, (int)(n / 8), 1) : pvm_upkbyte(p, (int)n, 1));
}

static void ctl(int tid, int tag)
{
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_send(tid, tag));
}

static int window_end(int i, int iters) { return (i + 1) % window == 0 || i + 1 == iters; }

/* ---- the slave side ------------------------------------------------------ */

static void slave(int test, int var, long n, int iters)
{
    int parent = pvm_parent();
    for (int i = 0; i < iters; i++) {
        switch (test) {
        case MPB_LAT:
        case MPB_RT:
            xrecv(parent, var, buf, n, 0);
            xsend(parent, var, buf, n, 0);
            break;
        case MPB_BW:
        case MPB_BCAST:
            xrecv(parent, var, buf, n, 0);
            if (window_end(i, iters))
                ctl(parent, TAG_ACK);
            break;
        case MPB_BIBW:
            if (i % window == 0) {
                int k = iters - i < window ? iters - i : window;
                for (int j = 0; j < k; j++)
                    xsend(parent, var, buf, n, 0);
                for (int j = 0; j < k; j++)
                    xrecv(parent, var, buf, n, 0);
            }
            break;
        case MPB_RED:
            if (var == V_GROUP)
                CK(pvm_reduce(PvmSum, buf, group_count(n), PVM_DOUBLE, TAG_DATA, GROUP, 0));
            else
                xsend(parent, var, buf, n, 1);
            if ((i + 1) % window == 0 && i + 1 < iters)
                CK(pvm_recv(parent, TAG_ACK));
            break;
        case MPB_ALLRED:
            if (var == V_GROUP)
                CK(pvm_reduce(PvmSum, buf, group_count(n), PVM_DOUBLE, TAG_DATA, GROUP, 0));
            else
                xsend(parent, var, buf, n, 1);
            xrecv(parent, var, buf, n, 1);
            break;
        }
    }
}

static int slave_main(int rank, int pin, int direct)
{
    if (pin)
        mpb_pin(rank);
    /* sized on the first command; grows when a bigger one comes */
    long have = 0;
    if (direct)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    int parent = pvm_parent(), cmd[5];
    for (;;) {
        CK(pvm_recv(parent, TAG_CMD));
        CK(pvm_upkint(cmd, 5, 1));
        if (cmd[0] < 0)
            break;
        if (cmd[0] == CMD_JOIN) {
            CK(pvm_joingroup(GROUP));
            CK(pvm_freezegroup(GROUP, cmd[3]));
            ctl(parent, TAG_READY);
            continue;
        }
        window = cmd[4];
        if (cmd[2] + 8L > have) {
            free(buf);
            have = cmd[2] + 8L;
            if (!(buf = calloc(1, (size_t)have)))
                fail("calloc", -1);
        }
        ctl(parent, TAG_READY);
        slave(cmd[0], cmd[1], cmd[2], cmd[3]);
    }
    pvm_exit();
    return 0;
}

/* ---- the master (root) side ------------------------------------------------ */

/* The group variant's group: the master joins first (instance 0, the
 * root of every reduce), then every slave; frozen, so the collectives
 * find members and coordinators in the members' own cache instead of
 * asking pvmgs each time. */
static void join_all(void)
{
    static int joined;
    if (joined)
        return;
    CK(pvm_joingroup(GROUP));
    int cmd[5] = { CMD_JOIN, 0, 0, nslaves + 1, 0 };
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_pkint(cmd, 5, 1));
    CK(pvm_mcast(tids, nslaves, TAG_CMD));
    CK(pvm_freezegroup(GROUP, nslaves + 1));
    for (int s = 0; s < nslaves; s++)
        CK(pvm_recv(tids[s], TAG_READY));
    joined = 1;
}

/* Runs iters operations with the slaves taking part; returns seconds. */
static double run_point(int test, int var, long n, int iters)
{
    if (var == V_GROUP)
        join_all();
    int np = mpb_tests[test].collective ? nslaves : 1;
    int saved = nslaves;
    int cmd[5] = { test, var, (int)n, iters, window };
    for (int s = 0; s < np; s++) {
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_pkint(cmd, 5, 1));
        CK(pvm_send(tids[s], TAG_CMD));
    }
    for (int s = 0; s < np; s++)
        CK(pvm_recv(tids[s], TAG_READY));
    nslaves = np;  /* xbcast addresses the slaves in this test */
    double t0 = mpb_now();
    for (int i = 0; i < iters; i++) {
        switch (test) {
        case MPB_LAT:
        case MPB_RT:
            xsend(tids[0], var, buf, n, 0);
            xrecv(tids[0], var, buf, n, 0);
            break;
        case MPB_BW:
        case MPB_BCAST:
            xbcast(var, buf, n, 0);
            if (window_end(i, iters))
                for (int s = 0; s < np; s++)
                    CK(pvm_recv(tids[s], TAG_ACK));
            break;
        case MPB_BIBW:
            if (i % window == 0) {
                int k = iters - i < window ? iters - i : window;
                for (int j = 0; j < k; j++)
                    xsend(tids[0], var, buf, n, 0);
                for (int j = 0; j < k; j++)
                    xrecv(tids[0], var, buf, n, 0);
            }
            break;
        case MPB_RED:
        case MPB_ALLRED:
            memset(acc, 0, (size_t)n);
            if (var == V_GROUP)
                CK(pvm_reduce(PvmSum, acc, group_count(n), PVM_DOUBLE, TAG_DATA, GROUP, 0));
            for (int s = 0; s < np && var != V_GROUP; s++) {
                xrecv(tids[s], var, buf, n, 1);
                mpb_sum_doubles(acc, buf, n);
            }
            if (test == MPB_ALLRED)
                xbcast(var, acc, n, 1);
            else if ((i + 1) % window == 0 && i + 1 < iters)
                for (int s = 0; s < np; s++)
                    ctl(tids[s], TAG_ACK);
            break;
        }
    }
    double dt = mpb_now() - t0;
    nslaves = saved;
    return dt;
}

static double value_of(int test, long n, int iters, double dt)
{
    switch (test) {
    case MPB_LAT: return dt / iters / 2 * 1e6;
    case MPB_RT: return iters / dt;
    case MPB_BW: return (double)n * iters / dt / 1e6;
    case MPB_BIBW: return 2.0 * n * iters / dt / 1e6;
    default: return dt / iters * 1e6;
    }
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mpbench [options]   (inside a running PVM)\n"
            "  -T LIST    tests, comma-separated, or all (default): latency,roundtrip,\n"
            "             bandwidth,bibandwidth,broadcast,reduce,allreduce\n"
            "  -V LIST    variants: psend,pack,group (default psend,pack; group:\n"
            "             collectives only, with pvm_bcast and pvm_reduce)\n"
            "  -p N       tasks in collectives, root included (default 4; other\n"
            "             counts name the tests TEST-pN, e.g. reduce-p8)\n"
            "  -W N       window: messages in flight before an ack (default 8)\n"
            "  -d         PvmRouteDirect in every task (stock: direct TCP links)\n"
            "  -e ENC     pack variant's encoding: default, raw, inplace (default default)\n"
            "%s", mpb_common_usage);
}

static int pick(const char *list, const char *const *names, int count, int *on)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (!copy)
        return -1;
    memset(on, 0, sizeof *on * (size_t)count);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k;
        for (k = 0; k < count && strcmp(t, names[k]); k++)
            ;
        if (!strcmp(t, "all"))
            for (k = 0; k < count; k++)
                on[k] = 1;
        else if (k < count)
            on[k] = 1;
        else
            rc = -1;
    }
    free(copy);
    return rc;
}

int main(int argc, char **argv)
{
    if (argc == 5 && !strcmp(argv[1], "-slave"))
        return slave_main(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));

    struct mpb_opts o;
    mpb_opts_default(&o);
    int on_t[MPB_NTESTS], on_v[NVARIANTS], nprocs = 4, direct = 0, c;
    const char *tlist = "all", *vlist = "psend,pack", *encname = "default";
    const char *tnames[MPB_NTESTS];
    for (int t = 0; t < MPB_NTESTS; t++)
        tnames[t] = mpb_tests[t].name;
    while ((c = getopt(argc, argv, "T:V:p:W:de:m:zn:s:i:w:r:t:o:qPh")) != -1) {
        int r = mpb_opt(&o, c, optarg);
        if (r > 0)
            continue;
        if (r < 0) {
            usage();
            return 2;
        }
        switch (c) {
        case 'T': tlist = optarg; break;
        case 'V': vlist = optarg; break;
        case 'p': nprocs = atoi(optarg); break;
        case 'W': window = atoi(optarg); break;
        case 'd': direct = 1; break;
        case 'e': encname = optarg; break;
        default: usage(); return c == 'h' ? 0 : 2;
        }
    }
    enc = !strcmp(encname, "raw") ? PvmDataRaw : !strcmp(encname, "inplace") ? PvmDataInPlace : PvmDataDefault;
    if (optind < argc || nprocs < 2 || nprocs > 65 || window < 1 || mpb_make_sizes(&o) < 0 ||
        pick(tlist, tnames, MPB_NTESTS, on_t) < 0 || pick(vlist, vnames, NVARIANTS, on_v) < 0) {
        usage();
        return 2;
    }
    if (mpb_buffers(mpb_max_size(&o), &buf, &acc) < 0)
        return 1;
    if (!o.nopin)
        mpb_pin(0);
    if (pvm_mytid() < 0)
        return 1;
    if (direct)
        pvm_setopt(PvmRoute, PvmRouteDirect);

    /* the pvmd spawns by absolute path: our own binary */
    char self[PATH_MAX];
    ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
    if (l <= 0)
        fail("readlink /proc/self/exe", -1);
    self[l] = 0;
    int want = 1;
    for (int t = 0; t < MPB_NTESTS; t++)
        if (on_t[t] && mpb_tests[t].collective)
            want = nprocs - 1;
    for (int s = 0; s < want; s++) {
        char rank[16], pin[4], dir[4];
        snprintf(rank, sizeof rank, "%d", s + 1);
        snprintf(pin, sizeof pin, "%d", !o.nopin);
        snprintf(dir, sizeof dir, "%d", direct);
        /* MPBENCH_HOST: the slaves on that host (run.sh --hosts) */
        const char *where = getenv("MPBENCH_HOST");
        if (pvm_spawn(self, (char *[]){ "-slave", rank, pin, dir, NULL },
                      where && *where ? PvmTaskHost : PvmTaskDefault, where ? (char *)where : "",
                      1, &tids[s]) != 1)
            fail("pvm_spawn", tids[s]);
        nslaves++;
    }

    printf("# mpbench (%s): route %s, pack encoding %s, window %d, %d tasks in collectives, "
           "%d cpus%s, %d timed runs per point\n",
           MPB_LIB, direct ? "direct" : "default", encname, window, nprocs, mpb_ncpus(),
           o.nopin ? "" : ", pinned (ping-pong on cores 0/1)", o.repeats);
    /* settle the new tasks and routes before the first timed point */
    run_point(MPB_LAT, V_PSEND, 8, 100);
    run_point(MPB_LAT, V_PACK, 8, 100);
    if (want > 1)
        run_point(MPB_ALLRED, V_PACK, 8, 20);
    for (int t = 0; t < MPB_NTESTS; t++) {
        for (int v = 0; v < NVARIANTS; v++) {
            if (!on_t[t] || !on_v[v] || (v == V_GROUP && !mpb_tests[t].collective))
                continue;
            char name[64];
            mpb_series_name(name, sizeof name, t, nprocs, vnames[v]);
            struct mpb_series s;
            if (mpb_series_open(&s, &o, name, mpb_tests[t].unit) < 0)
                fail("writing the .dat file", -1);
            for (int i = 0; i < o.nsizes; i++) {
                long n = o.sizes[i];
                mpb_progress(&o, name, n);
                double warm = o.warm ? run_point(t, v, n, o.warm) : 0;
                int iters = mpb_iters_for(&o, warm, o.warm);
                double val[MPB_MAXREP];
                for (int r = 0; r < o.repeats; r++)
                    val[r] = value_of(t, n, iters, run_point(t, v, n, iters));
                mpb_series_point(&s, n, val, o.repeats, iters);
            }
            mpb_series_close(&s);
        }
    }
    mpb_progress_done(&o);
    int stop[5] = { -1, 0, 0, 0, 0 };
    CK(pvm_initsend(PvmDataDefault));
    CK(pvm_pkint(stop, 5, 1));
    CK(pvm_mcast(tids, nslaves, TAG_CMD));
    pvm_exit();
    return 0;
}
