/*
 * echo.c - libam tests: echoes big and small, lent payloads, and two tasks
 * streaming at each other at once (fixture.h).
 */
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/select.h>
#include <sys/wait.h>
#include "fixture.h"
#include "shm/shm.h"   /* shm: the record sizes (libam/tr_shm.h, REC_SHORT) */

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
        WAIT_WHILE(ifc, WAIT_SECS, echoed < n + i + 1);
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

/* Echoes of every size round the shm transport's one-line limit
 * (SHORT_MAX, libam/shm/short.h), each checked, in order, on every
 * transport; over shm each request must take one 64-byte record while it
 * fits (REC_SHORT) and its REC_AM's whole lines after. */
START_TEST(small_echoes_round_the_short_limit)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    unsigned char *buf = echo_start(64, 23);
    am_endpoint_t *ep = am_find_task(ifc, 2);
    ck_assert_ptr_nonnull(ep);
    uint32_t n = 0;
    for (int round = 0; round < 20; round++)
        for (size_t len = 8; len <= 40; len++, n++) {
            uint64_t before = shm ? ((struct shm_ep *)ep->tp)->tx.head : 0;
            echo_send(ifc, buf, n, len);
            if (shm) {
                uint64_t took = ((struct shm_ep *)ep->tp)->tx.head - before;
                uint64_t want = len <= SHORT_MAX ? REC_ALIGN : REC_LEN(AMX_HDR + len);
                ck_assert_msg(took == want, "a %zu-byte AM took %llu ring bytes, not %llu", len,
                              (unsigned long long)took, (unsigned long long)want);
            }
            if (n % 3 == 0)   /* now and then a ping-pong, else a few in flight */
                WAIT_WHILE(ifc, WAIT_SECS, echoed < n + 1);
        }
    echo_drain(ifc, n);
    ck_assert_uint_eq(echo_errors, 0);
    uint64_t res[NRES];
    stop_pair(&p, res);
    ck_assert_uint_eq(res[0] + res[1], 0);
    ck_assert_uint_eq(res[2], n);
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
        WAIT_WHILE(ifc, WAIT_SECS, echoed < n + i + 1);
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

/* Both tasks stream n sink requests at each other at once (the child's
 * with seed 5, ours with seed); once ours are all answered and the
 * child's all in, the child is told to stop and served until it
 * reports: it may still wait for our (blank) replies, and reports once
 * its own stream is through.  The caller collects the report. */
static am_interface_t *both_ways(struct peer *p, int n, unsigned seed)
{
    sink_got = sink_errors = 0;
    child_streams = n;
    am_interface_t *ifc = start_pair(p, small_cfg());
    child_streams = 0;
    int rc = sink_stream(ifc, 2, n, seed);
    ck_assert_msg(rc == AM_OK, "stream: %s", am_strerror(rc));
    WAIT_WHILE(ifc, WAIT_SECS, sink_got < (uint32_t)n);
    ck_assert_uint_eq(sink_got, n);
    ck_assert_uint_eq(sink_errors, 0);
    ck_assert_int_eq(write(p->to[1], "x", 1), 1);
    int reported = 0;
    for (uint64_t end = test_now_ms() + WAIT_SECS * 1000u; !reported && test_now_ms() < end;) {
        am_wait(ifc, 10);
        fd_set fs;
        struct timeval tv = { 0, 0 };
        FD_ZERO(&fs);
        FD_SET(p->from[0], &fs);
        reported = select(p->from[0] + 1, &fs, NULL, NULL, &tv) > 0;
    }
    ck_assert_msg(reported, "the child did not finish its stream");
    return ifc;
}

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
    am_interface_t *ifc = both_ways(&p, n, 3);
    uint64_t res[NRES];
    collect_pair(&p, res);
    ck_assert_uint_eq(res[9], 0);   /* the child's stream: AM_OK */
    ck_assert_uint_eq(res[7], n);
    ck_assert_uint_eq(res[8], 0);
    am_shutdown(ifc);
}
END_TEST

/* Small requests both ways at once, every size from 8 to 4199 bytes in
 * turn, windows full: over ucx some go by UCX's short path at once
 * (tr_ucx.c's ucx_put_small), some are copied and left to UCX
 * (send_small), replies and blank replies cross them.  A reliable
 * transport never reorders or loses one: no order or checksum error, and
 * no request dropped as out of sequence (am_input.c counts those as
 * drops; before that they vanished and the sender's window hung). */
START_TEST(small_requests_both_ways_in_order)
{
    const int n = 20000;
    struct peer p;
    sink_small = 1;
    am_interface_t *ifc = both_ways(&p, n, 9);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    if (reliable)
        ck_assert_uint_eq(st.drops, 0);
    uint64_t res[NRES];
    collect_pair(&p, res);
    ck_assert_uint_eq(res[9], 0);   /* the child's stream: AM_OK */
    ck_assert_uint_eq(res[7], n);
    ck_assert_uint_eq(res[8], 0);
    sink_small = 0;
    am_shutdown(ifc);
}
END_TEST

void echo_tests(TCase *tc)
{
    tcase_add_test(tc, echo_both_ways);
    tcase_add_test(tc, small_echoes_round_the_short_limit);
    tcase_add_test(tc, echo_big_peer_forked_after_init);
    tcase_add_test(tc, lent_payload_survives_reuse);
}

/* am_take_ep (what a waiting pvm_precv does first, docs/architecture.md,
 * "Taken before any handler"): the child streams small requests, every
 * size from 8 to 4199 bytes in turn (over shm one-line REC_SHORTs, REC_AMs
 * copied out and read in place, the end of put_small, AMX_PUT_MAX), and
 * the parent offers each next one to a taker, which declines every third
 * offer, and polls when the transport says so.  The taker checks order
 * and checksum as the handler does, with the same counter: every request
 * arrives once and in order whichever took it, none is dropped, and the
 * child's window empties (a taken request's blank reply is owed and paid
 * as a handled one's).  Over shm and ucx some must be taken (ucx:
 * tr_ucx.c's ucx_take_ep, from UCX's progress); over tcp and udp
 * am_take_ep always says poll. */
static uint32_t offers, taken;

static int take_sink(void *arg, int handler, const void *data, size_t len)
{
    uint32_t w[2];
    (void)arg;
    if (++offers % 3 == 0)
        return 0;   /* declined: the handler's, untouched */
    if (handler != h_sink || len < 8) {
        sink_errors++;
        return 0;
    }
    memcpy(w, data, 8);
    if (w[0] != sink_got || w[1] != test_sum32((const unsigned char *)data + 8, len - 8))
        sink_errors++;
    sink_got++;
    taken++;
    return 1;
}

START_TEST(small_requests_taken_in_order)
{
    const int n = 20000;
    struct peer p;
    sink_got = sink_errors = offers = taken = 0;
    sink_small = 1;
    child_streams = n;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    child_streams = 0;
    am_endpoint_t *ep = am_find_task(ifc, 2);
    ck_assert_ptr_nonnull(ep);
    for (uint64_t end = test_now_ms() + WAIT_SECS * 1000u;
         sink_got < (uint32_t)n && test_now_ms() < end;) {
        int rc = am_take_ep(ifc, ep, take_sink, NULL);
        ck_assert_msg(rc >= 0, "am_take_ep: %s", am_strerror(rc));
        if (rc == AM_TAKE_POLL)
            ck_assert_int_ge(am_poll_ep(ifc, ep), 0);
        else if (rc == 0)
            sched_yield();   /* not am_wait: it would read the next ones itself */
    }
    ck_assert_uint_eq(sink_got, n);
    ck_assert_uint_eq(sink_errors, 0);
    if (shm || ucx)
        ck_assert_uint_gt(taken, 0);
    struct am_stats st;
    am_interface_stats(ifc, &st);
    ck_assert_uint_eq(st.drops, 0);
    ck_assert_uint_eq(st.requests_recv, n);
    uint64_t res[NRES];
    ck_assert_int_eq(write(p.to[1], "x", 1), 1);
    int reported = 0;   /* serve until the child has its replies and reports */
    for (uint64_t end = test_now_ms() + WAIT_SECS * 1000u; !reported && test_now_ms() < end;) {
        am_wait(ifc, 10);
        fd_set fs;
        struct timeval tv = { 0, 0 };
        FD_ZERO(&fs);
        FD_SET(p.from[0], &fs);
        reported = select(p.from[0] + 1, &fs, NULL, NULL, &tv) > 0;
    }
    ck_assert_msg(reported, "the child did not finish its stream");
    collect_pair(&p, res);
    ck_assert_uint_eq(res[9], 0);   /* the child's stream: AM_OK, its window emptied */
    sink_small = 0;
    am_shutdown(ifc);
}
END_TEST

void both_ways_tests(TCase *tc)
{
    tcase_add_test(tc, stream_both_ways_at_once);
    tcase_add_test(tc, small_requests_both_ways_in_order);
    tcase_add_test(tc, small_requests_taken_in_order);
}
