/*
 * test_am.c - libam tests (Check), run once per transport:
 *     test_am TRANSPORT
 * Two real processes (fork) talk over real sockets on this host.  The
 * tests are in one file per concern over one fixture (fixture.h says
 * which); this file chooses the transport and runs them all.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fixture.h"

int main(int argc, char **argv)
{
    transport = argc > 1 ? argv[1] : "udp";
    ucx = !strcmp(transport, "ucx");
    reliable = !strcmp(transport, "tcp") || !strcmp(transport, "shm") || ucx;
    shm = !strcmp(transport, "shm");
    int built = 0;
    for (const char *const *n = am_transports(); *n; n++)
        built += !strcmp(*n, transport);
    if (!built) {
        printf("SKIP: libam transport %s not built (ucx: configure found no UCX)\n", transport);
        return 77;
    }
    register_handlers();
    signal(SIGPIPE, SIG_IGN);
    Suite *s = suite_create(transport);
    TCase *tc = tcase_create("libam");
    tcase_set_timeout(tc, 120);
    basics_tests(tc);       /* basics.c */
    exchange_tests(tc);     /* exchange.c: the loss knob's where not reliable */
    placement_tests(tc);    /* placement.c: likewise */
    echo_tests(tc);         /* echo.c */
    death_tests(tc);        /* hostile.c */
    hostile_tests(tc);      /* hostile.c */
    park_tests(tc);         /* park.c: tcp and shm */
    waits_tests(tc);        /* waits.c: shm only */
    acks_tests(tc);         /* acks.c: tcp only */
    suite_add_tcase(s, tc);
    /* its own case: a hang here fails in 60 s (CK_RUN_CASE=both_ways runs it alone) */
    TCase *tb = tcase_create("both_ways");
    tcase_set_timeout(tb, 60);
    both_ways_tests(tb);    /* echo.c */
    suite_add_tcase(s, tb);
    /* likewise (CK_RUN_CASE=ring): each task ends itself in 60 s (ring.c) */
    TCase *tr = tcase_create("ring");
    tcase_set_timeout(tr, 100);
    ring_tests(tr);         /* ring.c */
    suite_add_tcase(s, tr);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
