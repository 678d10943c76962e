/*
 * hostile.c - libam tests: a peer that dies, junk at an endpoint's address,
 * senders without the secret (fixture.h).
 */
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include "fixture.h"

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
        /* an AM header (network order, libam/am_wire.c) + a sender id */
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
    /* The same junk as UCX's data alone, without a UCX header, the form of
     * libam's own small AMs (tr_ucx.c's ucx_put_small): too short, without
     * the magic, a HELLO, lengths that do not add up (each a drop), and a
     * wrong secret (read as an AM, so refused as such: an auth drop). */
    struct am_stats s0, s1;
    am_interface_stats(target, &s0);
    for (int k = 0; k < 5; k++) {
        uint32_t hw[10] = { htonl(8), 0, htonl(1u << 24), htonl(0x414d3033u), 0, 0,
                            htonl((uint32_t)(key >> 32)), htonl((uint32_t)key), 7, 7 };
        size_t n = sizeof hw + 8;
        switch (k) {
        case 0: n = 5; break;                            /* too short */
        case 1: hw[3] = htonl(0x12345678); break;        /* no magic */
        case 2: hw[2] = htonl(3u << 24); break;          /* a HELLO */
        case 3: n = sizeof hw + 100; break;              /* lengths differ */
        default: hw[7] ^= htonl(1); break;               /* wrong secret */
        }
        memcpy(big, hw, sizeof hw);
        ucp_request_param_t rp = { .op_attr_mask = UCP_OP_ATTR_FIELD_FLAGS,
                                   .flags = UCP_AM_SEND_FLAG_EAGER };
        ucs_status_ptr_t r = ucp_am_send_nbx(ep, UCX_AM_ID, NULL, 0, big, n, &rp);
        for (int i = 0; UCS_PTR_IS_PTR(r) && i < 100000 &&
                        ucp_request_check_status(r) == UCS_INPROGRESS; i++) {
            ucp_worker_progress(wk);
            am_poll(target);
        }
        if (UCS_PTR_IS_PTR(r))
            ucp_request_free(r);
    }
    for (int i = 0; i < 200000; i++) {   /* until the target has seen all five */
        ucp_worker_progress(wk);
        am_poll(target);
        am_interface_stats(target, &s1);
        if (s1.drops - s0.drops >= 4 && s1.auth_drops > s0.auth_drops)
            break;
        if (i % 100 == 99)
            usleep(100);
    }
    ck_assert_uint_ge(s1.drops - s0.drops, 4);
    ck_assert_uint_eq(s1.auth_drops - s0.auth_drops, 1);
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
    /* bad: room for the address and any suffix below */
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

/* The reason a dead handler reads (am_task_dead_reason, am_task_death)
 * while the endpoint is still there, as pvmam's does. */
static int why_seen = -1;
static char why_text[200];
static void on_dead_why(am_interface_t *ifc, int32_t tid, void *arg)
{
    am_endpoint_t *ep = am_find_task(ifc, tid);
    why_seen = am_task_death(ep, NULL);
    snprintf(why_text, sizeof why_text, "%s", am_task_dead_reason(ep));
}

/* Send small requests to task 2 until its endpoint is dead (bounded by
 * secs): the reason then, its text in why_text (from the dead handler). */
static int death_of_2(am_interface_t *ifc, int secs)
{
    char buf[64] = { 0 };
    uint64_t end = test_now_ms() + (uint64_t)secs * 1000u;
    while (why_seen < 0 && test_now_ms() < end) {
        if (am_request(ifc, 2, h_data, buf, sizeof buf) == AM_OK)
            am_wait(ifc, 1);
    }
    am_endpoint_t *ep = am_find_task(ifc, 2);
    ck_assert_msg(am_task_dead(ep), "task 2 was not declared dead in %d s", secs);
    int err = -1;
    int why = am_task_death(ep, &err);
    ck_assert_int_eq(why, why_seen);
    ck_assert_str_eq(am_task_dead_reason(ep), why_text);
    fprintf(stderr, "death (%s): %d, \"%s\", errno %d\n", transport, why, why_text, err);
    size_t tl = strlen(transport);
    ck_assert_msg(!strncmp(why_text, transport, tl) && why_text[tl] == ':',
                  "the reason \"%s\" does not name the transport", why_text);
    return why;
}

/* A killed peer's endpoint says why it died: its connection closed (tcp,
 * shm; shm may see its process end first, by its pidfd), its port closed
 * (udp: the ICMP answer to the next datagram), or UCX said so. */
START_TEST(peer_death_says_why)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    why_seen = -1;
    why_text[0] = '\0';
    am_endpoint_t *ep = am_find_task(ifc, 2);
    ck_assert_int_eq(am_task_death(ep, NULL), AM_DEATH_NONE);
    ck_assert_str_eq(am_task_dead_reason(ep), "");
    am_set_dead_handler(ifc, on_dead_why, NULL);
    stream(ifc, 20, 5);
    kill(p.pid, SIGKILL);
    waitpid(p.pid, NULL, 0);
    int why = death_of_2(ifc, 10);
    if (shm)
        ck_assert_msg(why == AM_DEATH_EXITED || why == AM_DEATH_CLOSED, "shm: %s", why_text);
    else if (ucx)
        ck_assert_msg(why == AM_DEATH_TRANSPORT || why == AM_DEATH_CLOSED, "ucx: %s", why_text);
    else
        ck_assert_msg(why == AM_DEATH_CLOSED, "%s: %s", transport, why_text);
    close(p.to[0]); close(p.to[1]); close(p.from[0]); close(p.from[1]);
    am_shutdown(ifc);
}
END_TEST

/* A peer that stops answering (stopped, not dead) is declared dead by
 * the retransmission timeout on an unreliable transport, and says so; a
 * reliable one keeps it (a slow peer is not a dead one: waits.c). */
START_TEST(silent_peer_says_timeout)
{
    if (reliable)
        return;
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    why_seen = -1;
    why_text[0] = '\0';
    am_set_dead_handler(ifc, on_dead_why, NULL);
    stream(ifc, 20, 6);
    ck_assert_int_eq(kill(p.pid, SIGSTOP), 0);
    int why = death_of_2(ifc, 10);
    kill(p.pid, SIGKILL);
    kill(p.pid, SIGCONT);
    waitpid(p.pid, NULL, 0);
    ck_assert_msg(why == AM_DEATH_TIMEOUT, "%s: %s", transport, why_text);
    close(p.to[0]); close(p.to[1]); close(p.from[0]); close(p.from[1]);
    am_shutdown(ifc);
}
END_TEST

void death_tests(TCase *tc)
{
    tcase_add_test(tc, peer_death_reported);
    tcase_add_test(tc, peer_killed_mid_stream);
    tcase_add_test(tc, peer_death_says_why);
    tcase_add_test(tc, silent_peer_says_timeout);
}

void hostile_tests(TCase *tc)
{
    tcase_add_test(tc, garbage_survived);
    tcase_add_test(tc, wrong_secret_dropped);
}
