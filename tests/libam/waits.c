/*
 * waits.c - libam tests (fixture.h): a shm sender and a receiver that
 * does not run.  With more tasks than cores a receiver is often not
 * running when a message for it is sent; the sender must then either go
 * on (the payload copied into the ring) or give the core away, not hold
 * it while it waits (libam/tr_shm.c, wait_out; libam/shm/ring.c, sizing).
 */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
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

/* A 256 KiB message to a stopped receiver: copied into the ring, so the
 * send returns at once.  It went by descriptor before (more than half
 * the 512 KiB ring), and the sender waited for the receiver's copy: a
 * root sending it to several receivers on a crowded machine waited for
 * each to be scheduled in turn.  The receiver is let go after 3 s (an
 * alarm), so a send that waits for it takes 3 s. */
START_TEST(shm_256k_to_a_stopped_receiver_goes_on)
{
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    size_t len = (size_t)256 << 10;
    ck_assert_uint_ge(am_max_payload(ifc), len);
    unsigned char *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    for (size_t j = 0; j < len; j++)
        buf[j] = (unsigned char)(j * 7 + 1);
    ck_assert_int_eq(sink_one(ifc, buf, 0, 64), AM_OK);   /* the link is up */
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    stopped = p.pid;
    struct sigaction sa = { .sa_handler = cont_child }, old;
    sigemptyset(&sa.sa_mask);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, &old), 0);
    ck_assert_int_eq(kill(p.pid, SIGSTOP), 0);
    alarm(3);
    uint64_t t0 = test_now_ms();
    int rc = sink_one(ifc, buf, 1, len);
    uint64_t took = test_now_ms() - t0;
    alarm(0);
    kill(p.pid, SIGCONT);
    sigaction(SIGALRM, &old, NULL);
    ck_assert_int_eq(rc, AM_OK);
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    uint64_t res[NRES];
    stop_pair(&p, res);
    fprintf(stderr, "waits (shm): a 256 KiB send to a stopped receiver took %llu ms\n",
            (unsigned long long)took);
    ck_assert_uint_eq(res[7], 2);   /* both arrived, */
    ck_assert_uint_eq(res[8], 0);   /* whole and in order */
    ck_assert_msg(took < 1000, "the send waited %llu ms for the receiver",
                  (unsigned long long)took);
    free(buf);
    am_shutdown(ifc);
}
END_TEST

/* Sender and receiver on one core: each 1 MiB message goes by descriptor
 * and the sender waits for the receiver's copy, which needs the core.
 * Under PVMAM_WAIT's default (am_config.wait AM_WAIT_YIELD) the sender
 * gives it away while it waits; it used to spin 30 us first, so the
 * receiver could only run once the sender went to sleep: about one sleep
 * (voluntary context switch) per message.  Waiting for the receiver by
 * yielding, the sender seldom sleeps at all. */
START_TEST(shm_sender_on_the_receivers_core_yields)
{
    cpu_set_t one, all;
    ck_assert_int_eq(sched_getaffinity(0, sizeof all, &all), 0);
    CPU_ZERO(&one);
    CPU_SET(sched_getcpu(), &one);
    ck_assert_int_eq(sched_setaffinity(0, sizeof one, &one), 0);   /* the child inherits it */
    struct peer p;
    am_interface_t *ifc = start_pair(&p, small_cfg());
    size_t len = (size_t)1 << 20;
    ck_assert_uint_ge(am_max_payload(ifc), len);
    unsigned char *buf = malloc(len);
    ck_assert_ptr_nonnull(buf);
    for (size_t j = 0; j < len; j++)
        buf[j] = (unsigned char)(j * 13 + 5);
    enum { N = 200 };
    ck_assert_int_eq(sink_one(ifc, buf, 0, len), AM_OK);
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    struct rusage r0, r1;
    getrusage(RUSAGE_SELF, &r0);
    int rc = AM_OK;
    for (uint32_t i = 1; i <= N && rc == AM_OK; i++)
        rc = sink_one(ifc, buf, i, len);
    getrusage(RUSAGE_SELF, &r1);
    ck_assert_int_eq(rc, AM_OK);
    WAIT_WHILE(ifc, WAIT_SECS, am_outstanding(ifc));
    uint64_t res[NRES];
    stop_pair(&p, res);
    sched_setaffinity(0, sizeof all, &all);
    long sleeps = r1.ru_nvcsw - r0.ru_nvcsw;
    fprintf(stderr, "waits (shm): %d sends of 1 MiB on one core, %ld sleeps, %ld preempted\n", N,
            sleeps, r1.ru_nivcsw - r0.ru_nivcsw);
    ck_assert_uint_eq(res[7], N + 1);
    ck_assert_uint_eq(res[8], 0);
    ck_assert_msg(sleeps < N / 4, "the sender slept %ld times in %d sends", sleeps, N);
    free(buf);
    am_shutdown(ifc);
}
END_TEST

void waits_tests(TCase *tc)
{
    if (!shm)
        return;
    tcase_add_test(tc, shm_256k_to_a_stopped_receiver_goes_on);
    tcase_add_test(tc, shm_sender_on_the_receivers_core_yields);
}
