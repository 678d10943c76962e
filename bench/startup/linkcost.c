/*
 * linkcost.c - what the kernel charges for the objects one shm link of
 * libam makes (libam/shm/segment.c), both sides' share, without libam:
 * the floor under pvmam_init's mesh while each link has its own socket,
 * segment, mappings and pidfds (docs/performance.md, pvmam_init(64)).
 * Both ends run in this one process, so what is measured is the kernel's
 * work on the objects, not the wake-ups between two tasks.
 *
 *   linkcost [N]   N links (default 2016, the mesh of 64 tasks), each part
 *                  alone and all together; prints CPU microseconds per link
 *                  to make them (setup) and to close them (teardown), and
 *                  page faults per link (getrusage: load-independent
 *                  except for cache effects).  The last rows: the segment
 *                  not mapped when the link opens (libam maps it on first
 *                  use, libam/shm/segment.c amx_shm_map), then also no
 *                  pidfds (libam opens them at that mapping too)
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>

#define SEG ((size_t)4096 + 2 * ((size_t)512 << 10))   /* the default depth's segment */

enum { P_SOCK = 1, P_SEG = 2, P_FDS = 4, P_WATCH = 8, P_PROBE = 16, P_RING1 = 32, P_SHARED = 64,
       P_NOMAP = 128, P_NOPID = 256 };

struct link { int fd[8]; char *map[2]; };

static double cpu_ms(long *faults)
{
    struct rusage r;
    getrusage(RUSAGE_SELF, &r);
    *faults = r.ru_minflt;
    return (r.ru_utime.tv_sec + r.ru_stime.tv_sec) * 1e3 +
           (r.ru_utime.tv_usec + r.ru_stime.tv_usec) / 1e3;
}

static int send_fds(int fd, const int *fds, int n)
{
    char b[64] = { 0 };
    union { char c[CMSG_SPACE(sizeof(int) * 2)]; struct cmsghdr align; } u;
    struct iovec v = { b, sizeof b };
    struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.c,
                        .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)n) };
    struct cmsghdr *h = CMSG_FIRSTHDR(&m);
    h->cmsg_level = SOL_SOCKET;
    h->cmsg_type = SCM_RIGHTS;
    h->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)n);
    memcpy(CMSG_DATA(h), fds, sizeof(int) * (size_t)n);
    return sendmsg(fd, &m, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static int recv_fds(int fd, int *fds, int n)
{
    char b[64];   /* room for the credentials too (SO_PASSCRED on the connector's) */
    union { char c[CMSG_SPACE(sizeof(int) * 2) + CMSG_SPACE(sizeof(struct ucred))];
            struct cmsghdr align; } u;
    struct iovec v = { b, sizeof b };
    struct msghdr m = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.c,
                        .msg_controllen = sizeof u.c };
    if (recvmsg(fd, &m, MSG_CMSG_CLOEXEC) < 0)
        return -1;
    for (struct cmsghdr *h = CMSG_FIRSTHDR(&m); h; h = CMSG_NXTHDR(&m, h))
        if (h->cmsg_level == SOL_SOCKET && h->cmsg_type == SCM_RIGHTS &&
            h->cmsg_len == CMSG_LEN(sizeof(int) * (size_t)n)) {
            memcpy(fds, CMSG_DATA(h), sizeof(int) * (size_t)n);
            return 0;
        }
    return -1;
}

static int lfd, epfd, efd, shared = -1;
static struct sockaddr_un sa;
static socklen_t sl;

/* One link's objects, as the connector (fd 0) and the acceptor (fd 1)
 * make them: only the parts in `what`. */
static int make(struct link *k, unsigned what)
{
    struct ucred cr;
    socklen_t cl = sizeof cr;
    int one = 1;
    for (int j = 0; j < 8; j++)
        k->fd[j] = -1;
    k->map[0] = k->map[1] = NULL;
    if (what & P_SOCK) {
        k->fd[0] = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (k->fd[0] < 0 || setsockopt(k->fd[0], SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0 ||
            connect(k->fd[0], (struct sockaddr *)&sa, sl) < 0 ||
            getsockopt(k->fd[0], SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0 ||
            (k->fd[1] = accept4(lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC)) < 0 ||
            getsockopt(k->fd[1], SOL_SOCKET, SO_PEERCRED, &cr, &cl) < 0)
            return -1;
    }
    if (what & (P_SEG | P_SHARED)) {
        int m, m2;
        if (what & P_SHARED) {   /* one file for every link: mappings only */
            m = dup(shared);
        } else {
            m = memfd_create("linkcost", MFD_CLOEXEC | MFD_ALLOW_SEALING);
            if (m < 0 || ftruncate(m, (off_t)SEG) < 0 ||
                fcntl(m, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
                return -1;
        }
        if (!(what & P_NOMAP)) {
            k->map[0] = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_SHARED, m, 0);
            if (k->map[0] == MAP_FAILED)
                return -1;
            k->map[0][0] = 1;   /* the connector writes the header */
        }
        if (what & P_FDS) {   /* the hello with [memfd, eventfd], the welcome with [eventfd] */
            int two[2] = { m, efd };
            if (send_fds(k->fd[0], two, 2) < 0 || recv_fds(k->fd[1], two, 2) < 0 ||
                send_fds(k->fd[1], &efd, 1) < 0 || recv_fds(k->fd[0], &k->fd[3], 1) < 0)
                return -1;
            m2 = two[0];
            k->fd[2] = two[1];
        } else {
            m2 = dup(m);
        }
        close(m);
        struct stat st;
        if (fstat(m2, &st) < 0 || fcntl(m2, F_GET_SEALS) < 0)
            return -1;
        if (what & P_NOMAP) {   /* mapped on first use: the memfd is kept until then */
            k->fd[6] = m2;
            goto mapped;
        }
        k->map[1] = mmap(NULL, SEG, PROT_READ | PROT_WRITE, MAP_SHARED, m2, 0);
        close(m2);
        if (k->map[1] == MAP_FAILED)
            return -1;
        (void)*(volatile char *)k->map[1];   /* the acceptor reads it */
        if (what & P_RING1)   /* the connector polls its inbound ring's first line */
            (void)*(volatile char *)(k->map[0] + 4096 + (512 << 10));
    }
mapped:
    if (what & P_WATCH) {   /* each side's pidfd of the other, in its epoll set with the socket */
        struct epoll_event ev = { .events = EPOLLIN };
        if (!(what & P_NOPID)) {
            k->fd[4] = (int)syscall(SYS_pidfd_open, getpid(), 0);
            k->fd[5] = (int)syscall(SYS_pidfd_open, getpid(), 0);
            if (k->fd[4] < 0 || k->fd[5] < 0)
                return -1;
        }
        for (int j = 0; j < 2; j++)
            if ((k->fd[j] >= 0 && epoll_ctl(epfd, EPOLL_CTL_ADD, k->fd[j], &ev) < 0) ||
                (k->fd[4 + j] >= 0 && epoll_ctl(epfd, EPOLL_CTL_ADD, k->fd[4 + j], &ev) < 0))
                return -1;
    }
    if (what & P_PROBE) {   /* may each read the other's memory (process_vm_readv) */
        static long word = 1;
        long got;
        struct iovec l = { &got, sizeof got }, r = { &word, sizeof word };
        for (int j = 0; j < 2; j++)
            if (process_vm_readv(getpid(), &l, 1, &r, 1, 0) != sizeof got)
                return -1;
    }
    return 0;
}

static void unmake(struct link *k)
{
    for (int j = 0; j < 8; j++)
        if (k->fd[j] >= 0)
            close(k->fd[j]);
    for (int j = 0; j < 2; j++)
        if (k->map[j] && k->map[j] != MAP_FAILED)
            munmap(k->map[j], SEG);
}

static int run(const char *name, unsigned what, int n, struct link *ks)
{
    long f0, f1, f2;
    double c0 = cpu_ms(&f0);
    for (int i = 0; i < n; i++)
        if (make(&ks[i], what) < 0) {
            perror(name);
            return -1;
        }
    double c1 = cpu_ms(&f1);
    for (int i = 0; i < n; i++)
        unmake(&ks[i]);
    double c2 = cpu_ms(&f2);
    printf("%-36s setup %6.1f  teardown %6.1f  total %6.1f us/link  faults/link %.2f\n", name,
           (c1 - c0) * 1e3 / n, (c2 - c1) * 1e3 / n, (c2 - c0) * 1e3 / n,
           (double)(f1 - f0) / n);
    return 0;
}

int main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 2016;
    struct link *ks = calloc((size_t)(n > 0 ? n : 1), sizeof *ks);
    struct rlimit rl;
    if (n < 1 || !ks)
        return 2;
    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < (rlim_t)n * 8 + 64) {
        rl.rlim_cur = rl.rlim_max < (rlim_t)n * 8 + 64 ? rl.rlim_max : (rlim_t)n * 8 + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    int l = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "linkcost-%d", (int)getpid());
    sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)l);
    lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    epfd = epoll_create1(EPOLL_CLOEXEC);
    efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    shared = memfd_create("linkcost-shared", MFD_CLOEXEC);
    if (lfd < 0 || epfd < 0 || efd < 0 || shared < 0 || ftruncate(shared, (off_t)SEG) < 0 ||
        bind(lfd, (struct sockaddr *)&sa, sl) < 0 || listen(lfd, n + 16) < 0) {
        perror("linkcost");
        return 1;
    }
    printf("%d links, CPU per link (both sides)\n", n);
    int rc = 0;
    rc |= run("socket pair (connect, accept, creds)", P_SOCK, n, ks);
    rc |= run("segment: memfd, seals, 2 maps", P_SEG, n, ks);
    rc |= run("2 maps of one shared file", P_SHARED, n, ks);
    rc |= run("pidfds and epoll (no socket)", P_WATCH, n, ks);
    rc |= run("CMA probes", P_PROBE, n, ks);
    rc |= run("socket + segment + fd passing", P_SOCK | P_SEG | P_FDS, n, ks);
    rc |= run("all, as before ring.started", P_SOCK | P_SEG | P_FDS | P_WATCH | P_PROBE | P_RING1,
              n, ks);
    rc |= run("all (libam now)", P_SOCK | P_SEG | P_FDS | P_WATCH | P_PROBE, n, ks);
    rc |= run("segment, mapped on first use", P_SEG | P_NOMAP, n, ks);
    rc |= run("all, mapped on first use", P_SOCK | P_SEG | P_FDS | P_WATCH | P_PROBE | P_NOMAP,
              n, ks);
    rc |= run("all, first use, no pidfds", P_SOCK | P_SEG | P_FDS | P_WATCH | P_PROBE | P_NOMAP |
              P_NOPID, n, ks);
    return rc ? 1 : 0;
}
