/*
 * mpi.c - the MPBench program against MPI (MPI_Send/MPI_Recv), the peer
 * users would pick instead of PVM, measured with the same definitions as
 * mpbench.c: latency is half a round trip, bandwidth streams with an ack
 * every window messages, and the collectives are plain messages through
 * rank 0 (no MPI collectives, so the comparison is like for like).
 * Series are named TEST_psend: MPI_Send/MPI_Recv on a contiguous array is
 * what pvm_psend/pvm_precv is.  The group variant (-V group) uses MPI's
 * collectives instead, as mpbench's group variant uses PVM's: MPI_Bcast,
 * MPI_Reduce and MPI_Allreduce (PVM has no allreduce: mpbench does
 * pvm_reduce then pvm_bcast).  Run under mpirun; rank r is pinned to core
 * r.  Ranks not in the current test wait for commands without spinning.
 * Run with -h for the options.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpi.h>
#include "common.h"

enum { TAG_CMD = 0x4d50, TAG_READY, TAG_DATA, TAG_ACK };
/* what MPI has a counterpart of (mpb_tests, common.h) */
static const int measured[MPB_NTESTS] = {
    [MPB_LAT] = 1, [MPB_BW] = 1, [MPB_BCAST] = 1, [MPB_RED] = 1, [MPB_ALLRED] = 1,
};

enum { V_PSEND, V_GROUP };
static int window = 8;      /* -W: messages in flight before an ack */
static char *buf, *acc;     /* message data; reduce's sums */
static int nranks;          /* MPI_COMM_WORLD's size */

static void fail(const char *what, int rc)
{
    fprintf(stderr, "mpbench_mpi: %s failed (%d)\n", what, rc);
    MPI_Abort(MPI_COMM_WORLD, 1);
    exit(1);
}
#define CK(call) do { int rc_ = (call); if (rc_ != MPI_SUCCESS) fail(#call, rc_); } while (0)

static void xsend(int to, void *p, long n, int dbl)
{
    CK(MPI_Send(p, (int)(dbl ? n / 8 : n), dbl ? MPI_DOUBLE : MPI_BYTE, to, TAG_DATA, MPI_COMM_WORLD));
}

static void xrecv(int from, void *p, long n, int dbl)
{
    CK(MPI_Recv(p, (int)(dbl ? n / 8 : n), dbl ? MPI_DOUBLE : MPI_BYTE, from, TAG_DATA, MPI_COMM_WORLD,
                MPI_STATUS_IGNORE));
}

static void ctl(int to, int tag)
{
    CK(MPI_Send(NULL, 0, MPI_BYTE, to, tag, MPI_COMM_WORLD));
}

static void ctl_wait(int from, int tag)
{
    CK(MPI_Recv(NULL, 0, MPI_BYTE, from, tag, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static int window_end(int i, int iters) { return (i + 1) % window == 0 || i + 1 == iters; }

/* The group variant's operations, the same call on every rank. */
static void coll(int test, long n)
{
    switch (test) {
    case MPB_BCAST:
        CK(MPI_Bcast(buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD));
        break;
    case MPB_RED:
        CK(MPI_Reduce(buf, acc, (int)(n / 8), MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD));
        break;
    case MPB_ALLRED:
        CK(MPI_Allreduce(buf, acc, (int)(n / 8), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD));
        break;
    }
}

/* ---- the slave side ------------------------------------------------------ */

static void slave(int test, int var, long n, int iters)
{
    for (int i = 0; i < iters; i++) {
        if (var == V_GROUP) {
            coll(test, n);
            if (test == MPB_BCAST && window_end(i, iters))
                ctl(0, TAG_ACK);
            else if (test == MPB_RED && (i + 1) % window == 0 && i + 1 < iters)
                ctl_wait(0, TAG_ACK);
            continue;
        }
        switch (test) {
        case MPB_LAT:
            xrecv(0, buf, n, 0);
            xsend(0, buf, n, 0);
            break;
        case MPB_BW:
        case MPB_BCAST:
            xrecv(0, buf, n, 0);
            if (window_end(i, iters))
                ctl(0, TAG_ACK);
            break;
        case MPB_RED:
            xsend(0, buf, n, 1);
            if ((i + 1) % window == 0 && i + 1 < iters)
                ctl_wait(0, TAG_ACK);
            break;
        case MPB_ALLRED:
            xsend(0, buf, n, 1);
            xrecv(0, buf, n, 1);
            break;
        }
    }
}

/* Waits for the next command without spinning: Open MPI busy-polls in a
 * blocking receive, and an idle rank must not take a core from the two
 * ranks being timed on a small machine. */
static void wait_cmd(int cmd[5])
{
    struct timespec nap = { 0, 200000 };
    for (int flag = 0; !flag; ) {
        CK(MPI_Iprobe(0, TAG_CMD, MPI_COMM_WORLD, &flag, MPI_STATUS_IGNORE));
        if (!flag)
            nanosleep(&nap, NULL);
    }
    CK(MPI_Recv(cmd, 5, MPI_INT, 0, TAG_CMD, MPI_COMM_WORLD, MPI_STATUS_IGNORE));
}

static void slave_main(long max)
{
    int cmd[5];
    for (;;) {
        wait_cmd(cmd);
        if (cmd[0] < 0)
            break;
        if (cmd[1] > max)
            fail("command size", cmd[1]);
        window = cmd[3];
        ctl(0, TAG_READY);
        slave(cmd[0], cmd[4], cmd[1], cmd[2]);
    }
}

/* ---- the root side --------------------------------------------------------- */

/* Runs iters operations with the slaves taking part; returns seconds. */
static double run_point(int test, int var, long n, int iters)
{
    int np = mpb_tests[test].collective ? nranks - 1 : 1;
    int cmd[5] = { test, (int)n, iters, window, var };
    for (int s = 1; s <= np; s++)
        CK(MPI_Send(cmd, 5, MPI_INT, s, TAG_CMD, MPI_COMM_WORLD));
    for (int s = 1; s <= np; s++)
        ctl_wait(s, TAG_READY);
    double t0 = mpb_now();
    for (int i = 0; i < iters; i++) {
        if (var == V_GROUP) {
            memset(acc, 0, (size_t)n);
            coll(test, n);
            if (test == MPB_BCAST && window_end(i, iters))
                for (int s = 1; s <= np; s++)
                    ctl_wait(s, TAG_ACK);
            else if (test == MPB_RED && (i + 1) % window == 0 && i + 1 < iters)
                for (int s = 1; s <= np; s++)
                    ctl(s, TAG_ACK);
            continue;
        }
        switch (test) {
        case MPB_LAT:
            xsend(1, buf, n, 0);
            xrecv(1, buf, n, 0);
            break;
        case MPB_BW:
        case MPB_BCAST:
            for (int s = 1; s <= np; s++)
                xsend(s, buf, n, 0);
            if (window_end(i, iters))
                for (int s = 1; s <= np; s++)
                    ctl_wait(s, TAG_ACK);
            break;
        case MPB_RED:
        case MPB_ALLRED:
            memset(acc, 0, (size_t)n);
            for (int s = 1; s <= np; s++) {
                xrecv(s, buf, n, 1);
                mpb_sum_doubles(acc, buf, n);
            }
            if (test == MPB_ALLRED)
                for (int s = 1; s <= np; s++)
                    xsend(s, acc, n, 1);
            else if ((i + 1) % window == 0 && i + 1 < iters)
                for (int s = 1; s <= np; s++)
                    ctl(s, TAG_ACK);
            break;
        }
    }
    return mpb_now() - t0;
}

static double value_of(int test, long n, int iters, double dt)
{
    switch (test) {
    case MPB_LAT: return dt / iters / 2 * 1e6;
    case MPB_BW: return (double)n * iters / dt / 1e6;
    default: return dt / iters * 1e6;
    }
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mpirun -np N mpbench_mpi [options]   (N >= 2; collectives use all N)\n"
            "  -T LIST    tests, comma-separated, or all (default): latency,bandwidth,\n"
            "             broadcast,reduce,allreduce (others of mpbench are skipped)\n"
            "  -V LIST    variants: psend (MPI_Send/MPI_Recv), group (MPI_Bcast,\n"
            "             MPI_Reduce, MPI_Allreduce; collectives only); pack is skipped\n"
            "  -W N       window: messages in flight before an ack (default 8)\n"
            "%s", mpb_common_usage);
}

/* Marks the tests of list in on[]; names mpbench knows but this program
 * does not measure are skipped, anything else is an error. */
static int pick(const char *list, int *on)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (!copy)
        return -1;
    memset(on, 0, sizeof *on * MPB_NTESTS);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int k, all = !strcmp(t, "all"), known = all;
        for (k = 0; k < MPB_NTESTS; k++)
            if (all || !strcmp(t, mpb_tests[k].name)) {
                on[k] = measured[k];
                known = 1;
            }
        if (!known)
            rc = -1;
    }
    free(copy);
    return rc;
}

int main(int argc, char **argv)
{
    CK(MPI_Init(&argc, &argv));
    int rank, c, on_t[MPB_NTESTS], psend = 0, group = 0;
    CK(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
    CK(MPI_Comm_size(MPI_COMM_WORLD, &nranks));

    struct mpb_opts o;
    mpb_opts_default(&o);
    const char *tlist = "all", *vlist = "psend,pack";
    while ((c = getopt(argc, argv, "T:V:W:m:zn:s:i:w:r:t:o:qPh")) != -1) {
        int r = mpb_opt(&o, c, optarg);
        if (r > 0)
            continue;
        if (r == 0 && c == 'T')
            tlist = optarg;
        else if (r == 0 && c == 'V')
            vlist = optarg;
        else if (r == 0 && c == 'W')
            window = atoi(optarg);
        else {
            if (!rank)
                usage();
            MPI_Finalize();
            return c == 'h' ? 0 : 2;
        }
    }
    psend = strstr(vlist, "psend") != NULL;
    group = strstr(vlist, "group") != NULL;
    if (optind < argc || nranks < 2 || nranks > 65 || window < 1 || mpb_make_sizes(&o) < 0 ||
        pick(tlist, on_t) < 0) {
        if (!rank)
            usage();
        MPI_Finalize();
        return 2;
    }
    long max = mpb_max_size(&o);
    if (mpb_buffers(max, &buf, &acc) < 0)
        fail("calloc", -1);
    if (!o.nopin)
        mpb_pin(rank);
    if (rank) {
        slave_main(max);
        MPI_Finalize();
        return 0;
    }

    printf("# mpbench (MPI): MPI_Send/MPI_Recv, window %d, %d ranks in collectives, %d cpus%s, "
           "%d timed runs per point\n",
           window, nranks, mpb_ncpus(), o.nopin ? "" : ", pinned (rank r on core r)", o.repeats);
    /* settle the connections before the first timed point */
    run_point(MPB_LAT, V_PSEND, 8, 100);
    run_point(MPB_ALLRED, V_PSEND, 8, 20);
    for (int k = 0; k < 2 * MPB_NTESTS; k++) {
        int t = k % MPB_NTESTS, var = k / MPB_NTESTS;
        if (!on_t[t] || !(var == V_GROUP ? group && mpb_tests[t].collective : psend))
            continue;
        char name[64];
        mpb_series_name(name, sizeof name, t, nranks, var == V_GROUP ? "group" : "psend");
        struct mpb_series s;
        if (mpb_series_open(&s, &o, name, mpb_tests[t].unit) < 0)
            fail("writing the .dat file", -1);
        for (int i = 0; i < o.nsizes; i++) {
            long n = o.sizes[i];
            mpb_progress(&o, name, n);
            double warm = o.warm ? run_point(t, var, n, o.warm) : 0;
            int iters = mpb_iters_for(&o, warm, o.warm);
            double val[MPB_MAXREP];
            for (int r = 0; r < o.repeats; r++)
                val[r] = value_of(t, n, iters, run_point(t, var, n, iters));
            mpb_series_point(&s, n, val, o.repeats, iters);
        }
        mpb_series_close(&s);
    }
    mpb_progress_done(&o);
    int stop[5] = { -1, 0, 0, 0, 0 };
    for (int s = 1; s < nranks; s++)
        CK(MPI_Send(stop, 5, MPI_INT, s, TAG_CMD, MPI_COMM_WORLD));
    MPI_Finalize();
    return 0;
}
