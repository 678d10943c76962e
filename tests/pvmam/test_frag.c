/*
 * test_frag.c - reassembly of PVM messages from their fragments
 * (pvmam/frag.c), over a real libam udp link inside one process: A sends
 * fragments, some made by hand to be wrong, to B, whose handler is
 * pvmam's; what B delivers lands in pvm3's receive queue and is checked
 * there.  No pvmd: nothing here talks to one.
 *
 * libam delivers in order per peer, so "out of order" means what a
 * broken or dying sender can produce: a continuation with no start, a
 * start before the previous message ended, a start twice, more bytes than
 * the header announced, and a link that ends with a message half in.
 */
#include <check.h>
#include <arpa/inet.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include "pvmam_int.h"
#include "lpvm.h"

#define TID_A 0x40001   /* sender */
#define TID_B 0x40002   /* receiver: us, as pvmam sees it */
#define F_SOM 1u
#define F_EOM 2u
#define HDR_FIRST 32
#define HDR_NEXT 4

static am_interface_t *A, *B;
static am_endpoint_t *epA;
static struct pvmx_peer *rp;   /* B's view of A */

static void setup(void)
{
    ck_assert_int_eq(am_init("udp", NULL, &A), AM_OK);
    ck_assert_int_eq(am_init("udp", NULL, &B), AM_OK);
    pvmx.mytid = TID_B;
    pvmx.h_frag = pvmx_frag_bind();
    ck_assert_int_ge(pvmx.h_frag, 0);
    char addrA[AM_ADDR_MAX], addrB[AM_ADDR_MAX];
    snprintf(addrA, sizeof addrA, "%s", am_task_address(A, AM_TID_SELF));
    snprintf(addrB, sizeof addrB, "%s", am_task_address(B, AM_TID_SELF));
    am_endpoint_t *epB;
    ck_assert_int_eq(am_allocate_task(A, &epA), AM_OK);
    ck_assert_int_eq(am_connect_task(A, epA, addrB), AM_OK);
    ck_assert_int_eq(am_insert_task(A, epA, TID_B), AM_OK);
    ck_assert_int_eq(am_allocate_task(B, &epB), AM_OK);
    ck_assert_int_eq(am_accept_task(B, epB, addrA), AM_OK);
    ck_assert_int_eq(am_insert_task(B, epB, TID_A), AM_OK);
    rp = pvmx_peer_get(TID_A);
    ck_assert_ptr_nonnull(rp);
    rp->ep = epB;
    rp->ifc = B;
    rp->link = PVMX_OPEN;
}

static void teardown(void)
{
    am_shutdown(A);
    am_shutdown(B);
}

static void put32(unsigned char *p, uint32_t v) { v = htonl(v); memcpy(p, &v, 4); }

/* Both sides poll until A's requests are acknowledged: B acknowledges a
 * request once its handler ran.  Bounded: 5 s. */
static void pump(void)
{
    long long end = pvmx_now_ms() + 5000;
    do {
        am_poll(B);
        am_poll(A);
    } while (am_outstanding(A) && pvmx_now_ms() < end);
    ck_assert_int_eq(am_outstanding(A), 0);
}

/* A first fragment: header for a message of `total` bytes, then n bytes. */
static void send_first(uint32_t flags, int tag, size_t total, const void *d, size_t n)
{
    unsigned char h[HDR_FIRST];
    put32(h, flags | F_SOM);
    put32(h + 4, (uint32_t)tag);
    put32(h + 8, 0);   /* ctx */
    put32(h + 12, pmsg_encword(PvmDataRaw));
    put32(h + 16, 0);
    put32(h + 20, 0);
    put32(h + 24, (uint32_t)((uint64_t)total >> 32));
    put32(h + 28, (uint32_t)total);
    struct iovec iov[2] = { { h, HDR_FIRST }, { (void *)d, n } };
    ck_assert_int_eq(am_request_vdata_ep(A, epA, pvmx.h_frag, iov, n ? 2 : 1), AM_OK);
}

static void send_next(uint32_t flags, const void *d, size_t n)
{
    unsigned char h[HDR_NEXT];
    put32(h, flags);
    struct iovec iov[2] = { { h, HDR_NEXT }, { (void *)d, n } };
    ck_assert_int_eq(am_request_vdata_ep(A, epA, pvmx.h_frag, iov, n ? 2 : 1), AM_OK);
}

/* The delivered message with this tag (taken off the queue), its bytes
 * into buf; its length, or -1 if none was delivered. */
static long take(int tag, char *buf, size_t max)
{
    struct pmsg *m = pvmi_rxq_match(TID_A, tag, 0);
    if (!m)
        return -1;
    pvmi_rxq_remove(m);
    long len = (long)m->len;
    ck_assert_int_le(len, (long)max);
    if (len)
        ck_assert_int_ge(pmsg_read(m, buf, (size_t)len), 0);
    pmsg_free(m);
    return len;
}

static char pat[200000];
static void fill(void)
{
    for (size_t i = 0; i < sizeof pat; i++)
        pat[i] = (char)(i * 7 + 3);
}

START_TEST(whole_in_pieces)
{
    static char got[sizeof pat];
    fill();
    send_first(0, 1, 3000, pat, 1000);
    send_next(0, pat + 1000, 1000);
    send_next(F_EOM, pat + 2000, 1000);
    pump();
    ck_assert_int_eq(take(1, got, sizeof got), 3000);
    ck_assert(!memcmp(got, pat, 3000));
    /* and as pvmam's own sender cuts a big one */
    struct pvmx_peer *sp = pvmx_peer_get(TID_B);
    sp->ep = epA;
    sp->ifc = A;
    sp->link = PVMX_OPEN;
    ck_assert_int_eq(pvmx_frag_send_bytes(sp, 2, 0, pat, sizeof pat), 0);
    pump();
    ck_assert_int_eq(take(2, got, sizeof got), (long)sizeof pat);
    ck_assert(!memcmp(got, pat, sizeof pat));
    ck_assert_uint_eq(rp->st.am_msgs_recv, 2);
}
END_TEST

START_TEST(continuation_without_start)
{
    static char got[4096];
    fill();
    send_next(F_EOM, pat, 100);   /* its start never came: dropped */
    send_first(F_EOM, 3, 50, pat, 50);
    pump();
    ck_assert_int_eq(take(3, got, sizeof got), 50);
    ck_assert(!memcmp(got, pat, 50));
    ck_assert_ptr_null(pvmi_rxq_match(TID_A, -1, 0));
}
END_TEST

START_TEST(start_before_end)
{
    static char got[4096];
    fill();
    send_first(0, 1, 2000, pat, 500);   /* cut short by the next start */
    send_first(F_EOM, 2, 10, pat + 7, 10);
    pump();
    ck_assert_int_eq(take(1, got, sizeof got), -1);
    ck_assert_int_eq(take(2, got, sizeof got), 10);
    ck_assert(!memcmp(got, pat + 7, 10));
    ck_assert_int_eq(rp->rbusy, 0);
}
END_TEST

START_TEST(start_twice)
{
    static char got[4096];
    fill();
    send_first(0, 1, 1000, pat, 500);
    send_first(0, 1, 1000, pat + 100, 500);   /* a repeated start replaces the first */
    send_next(F_EOM, pat + 600, 500);
    pump();
    ck_assert_int_eq(take(1, got, sizeof got), 1000);
    ck_assert(!memcmp(got, pat + 100, 1000));
    ck_assert_int_eq(take(1, got, sizeof got), -1);   /* once only */
}
END_TEST

START_TEST(more_than_announced)
{
    static char got[4096];
    fill();
    send_first(0, 1, 100, pat, 300);          /* a lying sender: clipped */
    send_next(F_EOM, pat + 300, 50);
    send_first(F_EOM, 2, 0, pat, 20);         /* an empty message with bytes */
    pump();
    ck_assert_int_eq(take(1, got, sizeof got), 100);
    ck_assert(!memcmp(got, pat, 100));
    ck_assert_int_eq(take(2, got, sizeof got), 0);
}
END_TEST

START_TEST(peer_dies_mid_message)
{
    static char got[4096];
    fill();
    send_first(0, 1, 1000, pat, 400);
    pump();
    ck_assert_int_eq(rp->rbusy, 1);
    /* what the route does when libam declares the endpoint dead */
    pvmx_link_die(rp, "test");
    pvmx_peer_drop_partial(rp);
    ck_assert_int_eq(rp->link, PVMX_DEAD);
    ck_assert_int_eq(rp->rbusy, 0);
    send_next(F_EOM, pat + 400, 600);   /* the rest, late: no start any more */
    pump();
    ck_assert_int_eq(take(1, got, sizeof got), -1);
    ck_assert_ptr_null(pvmi_rxq_match(TID_A, -1, 0));
}
END_TEST

START_TEST(held_survive_death)
{
    static char got[4096];
    fill();
    rp->link = PVMX_S_CONNECTING;   /* its SWITCH is not in: its AMs are held */
    send_first(F_EOM, 1, 30, pat, 30);
    send_first(0, 2, 100, pat, 40);   /* half a message when the link ends */
    pump();
    ck_assert_int_eq(take(1, got, sizeof got), -1);
    pvmx_link_die(rp, "test");
    pvmx_peer_drop_partial(rp);
    ck_assert_int_eq(rp->link, PVMX_DEAD_HELD);
    /* its SWITCH, sent before them, comes through the pvmd (link.c) */
    pvmx_link_set(rp, PVMX_DEAD_S_SWITCHING);
    pvmx_release_held(rp);
    ck_assert_int_eq(take(1, got, sizeof got), 30);
    ck_assert(!memcmp(got, pat, 30));
    ck_assert_int_eq(take(2, got, sizeof got), -1);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("frag");
    TCase *tc = tcase_create("reassembly");
    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_set_timeout(tc, 20);
    tcase_add_test(tc, whole_in_pieces);
    tcase_add_test(tc, continuation_without_start);
    tcase_add_test(tc, start_before_end);
    tcase_add_test(tc, start_twice);
    tcase_add_test(tc, more_than_announced);
    tcase_add_test(tc, peer_dies_mid_message);
    tcase_add_test(tc, held_survive_death);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
