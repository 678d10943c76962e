/*
 * basics.c - libam tests: API contracts on one interface, no peer (fixture.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"

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
    /* tcp: a 1 MiB block and the head a placer reads (an upper layer's
     * header: pvmam's fragment header) are one AM, not a big one and a
     * stub (libam/tr_tcp.c, default_payload) */
    if (!strcmp(transport, "tcp"))
        ck_assert_uint_ge(am_max_payload(ifc), ((size_t)1 << 20) + AM_PLACE_HEAD_MAX);
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

void basics_tests(TCase *tc)
{
    tcase_add_test(tc, basics);
}
