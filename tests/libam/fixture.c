/*
 * fixture.c - what every libam test shares (fixture.h): the handlers, both
 * processes register them under the same ids; the peer process (fork) and
 * its report; streams of checked requests; echo helpers.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/ioctl.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include "fixture.h"

const char *transport;
int reliable;
int shm;
int ucx;

/* ---- handlers: same ids in both processes ------------------------------- */

int h_data, h_ack;
uint32_t expect_seq;     /* receiver: next sequence number */
static int order_errors, sum_errors;

/* sender: what each request's reply must say, and which came back */
#define MAX_REQS 10000
static uint32_t want_sum[MAX_REQS];
static unsigned char acked[MAX_REQS];
static uint32_t acks, ack_errors, nsent;

/* payload: u32 seq, u32 checksum of the rest, rest.  The reply echoes the
 * number the receiver gave the request and its checksum of the whole
 * payload, so the sender can tell that this request's reply came back. */
void on_data(const am_token_t *tok, void *data, size_t len)
{
    uint32_t w[2] = { expect_seq, test_sum32(data, len) };
    if (len < 8) {          /* too short to carry a number: it takes the next */
        expect_seq++;
    } else {
        uint32_t in[2];
        memcpy(in, data, 8);
        if (in[0] != expect_seq)
            order_errors++;
        if (in[1] != test_sum32((unsigned char *)data + 8, len - 8))
            sum_errors++;
        w[0] = in[0];
        expect_seq = in[0] + 1;
    }
    am_reply(tok, h_ack, w, sizeof w);
}

/* A reply: for a request sent and not yet answered, with its checksum.
 * (Replies of a lossy transport may come back out of order.) */
static void on_ack(const am_token_t *tok, void *data, size_t len)
{
    uint32_t w[2];
    acks++;
    if (len != 8 || am_token_is_request(tok)) {
        ack_errors++;
        return;
    }
    memcpy(w, data, 8);
    if (w[0] >= nsent || acked[w[0]] || w[1] != want_sum[w[0]])
        ack_errors++;
    else
        acked[w[0]] = 1;
}

/* Receive placement: requests for h_pdata carry the same payload as
 * h_data; the placer puts the body of every other one (by sequence number
 * in the head) into place_buf, so both paths are taken. */
#define PLACE_HEAD 16
int h_pdata;
static unsigned char *place_buf, *join_buf;
static size_t place_cap;
static uint64_t placed_reqs, place_calls;

static void *placer(const am_token_t *tok, const void *head, size_t hl, size_t total)
{
    uint32_t seq;
    (void)tok;
    place_calls++;
    if (hl != PLACE_HEAD || total - hl > place_cap)
        return NULL;
    memcpy(&seq, head, 4);
    memset(place_buf, 0xa5, 64);   /* stale bytes must be overwritten */
    return seq % 2 && !place_all ? NULL : place_buf;
}

static void on_pdata(const am_token_t *tok, void *data, size_t len)
{
    size_t placed = am_token_placed(tok);
    if (!placed) {
        on_data(tok, data, len);
        return;
    }
    placed_reqs++;
    if (len != PLACE_HEAD)    /* the handler sees the head only */
        sum_errors++;
    memcpy(join_buf, data, len);
    memcpy(join_buf + len, place_buf, placed);
    on_data(tok, join_buf, len + placed);
}

/* Echo: every request comes back whole as its reply, checked on return;
 * with big AMs both ways, replies are sent while other copies wait. */
int h_echo, h_echoed;
uint32_t echoed, echo_errors;

static void on_echo(const am_token_t *tok, void *data, size_t len)
{
    am_reply(tok, h_echoed, data, len);
}

static void on_echoed(const am_token_t *tok, void *data, size_t len)
{
    uint32_t w;
    echoed++;
    if (len < 8 || am_token_is_request(tok)) {
        echo_errors++;
        return;
    }
    memcpy(&w, (char *)data + 4, 4);
    if (w != test_sum32((unsigned char *)data + 8, len - 8))
        echo_errors++;
}

/* Sink: requests answered blank (no reply of the handler's own), each
 * u32 number, u32 checksum of the rest, checked in order. */
int h_sink;
uint32_t sink_got, sink_errors;

static void on_sink(const am_token_t *tok, void *data, size_t len)
{
    uint32_t w[2];
    (void)tok;
    if (len < 8) {
        sink_errors++;
        return;
    }
    memcpy(w, data, 8);
    if (w[0] != sink_got || w[1] != test_sum32((unsigned char *)data + 8, len - 8))
        sink_errors++;
    sink_got++;
}

void register_handlers(void)
{
    am_global_shutdown();   /* nothing bound yet: a no-op */
    h_data = am_address_to_id(on_data);
    h_ack = am_address_to_id(on_ack);
    h_pdata = am_address_to_id(on_pdata);
    h_echo = am_address_to_id(on_echo);
    h_echoed = am_address_to_id(on_echoed);
    h_sink = am_address_to_id(on_sink);
    if (am_set_placer(h_pdata, placer, AM_PLACE_HEAD_MAX + 1) != AM_ERR_INVAL ||
        am_set_placer(999, placer, PLACE_HEAD) != AM_ERR_INVAL ||
        am_set_placer(h_pdata, placer, PLACE_HEAD) != AM_OK) {
        fprintf(stderr, "test_am: am_set_placer misbehaves\n");
        exit(EXIT_FAILURE);
    }
}

/* Open descriptors of this process: libam must leave none behind. */
int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *de; d && (de = readdir(d));)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1;   /* the directory's own */
}

/* ---- children's time limits --------------------------------------------- */

/* Check's runner (check_run.c) catches SIGALRM in the test process with a
 * handler that kills the test's whole process group, and a child forked by
 * a test inherits that handler: a child's alarm would end the test as
 * "signal 9", saying nothing of which child ran over.  The default action
 * ends that child alone, and its parent reports it (reap_within). */
void child_limit(unsigned secs)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = SIG_DFL;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGALRM, &sa, NULL);
    sigset_t set;
    sigemptyset(&set);
    sigaddset(&set, SIGALRM);
    sigprocmask(SIG_UNBLOCK, &set, NULL);
    alarm(secs);
}

uint64_t test_now_ms(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (uint64_t)t.tv_sec * 1000u + (uint64_t)t.tv_nsec / 1000000u;
}

/* The parent's side: its wait for children is bounded too, whatever the
 * children do with their signals (a library may block or catch SIGALRM). */
void reap_all_within(const pid_t *pid, int n, int secs, int *st)
{
    uint64_t end = test_now_ms() + (uint64_t)secs * 1000u;
    int left = n;
    for (int i = 0; i < n; i++)
        st[i] = -2;
    while (left) {
        for (int i = 0; i < n; i++) {
            if (st[i] != -2)
                continue;
            pid_t r = waitpid(pid[i], &st[i], WNOHANG);
            if (r == pid[i])
                left--;
            else if (r < 0 && errno != EINTR)
                st[i] = -1, left--;
            else
                st[i] = -2;
        }
        if (!left || test_now_ms() >= end)
            break;
        poll(NULL, 0, 10);
    }
    for (int i = 0; i < n; i++) {
        if (st[i] != -2)
            continue;
        kill(pid[i], SIGKILL);   /* ran over: by its pid */
        waitpid(pid[i], NULL, 0);
        st[i] = -1;
    }
}

int reap_within(pid_t pid, int secs)
{
    int st;
    reap_all_within(&pid, 1, secs, &st);
    return st;
}

int read_within(int fd, void *buf, size_t n, int secs)
{
    uint64_t end = test_now_ms() + (uint64_t)secs * 1000u;
    size_t got = 0;
    while (got < n) {
        uint64_t now = test_now_ms();
        if (now >= end)
            return -1;
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        int r = poll(&pf, 1, (int)(end - now));
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return -1;
        ssize_t k = read(fd, (char *)buf + got, n - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return -1;
        got += (size_t)k;
    }
    return 0;
}

/* ---- a peer process ----------------------------------------------------- */

/* The child streams this many sink requests first (fixture.h). */
int child_streams;
int sink_small;
int place_all;
size_t stream_len;
int child_delay_ms;

/* The peer counts its socket reads that returned data (res[10]): how
 * many reads a transport makes per AM (placement.c).  These take the
 * place of libc's recv and recvmsg for libam's calls in this program and
 * make the same system calls. */
static uint64_t sock_reads;

/* read_whole_upto (placement.c), in the peer only: a read that finds part
 * of what it asks for (up to read_whole_upto bytes) waits for the rest,
 * 20 ms at most (what is asked may be more than is coming), as a reader
 * slower than the sender would find it.  So the
 * count of reads says how much the transport asks for, not how the
 * sender's segments and the reader's wake-ups fell on a loaded machine. */
size_t read_whole_upto;
static int in_peer;

static void wait_for_bytes(int fd, size_t asked)
{
    size_t want = asked < read_whole_upto ? asked : read_whole_upto;
    int q;
    for (int i = 0; i < 400; i++) {
        if (ioctl(fd, FIONREAD, &q) < 0 || q <= 0 || (size_t)q >= want)
            return;   /* nothing yet (the read says so), or all of it */
        usleep(50);
    }
}

ssize_t recv(int fd, void *buf, size_t n, int flags)
{
    if (read_whole_upto && in_peer)
        wait_for_bytes(fd, n);
    ssize_t r = syscall(SYS_recvfrom, fd, buf, n, flags, NULL, NULL);
    sock_reads += r > 0;
    return r;
}

ssize_t recvmsg(int fd, struct msghdr *mh, int flags)
{
    if (read_whole_upto && in_peer) {
        size_t n = 0;
        for (size_t i = 0; i < mh->msg_iovlen; i++)
            n += mh->msg_iov[i].iov_len;
        wait_for_bytes(fd, n);
    }
    ssize_t r = syscall(SYS_recvmsg, fd, mh, flags);
    sock_reads += r > 0;
    return r;
}

/* Likewise every send call (acks.c): send and sendmsg, as tr_tcp.c
 * writes. */
uint64_t sock_sends;

ssize_t send(int fd, const void *buf, size_t n, int flags)
{
    sock_sends++;
    return syscall(SYS_sendto, fd, buf, n, flags, NULL, 0);
}

ssize_t sendmsg(int fd, const struct msghdr *mh, int flags)
{
    sock_sends++;
    return syscall(SYS_sendmsg, fd, mh, flags);
}

struct am_config small_cfg(void)
{
    struct am_config c;
    am_config_default(&c);
    c.timeout_us = 20000;
    c.timeout_max_us = 500000;
    c.connect_timeout_ms = 5000;
    return c;
}

/* Child: accept the parent, serve until told to stop (a byte on the pipe),
 * report order/checksum errors and requests seen.  ifc: an interface the
 * parent made before it forked, or NULL for a fresh one. */
static void child_main(struct peer *p, struct am_config cfg, am_interface_t *ifc)
{
    child_limit(PEER_SECS);
    in_peer = 1;
    if (!ifc && am_init(transport, &cfg, &ifc) < 0)
        _exit(2);
    place_cap = am_max_payload(ifc);
    place_buf = malloc(place_cap);
    join_buf = malloc(place_cap + PLACE_HEAD);
    if (!place_buf || !join_buf)
        _exit(2);
    char addr[AM_ADDR_MAX], mine[AM_ADDR_MAX] = { 0 };
    strncpy(mine, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
    write(p->from[1], mine, AM_ADDR_MAX);
    if (read(p->to[0], addr, AM_ADDR_MAX) != AM_ADDR_MAX)
        _exit(3);
    am_endpoint_t *ep;
    am_allocate_task(ifc, &ep);
    if (am_accept_task(ifc, ep, addr) < 0 || am_insert_task(ifc, ep, 1) < 0)
        _exit(4);
    if (child_delay_ms)   /* what the parent sends meanwhile waits in the socket */
        usleep((useconds_t)child_delay_ms * 1000u);
    int streamed = child_streams ? sink_stream(ifc, 1, child_streams, 5) : AM_OK;
    for (;;) {
        am_wait(ifc, 20);
        char c;
        struct timeval tv = { 0, 0 };
        fd_set fs;
        FD_ZERO(&fs);
        FD_SET(p->to[0], &fs);
        if (select(p->to[0] + 1, &fs, NULL, NULL, &tv) > 0 && read(p->to[0], &c, 1) == 1)
            break;
    }
    /* drain: keep answering retransmissions briefly */
    for (int i = 0; i < 20; i++)
        am_wait(ifc, 10);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    uint64_t res[NRES] = { (uint64_t)order_errors, (uint64_t)sum_errors, st.requests_recv,
                           st.reordered, placed_reqs, place_calls, st.bytes_recv,
                           sink_got, sink_errors, (uint64_t)-streamed, sock_reads };
    write(p->from[1], res, sizeof res);
    am_shutdown(ifc);
    _exit(0);
}

/* inherit: the child serves with an interface made before the fork (as
 * bench/ambench does), the parent drops its copy and makes its own. */
am_interface_t *start_pair_as(struct peer *p, struct am_config cfg, int inherit)
{
    am_interface_t *made = NULL;
    if (inherit)
        ck_assert_int_eq(am_init(transport, &cfg, &made), AM_OK);
    ck_assert_int_eq(pipe(p->to), 0);
    ck_assert_int_eq(pipe(p->from), 0);
    p->pid = fork();
    ck_assert_int_ge(p->pid, 0);
    if (p->pid == 0)
        child_main(p, cfg, made);
    if (made)
        am_shutdown(made);
    am_interface_t *ifc;
    ck_assert_int_eq(am_init(transport, &cfg, &ifc), AM_OK);
    char addr[AM_ADDR_MAX];
    char mine[AM_ADDR_MAX] = { 0 };
    strncpy(mine, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
    ck_assert_int_eq(read(p->from[0], addr, AM_ADDR_MAX), AM_ADDR_MAX);
    ck_assert_int_eq(write(p->to[1], mine, AM_ADDR_MAX), AM_ADDR_MAX);
    am_endpoint_t *ep;
    ck_assert_int_eq(am_allocate_task(ifc, &ep), AM_OK);
    ck_assert_int_eq(am_connect_task(ifc, ep, addr), AM_OK);
    ck_assert_int_eq(am_insert_task(ifc, ep, 2), AM_OK);
    if (shm) {
        /* shm:HOST:pid:n, HOST being boot id and net namespace: ours */
        const char *h = am_hostname(ifc, 2);
        ck_assert_ptr_nonnull(h);
        ck_assert(strncmp(addr + 4, h, strlen(h)) == 0 && addr[4 + strlen(h)] == ':');
        ck_assert(strncmp(mine + 4, h, strlen(h)) == 0);
    } else {
        /* the transport names the peer's host: the IPv4 of its address */
        unsigned ip;
        struct in_addr in;
        ck_assert_int_eq(sscanf(strchr(addr, ':') + 1, "%8x", &ip), 1);
        ck_assert_int_eq(inet_pton(AF_INET, am_hostname(ifc, 2), &in), 1);
        ck_assert_uint_eq(ntohl(in.s_addr), ip);
    }
    ck_assert_str_eq(am_task_address(ifc, 2), addr);
    return ifc;
}

am_interface_t *start_pair(struct peer *p, struct am_config cfg)
{
    return start_pair_as(p, cfg, 0);
}

/* The child's report (after it was told to stop), and its end. */
void collect_pair(struct peer *p, uint64_t res[NRES])
{
    ck_assert_msg(read_within(p->from[0], res, sizeof(uint64_t) * NRES, PEER_SECS) == 0,
                  "the peer sent no report within %d s", PEER_SECS);
    int st = reap_within(p->pid, PEER_SECS);
    ck_assert_msg(st != -1, "the peer still ran %d s after its report: killed", PEER_SECS);
    ck_assert_msg(WIFEXITED(st) && WEXITSTATUS(st) == 0, "the peer: status %#x", st);
    close(p->to[0]); close(p->to[1]); close(p->from[0]); close(p->from[1]);
}

void stop_pair(struct peer *p, uint64_t res[NRES])
{
    ck_assert_int_eq(write(p->to[1], "x", 1), 1);
    collect_pair(p, res);
}

/* Send n requests for handler h of random sizes 0..max (or stream_len) with checksums;
 * every 4th goes as three iovecs.  Waits for all replies; returns the
 * payload bytes sent. */
uint64_t stream_to(am_interface_t *ifc, int h, int n, unsigned seed)
{
    uint64_t bytes = 0;
    size_t max = am_max_payload(ifc);
    unsigned char *buf = malloc(max);
    ck_assert_ptr_nonnull(buf);
    srand(seed);
    for (size_t j = 0; j < max; j++)   /* random content once ... */
        buf[j] = (unsigned char)rand();
    ck_assert_int_le(n, MAX_REQS);
    acks = ack_errors = nsent = 0;
    memset(acked, 0, sizeof acked);
    for (int i = 0; i < n; i++) {
        size_t len = 8 + (size_t)rand() % (max - 7);
        if (i % 50 == 0)
            len = max;           /* the largest size, often */
        if (i % 50 == 1)
            len = 8;
        if (i % 50 == 2)
            len = (size_t)(i / 50) % 8;   /* 0..7 bytes: no room for a number */
        if (stream_len)
            len = stream_len < max ? stream_len : max;
        if (len >= 16) {                  /* ... made unique per request */
            uint64_t salt = (uint64_t)rand() << 32 | (uint64_t)i;
            memcpy(buf + 8, &salt, 8);
        }
        if (len >= 8) {
            uint32_t w[2] = { (uint32_t)i, test_sum32(buf + 8, len - 8) };
            memcpy(buf, w, 8);
        }
        want_sum[i] = test_sum32(buf, len);
        nsent = (uint32_t)i + 1;   /* before sending: a reply may come inside */
        int rc;
        if (i % 4 == 3 && len >= 8) {
            struct iovec v[3] = { { buf, 8 }, { buf + 8, (len - 8) / 2 },
                                  { buf + 8 + (len - 8) / 2, len - 8 - (len - 8) / 2 } };
            rc = am_request_vdata(ifc, 2, h, v, 3);
        } else {
            rc = am_request(ifc, 2, h, buf, len);
        }
        bytes += len;
        ck_assert_msg(rc == AM_OK, "request %d: %s", i, am_strerror(rc));
    }
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    ck_assert_uint_eq(am_outstanding(ifc), 0);
    ck_assert_uint_eq(acks, (uint32_t)n);
    ck_assert_uint_eq(ack_errors, 0);
    for (int i = 0; i < n; i++)
        ck_assert_msg(acked[i], "no reply for request %d", i);
    free(buf);
    return bytes;
}

void stream(am_interface_t *ifc, int n, unsigned seed) { stream_to(ifc, h_data, n, seed); }

/* n sink requests to tid, all sent before anything else is waited for,
 * then every one answered: AM_OK or the first error (no ck_assert: the
 * child runs this too).  The sizes fill the shm ring exactly: with the
 * default depth it is 1 MiB (libam/shm/ring.c), and a record takes its
 * payload + 56 bytes (AM header 32, record header 24) rounded up to 64, so
 * 65480 bytes are a sixteenth of it and 131016 an eighth; then bigger than half (by descriptor)
 * and small ones among them.  Clipped to what the transport carries. */
int sink_stream(am_interface_t *ifc, int32_t tid, int n, unsigned seed)
{
    static const size_t sizes[] = { 65480, 65480, 65480, 65480, 65480, 65480, 65480, 131016 };
    size_t max = am_max_payload(ifc);
    unsigned char *buf = malloc(max);
    if (!buf)
        return AM_ERR_NOMEM;
    srand(seed);
    for (size_t j = 0; j < max; j++)
        buf[j] = (unsigned char)rand();
    int rc = AM_OK;
    for (int i = 0; i < n && rc == AM_OK; i++) {
        size_t len = sink_small ? 8 + (size_t)(i * 37) % 4192 : sizes[i % 8] < max ? sizes[i % 8] : max;
        uint32_t w[2] = { (uint32_t)i, test_sum32(buf + 8, len - 8) };
        memcpy(buf, w, 8);
        rc = am_request(ifc, tid, h_sink, buf, len);
    }
    WAIT_WHILE(ifc, WAIT_SECS, rc == AM_OK && am_outstanding(ifc));
    if (rc == AM_OK && am_outstanding(ifc))
        rc = AM_ERR_TIMEOUT;
    free(buf);
    return rc;
}

/* ---- echo helpers --------------------------------------------------------- */

/* Echo tests: max random bytes (seeded), echo counters reset. */
unsigned char *echo_start(size_t max, unsigned seed)
{
    unsigned char *buf = malloc(max);
    ck_assert_ptr_nonnull(buf);
    srand(seed);
    for (size_t j = 0; j < max; j++)
        buf[j] = (unsigned char)rand();
    echoed = echo_errors = 0;
    return buf;
}

/* One echo request of len bytes, stamped with seq and its checksum. */
void echo_send(am_interface_t *ifc, unsigned char *buf, uint32_t seq, size_t len)
{
    uint32_t w[2] = { seq, test_sum32(buf + 8, len - 8) };
    memcpy(buf, w, 8);
    int rc = am_request(ifc, 2, h_echo, buf, len);
    ck_assert_msg(rc == AM_OK, "request %u: %s", seq, am_strerror(rc));
}

/* Bounded: every request answered, n echoes back so far. */
void echo_drain(am_interface_t *ifc, uint32_t n)
{
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    ck_assert_uint_eq(am_outstanding(ifc), 0);
    ck_assert_uint_eq(echoed, n);
}
