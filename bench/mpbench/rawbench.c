/*
 * rawbench.c - raw-socket baselines for mpbench, same sizes and options:
 * TCP and UDP ping-pong (half round trip) and TCP and UDP streaming
 * bandwidth on loopback, the two processes pinned to cores 0 and 1, both
 * busy-polling.  UDP messages above one datagram are cut into 65000-byte
 * datagrams; UDP has no recovery, so a loss (nothing for 1 s) ends the UDP
 * series.  UDP streaming is the least a datagram transport must do: the
 * receiver acknowledges each message with a 1-byte datagram and the sender
 * keeps at most UDP_WINDOW bytes (half the receive buffer) unacknowledged,
 * so the receive buffer never overflows.
 * -N NETNS:ADDR0:ADDR1 puts the far end's sockets in another network
 * namespace (a file such as /run/netns/NAME), bound to ADDR1 there, and
 * ours on ADDR0: the raw baseline between two namespace hosts
 * (tests/lib/netvm.sh, run.sh --hosts).  Needs CAP_SYS_ADMIN.
 *     rawbench [-T tcp_latency,udp_latency,tcp_bandwidth,udp_bandwidth]
 *              [-N NETNS:ADDR0:ADDR1] [common options]
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <arpa/inet.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

#define DGRAM 65000
#define UDP_BUF (8 << 20)
#define UDP_WINDOW (UDP_BUF / 2)
enum { T_TCPLAT, T_UDPLAT, T_TCPBW, T_UDPBW, NTESTS };
static const char *const names[NTESTS] = { "tcp_latency", "udp_latency", "tcp_bandwidth",
                                           "udp_bandwidth" };
static const char *const units[NTESTS] = { "us, half round trip", "us, half round trip",
                                           "MB/s, 1 MB = 1e6 bytes", "MB/s, 1 MB = 1e6 bytes" };

static char *buf;
static int fds[NTESTS][2];   /* [test][side]: a connected socket pair per test */

struct cmd { int test, n, iters; };

/* -N: the far end's namespace and our own (to come back); the addresses */
static int far_ns = -1, near_ns = -1;
static struct in_addr near_addr = { 0 }, far_addr = { 0 };

/* A socket for side 0 (ours) or 1 (the far end): in far_ns with -N. */
static int sock(int side, int type)
{
    int far = side && far_ns >= 0;
    if (far && setns(far_ns, CLONE_NEWNET) < 0)
        return -1;
    int fd = socket(AF_INET, type, 0);
    if (far && setns(near_ns, CLONE_NEWNET) < 0) {
        close(fd);
        return -1;
    }
    return fd;
}

/* -N NETNS:ADDR0:ADDR1; 0 or -1 */
static int parse_ns(char *arg)
{
    char *a0 = strchr(arg, ':'), *a1 = a0 ? strchr(a0 + 1, ':') : NULL;
    if (!a1)
        return -1;
    *a0++ = '\0';
    *a1++ = '\0';
    if (inet_pton(AF_INET, a0, &near_addr) != 1 || inet_pton(AF_INET, a1, &far_addr) != 1)
        return -1;
    if ((far_ns = open(arg, O_RDONLY | O_CLOEXEC)) < 0 ||
        (near_ns = open("/proc/self/ns/net", O_RDONLY | O_CLOEXEC)) < 0) {
        perror(arg);
        return -1;
    }
    return 0;
}

static int tcp_recv(int fd, long n)
{
    long got = 0;
    while (got < n) {
        ssize_t r = recv(fd, buf + got, (size_t)(n - got), MSG_DONTWAIT);
        if (r > 0)
            got += r;
        else if (r == 0 || (errno != EAGAIN && errno != EINTR))
            return -1;
    }
    return 0;
}

static int tcp_send(int fd, long n)
{
    long off = 0;
    while (off < n) {
        ssize_t w = send(fd, buf + off, (size_t)(n - off), MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0)
            off += w;
        else if (w < 0 && errno != EAGAIN && errno != EINTR)
            return -1;
    }
    return 0;
}

/* A message of n bytes as ceil(n / DGRAM) datagrams (one if n is 0). */
static int udp_send(int fd, long n)
{
    long off = 0;
    do {
        long k = n - off < DGRAM ? n - off : DGRAM;
        if (send(fd, buf + off, (size_t)k, 0) < 0)
            return -1;
        off += k;
    } while (off < n);
    return 0;
}

static int udp_recv(int fd, long n)
{
    long got = 0;
    double deadline = mpb_now() + 1.0;
    do {
        ssize_t r = recv(fd, buf + (got < n ? got : 0), DGRAM, MSG_DONTWAIT);
        if (r >= 0) {
            got += r;
            if (got >= n)
                return 0;
            deadline = mpb_now() + 1.0;
        } else if ((errno != EAGAIN && errno != EINTR) || mpb_now() > deadline) {
            return -1;
        }
    } while (1);
}

/* One datagram, waited for at most 1 s (the series ends on a loss):
 * its length, or -1. */
static long udp_one(int fd, char *into)
{
    double deadline = mpb_now() + 1.0;
    for (;;) {
        ssize_t r = recv(fd, into, DGRAM, MSG_DONTWAIT);
        if (r >= 0)
            return r;
        if ((errno != EAGAIN && errno != EINTR) || mpb_now() > deadline)
            return -1;
    }
}

/* UDP streaming: iters messages of n bytes, each acknowledged by the
 * receiver with one byte; at most UDP_WINDOW bytes (and one message)
 * unacknowledged. */
static int udp_stream(int side, int fd, long n, int iters)
{
    long dgrams = n > DGRAM ? (n + DGRAM - 1) / DGRAM : 1;
    if (side) {   /* receive, acknowledge every message */
        for (int i = 0; i < iters; i++) {
            for (long d = 0; d < dgrams; d++)
                if (udp_one(fd, buf + (d * DGRAM < n ? d * DGRAM : 0)) < 0)
                    return -1;
            if (send(fd, buf, 1, 0) < 0)
                return -1;
        }
        return 0;
    }
    long window = n > 0 ? UDP_WINDOW / n : iters;
    if (window < 1)
        window = 1;
    char ack[DGRAM];
    for (int sent = 0, acked = 0; acked < iters;) {
        if (sent < iters && sent - acked < window) {
            if (udp_send(fd, n) < 0)
                return -1;
            sent++;
        } else if (udp_one(fd, ack) < 0) {
            return -1;
        } else {
            acked++;
        }
    }
    return 0;
}

/* Side 1 (the child) answers; side 0 (the parent) measures.  -1 = broken. */
static int run(int side, int test, long n, int iters)
{
    int fd = fds[test][side];
    int rc = 0;
    if (test == T_UDPBW)
        return udp_stream(side, fd, n, iters);
    for (int i = 0; i < iters && !rc; i++) {
        switch (test) {
        case T_TCPLAT:
            rc = side ? tcp_recv(fd, n) || tcp_send(fd, n) : tcp_send(fd, n) || tcp_recv(fd, n);
            break;
        case T_UDPLAT:
            rc = side ? udp_recv(fd, n) || udp_send(fd, n) : udp_send(fd, n) || udp_recv(fd, n);
            break;
        case T_TCPBW:
            rc = side ? tcp_recv(fd, n) : tcp_send(fd, n);
            break;
        }
    }
    if (!rc && test == T_TCPBW)   /* the 1-byte ack ends the stream */
        rc = side ? tcp_send(fd, 1) : tcp_recv(fd, 1);
    return rc ? -1 : 0;
}

static int pair(int udp, int sv[2])
{
    struct sockaddr_in a = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) }, b = a;
    if (far_ns >= 0) {
        a.sin_addr = near_addr;
        b.sin_addr = far_addr;
    }
    socklen_t sl = sizeof a;
    int one = 1, big = UDP_BUF;
    if (udp) {
        sv[0] = sock(0, SOCK_DGRAM);
        sv[1] = sock(1, SOCK_DGRAM);
        for (int i = 0; i < 2; i++) {
            /* room for a whole chunked message; FORCE works as root */
            if (setsockopt(sv[i], SOL_SOCKET, SO_RCVBUFFORCE, &big, sizeof big) < 0)
                setsockopt(sv[i], SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
            if (setsockopt(sv[i], SOL_SOCKET, SO_SNDBUFFORCE, &big, sizeof big) < 0)
                setsockopt(sv[i], SOL_SOCKET, SO_SNDBUF, &big, sizeof big);
        }
        if (bind(sv[0], (struct sockaddr *)&a, sizeof a) < 0 || bind(sv[1], (struct sockaddr *)&b, sizeof b) < 0 ||
            getsockname(sv[0], (struct sockaddr *)&a, &sl) < 0 ||
            (sl = sizeof b, getsockname(sv[1], (struct sockaddr *)&b, &sl)) < 0 ||
            connect(sv[0], (struct sockaddr *)&b, sizeof b) < 0 || connect(sv[1], (struct sockaddr *)&a, sizeof a) < 0)
            return -1;
        return 0;
    }
    int l = sock(1, SOCK_STREAM);   /* the far end listens; its accepted socket is side 1 */
    if (l < 0 || bind(l, (struct sockaddr *)&b, sizeof b) < 0 || listen(l, 1) < 0 ||
        getsockname(l, (struct sockaddr *)&b, &sl) < 0)
        return -1;
    sv[0] = sock(0, SOCK_STREAM);
    if (connect(sv[0], (struct sockaddr *)&b, sizeof b) < 0 || (sv[1] = accept(l, NULL, NULL)) < 0)
        return -1;
    close(l);
    for (int i = 0; i < 2; i++)
        setsockopt(sv[i], IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    return 0;
}

static void child(int ctl, int pin)
{
    struct cmd c;
    if (pin)
        mpb_pin(1);
    while (read(ctl, &c, sizeof c) == sizeof c && c.test >= 0) {
        int rc = run(1, c.test, c.n, c.iters);
        if (write(ctl, &rc, sizeof rc) != sizeof rc)
            break;
    }
    _exit(0);
}

/* One command to the child, timed on our side; -1 if it broke. */
static double point(int ctl, int test, long n, int iters)
{
    struct cmd c = { test, (int)n, iters };
    int rc, crc;
    if (write(ctl, &c, sizeof c) != sizeof c)
        return -1;
    usleep(1000);  /* let the child reach its loop */
    double t0 = mpb_now();
    rc = run(0, test, n, iters);
    double dt = mpb_now() - t0;
    if (read(ctl, &crc, sizeof crc) != sizeof crc || rc || crc)
        return -1;
    return dt;
}

int main(int argc, char **argv)
{
    struct mpb_opts o;
    mpb_opts_default(&o);
    int on[NTESTS] = { 1, 1, 1, 1 }, c;
    while ((c = getopt(argc, argv, "T:N:m:zn:s:i:w:r:t:o:qPh")) != -1) {
        if (c == 'N') {
            if (parse_ns(optarg) < 0) {
                fprintf(stderr, "rawbench: -N wants NETNS:ADDR0:ADDR1 (a namespace file, two IPv4"
                                " addresses)\n");
                return 2;
            }
            continue;
        }
        int r = mpb_opt(&o, c, optarg);
        if (r > 0)
            continue;
        if (c == 'T' && r == 0) {
            for (int t = 0; t < NTESTS; t++)
                on[t] = strstr(optarg, names[t]) != NULL || !strcmp(optarg, "all");
            continue;
        }
        fprintf(stderr, "usage: rawbench [-T tcp_latency,udp_latency,tcp_bandwidth,udp_bandwidth]"
                        " [-N NETNS:ADDR0:ADDR1]\n%s", mpb_common_usage);
        return c == 'h' ? 0 : 2;
    }
    if (mpb_make_sizes(&o) < 0)
        return 2;
    long max = mpb_max_size(&o);
    if (max > (1L << 30) || !(buf = calloc(1, (size_t)max + DGRAM)))
        return 1;
    signal(SIGPIPE, SIG_IGN);
    int ctl[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, ctl) < 0 || pair(0, fds[T_TCPLAT]) < 0 ||
        pair(1, fds[T_UDPLAT]) < 0 || pair(0, fds[T_TCPBW]) < 0 || pair(1, fds[T_UDPBW]) < 0) {
        perror("rawbench: sockets");
        return 1;
    }
    pid_t pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0)
        child(ctl[1], !o.nopin);
    if (!o.nopin)
        mpb_pin(0);
    printf("# rawbench: %s, busy polling, %d cpus%s, %d timed runs per point\n",
           far_ns >= 0 ? "sockets in two network namespaces" : "loopback sockets", mpb_ncpus(),
           o.nopin ? "" : ", pinned to cores 0/1", o.repeats);
    int rc = 0;
    for (int t = 0; t < NTESTS && !rc; t++) {
        if (!on[t])
            continue;
        struct mpb_series s;
        if (mpb_series_open(&s, &o, names[t], units[t]) < 0) {
            rc = 1;
            break;
        }
        for (int i = 0; i < o.nsizes; i++) {
            long n = o.sizes[i];
            mpb_progress(&o, names[t], n);
            double warm = o.warm ? point(ctl[0], t, n, o.warm) : 0;
            int iters = warm < 0 ? 0 : mpb_iters_for(&o, warm, o.warm);
            double val[MPB_MAXREP];
            for (int r = 0; r < o.repeats && iters; r++) {
                double dt = point(ctl[0], t, n, iters);
                if (dt < 0)
                    iters = 0;
                else
                    val[r] = t == T_TCPBW || t == T_UDPBW ? (double)n * iters / dt / 1e6
                                                          : dt / iters / 2 * 1e6;
            }
            if (!iters) {
                int udp = t == T_UDPLAT || t == T_UDPBW;
                if (!udp)
                    rc = 1;
                fprintf(stderr, "\nrawbench: %s broke at %ld bytes%s\n", names[t], n,
                        udp ? " (datagram lost); series ends here" : "");
                break;
            }
            mpb_series_point(&s, n, val, o.repeats, iters);
        }
        mpb_series_close(&s);
    }
    mpb_progress_done(&o);
    struct cmd q = { -1, 0, 0 };
    if (write(ctl[0], &q, sizeof q) < 0)
        kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
    return rc;
}
