/*
 * park.c - libam tests: connections that wait at their acceptor
 * (libam/conn_park.c), over the transports with a listener (tcp, shm).
 * pvmam_init's mesh with hundreds of tasks (pvmam/init.c) has every task
 * connect before any accepts, so an acceptor gets far more connections
 * at once than the old listen backlog (128) and claims them long after
 * connect_timeout_ms on a loaded host.  Both sides are interfaces of this
 * process, polled in turn; connect_timeout_ms is short so that the old
 * behaviour (expiry after it, connectors waiting on a full backlog) fails
 * quickly.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <time.h>
#include <sys/resource.h>
#include "fixture.h"

#define SHORT_MS 300
#define CROWD 160   /* more than the old backlog of 128 and the 64 greetings */

static int connection_transport(void)
{
    return !strcmp(transport, "tcp") || shm;
}

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static struct am_config short_cfg(void)
{
    struct am_config c = small_cfg();
    c.connect_timeout_ms = SHORT_MS;
    return c;
}

/* Poll acceptor a and connectors c[0..n) for ms. */
static void poll_all(am_interface_t *a, am_interface_t **c, int n, int ms)
{
    double end = now_ms() + ms;
    while (now_ms() < end) {
        am_wait(a, 5);
        for (int i = 0; i < n; i++)
            am_poll(c[i]);
    }
}

/* c (as tid 2 at a) sends one sink request to a (tid 1 at c); a gets it. */
static void one_request(am_interface_t *a, am_interface_t *c)
{
    unsigned char buf[8 + 16];
    memset(buf + 8, 0x5a, 16);
    uint32_t w[2] = { sink_got, test_sum32(buf + 8, 16) };
    memcpy(buf, w, 8);
    uint32_t before = sink_got;
    ck_assert_int_eq(am_request(c, 1, h_sink, buf, sizeof buf), AM_OK);
    double end = now_ms() + 5000;
    while (sink_got == before && now_ms() < end) {
        am_poll(c);
        am_wait(a, 5);
    }
    ck_assert_uint_eq(sink_got, before + 1);
    ck_assert_uint_eq(sink_errors, 0);
}

/* Claimed three times connect_timeout_ms after it came, while its
 * connector is alive: the connection is still there, and it works. */
START_TEST(late_claim)
{
    if (!connection_transport())
        return;
    struct am_config cfg = short_cfg();
    am_interface_t *a, *c;
    ck_assert_int_eq(am_init(transport, &cfg, &a), AM_OK);
    ck_assert_int_eq(am_init(transport, &cfg, &c), AM_OK);
    char aaddr[AM_ADDR_MAX], caddr[AM_ADDR_MAX];
    snprintf(aaddr, sizeof aaddr, "%s", am_task_address(a, AM_TID_SELF));
    snprintf(caddr, sizeof caddr, "%s", am_task_address(c, AM_TID_SELF));
    am_endpoint_t *ce, *ae;
    ck_assert_int_eq(am_allocate_task(c, &ce), AM_OK);
    ck_assert_int_eq(am_connect_task(c, ce, aaddr), AM_OK);
    ck_assert_int_eq(am_insert_task(c, ce, 1), AM_OK);
    poll_all(a, &c, 1, 3 * SHORT_MS);   /* parked at a, unclaimed */
    ck_assert_int_eq(am_task_dead(ce), 0);
    double t0 = now_ms();
    ck_assert_int_eq(am_allocate_task(a, &ae), AM_OK);
    ck_assert_int_eq(am_accept_task(a, ae, caddr), AM_OK);
    ck_assert_double_lt(now_ms() - t0, SHORT_MS);   /* it was there, not waited for */
    ck_assert_int_eq(am_insert_task(a, ae, 2), AM_OK);
    one_request(a, c);
    ck_assert_int_eq(am_shutdown(c), AM_OK);
    ck_assert_int_eq(am_shutdown(a), AM_OK);
}
END_TEST

/* CROWD connectors connect to one acceptor that polls only once they all
 * have (as the mesh's largest tid): none waits on a full backlog, and
 * each is accepted after every connect, later than connect_timeout_ms. */
START_TEST(crowd)
{
    if (!connection_transport())
        return;
    struct rlimit rl;   /* about 8 descriptors a pair, both sides here */
    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    if (rl.rlim_cur < 8 * CROWD + 64) {
        rl.rlim_cur = rl.rlim_max < 8 * CROWD + 64 ? rl.rlim_max : 8 * CROWD + 64;
        setrlimit(RLIMIT_NOFILE, &rl);
    }
    if (rl.rlim_cur < 8 * CROWD + 64) {
        printf("crowd: skipped, only %lu descriptors\n", (unsigned long)rl.rlim_cur);
        return;
    }
    struct am_config cfg = short_cfg();
    static am_interface_t *c[CROWD];
    am_interface_t *a;
    ck_assert_int_eq(am_init(transport, &cfg, &a), AM_OK);
    char aaddr[AM_ADDR_MAX];
    snprintf(aaddr, sizeof aaddr, "%s", am_task_address(a, AM_TID_SELF));
    for (int i = 0; i < CROWD; i++) {
        am_endpoint_t *ce;
        ck_assert_int_eq(am_init(transport, &cfg, &c[i]), AM_OK);
        ck_assert_int_eq(am_allocate_task(c[i], &ce), AM_OK);
        ck_assert_int_eq(am_connect_task(c[i], ce, aaddr), AM_OK);
        ck_assert_int_eq(am_insert_task(c[i], ce, 1), AM_OK);
    }
    poll_all(a, c, CROWD, 2 * SHORT_MS);   /* taken in and parked, unclaimed */
    for (int i = 0; i < CROWD; i++) {
        am_endpoint_t *ae;
        ck_assert_int_eq(am_allocate_task(a, &ae), AM_OK);
        ck_assert_int_eq(am_accept_task(a, ae, am_task_address(c[i], AM_TID_SELF)), AM_OK);
        ck_assert_int_eq(am_insert_task(a, ae, 2 + i), AM_OK);
    }
    for (int i = 0; i < CROWD; i += CROWD / 4)
        one_request(a, c[i]);
    for (int i = 0; i < CROWD; i++)
        ck_assert_int_eq(am_shutdown(c[i]), AM_OK);
    ck_assert_int_eq(am_shutdown(a), AM_OK);
}
END_TEST

/* A mesh's set-up with connectors that go away: CHURN connectors connect
 * at once (their hellos are there when the acceptor takes them in, so it
 * parks them at accept without greeting them, libam/conn_park.c), and a
 * random few of them shut down at random moments: before the acceptor
 * took their connection from the backlog, once it is parked, or right
 * before it is claimed.  Every live one is claimed and works, a gone one
 * is refused within connect_timeout_ms, and no descriptor is left
 * behind.  The seed is printed: LIBAM_PARK_SEED replays a run. */
#define CHURN 48
#define CHURN_GONE 6

START_TEST(crowd_churn)
{
    if (!connection_transport())
        return;
    const char *env = getenv("LIBAM_PARK_SEED");
    unsigned seed = env ? (unsigned)strtoul(env, NULL, 0)
                        : (unsigned)time(NULL) ^ (unsigned)getpid() << 8;
    printf("crowd_churn: LIBAM_PARK_SEED=%u\n", seed);
    srand(seed);
    int fds = count_fds();
    struct am_config cfg = short_cfg();
    static am_interface_t *c[CHURN];
    static char caddr[CHURN][AM_ADDR_MAX];
    int when[CHURN];   /* 0: stays; 1: gone before accept; 2: once parked; 3: before claim */
    memset(when, 0, sizeof when);
    for (int k = 0; k < CHURN_GONE; k++)
        when[rand() % CHURN] = 1 + rand() % 3;
    am_interface_t *a;
    ck_assert_int_eq(am_init(transport, &cfg, &a), AM_OK);
    char aaddr[AM_ADDR_MAX];
    snprintf(aaddr, sizeof aaddr, "%s", am_task_address(a, AM_TID_SELF));
    for (int i = 0; i < CHURN; i++) {
        am_endpoint_t *ce;
        ck_assert_int_eq(am_init(transport, &cfg, &c[i]), AM_OK);
        snprintf(caddr[i], sizeof caddr[i], "%s", am_task_address(c[i], AM_TID_SELF));
        ck_assert_int_eq(am_allocate_task(c[i], &ce), AM_OK);
        ck_assert_int_eq(am_connect_task(c[i], ce, aaddr), AM_OK);
        ck_assert_int_eq(am_insert_task(c[i], ce, 1), AM_OK);
    }
    for (int i = 0; i < CHURN; i++)
        if (when[i] == 1) {
            ck_assert_int_eq(am_shutdown(c[i]), AM_OK);
            c[i] = NULL;
        }
    am_wait(a, 50);   /* taken in (the listener's event), parked */
    am_poll(a);
    for (int i = 0; i < CHURN; i++)
        if (when[i] == 2) {
            ck_assert_int_eq(am_shutdown(c[i]), AM_OK);
            c[i] = NULL;
        }
    am_poll(a);
    double t0 = now_ms();
    for (int i = 0; i < CHURN; i++) {
        if (when[i] == 3) {
            ck_assert_int_eq(am_shutdown(c[i]), AM_OK);
            c[i] = NULL;
        }
        am_endpoint_t *ae;
        double t = now_ms();
        ck_assert_int_eq(am_allocate_task(a, &ae), AM_OK);
        int rc = am_accept_task(a, ae, caddr[i]);
        ck_assert_double_lt(now_ms() - t, SHORT_MS + 200);
        if (!c[i]) {   /* gone: refused, or accepted and found dead at once */
            if (rc == AM_OK) {
                ck_assert_int_eq(am_insert_task(a, ae, 2 + i), AM_OK);
                for (double end = now_ms() + 2000; !am_task_dead(ae) && now_ms() < end;)
                    am_wait(a, 5);
                ck_assert_int_eq(am_task_dead(ae), 1);
                am_remove_task(a, 2 + i);
            }
            am_deallocate_task(a, ae);
            continue;
        }
        ck_assert_int_eq(rc, AM_OK);
        ck_assert_int_eq(am_insert_task(a, ae, 2 + i), AM_OK);
    }
    ck_assert_double_lt(now_ms() - t0, CHURN_GONE * (SHORT_MS + 200.0) + 2000);
    for (int i = 0; i < CHURN; i++)
        if (c[i])
            one_request(a, c[i]);
    for (int i = 0; i < CHURN; i++)
        if (c[i])
            ck_assert_int_eq(am_shutdown(c[i]), AM_OK);
    ck_assert_int_eq(am_shutdown(a), AM_OK);
    ck_assert_int_eq(count_fds(), fds);
}
END_TEST

void park_tests(TCase *tc)
{
    tcase_add_test(tc, late_claim);
    tcase_add_test(tc, crowd);
    tcase_add_test(tc, crowd_churn);
}
