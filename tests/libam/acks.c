/*
 * acks.c - libam tests: what the blank replies of a one-way stream cost
 * (fixture.h).  tcp only: it counts the peer's send calls, and the other
 * transports either write without one (shm) or must not hold replies back
 * while their retransmission timers run (udp).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "fixture.h"

static unsigned quiet_got;
static void on_quiet(const am_token_t *tok, void *data, size_t len) { quiet_got++; }

/* Two interfaces of this process, a (task 1) connected to b (task 2). */
static void connect_two(am_interface_t **a, am_interface_t **b)
{
    struct am_config cfg = small_cfg();
    ck_assert_int_eq(cfg.depth, 8);
    ck_assert_int_eq(am_init(transport, &cfg, a), AM_OK);
    ck_assert_int_eq(am_init(transport, &cfg, b), AM_OK);
    char aaddr[AM_ADDR_MAX] = { 0 }, baddr[AM_ADDR_MAX] = { 0 };
    strncpy(aaddr, am_task_address(*a, AM_TID_SELF), AM_ADDR_MAX - 1);
    strncpy(baddr, am_task_address(*b, AM_TID_SELF), AM_ADDR_MAX - 1);
    am_endpoint_t *ea, *eb;
    ck_assert_int_eq(am_allocate_task(*a, &ea), AM_OK);
    ck_assert_int_eq(am_connect_task(*a, ea, baddr), AM_OK);
    ck_assert_int_eq(am_insert_task(*a, ea, 2), AM_OK);
    ck_assert_int_eq(am_allocate_task(*b, &eb), AM_OK);
    ck_assert_int_eq(am_accept_task(*b, eb, aaddr), AM_OK);
    ck_assert_int_eq(am_insert_task(*b, eb, 1), AM_OK);
}

/* A full window of requests one way, then one request back: the receiver
 * owes blank replies for all eight, two of them "ack now" (the half and
 * the full window, am_int.h).  They go out in the header of that request:
 * one send in all.  Paid at once after the two handlers instead, they were
 * two more small sends (segments) of their own per window, which the
 * sender has to take in: at 64 KiB between two namespace hosts a pvm_psend
 * stream ran about 7% slower (docs/performance.md).  The sender still gets
 * every instance back. */
START_TEST(stream_blank_replies_ride_on_the_next_request)
{
    if (strcmp(transport, "tcp"))
        return;   /* see the top of the file */
    int h = am_address_to_id(on_quiet);
    am_interface_t *a, *b;
    connect_two(&a, &b);
    char pay[64] = { 0 };
    quiet_got = 0;
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(am_request(a, 2, h, pay, sizeof pay), AM_OK);
    usleep(20000);   /* all eight in b's socket: one read takes them */
    uint64_t sends = sock_sends;
    WAIT_WHILE(b, WAIT_SECS, quiet_got < 8);
    ck_assert_uint_eq(quiet_got, 8);
    ck_assert_int_eq(am_request(b, 1, h, pay, sizeof pay), AM_OK);
    uint64_t by_b = sock_sends - sends;
    WAIT_WHILE(a, WAIT_SECS, quiet_got < 9);
    ck_assert_uint_eq(quiet_got, 9);
    struct am_stats st;
    ck_assert_int_eq(am_task_stats(a, 2, &st), AM_OK);
    fprintf(stderr, "acks (%s): the receiver's sends for a window and a request back: %llu;"
            " blank replies in: %llu\n", transport, (unsigned long long)by_b,
            (unsigned long long)st.replies_recv);
    ck_assert_uint_eq(by_b, 1);
    /* every instance free again: eight more go without a wait */
    for (int i = 0; i < 8; i++)
        ck_assert_int_eq(am_request(a, 2, h, pay, sizeof pay), AM_OK);
    WAIT_WHILE(b, WAIT_SECS, quiet_got < 17);
    ck_assert_uint_eq(quiet_got, 17);
    am_shutdown(b);
    am_shutdown(a);
}
END_TEST

void acks_tests(TCase *tc)
{
    tcase_add_test(tc, stream_blank_replies_ride_on_the_next_request);
}
