/*
 * ucx.c - the MPBench latency and bandwidth tests against UCX itself (its
 * ucp layer's active messages, ucp_am_send_nbx), what a user who picks UCX
 * instead of PVM gets on one node, measured with mpbench.c's definitions:
 * latency is half a round trip, bandwidth streams with an ack every window
 * messages, and every send returns when its buffer may be reused (as
 * pvm_psend and MPI_Send do).  A message arrives into the receiver's own
 * buffer: eager data is copied there in the handler, rendezvous data is
 * fetched there with ucp_am_recv_data_nbx.
 * Two processes, forked before either starts UCX (UCX is not fork-safe),
 * exchange worker addresses over pipes; the root is pinned to core 0 and
 * the peer to core 1, both busy-poll (ucp_worker_progress).  UCX_TLS is
 * sm,self unless the environment sets it.  Series are named TEST_psend
 * like mpbench_mpi's, so report.sh treats both alike.
 * Run with -h for the options.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>
#include <ucp/api/ucp.h>
#include "common.h"

enum { ID_CMD = 1, ID_DATA, ID_ACK };   /* AM ids: command, message, ack */

static ucp_context_h ctx;
static ucp_worker_h worker;
static ucp_ep_h ep;
static char *buf, *acc;     /* message data; acc is unused (mpb_buffers) */
static int window = 8;      /* -W: messages in flight before an ack */
/* counters the handlers raise; the loops wait for them to reach a target */
static volatile unsigned long got_data, got_ack, got_cmd;
static int cmd[4];          /* the last command: test, size, iters, window */

static void fail(const char *what, ucs_status_t st)
{
    fprintf(stderr, "mpbench_ucx: %s failed: %s\n", what, ucs_status_string(st));
    exit(1);
}

/* A rendezvous message is in the buffer. */
static void on_fetched(void *req, ucs_status_t st, size_t len, void *arg)
{
    (void)len; (void)arg;
    if (st != UCS_OK)
        fail("ucp_am_recv_data_nbx", st);
    got_data++;
    ucp_request_free(req);
}

/* Every AM arrives here, inside ucp_worker_progress. */
static ucs_status_t on_am(void *arg, const void *hdr, size_t hlen, void *data, size_t len,
                          const ucp_am_recv_param_t *p)
{
    int id = (int)(long)arg;
    (void)hdr; (void)hlen;
    if (id == ID_ACK) {
        got_ack++;
        return UCS_OK;
    }
    if (id == ID_CMD) {
        memcpy(cmd, data, sizeof cmd);
        got_cmd++;
        return UCS_OK;
    }
    if (!(p->recv_attr & UCP_AM_RECV_ATTR_FLAG_RNDV)) {
        memcpy(buf, data, len);
        got_data++;
        return UCS_OK;
    }
    ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_CALLBACK | UCP_OP_ATTR_FIELD_DATATYPE,
                               .cb.recv_am = on_fetched, .datatype = ucp_dt_make_contig(1) };
    ucs_status_ptr_t r = ucp_am_recv_data_nbx(worker, data, buf, len, &rp);
    if (UCS_PTR_IS_ERR(r))
        fail("ucp_am_recv_data_nbx", UCS_PTR_STATUS(r));
    if (r == NULL)          /* done at once: no callback comes */
        got_data++;
    return UCS_OK;          /* else on_fetched counts it and frees r */
}

/* The root checks now and then that the peer still runs: a peer that
 * died would leave it waiting for ever (the peer, for its part, dies with
 * the root: PR_SET_PDEATHSIG in main). */
static pid_t peer_pid;

static void wait_for(volatile unsigned long *counter, unsigned long target)
{
    for (unsigned k = 1; *counter < target; k++) {
        ucp_worker_progress(worker);
        if (peer_pid && k % (1u << 20) == 0 && waitpid(peer_pid, NULL, WNOHANG) == peer_pid) {
            fprintf(stderr, "mpbench_ucx: the peer process died\n");
            exit(1);
        }
    }
}

/* Sends len bytes of p as AM id; returns when p may be reused. */
static void xsend(int id, const void *p, size_t len)
{
    ucp_request_param_t sp = { .op_attr_mask = UCP_OP_ATTR_FIELD_DATATYPE,
                               .datatype = ucp_dt_make_contig(1) };
    ucs_status_ptr_t r = ucp_am_send_nbx(ep, (unsigned)id, NULL, 0, p, len, &sp);
    if (UCS_PTR_IS_ERR(r))
        fail("ucp_am_send_nbx", UCS_PTR_STATUS(r));
    if (r == NULL)
        return;
    ucs_status_t st;
    while ((st = ucp_request_check_status(r)) == UCS_INPROGRESS)
        ucp_worker_progress(worker);
    ucp_request_free(r);
    if (st != UCS_OK)
        fail("a send", st);
}

static int window_end(int i, int iters) { return (i + 1) % window == 0 || i + 1 == iters; }

/* The peer: commands until a negative test. */
static void peer_main(void)
{
    for (unsigned long k = 1;; k++) {
        wait_for(&got_cmd, k);
        int test = cmd[0], iters = cmd[2];
        long n = cmd[1];
        if (test < 0)
            return;
        window = cmd[3];
        /* ready: the root sends no data before this, so base counts none
         * of this point's messages */
        unsigned long base = got_data;
        xsend(ID_ACK, NULL, 0);
        for (int i = 0; i < iters; i++) {
            wait_for(&got_data, base + (unsigned long)i + 1);
            if (test == MPB_LAT)
                xsend(ID_DATA, buf, (size_t)n);
            else if (window_end(i, iters))
                xsend(ID_ACK, NULL, 0);
        }
    }
}

/* Runs iters operations with the peer; returns seconds. */
static double run_point(int test, long n, int iters)
{
    int c[4] = { test, (int)n, iters, window };
    unsigned long data0 = got_data, ack0 = got_ack;
    xsend(ID_CMD, c, sizeof c);
    wait_for(&got_ack, ++ack0);     /* the peer is ready (peer_main) */
    double t0 = mpb_now();
    for (int i = 0; i < iters; i++) {
        xsend(ID_DATA, buf, (size_t)n);
        if (test == MPB_LAT)
            wait_for(&got_data, data0 + (unsigned long)i + 1);
        else if (window_end(i, iters))
            wait_for(&got_ack, ++ack0);
    }
    return mpb_now() - t0;
}

static double value_of(int test, long n, int iters, double dt)
{
    return test == MPB_LAT ? dt / iters / 2 * 1e6 : (double)n * iters / dt / 1e6;
}

/* UCX up for this process: context, worker, the three handlers; returns
 * the worker's address (ucp_worker_release_address frees it). */
static ucp_address_t *ucx_up(size_t *alen)
{
    ucp_params_t pp = { .field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM };
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    ucp_address_t *a;
    ucs_status_t st;
    if ((st = ucp_init(&pp, NULL, &ctx)) != UCS_OK)
        fail("ucp_init", st);
    if ((st = ucp_worker_create(ctx, &wp, &worker)) != UCS_OK)
        fail("ucp_worker_create", st);
    for (long id = ID_CMD; id <= ID_ACK; id++) {
        ucp_am_handler_param_t hp = {
            .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID | UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                          UCP_AM_HANDLER_PARAM_FIELD_CB | UCP_AM_HANDLER_PARAM_FIELD_ARG,
            .id = (unsigned)id, .flags = UCP_AM_FLAG_WHOLE_MSG, .cb = on_am, .arg = (void *)id };
        if ((st = ucp_worker_set_am_recv_handler(worker, &hp)) != UCS_OK)
            fail("ucp_worker_set_am_recv_handler", st);
    }
    if ((st = ucp_worker_get_address(worker, &a, alen)) != UCS_OK)
        fail("ucp_worker_get_address", st);
    return a;
}

/* Our address out on fd wr, the other's in from fd rd, an endpoint to it. */
static void connect_to_peer(int wr, int rd)
{
    size_t alen, plen;
    ucp_address_t *a = ucx_up(&alen);
    if (write(wr, &alen, sizeof alen) != sizeof alen || write(wr, a, alen) != (ssize_t)alen ||
        read(rd, &plen, sizeof plen) != sizeof plen || plen > 65536) {
        fprintf(stderr, "mpbench_ucx: address exchange failed\n");
        exit(1);
    }
    char *peer = malloc(plen);
    size_t have = 0;
    while (peer && have < plen) {
        ssize_t k = read(rd, peer + have, plen - have);
        if (k <= 0)
            break;
        have += (size_t)k;
    }
    if (!peer || have < plen) {
        fprintf(stderr, "mpbench_ucx: address exchange failed\n");
        exit(1);
    }
    ucp_worker_release_address(worker, a);
    ucp_ep_params_t ep_p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                             .address = (const ucp_address_t *)peer };
    ucs_status_t st = ucp_ep_create(worker, &ep_p, &ep);
    free(peer);
    if (st != UCS_OK)
        fail("ucp_ep_create", st);
}

static void ucx_down(void)
{
    ucp_request_param_t cp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                               .flags = UCP_EP_CLOSE_FLAG_FORCE };
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &cp);
    if (UCS_PTR_IS_PTR(r)) {
        while (ucp_request_check_status(r) == UCS_INPROGRESS)
            ucp_worker_progress(worker);
        ucp_request_free(r);
    }
    ucp_worker_destroy(worker);
    ucp_cleanup(ctx);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: mpbench_ucx [options]   (two processes on this host, cores 0 and 1)\n"
            "  -T LIST    tests, comma-separated, or all (default): latency,bandwidth\n"
            "             (others of mpbench are skipped)\n"
            "  -V LIST    variants: psend only (ucp_am_send_nbx of a contiguous buffer)\n"
            "  -W N       window: messages in flight before an ack (default 8)\n"
            "UCX_TLS is sm,self unless set in the environment.\n"
            "%s", mpb_common_usage);
}

/* Marks latency and bandwidth in on[] where list names them; the other
 * tests mpbench knows are skipped, anything else is an error. */
static int pick(const char *list, int *on)
{
    char *copy = strdup(list), *save = NULL;
    int rc = copy ? 0 : -1;
    for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t; t = strtok_r(NULL, ",", &save)) {
        int all = !strcmp(t, "all"), known = all;
        for (int k = 0; k < MPB_NTESTS; k++)
            if (all || !strcmp(t, mpb_tests[k].name)) {
                on[k] = k == MPB_LAT || k == MPB_BW;
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
    struct mpb_opts o;
    int c, on_t[MPB_NTESTS] = { 0 };
    const char *tlist = "all", *vlist = "psend,pack";
    mpb_opts_default(&o);
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
            usage();
            return c == 'h' ? 0 : 2;
        }
    }
    if (optind < argc || window < 1 || mpb_make_sizes(&o) < 0 || pick(tlist, on_t) < 0) {
        usage();
        return 2;
    }
    long max = mpb_max_size(&o);
    if (mpb_buffers(max, &buf, &acc) < 0) {
        fprintf(stderr, "mpbench_ucx: no memory for %ld-byte buffers\n", max);
        return 1;
    }
    setenv("UCX_TLS", "sm,self", 0);
    int up[2], down[2];
    if (pipe(up) < 0 || pipe(down) < 0) {
        perror("mpbench_ucx: pipe");
        return 1;
    }
    fflush(stdout);
    pid_t root = getpid(), pid = fork();
    if (pid < 0) {
        perror("mpbench_ucx: fork");
        return 1;
    }
    /* each side keeps only its own ends, so that a side that dies before
     * its address is out ends the other's read (EOF) */
    close(pid == 0 ? up[0] : up[1]);
    close(pid == 0 ? down[1] : down[0]);
    if (pid == 0) {
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (getppid() != root)
            _exit(1);   /* the root is gone already */
        if (!o.nopin)
            mpb_pin(1);
        connect_to_peer(up[1], down[0]);
        peer_main();
        ucx_down();
        _exit(0);
    }
    peer_pid = pid;
    if (!o.nopin)
        mpb_pin(0);
    connect_to_peer(down[1], up[0]);

    printf("# mpbench (UCX): ucp_am_send_nbx, UCX_TLS=%s, UCX %s, window %d, %d cpus%s, "
           "%d timed runs per point\n",
           getenv("UCX_TLS"), ucp_get_version_string(), window, mpb_ncpus(),
           o.nopin ? "" : ", pinned (cores 0 and 1)", o.repeats);
    /* settle the connection (wire-up, rendezvous) before the first point */
    run_point(MPB_LAT, 8, 100);
    run_point(MPB_BW, max, 4);
    for (int t = 0; t < MPB_NTESTS && strstr(vlist, "psend"); t++) {
        if (!on_t[t])
            continue;
        char name[64];
        mpb_series_name(name, sizeof name, t, 2, "psend");
        struct mpb_series s;
        if (mpb_series_open(&s, &o, name, mpb_tests[t].unit) < 0) {
            perror("mpbench_ucx: writing the .dat file");
            kill(pid, SIGTERM);
            return 1;
        }
        for (int i = 0; i < o.nsizes; i++) {
            long n = o.sizes[i];
            mpb_progress(&o, name, n);
            double warm = o.warm ? run_point(t, n, o.warm) : 0;
            int iters = mpb_iters_for(&o, warm, o.warm);
            double val[MPB_MAXREP];
            for (int r = 0; r < o.repeats; r++)
                val[r] = value_of(t, n, iters, run_point(t, n, iters));
            mpb_series_point(&s, n, val, o.repeats, iters);
        }
        mpb_series_close(&s);
    }
    mpb_progress_done(&o);
    int stop[4] = { -1, 0, 0, 0 };
    xsend(ID_CMD, stop, sizeof stop);
    int status = 0;
    peer_pid = 0;
    waitpid(pid, &status, 0);
    ucx_down();
    return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
