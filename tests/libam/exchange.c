/*
 * exchange.c - libam tests: requests and replies, in order, with and without
 * loss (fixture.h).
 */
#include <string.h>
#include "fixture.h"

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

void exchange_tests(TCase *tc)
{
    tcase_add_test(tc, exchange_10000_in_order);
    if (!reliable)
        tcase_add_test(tc, exchange_with_loss_knob);
}
