/*
 * tr_shm.c - the shared-memory transport, for peers on the same host
 * (same kernel and same network namespace).  Reliable and ordered like
 * tcp, so am_proto.c keeps no copies or timers.
 *
 * Each pair of endpoints shares one segment from memfd_create (no file, no
 * /dev/shm entry) holding two single-producer/single-consumer byte rings,
 * one per direction.  Each record carries a stamp that says it is
 * published (no shared head), so a polling receiver reads one cache line
 * per small AM, the one the sender wrote; the receiver's tail sits on a
 * line of its own, and a receiver that polls makes no system call.  The
 * connector makes the segment (sealed against shrinking: the acceptor's
 * mapping must never end past the file's end, which faults) and passes it
 * with its wake-up eventfd over an abstract AF_UNIX
 * socket named "pvmam-" + the acceptor's address (abstract names are per
 * network namespace and vanish with their socket); the peer must have our
 * uid (SO_PEERCRED).  The acceptor answers with its own eventfd.  The
 * socket then stays open only to say when the other side is gone; a pidfd
 * says it too, for a peer whose socket a forked child still holds.
 *
 * Records in a ring start on cache lines and are contiguous (a PAD record skips
 * the ring's end); a ring that its reader has emptied starts over at its
 * first line, which the writer still holds (tr_shm.h, struct rec): a
 * ping-pong writes one line per direction, as a bare flag would.  AM
 * headers in records are in host order (am_int.h, host_order): both ends
 * are on this host, so nothing is swapped.  A small AM (payload up to
 * AMX_PACK_MAX) is copied out before its handler runs, so its room goes
 * back at once; one up to INLINE_MAX is copied in and handled in place,
 * and so is a medium one (up to half of the ring) when the ring has room
 * for it now.  A bigger one is a descriptor of the
 * sender's memory which the receiver copies with process_vm_readv straight
 * to where it goes (a placer's buffer), once, while the sender waits for
 * the ring's `done` count (from HELP_MIN the waiting sender is asked to
 * write the second half meanwhile, process_vm_writev: two cores copy); where the kernel refuses that (ptrace rules,
 * probed when the link opens; or LIBAM_SHM_NO_CMA set in the receiver's
 * environment, a test knob), the payload follows in CHUNK records through
 * the ring instead.  Everything read from the segment is the other
 * process's word: copied before use and bounds-checked, and a ring that
 * breaks the rules makes its peer dead.
 *
 * Sleeping: am_event_fd() marks every inbound ring "consumer sleeping" and
 * looks at the rings again; a sender that publishes into a marked ring
 * clears the mark and writes the receiver's eventfd.  The event fd is an
 * epoll set of that eventfd, the listener, and each peer's socket and
 * pidfd, so a blocked task also wakes when a peer dies.  am_poll clears
 * the marks.  A sender waiting for room or for a copy marks its ring
 * "producer waiting" the same way.
 */
#define _GNU_SOURCE   /* memfd_create, process_vm_readv, accept4 */
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/un.h>
#include "am_int.h"
#include "tr_shm.h"

#define WAIT_SPIN_US 30      /* a sender waiting for its peer spins this long, then sleeps */
#define COPY_SPIN_US 20000   /* ...or this long while its peer is copying its payload */
#define HELP_MIN (256u << 10)   /* a BIG_CMA payload this big is copied by both ends */
#define RX_BATCH 64          /* records per ring per poll: callers stay responsive */

#define PROBE_BASE 0x70766d616d73686dull
static uint64_t probe_word = PROBE_BASE;

/* The word a peer reads to learn whether it may read our memory, set
 * before each hello and welcome: it holds our pid, so a forked relative
 * (same address, same static) does not pass for us. */
static uint64_t probe_now(void)
{
    probe_word = PROBE_BASE ^ (uint64_t)getpid();
    return probe_word;
}

#define LOAD_ACQ(p) __atomic_load_n((p), __ATOMIC_ACQUIRE)
#define STORE_REL(p, v) __atomic_store_n((p), (v), __ATOMIC_RELEASE)
#define STORE(p, v) __atomic_store_n((p), (v), __ATOMIC_RELAXED)
#define FENCE() __atomic_thread_fence(__ATOMIC_SEQ_CST)

/* epoll data: these two, else an endpoint (its socket), +1 for its pidfd */
#define EV_LISTEN 1u
#define EV_WAKE 2u

/* Connections accepted before their endpoint is: see tr_tcp.c. */
#define MAX_PARKED 1024

struct parked {
    int fd, memfd, efd;
    pid_t pid;
    uint64_t since_us;
    struct hello h;
};

/* Connections whose hello has not come yet: never waited for, so one
 * that says nothing costs the task a slot for at most HELLO_WAIT_US, not
 * a stall (see tr_tcp.c).  In the epoll set as GREET_TAG(fd): endpoints
 * are pointers (multiples of 8, +1 for their pidfd), the rest is 1 or 2. */
#define MAX_GREET 64             /* full: the oldest goes */
#define HELLO_WAIT_US 1000000u   /* a real connector says hello at once */
#define GREET_TAG(fd) ((uint64_t)(fd) << 3 | 3)

struct greeting {
    int fd;
    pid_t pid;
    uint64_t since_us;
};

struct shm {
    int lfd, epfd, efd;
    struct parked *park;
    int npark, park_cap;
    struct greeting greet[MAX_GREET];
    int ngreet;
    unsigned polls;
    int armed;                   /* am_event_fd marked the rings: am_poll unmarks */
    int no_cma;                  /* LIBAM_SHM_NO_CMA: never read peers' memory */
    int help_knob;               /* test knobs: LIBAM_SHM_NO_HELP (1): never write a
                                    consumer's part; LIBAM_SHM_HELP_FAILS (2): claim it
                                    and say the write failed (help_write) */
    char host[AMX_ADDRLEN];      /* "<boot id>:<net namespace>" */
};

struct blob { struct blob *next; size_t len; char data[]; };

struct shm_ep {
    char host[AMX_ADDRLEN];
    int fd, pidfd, peer_efd;
    pid_t pid;
    int connector, welcomed;
    char *base;                  /* the segment, mapped */
    size_t seg_size;
    uint64_t R;                  /* ring size, a power of two */
    uint64_t salt;               /* the segment's (struct rec) */
    struct ring *out, *in;
    char *out_data, *in_data;
    /* producer */
    uint64_t head, tail_seen, big_seq;   /* tail_seen: from tail or from acks */
    uint64_t wbase;              /* the out ring's base (struct rec) */
    int claimed;                 /* reserve() gave out room that commit() has not
                                    published yet: no wait may come in between */
    int sending;                 /* in shm_send: nested sends are queued */
    const struct iovec *help_iov;   /* the BIG_CMA waiting for done, while the */
    int help_n;                     /* consumer may ask us to write a part of it: */
    size_t help_from, help_total;   /* its payload: from byte help_from on */
    struct blob *outq, *outq_tail;
    /* consumer */
    uint64_t rpos;               /* next record */
    uint64_t rbase;              /* the in ring's base (struct rec) */
    uint64_t released;           /* let go up to here: tail, and our records' ack */
    int pinned;                  /* handlers running on a record in the ring */
    uint64_t rlooked;            /* rpos when we last looked for a waiting producer */
    int warm;                    /* 0: not yet; 1: asked (declined); 2: mapped whole */
    int rx_depth;                /* read_ring on the stack (handlers may nest) */
    int rx_busy;                 /* rx holds an AM being handled */
    char *rx;
    size_t rx_cap;
    /* a BIG_STREAM payload still arriving in CHUNKs */
    int landing, land_placed, land_discard;
    size_t land_left, land_total;
    char *land_dst, *land_buf;     /* land_buf: the rx buffer it fills, if not placed */
    struct amx_hdr land_h;
    unsigned char land_head[HEAD_INL];
};

static int run_events(am_interface_t *ifc);
static int shm_recv(am_interface_t *ifc);
static void send_queued(am_interface_t *ifc, am_endpoint_t *ep);

/* ---- identity and addresses ------------------------------------------- */

/* "<boot id, 32 hex>:<net namespace inode, hex>": what a host is here. */
static int host_id(char *buf, size_t size)
{
    char b[64], hex[33];
    int fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, b, sizeof b - 1);
    close(fd);
    int k = 0;
    for (ssize_t i = 0; i < n && k < 32; i++)
        if ((b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f'))
            hex[k++] = b[i];
    hex[k] = '\0';
    struct stat st;
    if (k != 32 || stat("/proc/self/ns/net", &st) < 0)
        return -1;
    int l = snprintf(buf, size, "%s:%llx", hex, (unsigned long long)st.st_ino);
    return l > 0 && (size_t)l < size ? 0 : -1;
}

static socklen_t abstract_name(const char *addr, struct sockaddr_un *sa)
{
    memset(sa, 0, sizeof *sa);
    sa->sun_family = AF_UNIX;
    int n = snprintf(sa->sun_path + 1, sizeof sa->sun_path - 1, SHM_SOCK_PREFIX "%s", addr);
    return (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
}

/* The peer's pid, if it runs under our uid; -1 otherwise. */
static int peer_pid(int fd, pid_t *pid)
{
    struct ucred c;
    socklen_t l = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &l) < 0 || c.uid != geteuid())
        return -1;
    *pid = c.pid;
    return 0;
}

/* May we read pid's memory?  It told us where a known word is. */
static int can_read(const struct shm *s, pid_t pid, uint64_t addr, uint64_t val)
{
    uint64_t got = 0;
    struct iovec l = { &got, sizeof got }, r = { (void *)(uintptr_t)addr, sizeof got };
    return !s->no_cma && pid > 0 &&
           process_vm_readv(pid, &l, 1, &r, 1, 0) == (ssize_t)sizeof got && got == val;
}

/* Is fd an eventfd, like our own?  We write the peer's to wake it: any
 * other kind of file could block that write or mean something else. */
static int is_eventfd(const struct shm *s, int fd)
{
    struct stat a, b;
    return fstat(fd, &a) == 0 && fstat(s->efd, &b) == 0 && a.st_dev == b.st_dev &&
           a.st_ino == b.st_ino && (a.st_mode & S_IFMT) == (b.st_mode & S_IFMT);
}

/* ---- the socket: descriptors passed with SCM_RIGHTS ----------------------- */

static int send_fds(int fd, const void *buf, size_t len, const int *fds, int nfd)
{
    union { char b[CMSG_SPACE(sizeof(int) * 2)]; struct cmsghdr align; } u;
    struct iovec v = { (void *)buf, len };
    struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
                         .msg_controllen = CMSG_SPACE(sizeof(int) * (size_t)nfd) };
    memset(u.b, 0, sizeof u.b);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int) * (size_t)nfd);
    memcpy(CMSG_DATA(c), fds, sizeof(int) * (size_t)nfd);
    return sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT) == (ssize_t)len ? 0 : -1;
}

/* One message of exactly len bytes and nfd descriptors, waiting until
 * deadline (0: not at all).  AM_ERR_TIMEOUT if nothing came, AM_ERR_DEAD
 * for the end of the stream or anything else.  *cred (if not NULL) gets
 * the sender's credentials where the socket passes them (SO_PASSCRED),
 * else pid 0. */
static int recv_fds(int fd, void *buf, size_t len, int *fds, int nfd, uint64_t deadline,
                    struct ucred *cred)
{
    if (cred)
        cred->pid = 0;
    for (;;) {
        union { char b[CMSG_SPACE(sizeof(int) * 4) + CMSG_SPACE(sizeof(struct ucred))];
                struct cmsghdr align; } u;
        struct iovec v = { buf, len };
        struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
                             .msg_controllen = sizeof u.b };
        ssize_t r = recvmsg(fd, &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
        if (r < 0 && (errno == EAGAIN || errno == EINTR)) {
            uint64_t now = amx_now_us();
            if (now >= deadline)
                return AM_ERR_TIMEOUT;
            struct pollfd p = { .fd = fd, .events = POLLIN };
            poll(&p, 1, (int)((deadline - now) / 1000 + 1));
            continue;
        }
        int got = 0, tmp[4];
        for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); r >= 0 && c; c = CMSG_NXTHDR(&mh, c)) {
            if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS && cred &&
                c->cmsg_len == CMSG_LEN(sizeof *cred))
                memcpy(cred, CMSG_DATA(c), sizeof *cred);
            if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
                continue;
            size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
            for (size_t i = 0; i < k; i++) {
                int x;
                memcpy(&x, CMSG_DATA(c) + i * sizeof(int), sizeof x);
                if (got < 4)
                    tmp[got++] = x;
                else
                    close(x);
            }
        }
        if (r != (ssize_t)len || got != nfd || (mh.msg_flags & (MSG_CTRUNC | MSG_TRUNC))) {
            for (int i = 0; i < got; i++)
                close(tmp[i]);
            return AM_ERR_DEAD;
        }
        memcpy(fds, tmp, sizeof(int) * (size_t)nfd);
        return AM_OK;
    }
}

/* ---- interface ------------------------------------------------------------ */

static int shm_init(am_interface_t *ifc)
{
    static unsigned counter;
    struct shm *s = calloc(1, sizeof *s);
    if (!s)
        return AM_ERR_NOMEM;
    int rc = AM_ERR_SYS;
    s->lfd = s->epfd = s->efd = -1;
    s->no_cma = getenv("LIBAM_SHM_NO_CMA") != NULL;
    s->help_knob = getenv("LIBAM_SHM_NO_HELP") ? 1 : getenv("LIBAM_SHM_HELP_FAILS") ? 2 : 0;
    if (host_id(s->host, sizeof s->host) < 0)
        goto fail;
    if ((s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 ||
        (s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        (s->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        goto fail;
    for (int tries = 0;; tries++) {   /* our pid plus a counter: taken only by a twin */
        int l = snprintf(ifc->self_addr, sizeof ifc->self_addr, "shm:%s:%x:%x", s->host,
                         (unsigned)getpid(), counter++ & 0xffff);
        if (l < 0 || (size_t)l >= sizeof ifc->self_addr)
            goto fail;
        struct sockaddr_un sa;
        socklen_t sl = abstract_name(ifc->self_addr, &sa);
        if (bind(s->lfd, (struct sockaddr *)&sa, sl) == 0)
            break;
        if (errno != EADDRINUSE || tries > 64)
            goto fail;
    }
    struct epoll_event el = { .events = EPOLLIN, .data.u64 = EV_LISTEN };
    struct epoll_event ew = { .events = EPOLLIN, .data.u64 = EV_WAKE };
    if (listen(s->lfd, 128) < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &el) < 0 ||
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->efd, &ew) < 0)
        goto fail;
    ifc->trd = s;
    return AM_OK;
fail:
    if (s->lfd >= 0)
        close(s->lfd);
    if (s->epfd >= 0)
        close(s->epfd);
    if (s->efd >= 0)
        close(s->efd);
    free(s);
    return rc;
}

static void close_parked(struct parked *pk)
{
    close(pk->fd);
    close(pk->memfd);
    close(pk->efd);
}

static void shm_shutdown(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    for (int i = 0; i < s->npark; i++)
        close_parked(&s->park[i]);
    for (int i = 0; i < s->ngreet; i++)
        close(s->greet[i].fd);
    free(s->park);
    close(s->lfd);
    close(s->epfd);
    close(s->efd);
    free(s);
}

/* ---- endpoints ------------------------------------------------------------ */

static int shm_ep_new(am_interface_t *ifc, am_endpoint_t *ep)
{
    (void)ifc;
    struct shm_ep *e = calloc(1, sizeof *e);
    if (!e)
        return AM_ERR_NOMEM;
    e->fd = e->pidfd = e->peer_efd = -1;
    ep->tp = e;
    return AM_OK;
}

/* "shm:<host>:<pid>:<n>", and the host must be ours. */
static int shm_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    size_t hl = strlen(s->host);
    unsigned pid, n;
    int used = 0;
    if (strncmp(name, "shm:", 4) || strncmp(name + 4, s->host, hl) || name[4 + hl] != ':' ||
        sscanf(name + 5 + hl, "%x:%x%n", &pid, &n, &used) != 2 || name[5 + hl + used])
        return AM_ERR_BADADDR;
    snprintf(e->host, sizeof e->host, "%s", s->host);
    return AM_OK;
}

static void shm_host(const am_endpoint_t *ep, char *buf, size_t size)
{
    const struct shm_ep *e = ep->tp;
    snprintf(buf, size, "%s", e->host);
}

/* Ring sizes that never fill with small AMs under the depth window:
 * depth requests and depth replies each way, and room to wrap. */
static uint64_t ring_size_for(unsigned depth)
{
    uint64_t need = (uint64_t)(2 * depth + 4) * REC_LEN(AMX_HDR + INLINE_MAX);
    uint64_t r = RING_MIN;
    while (r < need)
        r <<= 1;
    return r;
}

/* Map the segment's pages at once, in each process, when a link's traffic
 * starts (WARM_AT bytes through either ring on our side): otherwise the
 * first lap of each ring takes a page fault every 32 small records, which
 * made an 8-byte ping-pong's first 4096 messages about 0.15 us slower
 * each.  Not when the link opens: an idle link (pvmam_init's mesh) would
 * then hold the whole segment (1 MiB at the default depth) instead of
 * the two pages its set-up touches (issue 20: an idle peer costs less than
 * 16 KB).  And only for a task's first few links: a task with hundreds of
 * peers that each get a few messages would pay that for nothing
 * (tests/integration/scale.sh: pvmam_init of 64 tasks took 12 s instead
 * of 0.4 when every link was mapped whole).  A kernel without
 * MADV_POPULATE_WRITE (before 5.14) just faults later. */
#define WARM_LINKS 4
#define WARM_AT 4096u

static void warm(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    int n = 0;
    e->warm = 1;   /* asked once, done or not */
    for (am_endpoint_t *o = ifc->eps; o && n <= WARM_LINKS; o = o->next) {
        const struct shm_ep *oe = o->tp;
        n += o != ep && oe && oe->warm == 2 && !o->dead;
    }
    if (n >= WARM_LINKS)
        return;
#ifdef MADV_POPULATE_WRITE
    if (madvise(e->base, e->seg_size, MADV_POPULATE_WRITE) == 0)
        e->warm = 2;
    /* else an old kernel (EINVAL): the pages come on first touch */
#endif
}

/* Cheap enough for every record: one compare until the link is warm. */
#define WARM_CHECK(ifc, ep, e, pos) \
    do { if (__builtin_expect(!(e)->warm && (pos) >= WARM_AT, 0)) warm(ifc, ep); } while (0)

/* Point ep at its rings: the connector produces ring 0. */
static void use_segment(struct shm_ep *e, char *base, size_t size, uint64_t R, int connector)
{
    struct seg *g = (struct seg *)base;
    e->base = base;
    e->seg_size = size;
    e->R = R;
    e->salt = LOAD_ACQ(&g->salt);
    e->connector = connector;
    e->out = &g->ring[connector ? 0 : 1];
    e->in = &g->ring[connector ? 1 : 0];
    e->out_data = base + DATA_OFF + (connector ? 0 : R);
    e->in_data = base + DATA_OFF + (connector ? R : 0);
}

/* Watch the peer's pid (its end), instead of any pid watched before. */
static int watch_pid(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    if (e->pidfd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->pidfd, NULL);
        close(e->pidfd);
        e->pidfd = -1;
    }
#ifdef SYS_pidfd_open
    if (e->pid > 0)
        e->pidfd = (int)syscall(SYS_pidfd_open, e->pid, 0);   /* -1: the socket still tells */
#endif
    if (e->pidfd >= 0) {
        fcntl(e->pidfd, F_SETFD, FD_CLOEXEC);
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uintptr_t)ep + 1 };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, e->pidfd, &ev) < 0)
            return AM_ERR_SYS;
    }
    return AM_OK;
}

/* Watch the peer's socket and pidfd (its end). */
static int watch(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uintptr_t)ep };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0)
        return AM_ERR_SYS;
    return watch_pid(ifc, ep);
}

static int shm_connect(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    uint64_t deadline = amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    uint64_t R = ring_size_for(ifc->cfg.depth);
    size_t size = DATA_OFF + 2 * R;
    int memfd = -1, fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    char *base = MAP_FAILED;
    if (fd < 0)
        return AM_ERR_SYS;
    /* SO_PEERCRED names whoever called listen(), which is not the acceptor
     * when that task forked after am_init and its child accepts (ambench):
     * the welcome's credentials, which the kernel fills in, say who it is */
    int one = 1;
    if (setsockopt(fd, SOL_SOCKET, SO_PASSCRED, &one, sizeof one) < 0) {
        close(fd);
        return AM_ERR_SYS;
    }
    struct sockaddr_un sa;
    socklen_t sl = abstract_name(ep->name, &sa);
    while (connect(fd, (struct sockaddr *)&sa, sl) < 0) {
        if (errno == EINTR)
            continue;
        if (errno != EAGAIN || amx_now_us() >= deadline)   /* EAGAIN: its backlog is full */
            goto fail;
        usleep(1000);
    }
    if (peer_pid(fd, &e->pid) < 0)
        goto fail;
    if ((memfd = memfd_create("pvmam-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0 ||
        ftruncate(memfd, (off_t)size) < 0 ||
        fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
        goto fail;
    base = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (base == MAP_FAILED)
        goto fail;
    struct seg *g = (struct seg *)base;
    g->magic = SEG_MAGIC;
    g->version = SEG_VERSION;
    g->ring_size = R;
    if (amx_key_new(&g->salt) < 0)
        goto fail;
    g->salt |= (uint64_t)1 << 63;   /* never a position: fresh zeroes are no stamp */
    struct hello h = { .magic = SEG_MAGIC, .version = SEG_VERSION, .key = ep->key,
                       .seg_size = size,
                       .ring_size = R, .probe_addr = (uintptr_t)&probe_word,
                       .probe_val = probe_now() };
    snprintf(h.addr, sizeof h.addr, "%s", ifc->self_addr);
    int fds[2] = { memfd, s->efd };
    if (send_fds(fd, &h, sizeof h, fds, 2) < 0)
        goto fail;
    close(memfd);   /* the acceptor has its own; the mapping keeps ours */
    memfd = -1;
    use_segment(e, base, size, R, 1);
    e->fd = fd;
    if (watch(ifc, ep) < 0)
        return AM_ERR_SYS;   /* ep_free closes the rest */
    return AM_OK;
fail:
    if (base != MAP_FAILED)
        munmap(base, size);
    if (memfd >= 0)
        close(memfd);
    close(fd);
    return AM_ERR_DEAD;
}

/* Connector: the acceptor's answer (its eventfd), waiting until deadline. */
static int take_welcome(am_interface_t *ifc, am_endpoint_t *ep, uint64_t deadline)
{
    struct shm_ep *e = ep->tp;
    struct welcome w;
    struct ucred cr;
    int efd;
    if (e->welcomed)
        return AM_OK;
    int rc = recv_fds(e->fd, &w, sizeof w, &efd, 1, deadline, &cr);
    if (rc < 0)
        return rc;
    if (w.magic != SEG_MAGIC || w.version != SEG_VERSION || !is_eventfd(ifc->trd, efd) ||
        (cr.pid > 0 && cr.uid != geteuid())) {
        close(efd);
        return AM_ERR_DEAD;
    }
    e->peer_efd = efd;
    e->welcomed = 1;
    if (cr.pid > 0 && cr.pid != e->pid) {   /* the acceptor is not the listener's maker */
        e->pid = cr.pid;
        if (watch_pid(ifc, ep) < 0)
            return AM_ERR_DEAD;
    }
    if (can_read(ifc->trd, e->pid, w.probe_addr, w.probe_val))
        STORE(&e->in->cma_ok, 1);
    return AM_OK;
}

static void greet_drop(am_interface_t *ifc, struct shm *s, int i, int count)
{
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->greet[i].fd, NULL);
    close(s->greet[i].fd);
    s->greet[i] = s->greet[--s->ngreet];
    if (count)
        ifc->st.drops++;
}

/* Close parked connections nobody claimed in time, and connections whose
 * hello did not come in time. */
static void expire_parked(am_interface_t *ifc, struct shm *s)
{
    uint64_t now = amx_now_us(), limit = (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    for (int i = 0; i < s->ngreet;) {
        if (now - s->greet[i].since_us > HELLO_WAIT_US)
            greet_drop(ifc, s, i, 1);
        else
            i++;
    }
    for (int i = 0; i < s->npark;) {
        if (now - s->park[i].since_us > limit) {
            close_parked(&s->park[i]);
            s->park[i] = s->park[--s->npark];
            ifc->st.drops++;
        } else {
            i++;
        }
    }
}

/* Read greeting i's hello if it has come, and park the connection under
 * the name it says; one without our secret is closed (auth_drops). */
static void greet_input(am_interface_t *ifc, struct shm *s, int i)
{
    struct parked pk;
    int fds[2];
    int rc = recv_fds(s->greet[i].fd, &pk.h, sizeof pk.h, fds, 2, 0, NULL);
    if (rc == AM_ERR_TIMEOUT)
        return;   /* not yet */
    if (rc < 0) {
        greet_drop(ifc, s, i, 1);   /* garbage, or gone */
        return;
    }
    epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->greet[i].fd, NULL);   /* parked: not watched */
    pk.fd = s->greet[i].fd;
    pk.pid = s->greet[i].pid;
    s->greet[i] = s->greet[--s->ngreet];
    pk.memfd = fds[0];
    pk.efd = fds[1];
    pk.since_us = amx_now_us();
    if (pk.h.magic != SEG_MAGIC || pk.h.version != SEG_VERSION ||
        !memchr(pk.h.addr, '\0', sizeof pk.h.addr) ||
        (s->npark == s->park_cap && s->park_cap >= MAX_PARKED)) {
        ifc->st.drops++;
        close_parked(&pk);
        return;
    }
    struct amx_hdr ah = { .key = pk.h.key };
    if (!amx_auth(ifc, NULL, &ah)) {   /* not a holder of our address: counted there */
        close_parked(&pk);
        return;
    }
    if (s->npark == s->park_cap) {
        int cap = s->park_cap ? s->park_cap * 2 : 16;
        struct parked *np = realloc(s->park, sizeof *np * (size_t)cap);
        if (!np) {
            close_parked(&pk);
            return;
        }
        s->park = np;
        s->park_cap = cap;
    }
    s->park[s->npark++] = pk;
}

static int greet_find(const struct shm *s, int fd)
{
    for (int i = 0; i < s->ngreet; i++)
        if (s->greet[i].fd == fd)
            return i;
    return -1;
}

/* Accept one pending connection of our uid and read its hello if it has
 * come (a real connector's has). */
static void accept_one(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    pid_t pid;
    int fd = accept4(s->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0)
        return;
    if (peer_pid(fd, &pid) < 0) {
        ifc->st.drops++;   /* another user: nothing is read */
        close(fd);
        return;
    }
    if (s->ngreet == MAX_GREET) {   /* the oldest has had the longest to speak */
        int old = 0;
        for (int i = 1; i < s->ngreet; i++)
            if (s->greet[i].since_us < s->greet[old].since_us)
                old = i;
        greet_drop(ifc, s, old, 1);
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = GREET_TAG(fd) };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev) < 0) {
        close(fd);
        ifc->st.drops++;
        return;
    }
    s->greet[s->ngreet++] = (struct greeting){ .fd = fd, .pid = pid, .since_us = amx_now_us() };
    greet_input(ifc, s, s->ngreet - 1);
}

/* Wait up to ms for connections and hellos, and take them in. */
static void wait_greetings(am_interface_t *ifc, struct shm *s, int ms)
{
    struct pollfd p[1 + MAX_GREET];
    int n = 0;
    p[n++] = (struct pollfd){ .fd = s->lfd, .events = POLLIN };
    for (int i = 0; i < s->ngreet; i++)
        p[n++] = (struct pollfd){ .fd = s->greet[i].fd, .events = POLLIN };
    if (poll(p, (nfds_t)n, ms) <= 0)
        return;
    for (int k = 1; k < n; k++) {
        int i = p[k].revents ? greet_find(s, p[k].fd) : -1;
        if (i >= 0)
            greet_input(ifc, s, i);
    }
    if (p[0].revents)
        accept_one(ifc);
}

/* Map the connector's segment after checking every size it claims. */
static int attach_parked(am_interface_t *ifc, am_endpoint_t *ep, struct parked *pk)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    uint64_t R = pk->h.ring_size;
    struct stat st;
    int seals = fcntl(pk->memfd, F_GET_SEALS);
    if (R < RING_MIN || R > RING_MAX || (R & (R - 1)) || pk->h.seg_size != DATA_OFF + 2 * R ||
        fstat(pk->memfd, &st) < 0 || (uint64_t)st.st_size != pk->h.seg_size ||
        seals < 0 || !(seals & F_SEAL_SHRINK) || !is_eventfd(s, pk->efd))
        return AM_ERR_DEAD;   /* a segment it could shrink would fault us (SIGBUS) */
    char *base = mmap(NULL, pk->h.seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, pk->memfd, 0);
    if (base == MAP_FAILED)
        return AM_ERR_SYS;
    struct seg *g = (struct seg *)base;
    if (LOAD_ACQ(&g->magic) != SEG_MAGIC || LOAD_ACQ(&g->version) != SEG_VERSION ||
        LOAD_ACQ(&g->ring_size) != R) {
        munmap(base, pk->h.seg_size);
        return AM_ERR_DEAD;
    }
    use_segment(e, base, pk->h.seg_size, R, 0);
    close(pk->memfd);
    e->fd = pk->fd;
    e->peer_efd = pk->efd;
    e->pid = pk->pid;
    e->welcomed = 1;
    pk->fd = pk->memfd = pk->efd = -1;
    if (can_read(s, e->pid, pk->h.probe_addr, pk->h.probe_val))
        STORE(&e->in->cma_ok, 1);
    struct welcome w = { .magic = SEG_MAGIC, .version = SEG_VERSION,
                         .probe_addr = (uintptr_t)&probe_word, .probe_val = probe_now() };
    if (send_fds(e->fd, &w, sizeof w, &s->efd, 1) < 0)
        return AM_ERR_DEAD;
    return watch(ifc, ep);
}

static int shm_accept(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    uint64_t deadline = amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    for (;;) {
        for (int i = 0; i < s->npark; i++) {
            if (!strcmp(s->park[i].h.addr, ep->name)) {
                struct parked pk = s->park[i];
                s->park[i] = s->park[--s->npark];
                int rc = attach_parked(ifc, ep, &pk);
                if (pk.fd >= 0)
                    close_parked(&pk);
                return rc;
            }
        }
        uint64_t now = amx_now_us();
        if (now >= deadline)
            return AM_ERR_TIMEOUT;
        expire_parked(ifc, s);
        int ms = (int)((deadline - now) / 1000 + 1);
        wait_greetings(ifc, s, ms > 100 ? 100 : ms);   /* wake to expire greetings */
    }
}

static void free_outq(struct shm_ep *e)
{
    while (e->outq) {
        struct blob *b = e->outq;
        e->outq = b->next;
        free(b);
    }
    e->outq_tail = NULL;
}

static void shm_close_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    if (e->landing && e->land_buf && e->land_buf != e->rx)
        free(e->land_buf);   /* a payload under way is abandoned */
    e->landing = 0;
    e->land_dst = e->land_buf = NULL;
    if (e->fd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->fd, NULL);
        close(e->fd);
        e->fd = -1;
    }
    if (e->pidfd >= 0) {
        epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->pidfd, NULL);
        close(e->pidfd);
        e->pidfd = -1;
    }
    if (e->peer_efd >= 0) {
        close(e->peer_efd);
        e->peer_efd = -1;
    }
}

/* The mapping stays until here: a handler may still be reading from it. */
static void shm_ep_free(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    shm_close_ep(ifc, ep);
    if (e->base)
        munmap(e->base, e->seg_size);
    free_outq(e);
    free(e->rx);
    free(e);
    ep->tp = NULL;
}

/* ---- waking --------------------------------------------------------------- */

static void wake(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    if (e->peer_efd < 0 && e->connector && !e->welcomed && e->fd >= 0 &&
        take_welcome(ifc, ep, amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u) < 0) {
        /* it marked the ring after accepting, so its answer must be here */
        amx_declare_dead(ifc, ep);
        return;
    }
    uint64_t one = 1;
    if (e->peer_efd >= 0 && write(e->peer_efd, &one, sizeof one) < 0 && errno != EAGAIN)
        amx_declare_dead(ifc, ep);
}

/* The consumer moved tail or done: wake a producer that sleeps on it. */
static void consumed(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    FENCE();
    if (LOAD_ACQ(&e->in->prod_waiting) && __atomic_exchange_n(&e->in->prod_waiting, 0,
                                                              __ATOMIC_ACQ_REL))
        wake(ifc, ep);
}

/* ---- receiving ------------------------------------------------------------ */

static int corrupt(am_interface_t *ifc, am_endpoint_t *ep)
{
    ep->st.drops++;   /* a broken ring cannot be resynchronised */
    ifc->st.drops++;
    amx_declare_dead(ifc, ep);
    return 0;
}

/* A buffer for an AM of len bytes that no placer took: rx, unless an outer
 * handler is still reading rx (then a fresh one, freed after). */
static char *rx_buf(struct shm_ep *e, size_t len)
{
    if (e->rx_busy)
        return malloc(len ? len : 1);
    if (e->rx_cap < len) {
        char *b = realloc(e->rx, len);
        if (!b)
            return NULL;
        e->rx = b;
        e->rx_cap = len;
    }
    return e->rx;
}

static int deliver_big(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                       char *buf, int placed, size_t hl, unsigned char *head)
{
    struct shm_ep *e = ep->tp;
    if (placed) {
        struct amx_hdr hh = *h;
        hh.len = (uint32_t)hl;
        return amx_input_placed(ifc, ep, &hh, (char *)head, h->len - hl);
    }
    int own = buf == e->rx;
    e->rx_busy += own;
    int n = amx_input(ifc, ep, h, buf);
    e->rx_busy -= own;
    if (!own)
        free(buf);
    return n;
}

/* Where a big AM's payload goes: a placer's buffer (*placed, *hl set;
 * the head's bytes past hl already copied there) or an rx buffer holding
 * the head.  Returns where the rest (after the head) goes, or NULL. */
static char *big_dest(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                      const struct big *b, char **buf, int *placed, size_t *hl)
{
    size_t l;
    char *d = amx_offer_place(ifc, ep, h, (const char *)b->head, b->head_len, &l);
    *placed = 0;
    *hl = 0;
    if (d) {
        memcpy(d, b->head + l, b->head_len - l);
        *placed = 1;
        *hl = l;
        *buf = NULL;
        return d + (b->head_len - l);
    }
    if (!(*buf = rx_buf(ep->tp, h->len)))
        return NULL;
    memcpy(*buf, b->head, b->head_len);
    return *buf + b->head_len;
}

/* Go on after the first `done` bytes of v[*first..n): a partial copy. */
static void iov_skip(struct iovec *v, unsigned n, unsigned *first, size_t done)
{
    while (done > 0 && *first < n) {
        size_t k = done < v[*first].iov_len ? done : v[*first].iov_len;
        v[*first].iov_base = (char *)v[*first].iov_base + k;
        v[*first].iov_len -= k;
        done -= k;
        if (!v[*first].iov_len)
            ++*first;
    }
}

/* Copy len bytes of the peer's memory (spans, from byte skip on) to dst. */
static int cma_read(pid_t pid, char *dst, size_t skip, size_t len, const struct span *sp,
                    unsigned n)
{
    struct iovec r[MAX_IOV];
    for (unsigned i = 0; i < n; i++)
        r[i] = (struct iovec){ (void *)(uintptr_t)sp[i].base, (size_t)sp[i].len };
    unsigned first = 0;
    iov_skip(r, n, &first, skip);
    while (len > 0) {
        struct iovec l = { dst, len };
        ssize_t got = process_vm_readv(pid, &l, 1, r + first, n - first, 0);
        if (got <= 0)
            return -1;
        dst += got;
        len -= (size_t)got;
        iov_skip(r, n, &first, (size_t)got);
    }
    return 0;
}

/* The header as the peer's am_proto.c wrote it (host_order: no swapping,
 * no magic); copied out of the ring first, then checked like amx_parse. */
static int parse_am(am_interface_t *ifc, const char *body, struct amx_hdr *h)
{
    memcpy(h, body, sizeof *h);
    h->flags &= AMX_F_ACKNOW;
    h->pb = h->pb != 0;
    return (h->type != AMX_REQ && h->type != AMX_REP) || h->len > ifc->cfg.max_payload ? -1 : 0;
}

/* memcpy for the few bytes of a small AM without a library call (most
 * are a fragment header and a few words): whole words, the last one
 * overlapping the one before; never reads outside src. */
static inline void copy_small(char *d, const char *src, size_t n)
{
    uint64_t w;
    if (n < 8) {
        while (n--)
            *d++ = *src++;
        return;
    }
    for (size_t i = 0; i + 8 < n; i += 8) {
        memcpy(&w, src + i, 8);
        memcpy(d + i, &w, 8);
    }
    memcpy(&w, src + n - 8, 8);
    memcpy(d + n - 8, &w, 8);
}

/* Every record before rpos is read, and none is in a running handler's
 * hands: let go of them all (sent as the ack of our next record). */
static inline void release(struct shm_ep *e)
{
    if (!e->pinned)
        e->released = e->rpos;
}

/* A small AM's payload is copied out, so its room goes back before its
 * handler runs (and replies: the reply's ack lets the sender start its
 * ring over); a bigger one is handled in place, pinning the ring. */
static inline __attribute__((always_inline)) int on_am(am_interface_t *ifc, am_endpoint_t *ep,
                                                     char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    struct amx_hdr h;
    if (size < AMX_HDR || parse_am(ifc, body, &h) < 0 || h.len != size - AMX_HDR)
        return corrupt(ifc, ep);
    ifc->rx_read += size;
    if (h.len <= AMX_PACK_MAX) {
        _Alignas(16) char p[AMX_PACK_MAX];
        if (h.len <= 64)
            copy_small(p, body + AMX_HDR, h.len);
        else
            memcpy(p, body + AMX_HDR, h.len);
        release(e);
        return amx_input(ifc, ep, &h, p);
    }
    e->pinned++;
    int n = amx_input(ifc, ep, &h, body + AMX_HDR);
    e->pinned--;
    return n;
}

/* Is the peer's process still there?  (Its pidfd, else its pid.) */
static int peer_alive(const struct shm_ep *e)
{
    if (e->pidfd >= 0) {
        struct pollfd p = { .fd = e->pidfd, .events = POLLIN };
        return poll(&p, 1, 0) == 0;
    }
    return e->pid > 0 && (kill(e->pid, 0) == 0 || errno == EPERM);
}

/* The part of BIG_CMA payload we asked the producer to write (from byte
 * mine on, to dst + mine): take it back if it has not started, and copy
 * it ourselves; else wait for its write (it runs: it only copies), and
 * copy ourselves if that failed.  0, or -1 if the copy failed. */
static int help_finish(am_interface_t *ifc, am_endpoint_t *ep, char *dst, size_t mine,
                       size_t rest, const struct span *sp, unsigned n)
{
    struct shm_ep *e = ep->tp;
    struct ring *q = e->in;
    uint32_t st = HELP_ASKED;
    if (!__atomic_compare_exchange_n(&q->help_state, &st, HELP_TAKEN, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE)) {
        uint64_t check = 0;
        for (unsigned spins = 0; (st = LOAD_ACQ(&q->help_state)) == HELP_WRITING; spins++) {
            __builtin_ia32_pause();
            if ((spins & 1023) != 1023)
                continue;
            if (ifc->cfg.wait == AM_WAIT_YIELD)
                sched_yield();
            uint64_t now = amx_now_us();
            if (now - check >= 1000) {   /* once a millisecond: did it die writing? */
                check = now;
                if (!peer_alive(e))
                    return -1;
            }
        }
        if (st == HELP_WRITTEN)
            return 0;
    }
    return cma_read(e->pid, dst + mine, mine, rest - mine, sp, n);
}

static int on_big(am_interface_t *ifc, am_endpoint_t *ep, const char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    struct shm *s = ifc->trd;
    struct amx_hdr h;
    struct big b;
    struct span sp[MAX_IOV];
    if (size < AMX_HDR + sizeof b || parse_am(ifc, body, &h) < 0)
        return corrupt(ifc, ep);
    memcpy(&b, body + AMX_HDR, sizeof b);
    if (b.head_len > HEAD_INL || b.head_len > h.len)
        return corrupt(ifc, ep);
    size_t rest = h.len - b.head_len, sum = 0;
    if (b.mode == BIG_CMA) {
        if (s->no_cma || !LOAD_ACQ(&e->in->cma_ok) || b.niov > MAX_IOV ||
            size != AMX_HDR + sizeof b + b.niov * sizeof *sp)
            return corrupt(ifc, ep);
        memcpy(sp, body + AMX_HDR + sizeof b, b.niov * sizeof *sp);
        for (unsigned i = 0; i < b.niov; i++) {
            if (sp[i].len > rest - sum)
                return corrupt(ifc, ep);
            sum += sp[i].len;
        }
        if (sum != rest)
            return corrupt(ifc, ep);
    } else if (b.mode != BIG_STREAM || size != AMX_HDR + sizeof b) {
        return corrupt(ifc, ep);
    }
    char *buf;
    int placed;
    size_t hl;
    char *dst = big_dest(ifc, ep, &h, &b, &buf, &placed, &hl);
    if (!dst)
        return corrupt(ifc, ep);   /* no memory: cannot take it, cannot skip it */
    if (b.mode == BIG_CMA) {
        STORE_REL(&e->in->copying, b.seq);   /* its sender need not sleep */
        /* A big one: the producer, which waits for done, writes the second
         * half (from a page boundary of ours) while we read the first. */
        size_t mine = rest;
        if (rest >= HELP_MIN && LOAD_ACQ(&e->out->cma_ok)) {
            mine = (size_t)(((uintptr_t)dst + rest / 2 + 4095) & ~(uintptr_t)4095) -
                   (uintptr_t)dst;
            struct ring *q = e->in;
            STORE(&q->help_state, HELP_ASKED);
            STORE(&q->help_dst, (uint64_t)(uintptr_t)(dst + mine));
            STORE(&q->help_len, rest - mine);
            STORE(&q->help_off, mine);
            STORE_REL(&q->help_seq, b.seq);
        }
        int bad = cma_read(e->pid, dst, 0, mine, sp, b.niov);
        if (mine < rest)
            bad = help_finish(ifc, ep, dst, mine, rest, sp, b.niov) < 0 || bad;
        STORE_REL(&e->in->done, b.seq);   /* its memory is the sender's again */
        consumed(ifc, ep);
        if (bad) {
            if (buf && buf != e->rx)
                free(buf);
            return corrupt(ifc, ep);   /* gone, or it described memory it has not */
        }
        ifc->rx_read += AMX_HDR + h.len;
        return deliver_big(ifc, ep, &h, buf, placed, hl, b.head);
    }
    e->landing = 1;
    e->land_h = h;
    e->land_placed = placed;
    e->land_discard = 0;
    e->land_total = hl;   /* the head length, while landing */
    memcpy(e->land_head, b.head, b.head_len);
    e->land_dst = dst;
    e->land_buf = buf;
    e->land_left = rest;
    ifc->rx_read += AMX_HDR + b.head_len;
    e->rx_busy += buf == e->rx;   /* rx is ours until delivered */
    return 0;
}

static int on_chunk(am_interface_t *ifc, am_endpoint_t *ep, const char *body, uint32_t size)
{
    struct shm_ep *e = ep->tp;
    if (!e->landing || size > e->land_left || !size)
        return corrupt(ifc, ep);
    if (!e->land_discard)
        memcpy(e->land_dst, body, size);
    e->land_dst += size;
    e->land_left -= size;
    ifc->rx_read += size;
    if (e->land_left)
        return 0;
    struct amx_hdr h = e->land_h;
    unsigned char head[HEAD_INL];
    memcpy(head, e->land_head, sizeof head);
    int placed = e->land_placed;
    size_t hl = e->land_total;
    char *buf = e->land_buf;
    e->landing = 0;
    e->land_dst = e->land_buf = NULL;
    if (buf && buf == e->rx)
        e->rx_busy--;
    return deliver_big(ifc, ep, &h, buf, placed, hl, head);
}

/* The record the peer published at rpos, or NULL: where rpos says, or
 * at the first line if the peer started the ring over (struct rec). */
static inline __attribute__((always_inline)) struct rec *pending(struct shm_ep *e)
{
    uint64_t want = e->rpos ^ e->salt;
    struct rec *at = (struct rec *)(e->in_data + ((e->rpos - e->rbase) & (e->R - 1)));
    if (LOAD_ACQ(&at->stamp) == want)
        return at;
    at = (struct rec *)e->in_data;
    if (LOAD_ACQ(&at->stamp) != want)
        return NULL;
    e->rbase = e->rpos;
    return at;
}

/* The peer has let go of our out ring up to a (a record's ack): room,
 * and if it is all of it, the ring may start over.  A value outside what
 * we wrote is ignored (only the peer's own input could suffer from it). */
static inline void take_ack(struct shm_ep *e, uint64_t a)
{
    if (a - e->tail_seen <= e->head - e->tail_seen)
        e->tail_seen = a;
}

/* Where the next record of the out ring goes: the first line again when
 * the peer has let go of all of it (struct rec).  It moves the base, so
 * its answer holds only until the next record is written or the next
 * wait: a wait runs handlers, whose replies (shm_put_small) and acks
 * (take_ack) may empty the ring and move the base again.  So reserve()
 * asks it after waiting, and the record goes where it said at once. */
static inline uint64_t out_off(struct shm_ep *e)
{
    if (e->tail_seen == e->head)
        e->wbase = e->head;
    return (e->head - e->wbase) & (e->R - 1);
}

/* Handle what the peer published, up to RX_BATCH records; the space goes
 * back (tail) when no handler of this ring is still running. */
static int read_ring(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    struct rec *at = pending(e);
    if (!at)
        return 0;
    int handled = 0;
    e->rx_depth++;
    /* a handler's nested poll may read on: rpos is looked at anew each time */
    for (int k = 0; k < RX_BATCH && !ep->dead && (k == 0 || (at = pending(e))); k++) {
        uint64_t off = (uint64_t)((char *)at - e->in_data);
        struct rec r = { 0, at->kind, at->size, at->ack };   /* after the stamp (acquire) */
        uint64_t adv = REC_LEN(r.size);
        if (r.size > e->R - off - sizeof r || adv > e->R - off) {
            corrupt(ifc, ep);
            break;
        }
        /* A small AM's record takes two or three lines: ask for the rest
         * now, so their misses overlap parsing instead of following it */
        for (uint64_t l = REC_ALIGN; l < adv && l < 4 * REC_ALIGN; l += REC_ALIGN)
            __builtin_prefetch((char *)at + l);
        /* A big AM waits for the next poll unless it comes first: the
         * caller may have to act on what came before it (a pvm_precv that
         * returns and posts its buffer again), so that it finds a placer
         * ready instead of landing in a buffer and being copied twice. */
        if (r.kind == REC_BIG && k > 0)
            break;
        char *body = e->in_data + off + sizeof r;
        e->rpos += adv;   /* before the handler: a nested poll goes on from here */
        take_ack(e, r.ack);
        WARM_CHECK(ifc, ep, e, e->rpos);
        if (e->landing && r.kind != REC_CHUNK && r.kind != REC_PAD) {
            corrupt(ifc, ep);
            break;
        }
        switch (r.kind) {
        case REC_PAD: release(e); break;
        case REC_AM: handled += on_am(ifc, ep, body, r.size); break;
        case REC_BIG:
        case REC_CHUNK:
            e->pinned++;
            handled += r.kind == REC_BIG ? on_big(ifc, ep, body, r.size)
                                         : on_chunk(ifc, ep, body, r.size);
            e->pinned--;
            break;
        default: corrupt(ifc, ep); break;
        }
    }
    if (--e->rx_depth == 0 && e->base) {
        e->released = e->rpos;
        STORE_REL(&e->in->tail, e->rpos);
        /* A producer waits for room only with more than R/8 of the ring
         * in use (a record and its pad take at most 7R/8), so looking for
         * it once per R/8 consumed finds it, and saves the fence per poll */
        if (!ep->dead && e->rpos - e->rlooked >= e->R / 8) {
            e->rlooked = e->rpos;
            consumed(ifc, ep);
        }
    }
    return handled;
}

/* The peer's socket or pidfd spoke: before its answer (connector) that is
 * the answer; otherwise it is gone.  What it sent before counts. */
static int peer_event(am_interface_t *ifc, am_endpoint_t *ep, int pidfd)
{
    struct shm_ep *e = ep->tp;
    if (ep->dead)
        return 0;
    if (!pidfd && !e->welcomed) {
        int rc = take_welcome(ifc, ep, 0);
        if (rc != AM_ERR_DEAD)
            return 0;
    }
    int handled = 0;
    for (int i = 0; i < 1024 && !ep->dead && pending(e); i++)
        handled += read_ring(ifc, ep);
    amx_declare_dead(ifc, ep);
    return handled;
}

/* The epoll set without waiting: the listener, our eventfd, peers. */
static int run_events(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    struct epoll_event evs[32];
    int handled = 0;
    if (s->npark || s->ngreet)
        expire_parked(ifc, s);
    int n = epoll_wait(s->epfd, evs, 32, 0);
    for (int i = 0; i < n; i++) {
        uint64_t d = evs[i].data.u64;
        if ((d & 7) == 3) {   /* GREET_TAG */
            int g = greet_find(s, (int)(d >> 3));
            if (g >= 0)
                greet_input(ifc, s, g);
        } else if (d == EV_LISTEN) {
            accept_one(ifc);
        } else if (d == EV_WAKE) {
            uint64_t v;
            if (read(s->efd, &v, sizeof v) < 0 && errno != EAGAIN)
                continue;
        } else {
            am_endpoint_t *ep = (am_endpoint_t *)(uintptr_t)(d & ~(uint64_t)1);
            handled += peer_event(ifc, ep, (int)(d & 1));
        }
    }
    return handled;
}

static void mark_sleeping(am_interface_t *ifc, uint32_t v)
{
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        struct shm_ep *e = ep->tp;
        if (e->base && !ep->dead)
            STORE(&e->in->cons_sleeping, v);
    }
}

static int shm_recv(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    int handled = 0;
    s->polls++;
    if (s->armed) {   /* back from (maybe) sleeping: unmark, and see why we woke */
        s->armed = 0;
        mark_sleeping(ifc, 0);
        handled += run_events(ifc);
    } else if (!(s->polls % 256)) {   /* new connections, dead peers: now and then */
        handled += run_events(ifc);
    }
    int k = 0;
    for (am_endpoint_t *ep = ifc->eps; ep && k < 4096; ep = ep->next, k++) {
        struct shm_ep *e = ep->tp;
        if (!e->base || ep->dead)
            continue;
        if (!e->welcomed && !(s->polls % 16) && e->fd >= 0 &&
            take_welcome(ifc, ep, 0) == AM_ERR_DEAD) {
            handled += peer_event(ifc, ep, 1);
            continue;
        }
        handled += read_ring(ifc, ep);
        if (e->outq && !e->sending && !e->rx_depth && !ep->dead)
            send_queued(ifc, ep);   /* replies handlers could not send without waiting */
    }
    return handled;
}

/* The caller is about to block on the epoll set: mark every inbound ring,
 * then look again, so a record published meanwhile is not slept through. */
static int shm_event_fd(const am_interface_t *cifc)
{
    am_interface_t *ifc = (am_interface_t *)cifc;
    struct shm *s = ifc->trd;
    s->armed = 1;
    mark_sleeping(ifc, 1);
    FENCE();
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        struct shm_ep *e = ep->tp;
        if (e->base && !ep->dead && pending(e)) {
            uint64_t one = 1;
            if (write(s->efd, &one, sizeof one) < 0) {
                /* the counter is full: it is readable anyway */
            }
            break;
        }
    }
    return s->epfd;
}

/* ---- sending -------------------------------------------------------------- */

enum { W_SPACE, W_DONE };

/* Has the peer made room for `need` bytes, or copied BIG `need`?
 * -1: its tail makes no sense (past what we wrote; behind what an ack
 * said is only late, as tail is published after a batch). */
static int ready(struct shm_ep *e, int what, uint64_t need)
{
    if (what == W_DONE)
        return (int64_t)(LOAD_ACQ(&e->out->done) - need) >= 0;
    uint64_t t = LOAD_ACQ(&e->out->tail);
    if ((int64_t)(t - e->head) > 0)
        return -1;
    take_ack(e, t);   /* only forward: an ack may have told us more already */
    return e->R - (e->head - e->tail_seen) >= need;
}

/* The consumer of our BIG_CMA `seq` asked us to write a part of it to
 * its memory (struct ring, help_*): claim it, write it, say how it went. */
static void help_write(am_interface_t *ifc, am_endpoint_t *ep, uint64_t seq)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct ring *q = e->out;
    uint32_t st = HELP_ASKED;
    if (!e->help_iov || s->help_knob == 1 || LOAD_ACQ(&q->help_seq) != seq ||
        !__atomic_compare_exchange_n(&q->help_state, &st, HELP_WRITING, 0, __ATOMIC_ACQ_REL,
                                     __ATOMIC_ACQUIRE))
        return;
    uint64_t dst = LOAD_ACQ(&q->help_dst), len = LOAD_ACQ(&q->help_len);
    uint64_t off = LOAD_ACQ(&q->help_off);
    int ok = s->help_knob != 2 && off <= e->help_total && len <= e->help_total - off &&
             e->help_n <= MAX_IOV;
    struct iovec l[MAX_IOV];
    unsigned n = ok ? (unsigned)e->help_n : 0, first = 0;
    memcpy(l, e->help_iov, sizeof *l * n);
    iov_skip(l, n, &first, e->help_from + (size_t)off);
    while (ok && len > 0) {
        struct iovec r = { (void *)(uintptr_t)dst, (size_t)len };
        ssize_t put = process_vm_writev(e->pid, l + first, n - first, &r, 1, 0);
        if (put <= 0) {
            ok = 0;
            break;
        }
        dst += (uint64_t)put;
        len -= (uint64_t)put;
        iov_skip(l, n, &first, (size_t)put);
    }
    STORE_REL(&q->help_state, ok ? HELP_WRITTEN : HELP_FAILED);
}

/* Wait for ready(), handling our own input meanwhile (two tasks sending
 * big AMs to each other must not wait for each other); spin briefly, then
 * sleep on the epoll set with the ring marked, so the peer's consumer
 * wakes us; a peer that dies wakes us too. */
static int wait_out(am_interface_t *ifc, am_endpoint_t *ep, int what, uint64_t need)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    uint64_t spin_end = 0, copy_end = 0;
    /* The wait rule (docs/architecture.md, "Waits"): never wait holding
     * room not yet published.  Its offset would be stale afterwards, and
     * the peer would look for the next record where it is not. */
    assert(!e->claimed);
    for (;;) {
        if (what == W_DONE && e->help_iov)
            help_write(ifc, ep, need);
        int r = ep->dead ? 0 : ready(e, what, need);
        if (r < 0) {
            corrupt(ifc, ep);
            return AM_ERR_DEAD;
        }
        if (ep->dead)
            return AM_ERR_DEAD;
        if (r)
            return AM_OK;
        shm_recv(ifc);
        amx_wait_hook(ifc);
        uint64_t now = amx_now_us();
        if (!spin_end)
            spin_end = now + WAIT_SPIN_US;
        if (now < spin_end || ep->dead)
            continue;
        /* The peer runs and copies our payload now: it is done in a
         * moment, and waking us would cost more than the copy's rest.
         * Give the core away meanwhile if told to (tasks outnumbering
         * cores: the copier may need this one). */
        if (what == W_DONE && LOAD_ACQ(&e->out->copying) == need) {
            if (!copy_end)
                copy_end = now + COPY_SPIN_US;
            if (now < copy_end) {
                if (ifc->cfg.wait == AM_WAIT_YIELD)
                    sched_yield();
                continue;
            }
        }
        /* about to sleep: the blank replies we owe go first, as before any
         * sleep (am_event_fd); those to ep queue behind this send */
        amx_pay_all(ifc);
        STORE(&e->out->prod_waiting, 1);
        FENCE();
        if (!ep->dead && ready(e, what, need) == 0) {
            shm_event_fd(ifc);
            struct pollfd p = { .fd = s->epfd, .events = POLLIN };
            poll(&p, 1, ifc->wait_hook ? 1 : 100);
        }
        STORE(&e->out->prod_waiting, 0);
        spin_end = 0;
    }
}

/* Room for a record with `size` body bytes, contiguous (a PAD fills the
 * end of the ring if needed).  Returns where its header goes, or NULL;
 * the caller fills it and commit()s it without waiting in between.
 * Where it goes is decided after the last wait, never before: while we
 * waited the peer may have emptied the ring and a handler's reply
 * (shm_put_small) started it over at its first line, and a record
 * written at the offset found before would lie where the peer never
 * looks (both tasks then wait for ever: the peer for replies behind that
 * record, we for the peer to copy it). */
static char *reserve(am_interface_t *ifc, am_endpoint_t *ep, uint64_t size)
{
    struct shm_ep *e = ep->tp;
    uint64_t need = REC_LEN(size), off, pad;
    for (;;) {
        off = out_off(e);
        pad = e->R - off < need ? e->R - off : 0;
        if (e->R - (e->head - e->tail_seen) >= pad + need)
            break;
        /* at most the whole ring: once it is empty, it starts over and
         * needs no pad */
        if (wait_out(ifc, ep, W_SPACE, pad + need < e->R ? pad + need : e->R) < 0)
            return NULL;
    }
    e->claimed = 1;
    if (pad) {   /* published at once: the consumer may skip it now */
        struct rec *at = (struct rec *)(e->out_data + off);
        at->kind = REC_PAD;
        at->size = (uint32_t)(pad - sizeof *at);
        at->ack = e->released;
        STORE_REL(&at->stamp, e->head ^ e->salt);
        e->head += pad;
        off = 0;
    }
    return e->out_data + off;
}

/* Publish the record at at; wake the peer if it sleeps.  Inline: on
 * every small AM (shm_put_small). */
static inline void commit(am_interface_t *ifc, am_endpoint_t *ep, char *at, uint32_t kind, uint64_t size)
{
    struct shm_ep *e = ep->tp;
    struct rec *r = (struct rec *)at;
    e->claimed = 0;
    r->kind = kind;
    r->size = (uint32_t)size;
    r->ack = e->released;
    STORE_REL(&r->stamp, e->head ^ e->salt);
    e->head += REC_LEN(size);
    WARM_CHECK(ifc, ep, e, e->head);
    FENCE();
    if (LOAD_ACQ(&e->out->cons_sleeping) &&
        __atomic_exchange_n(&e->out->cons_sleeping, 0, __ATOMIC_ACQ_REL))
        wake(ifc, ep);
}

/* Copy len bytes starting at byte `from` of the iovecs to dst. */
static void gather(char *dst, const struct iovec *iov, int n, size_t from, size_t len)
{
    for (int i = 0; i < n && len; i++) {
        size_t l = iov[i].iov_len;
        if (from >= l) {
            from -= l;
            continue;
        }
        size_t k = l - from < len ? l - from : len;
        memcpy(dst, (char *)iov[i].iov_base + from, k);
        dst += k;
        len -= k;
        from = 0;
    }
}


/* The spans of the iovecs from byte `from` on. */
static unsigned spans_from(struct span *sp, const struct iovec *iov, int n, size_t from)
{
    unsigned k = 0;
    for (int i = 0; i < n && k < MAX_IOV; i++) {
        size_t l = iov[i].iov_len;
        if (from >= l) {
            from -= l;
            continue;
        }
        sp[k++] = (struct span){ (uintptr_t)iov[i].iov_base + from, l - from };
        from = 0;
    }
    return k;
}

static int send_big(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n,
                    size_t total)
{
    struct shm_ep *e = ep->tp;
    struct big b;
    struct span sp[MAX_IOV];
    char hdr[AMX_HDR];
    size_t len = total - AMX_HDR;
    memset(&b, 0, sizeof b);
    gather(hdr, iov, n, 0, AMX_HDR);
    b.head_len = len < HEAD_INL ? (uint32_t)len : HEAD_INL;
    gather((char *)b.head, iov, n, AMX_HDR, b.head_len);
    size_t from = AMX_HDR + b.head_len;
    int cma = LOAD_ACQ(&e->out->cma_ok) != 0;
    b.mode = cma ? BIG_CMA : BIG_STREAM;
    b.niov = cma ? spans_from(sp, iov, n, from) : 0;
    if (b.niov > 65)
        return AM_ERR_INVAL;
    b.seq = cma ? e->big_seq + 1 : 0;
    uint64_t size = AMX_HDR + sizeof b + b.niov * sizeof *sp;
    char *at = reserve(ifc, ep, size);
    if (!at)
        return AM_ERR_DEAD;
    memcpy(at + sizeof(struct rec), hdr, AMX_HDR);
    memcpy(at + sizeof(struct rec) + AMX_HDR, &b, sizeof b);
    memcpy(at + sizeof(struct rec) + AMX_HDR + sizeof b, sp, b.niov * sizeof *sp);
    commit(ifc, ep, at, REC_BIG, size);
    if (cma) {   /* it reads from our memory: ours again when done says so */
        e->big_seq++;
        e->help_iov = iov;   /* meanwhile it may ask us to write a part (help_write) */
        e->help_n = n;
        e->help_from = from;
        e->help_total = total - from;
        int rc = wait_out(ifc, ep, W_DONE, b.seq);
        e->help_iov = NULL;
        return rc;
    }
    size_t chunk = e->R / 4;
    while (from < total) {   /* the ring fallback: a pipelined copy */
        size_t k = total - from < chunk ? total - from : chunk;
        if (!(at = reserve(ifc, ep, k)))
            return AM_ERR_DEAD;
        gather(at + sizeof(struct rec), iov, n, from, k);
        commit(ifc, ep, at, REC_CHUNK, k);
        from += k;
    }
    return AM_OK;
}

/* A medium AM (up to half the ring) that fits in the ring now is
 * copied in like a small one: two copies, but the sender goes on at once.
 * The one-copy path waits until the receiver has copied it, and with more
 * tasks than cores the receiver may not run for a while (issue 14). */
static int fits_now(struct shm_ep *e, size_t total)
{
    uint64_t need = REC_LEN(total);
    uint64_t off = out_off(e), pad = e->R - off < need ? e->R - off : 0;
    return total <= e->R / 2 && ready(e, W_SPACE, pad + need) == 1;
}

static int send_one(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total < AMX_HDR)
        return AM_ERR_INVAL;
    if (total > AMX_HDR + INLINE_MAX && !fits_now(ep->tp, total))
        return send_big(ifc, ep, iov, n, total);
    char *at = reserve(ifc, ep, total);
    if (!at)
        return AM_ERR_DEAD;
    gather(at + sizeof(struct rec), iov, n, 0, total);
    commit(ifc, ep, at, REC_AM, total);
    return AM_OK;
}

/* Could the first record of this AM go into the ring now, without
 * waiting for room?  (A big one by descriptor waits afterwards only for
 * the peer's copy; one streamed in CHUNKs waits for room again.) */
static int starts_now(struct shm_ep *e, const struct iovec *iov, int n)
{
    size_t total = 0;
    for (int i = 0; i < n; i++)
        total += iov[i].iov_len;
    if (total > AMX_HDR + INLINE_MAX && !fits_now(e, total)) {
        if (!LOAD_ACQ(&e->out->cma_ok))
            return 0;
        total = AMX_HDR + sizeof(struct big) + (size_t)n * sizeof(struct span);
    }
    uint64_t need = REC_LEN(total), off = out_off(e), pad = e->R - off < need ? e->R - off : 0;
    return ready(e, W_SPACE, pad + need) == 1;
}

/* A send from a handler while a send to the same peer waits: after it.
 * And one from a handler of the peer's own input that cannot start
 * without waiting for room (shm_send): sent by shm_recv afterwards. */
static int queue_out(struct shm_ep *e, const struct iovec *iov, int n)
{
    size_t len = 0;
    for (int i = 0; i < n; i++)
        len += iov[i].iov_len;
    struct blob *b = malloc(sizeof *b + len);
    if (!b)
        return AM_ERR_NOMEM;
    b->next = NULL;
    b->len = len;
    gather(b->data, iov, n, 0, len);
    if (e->outq_tail)
        e->outq_tail->next = b;
    else
        e->outq = b;
    e->outq_tail = b;
    return AM_OK;
}

/* The end of a send (rc its result so far): what handlers queued while it
 * waited goes now, in order. */
static int send_done(am_interface_t *ifc, am_endpoint_t *ep, int rc)
{
    struct shm_ep *e = ep->tp;
    while (rc == AM_OK && e->outq && !ep->dead) {
        struct blob *b = e->outq;
        if (!(e->outq = b->next))
            e->outq_tail = NULL;
        struct iovec v = { b->data, b->len };
        rc = send_one(ifc, ep, &v, 1);
        free(b);
    }
    e->sending = 0;
    return ep->dead ? AM_ERR_DEAD : rc;
}

/* Send what was queued while no send to ep was under way (handlers of
 * ep's input, see shm_send), now that none runs. */
static void send_queued(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    e->sending = 1;
    if (send_done(ifc, ep, AM_OK) < 0 && !ep->dead)
        amx_declare_dead(ifc, ep);   /* the stream would lose a reply */
}

/* The wait rule (docs/architecture.md, "Waits"): a send made while a
 * handler of ep's own input runs (rx_depth: read_ring on the stack) never
 * waits for room in the ring to ep.  That handler pins ep's ring to us
 * (a record handled in place, and the tail is published only once the
 * outermost read_ring ends), so while it waits the peer cannot get room
 * from us either; if the peer's handler waited for room to us the same
 * way, neither would ever return.  Such a send is queued instead and
 * goes from shm_recv once no handler of ep's input runs; one that starts
 * at once may still wait for the peer's copy of a big payload, which any
 * ring read of the peer's makes, nested or not.  Queued AMs keep their
 * order: whatever follows them queues too, or sends them first. */
static int shm_send(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n)
{
    struct shm_ep *e = ep->tp;
    if (ep->dead || !e->base || e->fd < 0)
        return AM_ERR_DEAD;
    if (e->sending || (e->rx_depth && (e->outq || !starts_now(e, iov, n))))
        return queue_out(e, iov, n);
    e->sending = 1;
    int rc = AM_OK;
    while (rc == AM_OK && e->outq && !ep->dead) {   /* queued ones first */
        struct blob *b = e->outq;
        if (!(e->outq = b->next))
            e->outq_tail = NULL;
        struct iovec v = { b->data, b->len };
        rc = send_one(ifc, ep, &v, 1);
        free(b);
    }
    if (rc == AM_OK && !ep->dead)
        rc = send_one(ifc, ep, iov, n);
    return send_done(ifc, ep, rc);
}

/* A small AM (am_proto.c's put_small) written straight into the ring:
 * the header as it is in memory (host_order), then the payload.  Only
 * when it fits now without a pad: waiting for room may run handlers,
 * whose own sends must queue behind this one, and shm_send does that. */
static int shm_put_small(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h,
                         const struct iovec *iov, int n)
{
    struct shm_ep *e = ep->tp;
    uint64_t size = AMX_HDR + (uint64_t)h->len, need = REC_LEN(size);
    /* a send under way first: it may be waiting, and its record goes first */
    if (__builtin_expect(ep->dead || !e->base || e->fd < 0 || e->sending || e->outq, 0))
        return AMX_PUT_LATER;
    uint64_t off = out_off(e);
    if (__builtin_expect(e->R - off < need || e->R - (e->head - e->tail_seen) < need, 0))
        return AMX_PUT_LATER;
    char *at = e->out_data + off, *d = at + sizeof(struct rec) + AMX_HDR;
    memcpy(at + sizeof(struct rec), h, AMX_HDR);
    for (int i = 0; i < n; i++) {
        copy_small(d, iov[i].iov_base, iov[i].iov_len);
        d += iov[i].iov_len;
    }
    commit(ifc, ep, at, REC_AM, size);
    return ep->dead ? AM_ERR_DEAD : AM_OK;
}

static void shm_placement_discard(am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    if (e->landing && e->land_placed)
        e->land_discard = 1;
}

const struct am_transport_ops amx_tr_shm = {
    .name = "shm",
    .reliable = 1,
    .host_order = 1,
    .default_payload = 1u << 20,
    .max_payload = 64u << 20,
    .init = shm_init,
    .shutdown = shm_shutdown,
    .ep_new = shm_ep_new,
    .ep_free = shm_ep_free,
    .peer = shm_peer,
    .host = shm_host,
    .connect = shm_connect,
    .accept = shm_accept,
    .send = shm_send,
    .recv = shm_recv,
    .event_fd = shm_event_fd,
    .close_ep = shm_close_ep,
    .placement_discard = shm_placement_discard,
    .put_small = shm_put_small,
};
