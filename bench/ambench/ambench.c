/*
 * ambench.c - libam ping-pong and streaming next to raw sockets of the same
 * kind (udp, tcp), and libam's shm next to bare shared memory (a flag and
 * the data on one cache line up to 56 bytes: the physical floor of a
 * ping-pong; beyond, a buffer copied in and out), measured in the same run;
 * the two processes are pinned to cores 0 and 1 and both sides busy-poll.
 *     ambench [rounds] [transports] [max bytes]
 * (default 3 rounds, "udp,tcp,shm", up to 8 KiB over udp and 1 MiB else;
 * "ambench 3 shm 8": only 8-byte messages)
 * Latency = half round trip (median of rounds); streaming bandwidth =
 * bytes / time with at most `depth` (8) messages in flight for every
 * configuration: libam's window, and an 8-message ack window for raw udp.
 * "best" = the fastest of many short ping-pong runs (BEST_REPS each): on
 * a machine shared with other work, the one figure that other tasks'
 * time slices do not inflate, so the ratio to take there.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "am.h"
#include "floor.h"

#define WINDOW 8

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static char *buf;

/* ---- raw sockets ------------------------------------------------------ */

static void recv_all(int fd, char *p, size_t n)
{
    size_t got = 0;
    while (got < n) {
        ssize_t r = recv(fd, p + got, n - got, MSG_DONTWAIT);
        if (r > 0)
            got += (size_t)r;
        else if (r == 0 || (errno != EAGAIN && errno != EINTR))
            exit(3);
    }
}

static void send_all(int fd, const char *p, size_t n)
{
    size_t off = 0;
    while (off < n) {
        ssize_t w = send(fd, p + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0)
            off += (size_t)w;
        else if (w < 0 && errno != EAGAIN && errno != EINTR)
            exit(3);
    }
}

static ssize_t udp_spin(int fd, char *p, size_t n)
{
    for (;;) {
        ssize_t r = recv(fd, p, n, MSG_DONTWAIT);
        if (r >= 0)
            return r;
        if (errno != EAGAIN && errno != EINTR)
            exit(3);
    }
}

/* op: 'p' ping-pong reps of n bytes, 's' stream reps of n bytes, 'f' the protocol
 * floor's ping-pong (floor.c, served by bare_server), 'q' quit */
struct cmd { int op, n, reps; };   /* no padding: every byte written is set */

/* Tells the server on ctl what comes, and gives it time to get ready. */
static void order(int ctl, char op, int n, int reps)
{
    struct cmd c = { op, n, reps };
    if (write(ctl, &c, sizeof c) != sizeof c)
        exit(3);
    usleep(2000);
}

static void raw_server(int fd, int udp, int ctl)
{
    struct cmd c;
    while (read(ctl, &c, sizeof c) == sizeof c && c.op != 'q') {
        for (int r = 0; r < c.reps; r++) {
            if (udp) {
                udp_spin(fd, buf, 65536);
                if (c.op == 'p' || (r + 1) % WINDOW == 0 || r + 1 == c.reps)
                    send(fd, buf, c.op == 'p' ? (size_t)c.n : 1, 0);
            } else {
                recv_all(fd, buf, (size_t)c.n);
                if (c.op == 'p')
                    send_all(fd, buf, (size_t)c.n);
            }
        }
        if (!udp && c.op == 's')
            send_all(fd, buf, 1);
    }
}

static double raw_run(int fd, int udp, int ctl, char op, int n, int reps)
{
    order(ctl, op, n, reps);
    double t0 = now();
    for (int r = 0; r < reps; r++) {
        if (udp) {
            send(fd, buf, (size_t)n, 0);
            if (op == 'p' || (r + 1) % WINDOW == 0 || r + 1 == reps)
                udp_spin(fd, buf, 65536);
        } else {
            send_all(fd, buf, (size_t)n);
            if (op == 'p')
                recv_all(fd, buf, (size_t)n);
        }
    }
    if (!udp && op == 's')
        recv_all(fd, buf, 1);
    return now() - t0;
}

/* ---- bare shared memory ------------------------------------------------ */

#define BARE_MAX (1 << 20)
#define BARE_LINE 56   /* data bytes beside the flag on its line */
struct bare_line { _Alignas(128) uint64_t flag; char data[BARE_LINE]; };
struct bare {
    struct bare_line to, back;   /* client -> server, and the answer */
    char buf[2][BARE_MAX];
};
static struct bare *bare;   /* MAP_SHARED before the fork */
static uint64_t bare_seq;   /* both sides count the same messages */

static void bare_wait(const uint64_t *flag, uint64_t v)
{
    while (__atomic_load_n(flag, __ATOMIC_ACQUIRE) != v)
        __builtin_ia32_pause();
}

/* One message of n bytes into line l (or the buffer), flagged. */
static void bare_put(struct bare_line *l, char *big, const char *src, int n)
{
    memcpy(n <= BARE_LINE ? l->data : big, src, (size_t)n);
    __atomic_store_n(&l->flag, bare_seq, __ATOMIC_RELEASE);
}

static void bare_get(struct bare_line *l, const char *big, char *dst, int n)
{
    bare_wait(&l->flag, bare_seq);
    memcpy(dst, n <= BARE_LINE ? l->data : big, (size_t)n);
}

/* Every message is answered: ping-pong with the data, stream with an
 * empty answer (one buffer, so the next may not overwrite it earlier). */
static void bare_server(int ctl)
{
    struct cmd c;
    while (read(ctl, &c, sizeof c) == sizeof c && c.op != 'q') {
        if (c.op == 'f') {   /* the protocol floor's turn (floor.c) */
            floor_serve(c.reps);
            continue;
        }
        for (int r = 0; r < c.reps; r++) {
            bare_seq++;
            bare_get(&bare->to, bare->buf[0], buf, c.n);
            bare_put(&bare->back, bare->buf[1], buf, c.op == 'p' ? c.n : 0);
        }
    }
}

static double bare_run(int ctl, char op, int n, int reps)
{
    order(ctl, op, n, reps);
    double t0 = now();
    for (int r = 0; r < reps; r++) {
        bare_seq++;
        bare_put(&bare->to, bare->buf[0], buf, n);
        bare_get(&bare->back, bare->buf[1], buf, op == 'p' ? n : 0);
    }
    return now() - t0;
}

/* ---- libam -------------------------------------------------------------- */

static int h_ping, h_sink, h_pong;
static volatile int pongs;

static void on_ping(const am_token_t *t, void *d, size_t n) { am_reply(t, h_pong, d, n); }
static void on_sink(const am_token_t *t, void *d, size_t n) { (void)t; }
static void on_pong(const am_token_t *t, void *d, size_t n) { pongs++; }

static void am_server(am_interface_t *ifc, int ctl)
{
    struct cmd c;
    /* look at the control socket only when idle for a while: a system call
     * per poll would sit on the latency path, which the raw server lacks */
    for (unsigned idle = 0;;) {
        idle = am_poll(ifc) > 0 ? 0 : idle + 1;
        if ((idle & 4095) == 4095 && recv(ctl, &c, sizeof c, MSG_DONTWAIT) == sizeof c &&
            c.op == 'q')
            break;
    }
}

static double am_run(am_interface_t *ifc, char op, int n, int reps)
{
    double t0 = now();
    pongs = 0;
    for (int r = 0; r < reps; r++) {
        if (op == 'p') {
            am_request(ifc, 2, h_ping, buf, (size_t)n);
            while (pongs <= r)
                am_poll(ifc);
        } else {
            am_request(ifc, 2, h_sink, buf, (size_t)n);
        }
    }
    while (am_outstanding(ifc))
        am_poll(ifc);
    return now() - t0;
}

/* ---- driver --------------------------------------------------------------- */

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

#define MAXS 24
#define BEST_REPS 200
#define BEST_RUNS 50
struct series { int n[MAXS], k; double lat[MAXS], bw[MAXS], best[MAXS]; };

static int reps_for(int n, char op) { return op == 'p' ? (n < 65536 ? 3000 : 300) : (n < 65536 ? 20000 : 2000); }

static void measure(const char *what, struct series *s, int max, int rounds,
                    double (*run)(void *, char, int, int), void *ctx)
{
    /* a live '\r' line on a terminal; one line per series in a log, where
     * the '\r's would make one endless line */
    int live = isatty(2);
    s->k = 0;
    if (!live)
        fprintf(stderr, "  %s: 8..%d bytes\n", what, max);
    for (int n = 8; n <= max; n *= 4) {
        double lat[16], bw[16];
        for (int r = 0; r < rounds; r++) {
            int reps = reps_for(n, 'p');
            lat[r] = run(ctx, 'p', n, reps) / reps / 2 * 1e6;
            reps = reps_for(n, 's');
            double t = run(ctx, 's', n, reps);
            bw[r] = t > 0 ? (double)n * reps / t / 1e6 : 0;   /* 0: latency only */
        }
        qsort(lat, (size_t)rounds, sizeof *lat, cmp_d);
        qsort(bw, (size_t)rounds, sizeof *bw, cmp_d);
        s->best[s->k] = lat[0];
        for (int r = 0; n < 65536 && r < BEST_RUNS; r++) {
            double t = run(ctx, 'p', n, BEST_REPS) / BEST_REPS / 2 * 1e6;
            if (t < s->best[s->k])
                s->best[s->k] = t;
        }
        s->n[s->k] = n;
        s->lat[s->k] = lat[rounds / 2];
        s->bw[s->k] = bw[rounds / 2];
        s->k++;
        if (live)
            fprintf(stderr, "\r%-8s %8d bytes", what, n);
    }
    if (live)
        fprintf(stderr, "\r%40s\r", "");
}

struct rawctx { int fd, udp, ctl; };
static double raw_cb(void *c, char op, int n, int reps)
{
    struct rawctx *x = c;
    if (x->fd < 0)
        return bare_run(x->ctl, op, n, reps);
    return raw_run(x->fd, x->udp, x->ctl, op, n, reps);
}
static double am_cb(void *c, char op, int n, int reps) { return am_run(c, op, n, reps); }

/* The protocol floor (floor.c): ping-pong only, served by bare_server. */
static double floor_cb(void *c, char op, int n, int reps)
{
    if (op != 'p')
        return 0;
    order(*(int *)c, 'f', n, reps);
    double t = floor_pingpong(n, reps);
    if (t < 0) {
        fprintf(stderr, "ambench: the protocol floor's ping-pong failed\n");
        exit(3);
    }
    return t;
}

/* Run one transport: raw sockets, then libam, same sizes. */
static int max_bytes;   /* argv[3]: the largest size measured, 0 for the default */

static void bench(const char *tr, int rounds, struct series *raw, struct series *am,
                  struct series *flo)
{
    int udp = !strcmp(tr, "udp"), shm = !strcmp(tr, "shm");
    int sv[2] = { -1, -1 }, ctl[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) < 0)
        exit(3);
    /* raw pair on loopback */
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    socklen_t sl = sizeof sa;
    int one = 1;
    if (shm) {
        bare = mmap(NULL, sizeof *bare, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (bare == MAP_FAILED)
            exit(3);
        bare_seq = 0;
        if (floor_map() < 0)
            exit(3);
    } else if (udp) {
        sv[0] = socket(AF_INET, SOCK_DGRAM, 0);
        sv[1] = socket(AF_INET, SOCK_DGRAM, 0);
        struct sockaddr_in a0 = sa, a1 = sa;
        bind(sv[0], (struct sockaddr *)&a0, sizeof a0);
        bind(sv[1], (struct sockaddr *)&a1, sizeof a1);
        getsockname(sv[0], (struct sockaddr *)&a0, &sl);
        sl = sizeof a1;
        getsockname(sv[1], (struct sockaddr *)&a1, &sl);
        connect(sv[0], (struct sockaddr *)&a1, sizeof a1);
        connect(sv[1], (struct sockaddr *)&a0, sizeof a0);
    } else {
        int l = socket(AF_INET, SOCK_STREAM, 0);
        bind(l, (struct sockaddr *)&sa, sizeof sa);
        listen(l, 1);
        getsockname(l, (struct sockaddr *)&sa, &sl);
        sv[0] = socket(AF_INET, SOCK_STREAM, 0);
        connect(sv[0], (struct sockaddr *)&sa, sizeof sa);
        sv[1] = accept(l, NULL, NULL);
        close(l);
        setsockopt(sv[0], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
        setsockopt(sv[1], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    struct am_config cfg;
    am_config_default(&cfg);
    cfg.bind_host = "127.0.0.1";
    am_interface_t *ifc;
    if (am_init(tr, &cfg, &ifc) < 0)
        exit(3);
    int max = udp ? 8192 : 1 << 20;
    if (max_bytes >= 8 && max_bytes < max)
        max = max_bytes;
    pid_t pid = fork();
    if (pid == 0) {
        pin(1);
        if (shm) {
            bare_server(ctl[1]);
        } else {
            close(sv[0]);
            raw_server(sv[1], udp, ctl[1]);
        }
        /* then libam: accept the parent */
        char addr[AM_ADDR_MAX], mine[AM_ADDR_MAX] = { 0 };
        strncpy(mine, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
        write(ctl[1], mine, AM_ADDR_MAX);
        if (read(ctl[1], addr, AM_ADDR_MAX) != AM_ADDR_MAX)
            _exit(3);
        am_endpoint_t *ep;
        am_allocate_task(ifc, &ep);
        if (am_accept_task(ifc, ep, addr) < 0)
            _exit(3);
        am_insert_task(ifc, ep, 1);
        am_server(ifc, ctl[1]);
        _exit(0);
    }
    pin(0);
    if (!shm)
        close(sv[1]);
    struct rawctx rc = { sv[0], udp, ctl[0] };
    measure(shm ? "bare shm" : udp ? "raw udp" : "raw tcp", raw, max, rounds, raw_cb, &rc);
    flo->k = 0;
    if (shm)
        measure("floor", flo, max < FLOOR_MAX ? max : FLOOR_MAX, rounds, floor_cb, &ctl[0]);
    struct cmd q = { 'q', 0, 0 };
    write(ctl[0], &q, sizeof q);
    /* libam interfaces are separate per process: make a fresh one here */
    am_shutdown(ifc);
    if (am_init(tr, &cfg, &ifc) < 0)
        exit(3);
    char addr[AM_ADDR_MAX], mine[AM_ADDR_MAX] = { 0 };
    if (read(ctl[0], addr, AM_ADDR_MAX) != AM_ADDR_MAX)
        exit(3);
    strncpy(mine, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
    write(ctl[0], mine, AM_ADDR_MAX);
    am_endpoint_t *ep;
    am_allocate_task(ifc, &ep);
    if (am_connect_task(ifc, ep, addr) < 0)
        exit(3);
    am_insert_task(ifc, ep, 2);
    measure(shm ? "am shm" : udp ? "am udp" : "am tcp", am, max, rounds, am_cb, ifc);
    write(ctl[0], &q, sizeof q);
    waitpid(pid, NULL, 0);
    am_shutdown(ifc);
    if (shm)
        munmap(bare, sizeof *bare);
    else
        close(sv[0]);
    close(ctl[0]);
    close(ctl[1]);
}

int main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 3;
    if (rounds < 1 || rounds > 15)
        rounds = 3;
    if (argc > 3)
        max_bytes = atoi(argv[3]);
    signal(SIGPIPE, SIG_IGN);
    buf = calloc(1, (1 << 20) + 65536);
    h_ping = am_address_to_id(on_ping);
    h_sink = am_address_to_id(on_sink);
    h_pong = am_address_to_id(on_pong);
    char list[64];
    snprintf(list, sizeof list, "%s", argc > 2 ? argv[2] : "udp,tcp,shm");
    printf("libam vs raw sockets (loopback) and bare shared memory, cores 0/1, busy polling, "
           "median of %d rounds\n", rounds);
    for (char *sp, *tr = strtok_r(list, ",", &sp); tr; tr = strtok_r(NULL, ",", &sp)) {
        struct series raw, am, flo;
        const char *trs[1] = { tr };
        int t = 0;
        if (strcmp(tr, "udp") && strcmp(tr, "tcp") && strcmp(tr, "shm")) {
            fprintf(stderr, "ambench: %s: not a transport (udp, tcp, shm)\n", tr);
            return 2;
        }
        bench(trs[t], rounds, &raw, &am, &flo);
        printf("\n%s: %9s %12s %12s %7s %12s %12s %7s %9s %9s %7s\n", trs[t], "bytes", "raw_us",
               "libam_us", "ratio", "raw_MB/s", "libam_MB/s", "ratio", "raw_best", "am_best",
               "ratio");
        for (int i = 0; i < raw.k; i++)
            printf("%s: %9d %12.2f %12.2f %6.2fx %12.1f %12.1f %6.2fx %9.3f %9.3f %6.2fx\n",
                   trs[t], raw.n[i], raw.lat[i], am.lat[i], am.lat[i] / raw.lat[i], raw.bw[i],
                   am.bw[i], am.bw[i] / raw.bw[i], raw.best[i], am.best[i],
                   am.best[i] / raw.best[i]);
        if (flo.k) {   /* shm: bare, the protocol floor and libam, in microseconds */
            printf("\n%s: %9s %9s %9s %9s %7s %7s %9s %9s %9s %7s %7s\n", trs[t], "bytes",
                   "bare_us", "floor_us", "libam_us", "floor", "libam", "bare_best",
                   "flr_best", "am_best", "floor", "libam");
            for (int i = 0; i < flo.k; i++)
                printf("%s: %9d %9.4f %9.4f %9.4f %6.2fx %6.2fx %9.4f %9.4f %9.4f %6.2fx %6.2fx\n",
                       trs[t], flo.n[i], raw.lat[i], flo.lat[i], am.lat[i],
                       flo.lat[i] / raw.lat[i], am.lat[i] / raw.lat[i], raw.best[i],
                       flo.best[i], am.best[i], flo.best[i] / raw.best[i],
                       am.best[i] / raw.best[i]);
        }
    }
    return 0;
}
