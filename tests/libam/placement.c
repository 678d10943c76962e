/*
 * placement.c - libam tests: receive placement, am_set_placer (fixture.h).
 */
#include <stdio.h>
#include <string.h>
#include "fixture.h"

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

void placement_tests(TCase *tc)
{
    tcase_add_test(tc, placement_delivers_everything);
    if (!reliable)
        tcase_add_test(tc, placement_with_loss_knob);
}
