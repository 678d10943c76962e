/*
 * waits.c - libam tests (fixture.h): a shm sender and a receiver that
 * does not run.  With more tasks than cores a receiver is often not
 * running when a message for it is sent; up to what the ring holds the
 * sender must go on, its payload copied into the ring (libam/shm/ring.c,
 * sizing) or streamed through it in chunks (libam/shm/shm.h, CMA_FROM).
 * And a receiver waiting for one peer's big AM that leaves another's
 * unread for a while (am_hold_big), and one that sleeps between small
 * requests, woken by each.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include "fixture.h"

/* One sink request (fixture.c, on_sink: number i and checksum first). */
static int sink_one(am_interface_t *ifc, unsigned char *buf, uint32_t i, size_t len)
{
    uint32_t w[2] = { i, test_sum32(buf + 8, len - 8) };
    memcpy(buf, w, 8);
    return am_request(ifc, 2, h_sink, buf, len);
}

static pid_t stopped;
static void cont_child(int sig)
{
    (void)sig;
    kill(stopped, SIGCONT);
}

/* len bytes of a pattern, for sink_one. */
static unsigned char *pattern(size_t len)
{
    unsigned char *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    for (size_t j = 0; j < len; j++)
        buf[j] = (unsigned char)(j * 7 + 1);
    return buf;
}

/* sink_one of request i to the peer pid, stopped meanwhile and let go by
 * an alarm after secs s; *took: how long the send took (ms). */
static int sink_to_stopped(am_interface_t *ifc, pid_t pid, unsigned char *buf, uint32_t i,
                           size_t len, unsigned secs, uint64_t *took)
{
    stopped = pid;
    struct sigaction sa = { .sa_handler = cont_child }, old;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, &old), 0);
    ck_assert_int_eq(kill(pid, SIGSTOP), 0);
    alarm(secs);
    uint64_t t0 = test_now_ms();
    int rc = sink_one(ifc, buf, i, len);
    *took = test_now_ms() - t0;
    alarm(0);
    kill(pid, SIGCONT);
    sigaction(SIGALRM, &old, NULL);
    return rc;
}

/* Both sink requests arrived, whole and in order; the pair ends. */
static void end_two_sunk(struct peer *p, am_interface_t *ifc, unsigned char *buf)
{
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    uint64_t res[NRES];
    stop_pair(p, res);
    ck_assert_uint_eq(res[7], 2);   /* both arrived, */
    ck_assert_uint_eq(res[8], 0);   /* whole and in order */
    free(buf);
    am_shutdown(ifc);
}

/* A message of len bytes to a stopped receiver: sent into the ring, so
 * the send returns at once.  The receiver is let go after 3 s (an alarm),
 * so a send that waits for it takes 3 s.  How long it took. */
static uint64_t send_to_stopped(size_t len)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    ck_assert_uint_ge(am_max_payload(ifc), len);
    unsigned char *buf = pattern(len);
    ck_assert_int_eq(sink_one(ifc, buf, 0, 64), AM_OK);   /* the link is up */
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    uint64_t took;
    ck_assert_int_eq(sink_to_stopped(ifc, p.pid, buf, 1, len, 3, &took), AM_OK);
    fprintf(stderr, "waits (shm): a %zu KiB send to a stopped receiver took %llu ms\n",
            len >> 10, (unsigned long long)took);
    end_two_sunk(&p, ifc, buf);
    return took;
}

/* 256 KiB: copied into the ring as one record.  It went by descriptor
 * before (more than half the 512 KiB ring), and the sender waited for
 * the receiver's copy: a root sending it to several receivers on a
 * crowded machine waited for each to be scheduled in turn. */
START_TEST(shm_256k_to_a_stopped_receiver_goes_on)
{
    uint64_t took = send_to_stopped((size_t)256 << 10);
    ck_assert_msg(took < 1000, "the send waited %llu ms for the receiver",
                  (unsigned long long)took);
}
END_TEST

/* 768 KiB, more than half the 1 MiB ring: streamed through it in chunks
 * (libam/shm/shm.h, CMA_FROM), all of which fit, so the send returns
 * before the receiver copies anything.  It went by descriptor before,
 * and the sender waited for the receiver's copy: pvm_psend's root of a
 * broadcast waited for each receiver in turn (docs/performance.md, "big
 * AMs streamed").  Unless told to go by descriptor (the CMA runs of
 * tests/libam/am-shm.sh): then the send waits, as it must. */
START_TEST(shm_768k_to_a_stopped_receiver_goes_on)
{
    const char *cf = getenv("LIBAM_SHM_CMA_FROM");
    uint64_t took = send_to_stopped((size_t)768 << 10);
    if (cf && strtoull(cf, NULL, 10) <= (768u << 10))
        return;
    ck_assert_msg(took < 1000, "the send waited %llu ms for the receiver",
                  (unsigned long long)took);
}
END_TEST

/* The link's first AM, bigger than the ring, to a receiver that is
 * stopped before it has mapped the segment (it is mapped on first use,
 * libam/shm/segment.c amx_shm_map) and stays stopped for five times
 * connect_timeout_ms: the sender waits for room as long as the receiver
 * lives, and the AM arrives once it runs again.  A slow peer is not a
 * dead one (tests/torture seed 971000557 at load 25). */
START_TEST(shm_first_big_send_to_a_stopped_receiver_waits)
{
    struct peer p;
    struct am_config c = small_cfg();
    c.connect_timeout_ms = 200;
    c.max_payload = (size_t)4 << 20;   /* more than the ring holds */
    am_interface_t *ifc = start_pair(&p, c);
    size_t len = (size_t)2 << 20;
    ck_assert_uint_ge(am_max_payload(ifc), len);
    unsigned char *buf = pattern(len);
    uint64_t took;
    int rc = sink_to_stopped(ifc, p.pid, buf, 0, len, 1, &took);
    fprintf(stderr, "waits (shm): a first 2 MiB send to a stopped receiver: %d after %llu ms\n",
            rc, (unsigned long long)took);
    ck_assert_int_eq(rc, AM_OK);
    ck_assert_int_eq(sink_one(ifc, buf, 1, 64), AM_OK);
    end_two_sunk(&p, ifc, buf);
}
END_TEST

/* An echo of len bytes (fixture.c, on_echo), lent: we do not wait for
 * the peer's copy here, so nothing is polled on the way. */
static void echo_lent(am_interface_t *ifc, am_endpoint_t *ep, unsigned char *buf,
                      uint32_t seq, size_t len)
{
    uint32_t w[2] = { seq, test_sum32(buf + 8, len - 8) };
    memcpy(buf, w, 8);
    struct iovec iov = { buf, len };
    ck_assert_int_eq(am_request_lend_ep(ifc, ep, h_echo, &iov, 1), AM_OK);
}

/* am_hold_big: while we wait for another peer's big AM, a big one (by
 * descriptor, more than half a ring) from this peer stays in its ring,
 * unread: pvm_precv's root of a reduce would otherwise land it in a
 * message block and copy it again (docs/performance.md, "the 1 MiB
 * reduce's second copy").  Held only for a bounded time, and never when
 * it is the awaited peer's own.  The peer's echo is in our ring after a
 * pause (the peer waits in its handler for our copy of it). */
START_TEST(shm_hold_big_leaves_others_big_ams)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    size_t len = (size_t)512 << 10;
    ck_assert_uint_ge(am_max_payload(ifc), len);
    unsigned char *buf = echo_start(len, 31);   /* fixture.c: counters reset */
    echo_send(ifc, buf, 0, 64);   /* the link is up */
    echo_drain(ifc, 1);
    am_endpoint_t *peer = am_find_task(ifc, 2), *other;
    ck_assert_ptr_nonnull(peer);
    ck_assert_int_eq(am_allocate_task(ifc, &other), AM_OK);   /* an awaited peer, never linked */

    /* held: one poll leaves it; once let go, one poll takes it */
    echo_lent(ifc, peer, buf, 1, len);
    am_hold_big(ifc, other);
    usleep(300 * 1000);
    am_poll(ifc);
    ck_assert_msg(echoed == 1, "a big AM from a peer not awaited was read during a hold");
    am_hold_big(ifc, NULL);
    WAIT_WHILE(ifc, WAIT_SECS, echoed < 2);
    ck_assert_uint_eq(echoed, 2);
    ck_assert_int_eq(am_reclaim(ifc, peer), AM_OK);

    /* a hold that is never let go ends for that AM after AM_HOLD_US */
    echo_lent(ifc, peer, buf, 2, len);
    am_hold_big(ifc, other);
    usleep(300 * 1000);
    uint64_t t0 = test_now_ms();
    WAIT_WHILE(ifc, WAIT_SECS, echoed < 3);
    uint64_t took = test_now_ms() - t0;
    ck_assert_uint_eq(echoed, 3);
    ck_assert_msg(took < 1000, "a held AM waited %llu ms", (unsigned long long)took);
    ck_assert_int_eq(am_reclaim(ifc, peer), AM_OK);

    /* the awaited peer's own is not held */
    echo_lent(ifc, peer, buf, 3, len);
    am_hold_big(ifc, peer);
    usleep(300 * 1000);
    am_poll(ifc);
    ck_assert_msg(echoed == 4, "the awaited peer's big AM was held");
    am_hold_big(ifc, NULL);
    ck_assert_int_eq(am_reclaim(ifc, peer), AM_OK);
    ck_assert_uint_eq(echo_errors, 0);
    ck_assert_int_eq(am_deallocate_task(ifc, other), AM_OK);
    uint64_t res[NRES];
    stop_pair(&p, res);
    free(buf);
    am_shutdown(ifc);
}
END_TEST

/* Small requests to a receiver that sleeps between them: each must wake
 * it (the producer's fence and look at the "sleeping" mark after each
 * record, libam/tr_shm.c commit; a fence left out there, or moved to the
 * sleeper as tried on 2026-11-28, docs/performance.md, is what this
 * guards).  The child serves with am_wait(ifc, 20) and the parent waits
 * with am_wait(ifc, 10) (WAIT_WHILE): a missed wake costs a round 10 or
 * 20 ms, so rounds that long are counted; a loaded machine's scheduler
 * makes a few. */
START_TEST(shm_small_requests_wake_a_sleeping_receiver)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    unsigned char *buf = echo_start(256, 29);
    enum { N = 200 };
    int slow = 0;
    for (uint32_t n = 0; n < N; n++) {
        usleep(1000);   /* the child spins 50 us (am_poll.c, am_wait) and sleeps */
        uint64_t t0 = test_now_ms();
        echo_send(ifc, buf, n, 8 + n % 200);   /* one line (REC_SHORT), or a REC_AM */
        WAIT_WHILE(ifc, WAIT_SECS, echoed < n + 1);
        if (test_now_ms() - t0 >= 8)
            slow++;
    }
    echo_drain(ifc, N);
    ck_assert_uint_eq(echo_errors, 0);
    uint64_t res[NRES];
    stop_pair(&p, res);
    fprintf(stderr, "waits (shm): %d of %d requests to a sleeping receiver took 8 ms or more\n",
            slow, N);
    ck_assert_uint_eq(res[0] + res[1], 0);
    ck_assert_msg(slow < N / 4, "%d of %d requests waited for a timeout, not a wake", slow, N);
    free(buf);
    am_shutdown(ifc);
}
END_TEST

/* A sender that dies: links to the receiver (address on `down`, ours on
 * `up`), sends a small sink request and, with big, once told (`down`),
 * one of len bytes, streamed through the ring (bigger than half of it,
 * smaller than all of it: no wait for room), says so and dies. */
static void die_after(struct am_config cfg, int big, size_t len, int up, int down)
{
    child_limit(PEER_SECS);
    am_interface_t *c;
    am_endpoint_t *ep;
    char mine[AM_ADDR_MAX] = { 0 }, theirs[AM_ADDR_MAX], go;
    unsigned char *buf = malloc(len);
    if (!buf || am_init("shm", &cfg, &c) < 0)
        _exit(2);
    strncpy(mine, am_task_address(c, AM_TID_SELF), AM_ADDR_MAX - 1);
    if (write(up, mine, sizeof mine) != sizeof mine || read(down, theirs, sizeof theirs) !=
        sizeof theirs)
        _exit(3);
    if (am_allocate_task(c, &ep) < 0 || am_connect_task(c, ep, theirs) < 0 ||
        am_insert_task(c, ep, 1) < 0)
        _exit(4);
    for (size_t j = 0; j < len; j++)
        buf[j] = (unsigned char)(j * 7 + 1);
    for (uint32_t i = 0; i < (big ? 2u : 1u); i++) {
        uint32_t w[2] = { i, 0 };
        size_t l = i ? len : 64;
        w[1] = test_sum32(buf + 8, l - 8);
        memcpy(buf, w, 8);
        if ((i && read(down, &go, 1) != 1) || am_request(c, 1, h_sink, buf, l) != AM_OK)
            _exit(5);
    }
    if (write(up, "s", 1) != 1)
        _exit(6);
    raise(SIGKILL);   /* no pvm_exit-like flush: the AM is in our ring, unacknowledged */
    _exit(7);
}

/* Our side of die_after: fork it, swap addresses over two pipes, accept
 * and insert it (tid 2).  *up_rd: its reports, *down_wr: ours to it; the
 * caller closes both. */
static pid_t link_dying_peer(am_interface_t *ifc, struct am_config cfg, int big, size_t len,
                             am_endpoint_t **ep, int *up_rd, int *down_wr)
{
    int up[2], down[2];
    ck_assert_int_eq(pipe(up), 0);
    ck_assert_int_eq(pipe(down), 0);
    pid_t pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        close(up[0]);
        close(down[1]);
        die_after(cfg, big, len, up[1], down[0]);
    }
    close(up[1]);
    close(down[0]);
    char mine[AM_ADDR_MAX] = { 0 }, theirs[AM_ADDR_MAX];
    strncpy(mine, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
    ck_assert_int_eq(read_within(up[0], theirs, sizeof theirs, 30), 0);
    ck_assert_int_eq(write(down[1], mine, sizeof mine), (ssize_t)sizeof mine);
    ck_assert_int_eq(am_allocate_task(ifc, ep), AM_OK);
    ck_assert_int_eq(am_accept_task(ifc, *ep, theirs), AM_OK);
    ck_assert_int_eq(am_insert_task(ifc, *ep, 2), AM_OK);
    *up_rd = up[0];
    *down_wr = down[1];
    return pid;
}

/* die_after says it sent its AMs: reap it, killed as planned. */
static void reap_dying_peer(int up_rd, pid_t pid)
{
    char said = 0;
    ck_assert_int_eq(read_within(up_rd, &said, 1, 30), 0);
    int st = reap_within(pid, 30);
    ck_assert_msg(st != -1 && WIFSIGNALED(st), "the sender did not die as planned: %d", st);
}

/* A peer sent a big AM, streamed whole into its ring (its send returned),
 * and died at once, while we wait for another peer's big AM (am_hold_big,
 * as pvm_precv does): the AM is still ours to handle.  The peer's end (its
 * socket, its pidfd) reads its ring first (libam/tr_shm.c, peer_event);
 * there the big AM at the head of the ring was held, as from a live
 * peer, and dropped with the endpoint.  Not where big AMs go by
 * descriptor (LIBAM_SHM_CMA_FROM): a sender waits for that copy. */
START_TEST(shm_big_am_of_a_dead_peer_is_handled_during_a_hold)
{
    if (getenv("LIBAM_SHM_CMA_FROM"))
        return;
    struct am_config cfg = small_cfg();
    size_t len = (size_t)640 << 10;
    am_interface_t *ifc;
    am_endpoint_t *ep, *other;
    ck_assert_int_eq(am_init("shm", &cfg, &ifc), AM_OK);
    ck_assert_uint_ge(am_max_payload(ifc), len);
    int up, down;
    pid_t pid = link_dying_peer(ifc, cfg, 1, len, &ep, &up, &down);
    sink_got = sink_errors = 0;
    WAIT_WHILE(ifc, WAIT_SECS, sink_got < 1);   /* the link is up, its ring mapped */
    ck_assert_uint_eq(sink_got, 1);
    ck_assert_int_eq(write(down, "g", 1), 1);
    reap_dying_peer(up, pid);
    ck_assert_int_eq(am_allocate_task(ifc, &other), AM_OK);   /* awaited, never linked */
    am_event_fd(ifc);   /* as before sleeping: the next poll looks at its peers' ends first */
    am_hold_big(ifc, other);
    for (uint64_t end = test_now_ms() + 10000; !am_task_dead(ep) && test_now_ms() < end;)
        am_poll(ifc);
    am_hold_big(ifc, NULL);
    fprintf(stderr, "waits (shm): a dead peer's big AM during a hold: %u of 2 in, link %s\n",
            sink_got, am_task_dead_reason(ep));
    ck_assert_msg(am_task_dead(ep), "the dead peer's endpoint lives on");
    ck_assert_msg(sink_got == 2, "the big AM the dead peer had sent was dropped");
    ck_assert_uint_eq(sink_errors, 0);
    ck_assert_int_eq(am_deallocate_task(ifc, other), AM_OK);
    close(up);
    close(down);
    am_shutdown(ifc);
}
END_TEST

/* A peer linked to us, sent its first AM and died before we had read
 * anything: we map the segment only when it says it did (its note, then
 * its AM), and mapping sends our welcome first, which fails to a peer
 * that is gone.  Its AM is ours all the same (its send returned). */
START_TEST(shm_first_am_of_a_peer_that_died_at_once_is_handled)
{
    struct am_config cfg = small_cfg();
    am_interface_t *ifc;
    am_endpoint_t *ep;
    ck_assert_int_eq(am_init("shm", &cfg, &ifc), AM_OK);
    int up, down;
    pid_t pid = link_dying_peer(ifc, cfg, 0, 64, &ep, &up, &down);
    reap_dying_peer(up, pid);
    sink_got = sink_errors = 0;
    for (uint64_t end = test_now_ms() + 10000; !am_task_dead(ep) && test_now_ms() < end;)
        am_wait(ifc, 10);
    fprintf(stderr, "waits (shm): a peer that died after its first AM: %u of 1 in, link %s\n",
            sink_got, am_task_dead_reason(ep));
    ck_assert_msg(am_task_dead(ep), "the dead peer's endpoint lives on");
    ck_assert_msg(sink_got == 1, "the AM the dead peer had sent was dropped");
    ck_assert_uint_eq(sink_errors, 0);
    close(up);
    close(down);
    am_shutdown(ifc);
}
END_TEST

void waits_tests(TCase *tc)
{
    if (!shm)
        return;
    tcase_add_test(tc, shm_256k_to_a_stopped_receiver_goes_on);
    tcase_add_test(tc, shm_768k_to_a_stopped_receiver_goes_on);
    tcase_add_test(tc, shm_first_big_send_to_a_stopped_receiver_waits);
    tcase_add_test(tc, shm_hold_big_leaves_others_big_ams);
    tcase_add_test(tc, shm_small_requests_wake_a_sleeping_receiver);
    tcase_add_test(tc, shm_big_am_of_a_dead_peer_is_handled_during_a_hold);
    tcase_add_test(tc, shm_first_am_of_a_peer_that_died_at_once_is_handled);
}
