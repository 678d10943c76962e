/*
 * stranger_raw.c - a process that is not a task of the virtual machine
 * talks to a task's AM address (tests/integration/stranger.sh).  It knows
 * the transport addresses (what a port scan finds), never the secrets
 * (those are only in the pvmd's mailbox), and builds its packets with
 * libam's own header code (amx_pack_hdr), so they are well formed in
 * every other way.  Exit 0 when everything was sent and (tcp, shm) the
 * task closed every connection; what the task got is the task's to check.
 *     stranger_raw udp VICTIM_ADDR PEER_ADDR
 *     stranger_raw tcp VICTIM_ADDR PEER_ADDR
 *     stranger_raw shm VICTIM_ADDR PEER_ADDR
 * (addresses without their "#secret")
 */
#define _GNU_SOURCE   /* memfd_create, setresuid */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>
#include "am_int.h"
#include "am_net.h"
#include "stranger.h"
#include "tr_shm.h"

static uint64_t wrong_key;   /* looks like a real one: 64 random bits */

/* One request to pvmam's fragment handler that, delivered, would be a
 * whole user message of STRANGER_TAG with a 4-byte XDR body. */
static size_t request(char *buf, uint32_t seq, uint64_t key)
{
    static const uint32_t frag[] = { 3, STRANGER_TAG, 0, 0x10000000, 0, 0, 0, 4, 0x57575757 };
    struct amx_hdr h = { .len = sizeof frag, .seq = seq, .type = AMX_REQ,
                         .inst = (uint8_t)(seq % 8), .handler = STRANGER_HANDLER, .key = key };
    amx_pack_hdr(buf, &h);
    for (size_t i = 0; i < sizeof frag / 4; i++) {
        uint32_t v = htonl(frag[i]);
        memcpy(buf + AMX_HDR + 4 * i, &v, 4);
    }
    return AMX_HDR + sizeof frag;
}

static size_t hello(char *buf, const char *name, uint64_t key)
{
    size_t nl = strlen(name) + 1;
    struct amx_hdr h = { .len = (uint32_t)nl, .type = AMX_HELLO, .key = key };
    amx_pack_hdr(buf, &h);
    memcpy(buf + AMX_HDR, name, nl);
    return AMX_HDR + nl;
}

static int udp_burst(int fd, const struct sockaddr_in *to, uint64_t key)
{
    char pkt[256];
    for (uint32_t s = 0; s < STRANGER_UDP_EACH; s++) {
        size_t n = request(pkt, s, key);
        if (sendto(fd, pkt, n, 0, (const struct sockaddr *)to, sizeof *to) != (ssize_t)n) {
            perror("stranger: sendto");
            return -1;
        }
        usleep(200);   /* a burst must not overflow a socket buffer: every one counts */
    }
    return 0;
}

static int udp_stranger(const struct sockaddr_in *victim, const struct sockaddr_in *peer)
{
    int one = 1;
    int fs = socket(AF_INET, SOCK_DGRAM, 0);
    int fp = socket(AF_INET, SOCK_DGRAM, 0);
    if (fs < 0 || fp < 0)
        return perror("stranger: socket"), 1;
    /* the peer's own address: its sockets allow sharing the port */
    if (setsockopt(fp, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
        bind(fp, (const struct sockaddr *)peer, sizeof *peer) < 0)
        return perror("stranger: bind to the peer's address"), 1;
    if (udp_burst(fs, victim, 0) < 0 || udp_burst(fs, victim, wrong_key) < 0 ||
        udp_burst(fp, victim, 0) < 0 || udp_burst(fp, victim, wrong_key) < 0)
        return 1;
    printf("stranger: %d datagrams without the secret, %d of them from the peer's address\n",
           STRANGER_UDP_SENT, STRANGER_UDP_SPOOFED);
    close(fs);
    close(fp);
    return 0;
}

/* Open a connection, send what is given, and wait (bounded) for the task
 * to close it: it must not keep a connection without its secret. */
static int tcp_try(const struct sockaddr_in *victim, const char *what, const char *buf, size_t n)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)victim, sizeof *victim) < 0)
        return perror("stranger: connect"), -1;
    if (send(fd, buf, n, MSG_NOSIGNAL) != (ssize_t)n)
        return perror("stranger: send"), -1;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char c;
    int closed = 0;
    for (int i = 0; i < 50 && !closed; i++) {   /* 50 x 100 ms */
        if (poll(&p, 1, 100) > 0) {
            ssize_t r = recv(fd, &c, 1, 0);
            if (r > 0) {
                fprintf(stderr, "stranger: %s: the task answered\n", what);
                close(fd);
                return -1;
            }
            closed = r == 0 || errno == ECONNRESET;
        }
    }
    close(fd);
    if (!closed) {
        fprintf(stderr, "stranger: %s: the task kept the connection 5 s\n", what);
        return -1;
    }
    printf("stranger: %s: closed by the task\n", what);
    return 0;
}

static int tcp_stranger(const struct sockaddr_in *victim, const char *peer_name)
{
    char buf[4096];
    size_t n;
    int rc = 0;
    n = hello(buf, peer_name, 0);
    rc |= tcp_try(victim, "HELLO without a secret", buf, n);
    n = hello(buf, peer_name, wrong_key);
    rc |= tcp_try(victim, "HELLO with a wrong secret", buf, n);
    n = hello(buf, peer_name, wrong_key);
    for (uint32_t s = 0; s < 20; s++)
        n += request(buf + n, s, wrong_key);
    rc |= tcp_try(victim, "HELLO with a wrong secret, then requests", buf, n);
    n = 0;
    for (uint32_t s = 0; s < 20; s++)
        n += request(buf + n, s, wrong_key);
    rc |= tcp_try(victim, "requests without HELLO", buf, n);
    memset(buf, 0x5a, 64);
    rc |= tcp_try(victim, "garbage", buf, 64);
    rc |= tcp_try(victim, "nothing", buf, 0);
    n = hello(buf, peer_name, wrong_key);
    rc |= tcp_try(victim, "half a header", buf, AMX_HDR / 2);
    return rc ? 1 : 0;
}

/* ---- shm ---------------------------------------------------------------- */

/* Connected to the task's set-up socket, its abstract name being public
 * (/proc/net/unix lists it). */
static int shm_dial(const char *victim)
{
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    int n = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, SHM_SOCK_PREFIX "%s", victim);
    int fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0) {
        perror("stranger: connect to the shm set-up socket");
        return -1;
    }
    return fd;
}

/* A segment as libam makes one (sealed, the right sizes), its ring to the
 * task already holding requests with the given key: what would be
 * delivered if the task took it. */
static int shm_segment(uint64_t key)
{
    size_t size = DATA_OFF + 2 * RING_MIN;
    int fd = memfd_create("pvmam-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0 || ftruncate(fd, (off_t)size) < 0 ||
        fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
        return -1;
    char *base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (base == MAP_FAILED)
        return -1;
    struct seg *g = (struct seg *)base;
    g->magic = SEG_MAGIC;
    g->version = SEG_VERSION;
    g->ring_size = RING_MIN;
    g->salt = (uint64_t)1 << 63 | 0x5eed;
    uint64_t head = 0;
    for (uint32_t s = 0; s < 20; s++) {
        char *at = base + DATA_OFF + head;
        size_t n = request(at + sizeof(struct rec), s, key);
        struct rec r = { head ^ g->salt, REC_AM, (uint32_t)n, 0 };   /* published */
        memcpy(at, &r, sizeof r);
        head += REC_LEN(n);
    }
    munmap(base, size);
    return fd;
}

/* Say what is given (a hello with fds, or bytes without), then wait
 * (bounded) for the task to close the connection. */
static int shm_try(const char *victim, const char *what, const void *buf, size_t len, int nfd,
                   uint64_t key)
{
    int fd = shm_dial(victim), fds[2] = { -1, -1 };
    if (fd < 0)
        return -1;
    if (nfd) {
        fds[0] = shm_segment(key);
        fds[1] = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
        if (fds[0] < 0 || fds[1] < 0)
            return perror("stranger: segment"), -1;
    }
    union { char b[CMSG_SPACE(sizeof fds)]; struct cmsghdr align; } u;
    struct iovec v = { (void *)buf, len };
    struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1 };
    memset(u.b, 0, sizeof u.b);
    if (nfd) {
        mh.msg_control = u.b;
        mh.msg_controllen = sizeof u.b;
        struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
        c->cmsg_level = SOL_SOCKET;
        c->cmsg_type = SCM_RIGHTS;
        c->cmsg_len = CMSG_LEN(sizeof fds);
        memcpy(CMSG_DATA(c), fds, sizeof fds);
    }
    int closed = 0;
    if ((len || nfd) && sendmsg(fd, &mh, MSG_NOSIGNAL) != (ssize_t)len) {
        /* the task may close before we say anything (another user's
         * connection is refused at once): that is the answer wanted */
        if (errno != EPIPE && errno != ECONNRESET)
            return perror("stranger: sendmsg"), -1;
        closed = 1;
    }
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char c[64];
    for (int i = 0; i < 50 && !closed; i++) {   /* 50 x 100 ms */
        if (poll(&p, 1, 100) > 0) {
            ssize_t r = recv(fd, c, sizeof c, 0);
            if (r > 0) {
                fprintf(stderr, "stranger: %s: the task answered\n", what);
                close(fd);
                return -1;
            }
            closed = r == 0 || errno == ECONNRESET;
        }
    }
    close(fd);
    for (int i = 0; i < 2; i++)
        if (fds[i] >= 0)
            close(fds[i]);
    if (!closed) {
        fprintf(stderr, "stranger: %s: the task kept the connection 5 s\n", what);
        return -1;
    }
    printf("stranger: %s: closed by the task\n", what);
    return 0;
}

static void shm_hello(struct hello *h, const char *name, uint64_t key)
{
    memset(h, 0, sizeof *h);
    h->magic = SEG_MAGIC;
    h->version = SEG_VERSION;
    h->key = key;
    snprintf(h->addr, sizeof h->addr, "%s", name);
    h->ring_size = RING_MIN;
    h->seg_size = DATA_OFF + 2 * RING_MIN;
    h->salt = (uint64_t)1 << 63 | 0x5eed;   /* the segment's (shm_segment) */
}

/* The pid in an address "shm:<boot id>:<netns>:<pid>:<n>". */
static long shm_pid(const char *addr)
{
    const char *p = strrchr(addr, ':');
    while (p && p > addr && p[-1] != ':')
        p--;
    return p && p > addr ? strtol(p, NULL, 16) : -1;
}

/* Look for a way into the segments of tasks pid: a memfd still open in
 * them (/proc/PID/fd).  If one opens, write well-formed garbage into it
 * and say so (the task must then drop it: its checks). */
static int shm_break_in(long pid, uint64_t key)
{
    char dir[64], link[512], path[600];
    snprintf(dir, sizeof dir, "/proc/%ld/fd", pid);
    DIR *d = opendir(dir);
    if (!d) {
        printf("stranger: uid %u: %s: %s\n", (unsigned)geteuid(), dir, strerror(errno));
        return 0;
    }
    int found = 0;
    for (struct dirent *de; (de = readdir(d));) {
        snprintf(path, sizeof path, "%s/%s", dir, de->d_name);
        ssize_t n = readlink(path, link, sizeof link - 1);
        if (n <= 0)
            continue;
        link[n] = '\0';
        if (!strstr(link, "memfd:pvmam-shm"))
            continue;
        int fd = open(path, O_RDWR | O_CLOEXEC);
        if (fd < 0)
            continue;
        found = 1;
        fprintf(stderr, "stranger: opened %s (%s): writing into it\n", path, link);
        char rec[256];
        size_t len = request(rec, 0, key);
        for (off_t o = DATA_OFF; o < DATA_OFF + 2 * (off_t)RING_MIN; o += 4096)
            if (pwrite(fd, rec, len, o) < 0)
                break;
        close(fd);
    }
    closedir(d);
    printf("stranger: uid %u: %s: %s\n", (unsigned)geteuid(), dir,
           found ? "a segment opened" : "no segment to open");
    return found;
}

/* As another user (nobody), when we may become one: the task must not
 * even read its hello, and that user gets at nothing of the task's. */
static int shm_other_user(const char *victim, const char *peer, uint64_t key)
{
    if (geteuid() != 0)
        return 0;
    pid_t pid = fork();
    if (pid < 0)
        return -1;
    if (!pid) {
        struct hello h;
        shm_hello(&h, peer, key);
        if (setresgid(65534, 65534, 65534) < 0 || setresuid(65534, 65534, 65534) < 0)
            _exit(2);
        int rc = shm_try(victim, "hello from another user", &h, sizeof h, 2, key) < 0;
        rc |= shm_break_in(shm_pid(victim), key) | shm_break_in(shm_pid(peer), key);
        _exit(rc);
    }
    int st;
    if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
        return -1;
    return 0;
}

static int shm_stranger(const char *victim, const char *peer)
{
    struct hello h;
    char junk[64];
    int rc = 0;
    shm_hello(&h, peer, 0);
    rc |= shm_try(victim, "hello without a secret", &h, sizeof h, 2, 0);
    shm_hello(&h, peer, wrong_key);
    rc |= shm_try(victim, "hello with a wrong secret", &h, sizeof h, 2, wrong_key);
    rc |= shm_try(victim, "hello without descriptors", &h, sizeof h, 0, 0);
    memset(junk, 0x5a, sizeof junk);
    rc |= shm_try(victim, "garbage", junk, sizeof junk, 0, 0);
    rc |= shm_try(victim, "nothing", junk, 0, 0, 0);
    rc |= shm_other_user(victim, peer, wrong_key);
    if (geteuid() != 0)   /* root could get at anything: not a stranger */
        rc |= shm_break_in(shm_pid(victim), wrong_key) | shm_break_in(shm_pid(peer), wrong_key);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: stranger_raw udp|tcp|shm VICTIM_ADDR PEER_ADDR\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (getrandom(&wrong_key, sizeof wrong_key, 0) != (ssize_t)sizeof wrong_key)
        return 2;
    if (!strcmp(argv[1], "shm"))
        return shm_stranger(argv[2], argv[3]);
    struct sockaddr_in victim, peer;
    if (amx_addr_parse(argv[1], argv[2], &victim) < 0 ||
        amx_addr_parse(argv[1], argv[3], &peer) < 0) {
        fprintf(stderr, "stranger: bad address\n");
        return 2;
    }
    return strcmp(argv[1], "udp") ? tcp_stranger(&victim, argv[3])
                                  : udp_stranger(&victim, &peer);
}
