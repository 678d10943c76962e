/*
 * test_am.c - libam tests (Check), run once per transport:
 *     test_am TRANSPORT
 * Two real processes (fork) talk over real sockets on this host.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/select.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include "am.h"
#include "sum.h"

static const char *transport;
static int reliable;   /* tcp, shm: nothing is lost, so no loss knob either */
static int shm;        /* addresses name a host and a process, not an IPv4 port */
static int ucx;        /* addresses carry a UCX worker address; no connections */

/* ---- handlers: same ids in both processes ------------------------------- */

static int h_data, h_ack;
static uint32_t expect_seq;     /* receiver: next sequence number */
static int order_errors, sum_errors;

/* sender: what each request's reply must say, and which came back */
#define MAX_REQS 10000
static uint32_t want_sum[MAX_REQS];
static unsigned char acked[MAX_REQS];
static uint32_t acks, ack_errors, nsent;

/* payload: u32 seq, u32 checksum of the rest, rest.  The reply echoes the
 * number the receiver gave the request and its checksum of the whole
 * payload, so the sender can tell that this request's reply came back. */
static void on_data(const am_token_t *tok, void *data, size_t len)
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
static int h_pdata;
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
    return seq % 2 ? NULL : place_buf;
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
static int h_echo, h_echoed;
static uint32_t echoed, echo_errors;

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
static int h_sink;
static uint32_t sink_got, sink_errors;

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

static void register_handlers(void)
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
static int count_fds(void)
{
    int n = 0;
    DIR *d = opendir("/proc/self/fd");
    for (struct dirent *de; d && (de = readdir(d));)
        n += de->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1;   /* the directory's own */
}

/* ---- a peer process ----------------------------------------------------- */

/* what the child reports: order errors, checksum errors, requests,
 * reordered, placed requests, placer calls, bytes received, sink
 * requests and sink errors (on_sink), and its own stream's status */
#define NRES 10

/* Both ways at once: the child streams this many sink requests to the
 * parent as soon as it is connected (0: it only serves). */
static int child_streams;
static int sink_stream(am_interface_t *ifc, int32_t tid, int n, unsigned seed);

struct peer {
    pid_t pid;
    int to[2], from[2];   /* pipes for addresses and results */
};

static struct am_config small_cfg(void)
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
    alarm(120);
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
                           sink_got, sink_errors, (uint64_t)-streamed };
    write(p->from[1], res, sizeof res);
    am_shutdown(ifc);
    _exit(0);
}

/* inherit: the child serves with an interface made before the fork (as
 * examples/ambench does), the parent drops its copy and makes its own. */
static am_interface_t *start_pair_as(struct peer *p, struct am_config cfg, int inherit)
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

static am_interface_t *start_pair(struct peer *p, struct am_config cfg)
{
    return start_pair_as(p, cfg, 0);
}

/* The child's report (after it was told to stop), and its end. */
static void collect_pair(struct peer *p, uint64_t res[NRES])
{
    ck_assert_int_eq(read(p->from[0], res, sizeof(uint64_t) * NRES),
                     (ssize_t)(sizeof(uint64_t) * NRES));
    int st;
    waitpid(p->pid, &st, 0);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(p->to[0]); close(p->to[1]); close(p->from[0]); close(p->from[1]);
}

static void stop_pair(struct peer *p, uint64_t res[NRES])
{
    ck_assert_int_eq(write(p->to[1], "x", 1), 1);
    collect_pair(p, res);
}

/* Send n requests for handler h of random sizes 0..max with checksums;
 * every 4th goes as three iovecs.  Waits for all replies; returns the
 * payload bytes sent. */
static uint64_t stream_to(am_interface_t *ifc, int h, int n, unsigned seed)
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
    for (int k = 0; k < 3000 && am_outstanding(ifc); k++)
        am_wait(ifc, 10);
    ck_assert_uint_eq(am_outstanding(ifc), 0);
    ck_assert_uint_eq(acks, (uint32_t)n);
    ck_assert_uint_eq(ack_errors, 0);
    for (int i = 0; i < n; i++)
        ck_assert_msg(acked[i], "no reply for request %d", i);
    free(buf);
    return bytes;
}

static void stream(am_interface_t *ifc, int n, unsigned seed) { stream_to(ifc, h_data, n, seed); }

/* n sink requests to tid, all sent before anything else is waited for,
 * then every one answered: AM_OK or the first error (no ck_assert: the
 * child runs this too).  The sizes fill the shm ring exactly: with the
 * default depth it is 512 KiB, and a record takes its payload + 56 bytes
 * (AM header 32, record header 24) rounded up to 64, so 65480 bytes are an
 * eighth of it and 131016 a quarter; then bigger than half (by descriptor)
 * and small ones among them.  Clipped to what the transport carries. */
static int sink_stream(am_interface_t *ifc, int32_t tid, int n, unsigned seed)
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
        size_t len = sizes[i % 8] < max ? sizes[i % 8] : max;
        uint32_t w[2] = { (uint32_t)i, test_sum32(buf + 8, len - 8) };
        memcpy(buf, w, 8);
        rc = am_request(ifc, tid, h_sink, buf, len);
    }
    for (int k = 0; k < 3000 && rc == AM_OK && am_outstanding(ifc); k++)
        am_wait(ifc, 10);
    if (rc == AM_OK && am_outstanding(ifc))
        rc = AM_ERR_TIMEOUT;
    free(buf);
    return rc;
}

/* ---- tests -------------------------------------------------------------- */

START_TEST(basics)
{
    for (int s = 0; s >= AM_ERR_NOTRANSPORT; s--)
        ck_assert_str_ne(am_strerror(s), "unknown status");
    am_interface_t *ifc = (am_interface_t *)1;
    ck_assert_int_eq(am_init("no-such", NULL, &ifc), AM_ERR_NOTRANSPORT);
    ck_assert_ptr_null(ifc);
    struct am_config c;
    am_config_default(&c);
    ck_assert_uint_eq(c.depth, 8);
    c.depth = 1000;
    ck_assert_int_eq(am_init(transport, &c, &ifc), AM_ERR_INVAL);
    /* the loss knob: refused where nothing can be lost */
    am_config_default(&c);
    c.fault_drop_ppm = 1000;
    ck_assert_int_eq(am_init(transport, &c, &ifc), reliable ? AM_ERR_NOTSUP : AM_OK);
    if (!reliable)
        ck_assert_int_eq(am_shutdown(ifc), AM_OK);
    /* every transport listed starts, under its own name; ours is listed */
    int listed = 0;
    for (const char *const *n = am_transports(); *n; n++) {
        ck_assert_int_eq(am_init(*n, NULL, &ifc), AM_OK);
        ck_assert_str_eq(am_transport_name(ifc), *n);
        ck_assert_int_eq(am_shutdown(ifc), AM_OK);
        listed += !strcmp(*n, transport);
    }
    ck_assert_int_eq(listed, 1);
    ck_assert_int_eq(am_init(transport, NULL, &ifc), AM_OK);
    ck_assert_str_eq(am_transport_name(ifc), transport);
    ck_assert_uint_ge(am_max_payload(ifc), 8192);
    const char *a = am_task_address(ifc, AM_TID_SELF);
    ck_assert_ptr_nonnull(a);
    ck_assert(strncmp(a, transport, 3) == 0);
    am_endpoint_t *ep;
    ck_assert_int_eq(am_allocate_task(ifc, &ep), AM_OK);
    ck_assert_int_eq(am_connect_task(ifc, ep, "garbage"), AM_ERR_BADADDR);
    ck_assert_int_eq(am_connect_task(ifc, ep, "udp-nope:zz"), AM_ERR_BADADDR);
    if (shm) {   /* an address of another host (boot id or net namespace) */
        char other[AM_ADDR_MAX];
        snprintf(other, sizeof other, "%s", a);
        other[4] = other[4] == '0' ? '1' : '0';
        ck_assert_int_eq(am_connect_task(ifc, ep, other), AM_ERR_BADADDR);
        snprintf(other, sizeof other, "%s", a);
        char *p = strchr(other + 4, ':') + 1;   /* the net namespace */
        *p = *p == '1' ? '2' : '1';
        ck_assert_int_eq(am_connect_task(ifc, ep, other), AM_ERR_BADADDR);
    }
    ck_assert_int_eq(am_request_ep(ifc, ep, h_data, "x", 1), AM_ERR_STATE);  /* not connected */
    ck_assert_int_eq(am_insert_task(ifc, ep, 7), AM_OK);
    ck_assert_int_eq(am_insert_task(ifc, ep, 7), AM_ERR_EXISTS);
    ck_assert_ptr_eq(am_find_task(ifc, 7), ep);
    ck_assert_int_eq(am_request(ifc, 8, h_data, "x", 1), AM_ERR_NOTASK);
    size_t big = am_max_payload(ifc) + 1;
    char *b = calloc(1, big);
    ck_assert_int_eq(am_request(ifc, 7, h_data, b, big), AM_ERR_TOOBIG);
    free(b);
    ck_assert_int_eq(am_request(ifc, 7, -1, "x", 1), AM_ERR_INVAL);
    ck_assert_int_eq(am_remove_task(ifc, 7), AM_OK);
    ck_assert_ptr_null(am_find_task(ifc, 7));
    ck_assert_int_eq(am_deallocate_task(ifc, ep), AM_OK);
    ck_assert_int_eq(am_poll(ifc), 0);
    ck_assert_int_eq(am_wait(ifc, 5), 0);
    ck_assert_int_ge(am_event_fd(ifc), 0);
    ck_assert_int_eq(am_shutdown(ifc), AM_OK);
    ck_assert_ptr_eq(am_id_to_address(h_data), (am_handler_fn)on_data);
    ck_assert_ptr_null(am_id_to_address(999));
}
END_TEST

START_TEST(exchange_10000_in_order)
{
    struct peer p;
    int fds = count_fds();
    am_interface_t *ifc = start_pair(&p, small_cfg());
    stream(ifc, 10000, 7);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0], 0);   /* order errors at the receiver */
    ck_assert_uint_eq(res[1], 0);   /* checksum errors */
    ck_assert_uint_eq(res[2], 10000);
    am_shutdown(ifc);
    ck_assert_int_eq(count_fds(), fds);
}
END_TEST

/* Unreliable transports only (the knob is refused on tcp, see basics). */
START_TEST(exchange_with_loss_knob)
{
    struct am_config cfg = small_cfg();
    cfg.fault_drop_ppm = 50000;   /* 5% of sends vanish, both ways */
    cfg.timeout_us = 2000;
    struct peer p;
    am_interface_t *ifc = start_pair(&p, cfg);
    stream(ifc, 3000, 11);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0], 0);
    ck_assert_uint_eq(res[1], 0);
    ck_assert_uint_eq(res[2], 3000);
    ck_assert_uint_gt(st.retransmits, 0);
    ck_assert_uint_gt(res[3] + st.duplicates, 0);  /* held back or duplicated */
    am_shutdown(ifc);
}
END_TEST

/* Big requests whose handler has a placer: their bodies go straight to
 * the placer's buffer (every other one, as the placer chooses); on udp
 * only those that follow a big datagram are offered (tr_udp.c peeks only
 * then).  Either way every byte arrives, in order. */
START_TEST(placement_delivers_everything)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    uint64_t bytes = stream_to(ifc, h_pdata, 2000, 13);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0], 0);
    ck_assert_uint_eq(res[1], 0);
    ck_assert_uint_eq(res[2], 2000);
    ck_assert_uint_eq(res[6], bytes);   /* placed bytes are counted too */
    fprintf(stderr, "placement (%s): %llu placed, %llu refused by the placer\n", transport,
            (unsigned long long)res[4], (unsigned long long)res[5]);
    ck_assert_uint_gt(res[4], strcmp(transport, "udp") ? 100 : 50);   /* the placer took some */
    ck_assert_uint_gt(res[5], res[4]);         /* and said no to others */
    am_shutdown(ifc);
}
END_TEST

/* udp: placed requests under loss.  A retransmitted request that was
 * placed already (its reply lost) is a duplicate and must not be placed
 * again; one whose earlier copy was lost is placed when it comes. */
START_TEST(placement_with_loss_knob)
{
    struct am_config cfg = small_cfg();
    cfg.fault_drop_ppm = 50000;
    cfg.timeout_us = 2000;
    struct peer p;
    am_interface_t *ifc = start_pair(&p, cfg);
    uint64_t bytes = stream_to(ifc, h_pdata, 1000, 17);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    uint64_t res[NRES];
    stop_pair(&p, res);
    fprintf(stderr, "placement under loss: %llu placed, %llu retransmits\n",
            (unsigned long long)res[4], (unsigned long long)st.retransmits);
    ck_assert_uint_eq(res[0], 0);
    ck_assert_uint_eq(res[1], 0);
    ck_assert_uint_eq(res[2], 1000);
    ck_assert_uint_eq(res[6], bytes);
    ck_assert_uint_gt(res[4], 0);
    ck_assert_uint_gt(st.retransmits, 0);
    am_shutdown(ifc);
}
END_TEST

/* Echo tests: max random bytes (seeded), echo counters reset. */
static unsigned char *echo_start(size_t max, unsigned seed)
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
static void echo_send(am_interface_t *ifc, unsigned char *buf, uint32_t seq, size_t len)
{
    uint32_t w[2] = { seq, test_sum32(buf + 8, len - 8) };
    memcpy(buf, w, 8);
    int rc = am_request(ifc, 2, h_echo, buf, len);
    ck_assert_msg(rc == AM_OK, "request %u: %s", seq, am_strerror(rc));
}

/* Bounded: every request answered, n echoes back so far. */
static void echo_drain(am_interface_t *ifc, uint32_t n)
{
    for (int k = 0; k < 3000 && am_outstanding(ifc); k++)
        am_wait(ifc, 10);
    ck_assert_uint_eq(am_outstanding(ifc), 0);
    ck_assert_uint_eq(echoed, n);
}

START_TEST(echo_both_ways)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    size_t max = am_max_payload(ifc);
    unsigned char *buf = echo_start(max, 17);
    const uint32_t n = 400;
    for (uint32_t i = 0; i < n; i++)
        echo_send(ifc, buf, i, 8 + (size_t)rand() % (max - 7));
    echo_drain(ifc, n);
    /* then ping-pong: the next request may arrive while the echo of the
     * previous one still waits to be copied */
    const uint32_t m = 3000;
    for (uint32_t i = 0; i < m; i++) {
        echo_send(ifc, buf, n + i, 8 + (size_t)rand() % (max < 65536 ? max - 7 : 65536));
        for (int k = 0; k < 3000 && echoed < n + i + 1; k++)
            am_wait(ifc, 10);
    }
    ck_assert_uint_eq(echoed, n + m);
    ck_assert_uint_eq(echo_errors, 0);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0] + res[1], 0);
    ck_assert_uint_eq(res[2], n + m);
    free(buf);
    am_shutdown(ifc);
}
END_TEST

/* Big echoes with a peer that forked after am_init and serves with the
 * parent's interface: whoever made a listener is not always who accepts on
 * it.  Over shm the replies are big enough to go by descriptor (or through
 * the ring with LIBAM_SHM_NO_CMA), which must read the acceptor's memory,
 * not the connector's own (ambench's 512 KiB ping-pong died here). */
START_TEST(echo_big_peer_forked_after_init)
{
    struct peer p;
    int inherit = 1;
    if (ucx) {
        /* UCX is not fork-safe (nor is a child of a UCX user able to start
         * UCX again): the inherited interface refuses to serve the child
         * (libam/tr_ucx.c), and the big echoes run with a fresh peer */
        am_interface_t *made;
        am_endpoint_t *ep;
        int st;
        ck_assert_int_eq(am_init(transport, NULL, &made), AM_OK);
        pid_t pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0)
            _exit(am_allocate_task(made, &ep) == AM_ERR_NOTSUP ? 0 : 1);
        ck_assert_int_eq(waitpid(pid, &st, 0), pid);
        ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
        ck_assert_int_eq(am_shutdown(made), AM_OK);
        inherit = 0;
    }
    am_interface_t *ifc = start_pair_as(&p, small_cfg(), inherit);
    size_t max = am_max_payload(ifc);
    if (shm)   /* above its inline limit and half a ring: by descriptor */
        ck_assert_uint_ge(max, 65536);
    unsigned char *buf = echo_start(max, 23);
    const uint32_t n = 40;
    for (uint32_t i = 0; i < n; i++)   /* streamed: replies meet requests */
        echo_send(ifc, buf, i, i % 2 ? max : max / 2 + (size_t)rand() % (max / 2 - 7));
    echo_drain(ifc, n);
    for (uint32_t i = 0; i < 20; i++) {   /* ping-pong of the largest size */
        echo_send(ifc, buf, n + i, max);
        for (int k = 0; k < 3000 && echoed < n + i + 1; k++)
            am_wait(ifc, 10);
    }
    ck_assert_uint_eq(echoed, n + 20);
    ck_assert_uint_eq(echo_errors, 0);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    ck_assert_uint_eq(st.drops, 0);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0] + res[1], 0);
    ck_assert_uint_eq(res[2], n + 20);
    free(buf);
    am_shutdown(ifc);
}
END_TEST

/* Lent payloads: bodies from a pool of three are scribbled over right
 * after each am_reclaim, and on udp some AMs are dropped (the loss knob),
 * so retransmissions come both from the lent pieces (before am_reclaim)
 * and from the copies it made: every echo must still match its checksum. */
START_TEST(lent_payload_survives_reuse)
{
    struct am_config cfg = small_cfg();
    if (!reliable) {
        cfg.fault_drop_ppm = 50000;
        cfg.timeout_us = 2000;
    }
    struct peer p;
    am_interface_t *ifc = start_pair(&p, cfg);
    am_endpoint_t *ep = am_find_task(ifc, 2);
    ck_assert_ptr_nonnull(ep);
    size_t max = am_max_payload(ifc) - 8;
    unsigned char *body[3];
    for (int b = 0; b < 3; b++)
        ck_assert_ptr_nonnull(body[b] = malloc(max));
    echoed = echo_errors = 0;
    srand(29);
    const uint32_t n = 300;
    for (uint32_t i = 0; i < n; i++) {
        unsigned char *d = body[i % 3];
        size_t len = 1024 + (size_t)rand() % (max - 1024);
        for (size_t j = 0; j < len; j += 4)
            memset(d + j, rand(), len - j < 4 ? len - j : 4);
        uint32_t w[2] = { i, test_sum32(d, len) };
        struct iovec iov[3] = { { w, 8 }, { d, len / 3 }, { d + len / 3, len - len / 3 } };
        int rc = am_request_lend_ep(ifc, ep, h_echo, iov, 3);
        ck_assert_msg(rc == AM_OK, "request %u: %s", i, am_strerror(rc));
        if (i % 3 == 2) {
            ck_assert_int_eq(am_reclaim(ifc, ep), AM_OK);
            for (int b = 0; b < 3; b++)
                memset(body[b], 0x5a, max);
        }
    }
    ck_assert_int_eq(am_reclaim(ifc, ep), AM_OK);
    for (int b = 0; b < 3; b++)
        free(body[b]);
    echo_drain(ifc, n);
    ck_assert_uint_eq(echo_errors, 0);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    if (!reliable)
        ck_assert_uint_gt(st.retransmits, 0);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0] + res[1], 0);
    ck_assert_uint_eq(res[2], n);
    am_shutdown(ifc);
}
END_TEST

/* Both tasks stream big requests at each other at once, before either
 * waits for anything: each send that waits (for a free request instance,
 * for room in a ring or socket, for the peer's copy) must keep taking in
 * what the other sends and answer it.  Over shm the sizes fill the ring
 * exactly, so that it empties and starts over while a send waits for
 * room: a record written where the peer no longer looks hung both tasks
 * (tr_shm.c reserve).  Bounded by the case's timeout (main). */
START_TEST(stream_both_ways_at_once)
{
    const int n = 8000;
    struct peer p;
    sink_got = sink_errors = 0;
    child_streams = n;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    child_streams = 0;
    int rc = sink_stream(ifc, 2, n, 3);
    ck_assert_msg(rc == AM_OK, "stream: %s", am_strerror(rc));
    for (int k = 0; k < 3000 && sink_got < (uint32_t)n; k++)
        am_wait(ifc, 10);
    ck_assert_uint_eq(sink_got, n);
    ck_assert_uint_eq(sink_errors, 0);
    /* the child may still wait for our (blank) replies: serve it until it
     * reports, which it does once its own stream is through */
    ck_assert_int_eq(write(p.to[1], "x", 1), 1);
    int reported = 0;
    for (int k = 0; k < 3000 && !reported; k++) {
        am_wait(ifc, 10);
        fd_set fs;
        struct timeval tv = { 0, 0 };
        FD_ZERO(&fs);
        FD_SET(p.from[0], &fs);
        reported = select(p.from[0] + 1, &fs, NULL, NULL, &tv) > 0;
    }
    ck_assert_msg(reported, "the child did not finish its stream");
    uint64_t res[NRES];
    collect_pair(&p, res);
    ck_assert_uint_eq(res[9], 0);   /* the child's stream: AM_OK */
    ck_assert_uint_eq(res[7], n);
    ck_assert_uint_eq(res[8], 0);
    am_shutdown(ifc);
}
END_TEST

static int dead_calls;
static void on_dead(am_interface_t *ifc, int32_t tid, void *arg) { dead_calls++; }

START_TEST(peer_death_reported)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    am_set_dead_handler(ifc, on_dead, NULL);
    stream(ifc, 100, 3);
    kill(p.pid, SIGKILL);
    waitpid(p.pid, NULL, 0);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = AM_OK;
    char buf[64] = { 0 };
    for (int i = 0; i < 100000 && rc == AM_OK; i++) {
        rc = am_request(ifc, 2, h_data, buf, sizeof buf);
        if (rc == AM_OK)
            rc = am_wait(ifc, 1) < 0 ? AM_ERR_DEAD : AM_OK;
        am_endpoint_t *ep = am_find_task(ifc, 2);
        if (am_task_dead(ep))
            rc = AM_ERR_DEAD;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_int_eq(rc, AM_ERR_DEAD);
    ck_assert_msg(secs < 5.0, "death noticed after %.2f s", secs);   /* limit 0.5 s + doubling */
    ck_assert_int_eq(dead_calls, 1);
    ck_assert_int_eq(am_request(ifc, 2, h_data, buf, 8), AM_ERR_DEAD);
    close(p.to[0]); close(p.to[1]); close(p.from[0]); close(p.from[1]);
    am_shutdown(ifc);
}
END_TEST

/* The peer is killed while largest requests stream to it (some in flight,
 * some being copied): sends fail with AM_ERR_DEAD in bounded time, the
 * dead handler runs once, and nothing of the link stays open. */
START_TEST(peer_killed_mid_stream)
{
    struct peer p;
    int fds = count_fds();
    dead_calls = 0;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    am_set_dead_handler(ifc, on_dead, NULL);
    size_t max = am_max_payload(ifc);
    char *big = calloc(1, max);
    ck_assert_ptr_nonnull(big);
    struct timespec t0, t1;
    int rc = AM_OK, i;
    for (i = 0; i < 100000 && rc == AM_OK; i++) {
        if (i == 20) {
            kill(p.pid, SIGKILL);
            /* UCX's shared memory checks a peer by its process: a zombie
             * (not reaped yet) is alive to it, so reap at once there */
            if (ucx)
                waitpid(p.pid, NULL, 0);
            clock_gettime(CLOCK_MONOTONIC, &t0);
        }
        rc = am_request(ifc, 2, h_data, big, i % 3 ? max : 100);
        if (rc == AM_OK && i > 20)
            rc = am_wait(ifc, 1) < 0 ? AM_ERR_DEAD : AM_OK;
        if (am_task_dead(am_find_task(ifc, 2)))
            rc = AM_ERR_DEAD;
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
    ck_assert_int_gt(i, 20);
    ck_assert_int_eq(rc, AM_ERR_DEAD);
    ck_assert_msg(secs < 5.0, "death noticed after %.2f s", secs);
    ck_assert_int_eq(dead_calls, 1);
    ck_assert_int_eq(am_request(ifc, 2, h_data, big, max), AM_ERR_DEAD);
    if (!ucx)
        waitpid(p.pid, NULL, 0);
    close(p.to[0]); close(p.to[1]); close(p.from[0]); close(p.from[1]);
    am_shutdown(ifc);
    free(big);
    ck_assert_int_eq(count_fds(), fds);
}
END_TEST

/* shm: junk through the listening socket (abstract "pvmam-" + address,
 * libam/tr_shm.c): messages of every size, with and without descriptors. */
static void shm_junk(const char *addr)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    /* the socket is named after the transport's address, without "#secret" */
    int n = snprintf(sa.sun_path + 1, sizeof sa.sun_path - 1, "pvmam-%.*s",
                     (int)(strrchr(addr, '#') - addr), addr);
    socklen_t sl = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + (size_t)n);
    unsigned char junk[300];
    srand(5);
    for (int k = 0; k < 30; k++) {
        for (size_t j = 0; j < sizeof junk; j++)
            junk[j] = (unsigned char)rand();
        int fd = socket(AF_UNIX, SOCK_SEQPACKET, 0);
        ck_assert_int_ge(fd, 0);
        if (connect(fd, (struct sockaddr *)&sa, sl) == 0) {
            int pfd[2] = { -1, -1 };
            size_t len = (size_t)(k * 37 % 300) + 1;
            if (k % 2 && pipe(pfd) == 0) {   /* descriptors that are no segment */
                union { char b[CMSG_SPACE(sizeof(int) * 2)]; struct cmsghdr a; } u;
                struct iovec v = { junk, len };
                struct msghdr mh = { .msg_iov = &v, .msg_iovlen = 1, .msg_control = u.b,
                                     .msg_controllen = sizeof u.b };
                struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
                c->cmsg_level = SOL_SOCKET;
                c->cmsg_type = SCM_RIGHTS;
                c->cmsg_len = CMSG_LEN(sizeof(int) * 2);
                memcpy(CMSG_DATA(c), pfd, sizeof pfd);
                sendmsg(fd, &mh, MSG_NOSIGNAL);
                close(pfd[0]);
                close(pfd[1]);
            } else {
                send(fd, junk, len, MSG_NOSIGNAL);
            }
        }
        close(fd);
    }
}

/* ucx: junk AMs through UCX itself, from a worker of our own, to the
 * ucp AM id libam uses (libam/tr_ucx.c): headers too short, without the
 * magic, a HELLO, lengths that do not add up, a wrong secret, an unknown
 * sender; small and by rendezvous. */
#ifdef HAVE_UCX
#include <ucp/api/ucp.h>
#define UCX_AM_ID 7   /* as libam/tr_ucx.c */

static long b64url_get(const char *s, unsigned char *out)
{
    static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
    size_t o = 0, bits = 0;
    uint32_t v = 0;
    for (; *s && *s != '#'; s++) {
        const char *p = strchr(a, *s);
        if (!p)
            return -1;
        v = v << 6 | (uint32_t)(p - a);
        bits += 6;
        if (bits >= 8) {
            bits -= 8;
            out[o++] = (unsigned char)(v >> bits);
        }
    }
    return (long)o;
}

static void ucx_junk(am_interface_t *target, const char *addr)
{
    unsigned char wa[2048];
    unsigned long long key;
    const char *w = strchr(strchr(addr + 4, ':') + 1, ':') + 1;
    ck_assert_int_eq(sscanf(strrchr(addr, '#') + 1, "%16llx", &key), 1);
    ck_assert_int_gt(b64url_get(w, wa), 0);
    ucp_params_t prm = { .field_mask = UCP_PARAM_FIELD_FEATURES, .features = UCP_FEATURE_AM };
    ucp_context_h ctx;
    ucp_worker_h wk;
    ucp_ep_h ep;
    ck_assert_int_eq(ucp_init(&prm, NULL, &ctx), UCS_OK);
    ucp_worker_params_t wp = { .field_mask = 0 };
    ck_assert_int_eq(ucp_worker_create(ctx, &wp, &wk), UCS_OK);
    ucp_ep_params_t ep_p = { .field_mask = UCP_EP_PARAM_FIELD_REMOTE_ADDRESS,
                             .address = (const ucp_address_t *)wa };
    ck_assert_int_eq(ucp_ep_create(wk, &ep_p, &ep), UCS_OK);
    static char big[1 << 20];
    for (int k = 0; k < 12; k++) {
        /* an AM header (network order, libam/am_proto.c) + a sender id */
        uint32_t hw[10] = { htonl(8), 0, htonl(1u << 24), htonl(0x414d3033u), 0, 0,
                            htonl((uint32_t)(key >> 32)), htonl((uint32_t)key), 7, 7 };
        size_t hlen = sizeof hw, dlen = 8;
        unsigned flags = k % 2 ? UCP_AM_SEND_FLAG_RNDV : UCP_AM_SEND_FLAG_EAGER;
        switch (k / 2) {
        case 0: hlen = 5; break;                         /* too short */
        case 1: hw[3] = htonl(0x12345678); break;        /* no magic */
        case 2: hw[2] = htonl(3u << 24); break;          /* a HELLO */
        case 3: dlen = 100; break;                       /* lengths differ */
        case 4: hw[7] ^= htonl(1); break;                /* wrong secret */
        default: dlen = k % 2 ? sizeof big : 8;          /* right secret, unknown sender */
                 hw[0] = htonl((uint32_t)dlen); break;
        }
        ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS, .flags = flags };
        ucs_status_ptr_t r = ucp_am_send_nbx(ep, UCX_AM_ID, hw, hlen, big, dlen, &rp);
        for (int i = 0; UCS_PTR_IS_PTR(r) && i < 100000 &&
                        ucp_request_check_status(r) == UCS_INPROGRESS; i++) {
            ucp_worker_progress(wk);
            am_poll(target);   /* the same thread: both must progress */
            if (i % 100 == 99)
                usleep(100);
        }
        if (UCS_PTR_IS_PTR(r))
            ucp_request_free(r);
    }
    ucp_request_param_t cp = { .op_attr_mask = 0 };   /* flush: FORCE trips a UCX assertion */
    ucs_status_ptr_t r = ucp_ep_close_nbx(ep, &cp);
    for (int i = 0; UCS_PTR_IS_PTR(r) && i < 100000 && ucp_request_check_status(r) == UCS_INPROGRESS;
         i++) {
        ucp_worker_progress(wk);
        am_poll(target);
    }
    if (UCS_PTR_IS_PTR(r))
        ucp_request_free(r);
    ucp_worker_destroy(wk);
    ucp_cleanup(ctx);
}
#else
static void ucx_junk(am_interface_t *target, const char *addr) { ck_abort_msg("ucx without UCX headers"); }
#endif

/* Junk at the endpoint's address: it survives, counts it, keeps working. */
START_TEST(garbage_survived)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    unsigned ip = 0, port = 0;
    const char *a = am_task_address(ifc, AM_TID_SELF);
    if (shm)
        shm_junk(a);
    else if (ucx)
        ucx_junk(ifc, a);
    else
        ck_assert_int_eq(sscanf(strchr(a, ':') + 1, "%x:%x", &ip, &port), 2);
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                              .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
    unsigned char junk[300];
    srand(5);
    int udp = !strcmp(transport, "udp");
    for (int k = 0; k < 50 && !shm && !ucx; k++) {
        for (size_t j = 0; j < sizeof junk; j++)
            junk[j] = (unsigned char)rand();
        int fd = socket(AF_INET, udp ? SOCK_DGRAM : SOCK_STREAM, 0);
        if (udp) {
            sendto(fd, junk, (size_t)(k * 7 % 300), 0, (struct sockaddr *)&sa, sizeof sa);
        } else if (connect(fd, (struct sockaddr *)&sa, sizeof sa) == 0) {
            send(fd, junk, sizeof junk, MSG_NOSIGNAL);
        }
        close(fd);
        am_wait(ifc, 1);
    }
    for (int k = 0; k < 50; k++)
        am_wait(ifc, 5);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    ck_assert_uint_gt(st.drops, 0);
    if (ucx)   /* the AMs with a wrong secret */
        ck_assert_uint_gt(st.auth_drops, 0);
    stream(ifc, 500, 9);            /* the real peer still works */
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0] + res[1], 0);
    am_shutdown(ifc);
}
END_TEST

/* Only holders of an interface's secret reach it: a sender with the right
 * address but a wrong secret (or none) gets nothing delivered, the drops
 * are counted as such, and malformed secrets are refused up front. */
START_TEST(wrong_secret_dropped)
{
    struct am_config c = small_cfg();
    c.key = 0x0123456789abcdefull;
    am_interface_t *a, *b;
    ck_assert_int_eq(am_init(transport, &c, &a), AM_OK);
    c.key = 0;   /* a random one */
    ck_assert_int_eq(am_init(transport, &c, &b), AM_OK);
    const char *cap = am_task_address(a, AM_TID_SELF);
    const char *sep = strrchr(cap, '#');
    ck_assert_ptr_nonnull(sep);
    ck_assert_str_eq(sep, "#0123456789abcdef");
    ck_assert_str_ne(strrchr(am_task_address(b, AM_TID_SELF), '#'), sep);
    char addr[AM_ADDR_MAX], bad[AM_ADDR_MAX + 32];
    snprintf(addr, sizeof addr, "%.*s", (int)(sep - cap), cap);
    am_endpoint_t *ep;
    ck_assert_int_eq(am_allocate_task(b, &ep), AM_OK);
    /* no secret, a short one, a non-hex one: not an address */
    ck_assert_int_eq(am_connect_task(b, ep, addr), AM_ERR_BADADDR);
    snprintf(bad, sizeof bad, "%s#0123456789abcde", addr);
    ck_assert_int_eq(am_connect_task(b, ep, bad), AM_ERR_BADADDR);
    snprintf(bad, sizeof bad, "%s#0123456789abcdeg", addr);
    ck_assert_int_eq(am_connect_task(b, ep, bad), AM_ERR_BADADDR);
    /* one digit off */
    snprintf(bad, sizeof bad, "%s#0123456789abcdee", addr);
    ck_assert_int_eq(am_connect_task(b, ep, bad), AM_OK);
    ck_assert_int_eq(am_insert_task(b, ep, 1), AM_OK);
    int conless = !reliable || ucx;   /* tcp, shm: the connection itself is refused */
    if (conless)
        for (int k = 0; k < 5; k++)
            ck_assert_int_eq(am_request(b, 1, h_data, "12345678", 8), AM_OK);
    struct am_stats st;
    for (int k = 0; k < 400; k++) {   /* bounded: 400 x (up to) 5 ms */
        am_wait(a, 5);
        am_poll(b);   /* one thread: ucx's sender must progress too */
        am_interface_stats(a, &st);
        if (st.auth_drops >= (conless ? 5u : 1u))
            break;
    }
    ck_assert_uint_ge(st.auth_drops, conless ? 5 : 1);
    ck_assert_uint_eq(st.requests_recv, 0);
    ck_assert_uint_eq(expect_seq, 0);   /* on_data never ran */
    am_shutdown(b);
    am_shutdown(a);
}
END_TEST

int main(int argc, char **argv)
{
    transport = argc > 1 ? argv[1] : "udp";
    ucx = !strcmp(transport, "ucx");
    reliable = !strcmp(transport, "tcp") || !strcmp(transport, "shm") || ucx;
    shm = !strcmp(transport, "shm");
    int built = 0;
    for (const char *const *n = am_transports(); *n; n++)
        built += !strcmp(*n, transport);
    if (!built) {
        printf("SKIP: libam transport %s not built (ucx: configure found no UCX)\n", transport);
        return 77;
    }
    register_handlers();
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create(transport);
    TCase *tc = tcase_create("libam");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, basics);
    tcase_add_test(tc, exchange_10000_in_order);
    if (!reliable)
        tcase_add_test(tc, exchange_with_loss_knob);
    tcase_add_test(tc, placement_delivers_everything);
    if (!reliable)
        tcase_add_test(tc, placement_with_loss_knob);
    tcase_add_test(tc, echo_both_ways);
    tcase_add_test(tc, echo_big_peer_forked_after_init);
    tcase_add_test(tc, lent_payload_survives_reuse);
    tcase_add_test(tc, peer_death_reported);
    tcase_add_test(tc, peer_killed_mid_stream);
    tcase_add_test(tc, garbage_survived);
    tcase_add_test(tc, wrong_secret_dropped);
    suite_add_tcase(s, tc);
    /* its own case: a hang here fails in 60 s (CK_RUN_CASE=both_ways runs it alone) */
    TCase *tb = tcase_create("both_ways");
    tcase_set_timeout(tb, 60);
    tcase_add_test(tb, stream_both_ways_at_once);
    suite_add_tcase(s, tb);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
