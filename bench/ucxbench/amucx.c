/*
 * amucx.c - libam's ucx transport next to UCX's own ucx_perftest
 * (bench/ucxbench/run.sh): an 8-byte ping-pong (half round trip) and a
 * stream of big AMs (libam's window of 8 in flight, each acknowledged by
 * its blank reply), two processes pinned to cores 0 and 1, busy polling.
 *     amucx LAT_ITERS BW_BYTES BW_ITERS
 * The processes fork before either starts UCX (UCX is not fork-safe).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "am.h"

static int h_ping, h_pong, h_sink;
static volatile unsigned long pongs;

static void on_ping(const am_token_t *t, void *d, size_t n) { am_reply(t, h_pong, d, n); }
static void on_pong(const am_token_t *t, void *d, size_t n) { pongs++; }
static void on_sink(const am_token_t *t, void *d, size_t n) { }

/* AMUCX_PLACE=1: the big AMs land in one buffer of the receiver's, as
 * ucx_perftest's do (and pvmam's in its receive buffers) */
static char *sink_buf;
static void *place_sink(const am_token_t *t, const void *head, size_t hl, size_t total)
{
    return sink_buf;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void pin(int core)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(core, &s);
    sched_setaffinity(0, sizeof s, &s);
}

int main(int argc, char **argv)
{
    long lat_n = argc > 1 ? atol(argv[1]) : 100000;
    size_t bw_bytes = argc > 2 ? (size_t)atol(argv[2]) : 4u << 20;
    long bw_n = argc > 3 ? atol(argv[3]) : 200;
    /* up, down: the addresses; quit: the parent's byte (on up, the child
     * could read its own address before the parent did, and quit) */
    int up[2], down[2], quit[2];
    h_ping = am_address_to_id(on_ping);
    h_pong = am_address_to_id(on_pong);
    h_sink = am_address_to_id(on_sink);
    if (pipe(up) < 0 || pipe(down) < 0 || pipe(quit) < 0)
        return 1;
    pid_t pid = fork();
    int child = pid == 0;
    pin(child ? 1 : 0);
    struct am_config cfg;
    am_config_default(&cfg);
    cfg.max_payload = bw_bytes;
    cfg.wait = AM_WAIT_SPIN;
    am_interface_t *ifc;
    const char *pl = getenv("AMUCX_PLACE");
    if (pl && *pl == '1' && child) {
        sink_buf = malloc(bw_bytes);
        am_set_placer(h_sink, place_sink, 0);
    }
    int irc = am_init("ucx", &cfg, &ifc);
    if (irc < 0) {
        fprintf(stderr, "amucx: %s: am_init(ucx): %s\n", child ? "child" : "parent",
                am_strerror(irc));
        return 77;
    }
    char mine[AM_ADDR_MAX] = { 0 }, peer[AM_ADDR_MAX];
    strncpy(mine, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
    if (write(child ? up[1] : down[1], mine, AM_ADDR_MAX) != AM_ADDR_MAX ||
        read(child ? down[0] : up[0], peer, AM_ADDR_MAX) != AM_ADDR_MAX) {
        fprintf(stderr, "amucx: %s: no address from the other process\n",
                child ? "child" : "parent");
        int ws = 0;
        if (!child && waitpid(pid, &ws, 0) == pid)
            fprintf(stderr, "amucx: child: %s %d\n", WIFSIGNALED(ws) ? "signal" : "exit",
                    WIFSIGNALED(ws) ? WTERMSIG(ws) : WEXITSTATUS(ws));
        return 1;
    }
    am_endpoint_t *ep;
    am_allocate_task(ifc, &ep);
    int rc = child ? am_accept_task(ifc, ep, peer) : am_connect_task(ifc, ep, peer);
    if (rc < 0) {
        fprintf(stderr, "amucx: %s: %s: %s\n", child ? "child" : "parent",
                child ? "am_accept_task" : "am_connect_task", am_strerror(rc));
        return 1;
    }
    am_insert_task(ifc, ep, child ? 1 : 2);
    if (child) {   /* serve until the parent's byte */
        char c;
        for (;;) {
            am_poll(ifc);
            struct timeval tv = { 0, 0 };
            fd_set fs;
            FD_ZERO(&fs);
            FD_SET(quit[0], &fs);
            static unsigned k;
            if (++k % 1024 == 0 && select(quit[0] + 1, &fs, NULL, NULL, &tv) > 0 &&
                read(quit[0], &c, 1) == 1)
                break;
        }
        am_shutdown(ifc);
        _exit(0);
    }
    char *buf = calloc(1, bw_bytes);
    char small[8] = { 0 };
    for (int warm = 0; warm < 1000; warm++) {   /* wire-up and caches */
        unsigned long want = pongs + 1;
        am_request_ep(ifc, ep, h_ping, small, 8);
        while (pongs < want)
            am_poll(ifc);
    }
    /* each round trip timed: the median as ucx_perftest's 50.0%ile, which
     * a shared machine's hiccups move less than the average */
    double *rt = malloc(sizeof *rt * (size_t)lat_n);
    double t0 = now(), t = t0;
    for (long i = 0; i < lat_n; i++) {
        unsigned long want = pongs + 1;
        am_request_ep(ifc, ep, h_ping, small, 8);
        while (pongs < want)
            am_poll(ifc);
        double t1 = now();
        rt[i] = t1 - t;
        t = t1;
    }
    double lat = (t - t0) / lat_n / 2 * 1e6;
    qsort(rt, (size_t)lat_n, sizeof *rt, cmp_double);
    double med = rt[lat_n / 2] / 2 * 1e6;
    for (int warm = 0; warm < 10; warm++)
        am_request_ep(ifc, ep, h_sink, buf, bw_bytes);
    while (am_outstanding(ifc))
        am_poll(ifc);
    t0 = now();
    for (long i = 0; i < bw_n; i++)
        am_request_ep(ifc, ep, h_sink, buf, bw_bytes);
    while (am_outstanding(ifc))
        am_poll(ifc);
    double bw = (double)bw_bytes * bw_n / (now() - t0) / 1e6;
    printf("amucx: latency %zu B median %.3f us average %.3f us   bandwidth %zu B %.1f MB/s\n",
           (size_t)8, med, lat, bw_bytes, bw);
    write(quit[1], "q", 1);
    waitpid(pid, NULL, 0);
    am_shutdown(ifc);
    return 0;
}
