/*
 * segment.c - the shm transport's interface and links: who a host is, the
 * segment two endpoints share, the handshake that passes it, and waking a
 * peer (libam/shm/shm.h lists the transport's files).
 *
 * The connector makes the segment (sealed against shrinking: the
 * acceptor's mapping must never end past the file's end, which faults)
 * and passes it with its wake-up eventfd over an abstract AF_UNIX socket
 * named "pvmam-" + the acceptor's address (abstract names are per network
 * namespace and vanish with their socket); the peer must have our uid
 * (SO_PEERCRED).  The acceptor answers with its own eventfd (the
 * welcome) when it maps the segment (below).  The socket then stays open
 * to say when the other side is gone; a pidfd says it too once the
 * segment is mapped, for a peer whose socket a forked child still holds.
 *
 * The acceptor's side of the handshake ends in am_accept; the
 * connector's ends in amx_shm_handshake, once: the connector does not
 * wait for it in am_connect (the acceptor may call am_accept much later,
 * and records sent meanwhile wait in the ring).
 *
 * Neither side maps the segment in the handshake: each keeps its memfd
 * and maps it when it first sends (amx_shm_map), saying so to the other
 * (the connector with a one-byte note on the socket, NOTE_MAP,
 * libam/tr_shm.h; the acceptor with its welcome), on which the other maps
 * it too.  The mappings, their page faults and the pages of the header
 * were two fifths of the kernel's work per link of pvmam_init's mesh,
 * whose links mostly never carry a message, and each welcome sent at
 * accept woke a connector that slept waiting for the mesh's GO
 * (docs/performance.md).  Nothing about the link is decided there: every
 * check of the segment is made at the handshake (sizes, seals), so a
 * link accepted can take a message at once, and a side that maps after
 * the peer wrote into its ring finds the records where they were put.
 */
#define _GNU_SOURCE   /* memfd_create, process_vm_readv */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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
#include <sys/un.h>
#include "shm.h"

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

/* A segment's salt (struct seg): what matters is that no payload matches
 * it by accident, so one draw per interface (amx_shm_init) and a mix of
 * it with a count per segment do, instead of a getrandom per link.  The
 * mix (splitmix64's) can be undone: a peer that reads its segment's salt
 * may learn those of our other segments, which it cannot map (only the
 * descriptors passed on a link's own socket reach a segment). */
static uint64_t next_salt(struct shm *s)
{
    uint64_t z = (s->salt_base += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

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

/* The peer's pid, if it runs under our uid (the one we had at
 * amx_shm_init); -1 otherwise. */
static int peer_pid(const struct shm *s, int fd, pid_t *pid)
{
    struct ucred c;
    socklen_t l = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &l) < 0 || c.uid != s->euid)
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
 * other kind of file could block that write or mean something else.
 * Every eventfd is an anonymous inode of one device and inode number;
 * ours was looked at once, in amx_shm_init (a call less per link). */
static int is_eventfd(const struct shm *s, int fd)
{
    struct stat a;
    return fstat(fd, &a) == 0 && a.st_dev == s->efd_dev && a.st_ino == s->efd_ino &&
           (a.st_mode & S_IFMT) == s->efd_mode;
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

/* ---- incoming connections (conn_park.c) ---------------------------------- */

/* A parked connection's segment and eventfd, with the hello that came. */
struct shm_parked {
    int memfd, efd;
    pid_t pid;
    struct hello h;
};

static void parked_discard(void *info)
{
    struct shm_parked *sp = info;
    if (sp->memfd >= 0)
        close(sp->memfd);
    if (sp->efd >= 0)
        close(sp->efd);
    free(sp);
}

/* Only our uid's connections are greeted: nothing is read from others. */
static int shm_accepted(am_interface_t *ifc, struct amx_greeting *g)
{
    return peer_pid(ifc->trd, g->fd, &g->pid);
}

/* The hello comes whole, with the segment and the connector's eventfd;
 * one without our secret is refused (auth_drops). */
static int shm_hello(am_interface_t *ifc, struct amx_greeting *g, struct amx_parked *pk)
{
    struct hello h;
    int fds[2];
    int rc = recv_fds(g->fd, &h, sizeof h, fds, 2, 0, NULL);
    if (rc == AM_ERR_TIMEOUT)
        return AMX_HELLO_MORE;
    if (rc < 0)
        return AMX_HELLO_DROP;   /* garbage, or gone */
    struct amx_hdr ah = { .key = h.key };
    rc = h.magic != SEG_MAGIC || h.version != SEG_VERSION ||
                 !memchr(h.addr, '\0', sizeof h.addr) ? AMX_HELLO_DROP
         : !amx_auth(ifc, NULL, &ah) ? AMX_HELLO_REFUSED   /* counted there */
         : AMX_HELLO_DONE;
    struct shm_parked *sp = rc == AMX_HELLO_DONE ? malloc(sizeof *sp) : NULL;
    if (!sp) {
        close(fds[0]);
        close(fds[1]);
        return rc == AMX_HELLO_DONE ? AMX_HELLO_DROP : rc;
    }
    *sp = (struct shm_parked){ .memfd = fds[0], .efd = fds[1], .pid = g->pid, .h = h };
    memcpy(pk->name, h.addr, sizeof pk->name);
    pk->info = sp;
    return AMX_HELLO_DONE;
}

static const struct amx_park_ops shm_park_ops = {
    .accepted = shm_accepted,
    .hello = shm_hello,
    .discard = parked_discard,
};

/* ---- interface ------------------------------------------------------------ */

int amx_shm_init(am_interface_t *ifc)
{
    static unsigned counter;
    struct shm *s = calloc(1, sizeof *s);
    if (!s)
        return AM_ERR_NOMEM;
    int rc = AM_ERR_SYS;
    s->lfd = s->epfd = s->efd = -1;
    s->no_cma = getenv("LIBAM_SHM_NO_CMA") != NULL;
    const char *cf = getenv("LIBAM_SHM_CMA_FROM");
    s->cma_from = cf ? (size_t)strtoull(cf, NULL, 10) : CMA_FROM;
    s->help_knob = getenv("LIBAM_SHM_NO_HELP") ? 1 : getenv("LIBAM_SHM_HELP_FAILS") ? 2 : 0;
    if (host_id(s->host, sizeof s->host) < 0)
        goto fail;
    if ((s->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC)) < 0 ||
        (s->epfd = epoll_create1(EPOLL_CLOEXEC)) < 0 ||
        (s->lfd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0)) < 0)
        goto fail;
    struct stat est;
    if (fstat(s->efd, &est) < 0 || amx_key_new(&s->salt_base) < 0)
        goto fail;
    s->efd_dev = est.st_dev;
    s->efd_ino = est.st_ino;
    s->efd_mode = est.st_mode & S_IFMT;
    s->euid = geteuid();
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
    if (listen(s->lfd, AMX_BACKLOG) < 0 || epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->lfd, &el) < 0 ||
        epoll_ctl(s->epfd, EPOLL_CTL_ADD, s->efd, &ew) < 0)
        goto fail;
    amx_park_init(&s->pk, s->lfd, s->epfd, EV_LISTEN, &shm_park_ops);
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

void amx_shm_shutdown(am_interface_t *ifc)
{
    struct shm *s = ifc->trd;
    amx_park_free(&s->pk);
    close(s->lfd);
    close(s->epfd);
    close(s->efd);
    free(s);
}

/* ---- endpoints ------------------------------------------------------------ */

int amx_shm_ep_new(am_interface_t *ifc, am_endpoint_t *ep)
{
    (void)ifc;
    struct shm_ep *e = calloc(1, sizeof *e);
    if (!e)
        return AM_ERR_NOMEM;
    e->fd = e->pidfd = e->peer_efd = e->memfd = -1;
    ep->tp = e;
    return AM_OK;
}

/* "shm:<host>:<pid>:<n>", and the host must be ours. */
int amx_shm_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    struct shm *s = ifc->trd;
    size_t hl = strlen(s->host);
    unsigned pid, n;
    int used = 0;
    if (strncmp(name, "shm:", 4) || strncmp(name + 4, s->host, hl) || name[4 + hl] != ':' ||
        sscanf(name + 5 + hl, "%x:%x%n", &pid, &n, &used) != 2 || name[5 + hl + used])
        return AM_ERR_BADADDR;
    return AM_OK;
}

void amx_shm_host(const am_endpoint_t *ep, char *buf, size_t size)
{
    const struct shm *s = ep->ifc->trd;
    snprintf(buf, size, "%s", s->host);
}

/* Map the segment's pages at once, in each process, when a link's traffic
 * starts (WARM_AT bytes through either ring on our side): otherwise the
 * first lap of each ring takes a page fault every 32 small records.  Not
 * when the link opens: an idle link (pvmam_init's mesh) would then hold
 * the whole segment (1 MiB at the default depth) instead of the two pages
 * its set-up touches.  And only for a task's first few links: a task with
 * hundreds of peers that each get a few messages would pay that for
 * nothing (tests/integration/scale.sh starts many).  A kernel without
 * MADV_POPULATE_WRITE (before 5.14) just faults later. */
#define WARM_LINKS 4

void amx_shm_warm(am_interface_t *ifc, am_endpoint_t *ep)
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

static int watch_pid(am_interface_t *ifc, am_endpoint_t *ep);

/* A send to the peer's socket failed: it ended (EPIPE, ECONNRESET), or
 * the call itself did (enum am_death). */
static int send_death(int err)
{
    return err == EPIPE || err == ECONNRESET ? AM_DEATH_CLOSED : AM_DEATH_SYS;
}

/* The segment's memfd, kept until first use (amx_shm_map). */
static void keep_segment(struct shm_ep *e, int memfd, size_t size, uint64_t R, uint64_t salt,
                         int connector)
{
    e->memfd = memfd;
    e->seg_size = size;
    e->R = R;
    e->salt = salt;
    e->connector = connector;
}

/* Map the segment now: when we first send (tell: say so to the peer
 * first, NOTE_MAP, so that it maps too and reads what we write), or when
 * the peer said it did (amx_shm_notes).  The note goes before any record:
 * a peer whose socket says nothing more has written nothing, so one that
 * ends unmapped loses nothing (tr_shm.c, peer_event).  The cma_ok of each
 * ring, learned by the probes at the handshake, is stored now; the
 * connector takes the welcome first if it is there (it gives ring 0's).
 * The peer's pidfd is opened now too: until then its socket alone says
 * when it is gone (enough while nothing was sent: a peer's fork child that
 * still holds the socket keeps an unused link open), and a link keeps
 * three descriptors either way (the socket, the peer's eventfd, and the
 * memfd or the pidfd): a master linked with 255 peers stays within the
 * default limit of 1024 (tests/integration/scale.sh).
 * AM_OK, or AM_ERR_DEAD (the caller declares the peer dead); with tell 0
 * the segment may be mapped even then (a peer gone after its note: what
 * it wrote is read before its end, tr_shm.c peer_event). */
int amx_shm_map(am_interface_t *ifc, am_endpoint_t *ep, int tell)
{
    struct shm_ep *e = ep->tp;
    if (e->base)
        return AM_OK;
    if (e->memfd < 0 || e->fd < 0) {
        amx_dead_note(ep, AM_DEATH_SYS, 0, "map: the link's descriptors are closed already");
        return AM_ERR_DEAD;
    }
    struct shm *s = ifc->trd;
    int gone = 0;
    if (!e->connector) {   /* the welcome is our note: our eventfd, our probe */
        e->rx_cma = can_read(s, e->pid, e->probe_addr, e->probe_val);
        struct welcome w = { .magic = SEG_MAGIC, .version = SEG_VERSION,
                             .probe_addr = (uintptr_t)&probe_word, .probe_val = probe_now(),
                             .cma_ok = (uint32_t)e->rx_cma };
        if (send_fds(e->fd, &w, sizeof w, &s->efd, 1) < 0) {
            amx_dead_note(ep, send_death(errno), errno, "map: sending the welcome failed");
            /* It said it mapped (tell 0: its note) and may have written
             * and gone since: map all the same, so that what it sent is
             * read before its end (tr_shm.c, peer_event) */
            if (tell)
                return AM_ERR_DEAD;
            gone = 1;
        }
    } else if (tell) {
        char note = NOTE_MAP;
        if (send(e->fd, &note, 1, MSG_NOSIGNAL | MSG_DONTWAIT) != 1) {
            amx_dead_note(ep, send_death(errno), errno, "map: telling the peer (NOTE_MAP) failed");
            return AM_ERR_DEAD;
        }
    }
    char *base = mmap(NULL, e->seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, e->memfd, 0);
    if (base == MAP_FAILED) {
        amx_dead_note(ep, AM_DEATH_SYS, errno, "map failed");
        return AM_ERR_DEAD;
    }
    close(e->memfd);   /* the mapping keeps the file: no descriptor of it stays */
    e->memfd = -1;
    e->base = base;
    amx_shm_rings(&e->tx, &e->rx, base, e->R, e->salt, e->connector);
    if (e->connector && !e->welcomed && e->fd >= 0) {
        if (amx_shm_handshake(ifc, ep, 0) == AM_ERR_DEAD)
            return AM_ERR_DEAD;
        if (!e->welcomed && !e->awaiting) {   /* it comes once the acceptor maps */
            e->awaiting = 1;
            s->handshakes++;
        }
    }
    if (e->pidfd < 0 && watch_pid(ifc, ep) < 0)
        return AM_ERR_DEAD;   /* watch_pid noted why */
    if (e->rx_cma)
        STORE(&e->rx.q->cma_ok, 1);
    if (e->tx_cma)
        STORE(&e->tx.q->cma_ok, 1);
    return gone ? AM_ERR_DEAD : AM_OK;
}

/* The peer's socket spoke after the handshake: its notes (NOTE_MAP: map
 * the segment too).  1: read them all, the peer lives; 0: the peer is gone
 * (the socket ended) or broke the rules. */
int amx_shm_notes(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    for (int i = 0; i < 8; i++) {
        char b[8];
        ssize_t r = e->fd >= 0 ? recv(e->fd, b, sizeof b, MSG_DONTWAIT) : 0;
        if (r < 0 && (errno == EAGAIN || errno == EINTR))
            return 1;
        if (r == 0)
            amx_dead_note(ep, AM_DEATH_CLOSED, 0, "the peer's socket ended (read returned 0)");
        else if (r < 0 && errno == ECONNRESET)   /* it ended with our notes unread */
            amx_dead_note(ep, AM_DEATH_CLOSED, errno, "the peer's socket ended");
        else if (r < 0)
            amx_dead_note(ep, AM_DEATH_SYS, errno, "reading the peer's socket failed");
        else if (r != 1 || b[0] != NOTE_MAP)
            amx_dead_note(ep, AM_DEATH_CORRUPT, 0, "a bad note on the peer's socket");
        if (r != 1 || b[0] != NOTE_MAP || amx_shm_map(ifc, ep, 0) < 0)
            return 0;
    }
    return 1;   /* more than a peer ever says: the rest at the next event */
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
    if (e->pidfd >= 0) {   /* close-on-exec already: pidfd_open always sets it */
        struct epoll_event ev = { .events = EPOLLIN, .data.u64 = (uintptr_t)ep + 1 };
        if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, e->pidfd, &ev) < 0) {
            amx_dead_note(ep, AM_DEATH_SYS, errno, "watching the peer's pidfd failed");
            return AM_ERR_SYS;
        }
    }
    return AM_OK;
}

/* Watch the peer's socket (its end; its pidfd too once the segment is
 * mapped, amx_shm_map). */
static int watch(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct epoll_event ev = { .events = EPOLLIN | EPOLLRDHUP, .data.u64 = (uintptr_t)ep };
    if (epoll_ctl(s->epfd, EPOLL_CTL_ADD, e->fd, &ev) < 0)
        return AM_ERR_SYS;
    return AM_OK;
}

int amx_shm_connect(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    uint64_t deadline = amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    uint64_t R = amx_shm_ring_size_for(ifc->cfg.depth);
    size_t size = DATA_OFF + 2 * R;
    int memfd = -1, fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
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
    if (peer_pid(s, fd, &e->pid) < 0)
        goto fail;
    if ((memfd = memfd_create("pvmam-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING)) < 0 ||
        ftruncate(memfd, (off_t)size) < 0 ||
        fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) < 0)
        goto fail;
    /* never a position: fresh zeroes are no stamp */
    uint64_t salt = next_salt(s) | (uint64_t)1 << 63;
    struct hello h = { .magic = SEG_MAGIC, .version = SEG_VERSION, .key = ep->key,
                       .seg_size = size,
                       .ring_size = R, .probe_addr = (uintptr_t)&probe_word,
                       .probe_val = probe_now(), .salt = salt };
    snprintf(h.addr, sizeof h.addr, "%s", ifc->self_addr);
    int fds[2] = { memfd, s->efd };
    if (send_fds(fd, &h, sizeof h, fds, 2) < 0)
        goto fail;
    keep_segment(e, memfd, size, R, salt, 1);   /* mapped on first use (amx_shm_map) */
    e->fd = fd;
    if (watch(ifc, ep) < 0)
        return AM_ERR_SYS;   /* ep_free closes the rest */
    return AM_OK;
fail:
    if (memfd >= 0)
        close(memfd);
    close(fd);
    return AM_ERR_DEAD;
}

/* The connector's end of the handshake, and the only place it ends: the
 * acceptor's welcome, waited for until deadline (0: not at all), gives
 * its eventfd, its pid (the kernel's credentials on the answer: the
 * acceptor is not the listener's maker when that task forked after
 * am_init and its child accepts, as ambench does) and whether we may
 * read its memory.  It is taken when the socket speaks (tr_shm.c,
 * peer_event), or at once by amx_shm_wake, which needs the eventfd: the
 * acceptor marks its rings only after sending the welcome, so it is
 * there by then.  AM_OK, AM_ERR_TIMEOUT (not yet), or AM_ERR_DEAD: the
 * caller declares the peer dead.  The welcome comes when the acceptor
 * maps the segment, which it says so: we map it too. */
int amx_shm_handshake(am_interface_t *ifc, am_endpoint_t *ep, uint64_t deadline)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct welcome w;
    struct ucred cr;
    int efd;
    if (e->welcomed)
        return AM_OK;
    int rc = recv_fds(e->fd, &w, sizeof w, &efd, 1, deadline, &cr);
    if (rc == AM_ERR_DEAD)
        amx_dead_note(ep, AM_DEATH_HANDSHAKE, 0,
                      "no welcome: the socket ended, or its answer was malformed");
    if (rc < 0)
        return rc;
    if (w.magic != SEG_MAGIC || w.version != SEG_VERSION || !is_eventfd(s, efd) ||
        (cr.pid > 0 && cr.uid != s->euid)) {
        close(efd);
        amx_dead_note(ep, AM_DEATH_HANDSHAKE, 0,
                      "a bad welcome (magic, version, eventfd or user)");
        return AM_ERR_DEAD;
    }
    e->peer_efd = efd;
    e->welcomed = 1;
    if (e->awaiting) {
        e->awaiting = 0;
        s->handshakes--;
    }
    if (cr.pid > 0 && cr.pid != e->pid) {   /* the acceptor is not the listener's maker */
        e->pid = cr.pid;
        if (e->base && watch_pid(ifc, ep) < 0)   /* else amx_shm_map watches it */
            return AM_ERR_DEAD;   /* watch_pid noted why */
    }
    e->rx_cma = can_read(s, e->pid, w.probe_addr, w.probe_val);
    e->tx_cma = w.cma_ok != 0;
    if (e->base && e->rx_cma)   /* mapped already (we sent first): store them now */
        STORE(&e->rx.q->cma_ok, 1);
    if (e->base && e->tx_cma)
        STORE(&e->tx.q->cma_ok, 1);
    return e->base ? AM_OK : amx_shm_map(ifc, ep, 0);   /* it mapped: so do we */
}

/* Take the connector's segment after checking every size it claims (it
 * is mapped on first use, amx_shm_map: whatever it holds then is read as
 * the peer's word, bounds-checked like every record). */
static int attach_parked(am_interface_t *ifc, am_endpoint_t *ep, struct amx_parked *pk)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    struct shm_parked *sp = pk->info;
    uint64_t R = sp->h.ring_size;
    struct stat st;
    int seals = fcntl(sp->memfd, F_GET_SEALS);
    if (R < RING_MIN || R > RING_MAX || (R & (R - 1)) || sp->h.seg_size != DATA_OFF + 2 * R ||
        !(sp->h.salt >> 63) ||
        fstat(sp->memfd, &st) < 0 || (uint64_t)st.st_size != sp->h.seg_size ||
        seals < 0 || !(seals & F_SEAL_SHRINK) || !is_eventfd(s, sp->efd))
        return AM_ERR_DEAD;   /* a segment it could shrink would fault us (SIGBUS) */
    keep_segment(e, sp->memfd, sp->h.seg_size, R, sp->h.salt, 0);
    e->fd = pk->fd;
    e->peer_efd = sp->efd;
    e->pid = sp->pid;
    e->welcomed = 1;
    e->probe_addr = sp->h.probe_addr;   /* probed, and answered, when we map */
    e->probe_val = sp->h.probe_val;
    pk->fd = sp->memfd = sp->efd = -1;
    return watch(ifc, ep);
}

int amx_shm_accept(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct amx_parked pk;
    int rc = amx_park_claim(ifc, &s->pk, ep->name, &pk);
    if (rc < 0)
        return rc;
    rc = attach_parked(ifc, ep, &pk);
    amx_park_close(&s->pk, &pk);   /* what attach did not take */
    return rc;
}

/* The endpoint is done with its socket, pidfd and the peer's eventfd
 * (its mapping stays until ep_free: a handler may still read from it).
 * They leave the epoll set first: closing one would not take it out
 * while a forked child still holds it, and its event would name a freed
 * endpoint.  Not when am_shutdown frees every endpoint: the set is
 * closed right after (amx_shm_shutdown), and nothing waits on it before. */
void amx_shm_unwatch(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm *s = ifc->trd;
    struct shm_ep *e = ep->tp;
    if (e->fd >= 0) {
        if (e->awaiting)
            s->handshakes--;
        e->awaiting = 0;
        if (!ifc->closing)
            epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->fd, NULL);
        close(e->fd);
        e->fd = -1;
    }
    if (e->pidfd >= 0) {
        if (!ifc->closing)
            epoll_ctl(s->epfd, EPOLL_CTL_DEL, e->pidfd, NULL);
        close(e->pidfd);
        e->pidfd = -1;
    }
    if (e->peer_efd >= 0) {
        close(e->peer_efd);
        e->peer_efd = -1;
    }
    if (e->memfd >= 0) {   /* never mapped: nothing will read it now */
        close(e->memfd);
        e->memfd = -1;
    }
}

/* ---- waking --------------------------------------------------------------- */

void amx_shm_wake(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    if (e->peer_efd < 0 && e->connector && !e->welcomed && e->fd >= 0 &&
        amx_shm_handshake(ifc, ep, amx_now_us() +
                          (uint64_t)ifc->cfg.connect_timeout_ms * 1000u) < 0) {
        /* it marked the ring after accepting, so its answer must be here */
        amx_declare_dead(ifc, ep, AM_DEATH_HANDSHAKE, 0,
                         "the acceptor's welcome did not come in time (waking it)");
        return;
    }
    uint64_t one = 1;
    if (e->peer_efd >= 0 && write(e->peer_efd, &one, sizeof one) < 0 && errno != EAGAIN)
        amx_declare_dead(ifc, ep, AM_DEATH_SYS, errno, "waking the peer failed");
}

/* The consumer moved tail or done: wake a producer that sleeps on it. */
void amx_shm_consumed(am_interface_t *ifc, am_endpoint_t *ep)
{
    struct shm_ep *e = ep->tp;
    FENCE();
    if (LOAD_ACQ(&e->rx.q->prod_waiting) &&
        __atomic_exchange_n(&e->rx.q->prod_waiting, 0, __ATOMIC_ACQ_REL))
        amx_shm_wake(ifc, ep);
}

/* A ring that breaks the rules cannot be resynchronised: its peer is dead
 * to us.  Returns 0 (handled) for the reader's count. */
int amx_shm_corrupt(am_interface_t *ifc, am_endpoint_t *ep)
{
    ep->st.drops++;
    ifc->st.drops++;
    amx_declare_dead(ifc, ep, AM_DEATH_CORRUPT, 0, "a record in the ring broke the rules");
    return 0;
}
