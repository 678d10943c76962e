/*
 * fuzz_am_shm.c - libFuzzer target: what a peer writes into an shm ring.
 * The target plays the connector as libam's shm transport would (a
 * memfd segment, a hello over the interface's abstract set-up socket,
 * libam/tr_shm.h) to a real shm interface A, which accepts it as an
 * endpoint; the input then goes into the ring A reads, as the record
 * stream a peer publishes, and A polls.  A's replies are consumed (its
 * tail moved) so A never waits for room.
 *
 * Input:
 *   u8  flags  1: the hello's probe is right, so A may read our memory
 *                 (BIG_CMA); the spans of the seeds point into SRC, a
 *                 buffer at a fixed address
 *              2: the hello is the next sizeof(struct hello) bytes of the
 *                 input (what A's listener must judge), its addr replaced
 *                 by the name A accepts unless flag 4
 *              8: the peer's socket closes before A's last polls (A reads
 *                 what is left, then the endpoint is dead)
 *             16: the segment is not sealed, and once A has accepted the
 *                 peer shrinks it to nothing (A must have refused it)
 *   u16 start  (big endian) A's first record is at start * 8 in the ring,
 *              rounded up to a record boundary (a PAD record before it):
 *              wrap-around with small inputs
 *   then pieces: u16 len (big endian; top bit: no poll after this one),
 *              len bytes: a record without its stamp (u32 kind, u32 size,
 *              u64 ack, then the body), written at the producer's
 *              position (wrapping at the ring's end) behind the stamp
 *              that publishes it (struct rec); the position moves on by
 *              REC_LEN of the bytes after the first 16.  A's replies are
 *              all read before each piece is written, so whatever ack it
 *              says, A cannot overwrite a reply we have not read.
 */
#define _GNU_SOURCE   /* memfd_create, MAP_FIXED_NOREPLACE */
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>
#include "fuzz_am.h"
#include "am_int.h"
#include "tr_shm.h"

#define R RING_MIN
#define SEG_SIZE (DATA_OFF + 2 * R)
#define SRC_ADDR ((uintptr_t)0x2a0000000000ull)   /* seeds.py: SHM_SRC */
#define SRC_SIZE ((size_t)1 << 20)
#define SALT ((uint64_t)1 << 63 | 0x5eed)   /* ours, as the connector */
#define PLACE_MAX ((size_t)1 << 20)

static uint64_t probe = 0x70726f6265707276ull;
static int place_id = -1;
static char place_buf[PLACE_MAX];

static void fz_placed(const am_token_t *tok, void *data, size_t len)
{
    (void)tok, (void)data, (void)len;
}

static void *fz_place(const am_token_t *tok, const void *head, size_t head_len, size_t total)
{
    (void)tok, (void)head;
    return total - head_len <= PLACE_MAX ? place_buf : NULL;
}

/* Once a process: the handler with a placer (id 1) and SRC. */
static void setup(void)
{
    static int done;
    if (done)
        return;
    done = 1;
    fz_bind();
    if ((place_id = am_address_to_id(fz_placed)) >= 0)
        am_set_placer(place_id, fz_place, 16);
    char *p = mmap((void *)SRC_ADDR, SRC_SIZE, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
    if (p != MAP_FAILED)
        for (size_t i = 0; i < SRC_SIZE; i++)
            p[i] = (char)(i * 7);
}

/* fz_start's interface, but an accept that finds no (acceptable) hello
 * gives up at once: here the hello is always there first. */
static int shm_start(am_interface_t **ifc)
{
    struct am_config c;
    am_config_default(&c);
    c.timeout_max_us = 200000;
    c.connect_timeout_ms = 1;
    c.key = FZ_KEY;
    return am_init("shm", &c, ifc);
}

static int send_hello(int fd, const struct hello *h, int memfd, int efd)
{
    union { char b[CMSG_SPACE(sizeof(int) * 2)]; struct cmsghdr align; } u;
    struct iovec v = { (void *)h, sizeof *h };
    struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
                         .msg_controllen = sizeof u.b };
    int fds[2] = { memfd, efd };
    memset(u.b, 0, sizeof u.b);
    struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof fds);
    memcpy(CMSG_DATA(c), fds, sizeof fds);
    return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)sizeof *h ? 0 : -1;
}

/* Copy n bytes to the ring at pos, wrapping at its end. */
static void put(char *data, uint64_t pos, const uint8_t *p, size_t n)
{
    uint64_t off = pos & (R - 1);
    size_t k = n < R - off ? n : (size_t)(R - off);
    memcpy(data + off, p, k);
    memcpy(data, p + k, n - k);
}

/* Where A's records are read (ring[1]): *rd, from base *rb, which moves
 * when A starts its ring over (struct rec). */
struct reader { uint64_t rd, rb; };

/* A's replies are thrown away (their space given back). */
static void drain_a(struct seg *g, struct reader *rr)
{
    const char *back = (const char *)g + DATA_OFF + R;
    for (;;) {
        const struct rec *r = (const struct rec *)(back + ((rr->rd - rr->rb) & (R - 1)));
        if (__atomic_load_n(&r->stamp, __ATOMIC_ACQUIRE) != (rr->rd ^ SALT)) {
            r = (const struct rec *)back;
            if (__atomic_load_n(&r->stamp, __ATOMIC_ACQUIRE) != (rr->rd ^ SALT))
                break;
            rr->rb = rr->rd;
        }
        rr->rd += REC_LEN(r->size);
    }
    __atomic_store_n(&g->ring[1].tail, rr->rd, __ATOMIC_RELEASE);
}

/* A polls, n times, its replies drained before each. */
static void poll_a(am_interface_t *a, struct seg *g, struct reader *rr, int n)
{
    for (int i = 0; i < n; i++) {
        drain_a(g, rr);
        am_poll(a);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_interface_t *a = NULL;
    am_endpoint_t *ea = NULL;
    int fd = -1, memfd = -1, efd = -1;
    char *base = MAP_FAILED;
    if (size < 3)
        return 0;
    setup();
    unsigned flags = data[0];
    uint64_t start = REC_LEN(((uint64_t)data[1] << 8 | data[2]) * 8 % R) % R;
    size_t off = 3;
    if (shm_start(&a) < 0)
        goto out;
    /* the name A accepts: its own host, another pid */
    char self[AMX_ADDRLEN], name[AMX_ADDRLEN + 20], cap[AMX_CAPLEN + 20];
    snprintf(self, sizeof self, "%s", am_task_address(a, AM_TID_SELF));
    char *sep = strrchr(self, '#');
    if (sep)
        *sep = '\0';
    char *pid = strrchr(self, ':');
    if (!pid || !(pid = memrchr(self, ':', (size_t)(pid - self))))
        goto out;
    snprintf(name, sizeof name, "%.*s:1:1", (int)(pid - self), self);
    snprintf(cap, sizeof cap, "%s%s", name, FZ_KEYTXT);

    memfd = memfd_create("fuzz-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    if (memfd < 0 || efd < 0 || ftruncate(memfd, (off_t)SEG_SIZE) < 0)
        goto out;
    if (!(flags & 16))
        fcntl(memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
    base = mmap(NULL, SEG_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, memfd, 0);
    if (base == MAP_FAILED)
        goto out;
    struct seg *g = (struct seg *)base;
    char *ring = base + DATA_OFF;   /* ring[0]: ours to A */
    g->magic = SEG_MAGIC;
    g->version = SEG_VERSION;
    g->ring_size = R;
    g->salt = SALT;
    struct reader rd = { 0, 0 };
    struct hello h = { .magic = SEG_MAGIC, .version = SEG_VERSION, .key = FZ_KEY,
                       .seg_size = SEG_SIZE, .ring_size = R,
                       .probe_addr = (uintptr_t)&probe, .probe_val = probe + !(flags & 1),
                       .salt = SALT };
    snprintf(h.addr, sizeof h.addr, "%s", name);
    if (flags & 2) {
        if (size - off < sizeof h)
            goto out;
        memcpy(&h, data + off, sizeof h);
        off += sizeof h;
        if (!(flags & 4))
            snprintf(h.addr, sizeof h.addr, "%s", name);
    }

    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    int n = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, SHM_SOCK_PREFIX "%s", self);
    fd = socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa,
                          (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n)) < 0 ||
        send_hello(fd, &h, memfd, efd) < 0)
        goto out;
    if (am_allocate_task(a, &ea) < 0 || am_accept_task(a, ea, cap) < 0 ||
        am_insert_task(a, ea, 2) < 0) {
        poll_a(a, g, &rd, 4);   /* whatever the listener still has to judge */
        goto out;
    }
    /* we write into our ring: say so, as libam's connector does before its
     * first record (NOTE_MAP), and A maps the segment when it reads the
     * note (its epoll set: looked at after am_event_fd) */
    char note = NOTE_MAP;
    if (send(fd, &note, 1, MSG_NOSIGNAL) != 1)
        goto out;
    am_event_fd(a);
    am_poll(a);

    uint64_t head = 0;
    if (flags & 16) {   /* A reads its ring, we no longer touch ours */
        if (ftruncate(memfd, 0) == 0)
            for (int i = 0; i < 4; i++)
                am_poll(a);
        goto out;
    }
    if (start) {   /* a well-formed PAD up to start */
        struct rec r = { head ^ SALT, REC_PAD, (uint32_t)(start - sizeof r) };
        put(ring, head, (const uint8_t *)&r, sizeof r);
        head = start;
        poll_a(a, g, &rd, 1);
    }
    while (off + 2 <= size) {
        unsigned w = (unsigned)data[off] << 8 | data[off + 1];
        size_t len = w & 0x7fff;
        off += 2;
        if (len > size - off)
            len = size - off;
        uint64_t tail = __atomic_load_n(&g->ring[0].tail, __ATOMIC_ACQUIRE);
        uint64_t adv = REC_LEN(len > 16 ? len - 16 : 0);
        if (head - tail > R || adv > R - (head - tail))
            break;   /* A gave up on the ring, or it is full */
        uint64_t stamp = head ^ SALT;
        drain_a(g, &rd);   /* the ack is the input's: nothing unread may be lost to it */
        put(ring, head + sizeof stamp, data + off, len);
        off += len;
        put(ring, head, (const uint8_t *)&stamp, sizeof stamp);   /* published */
        head += adv;
        if (!(w & 0x8000))
            poll_a(a, g, &rd, 2);
    }
    if (flags & 8) {   /* gone: A hears it when it looks at its epoll set */
        close(fd);
        fd = -1;
        am_event_fd(a);
    }
    for (int i = 0; i < 32 && __atomic_load_n(&g->ring[0].tail, __ATOMIC_ACQUIRE) != head; i++)
        poll_a(a, g, &rd, 1);
    poll_a(a, g, &rd, 1);
out:
    if (a)
        am_shutdown(a);
    if (fd >= 0)
        close(fd);
    if (base != MAP_FAILED)
        munmap(base, SEG_SIZE);
    if (memfd >= 0)
        close(memfd);
    if (efd >= 0)
        close(efd);
    return 0;
}
