/*
 * ring.c - libam tests: three tasks in a ring, each streaming big AMs to
 * the next before it reads anything (fixture.h).  Every socket fills, so
 * each sender waits inside its write to the next task; that wait must
 * read the task behind it too, or nobody reads and the links die of
 * TCP_USER_TIMEOUT (libam/tr_tcp.c read_others).  Reliable transports:
 * the payload is larger than a udp datagram.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include "fixture.h"

#define RING 3
#define RING_AMS 32
#define RING_PAYLOAD (4u << 20)
#define RING_SECS 60   /* each task's limit; the case allows 100 (test_am.c) */

static int h_ring, h_ring_ack;
static unsigned ring_got, ring_bad;

/* What each task has done, in memory shared with the test (mmap before
 * the forks): a task that hangs is reported with where it stood. */
struct ring_seen {
    volatile unsigned phase;   /* 1 linked, 2 all sent, 3 all in, 4 shut down */
    volatile unsigned sent, got, acked;
};
static struct ring_seen *seen;
static int ring_me;

static void on_ring(const am_token_t *tok, void *data, size_t len)
{
    const unsigned char *d = data;
    if (len != RING_PAYLOAD || d[0] != (unsigned char)ring_got ||
        d[len - 1] != (unsigned char)ring_got)
        ring_bad++;
    ring_got++;
    seen[ring_me].got = ring_got;
    am_reply(tok, h_ring_ack, NULL, 0);
}

static void on_ring_ack(const am_token_t *tok, void *data, size_t len)
{
    (void)tok, (void)data, (void)len;
    seen[ring_me].acked++;
}

struct ring_addr {
    int who;
    char addr[AM_ADDR_MAX];
};

/* Task me of the ring (tid me + 1): link to the others (the smaller
 * index connects), stream to the next, then take all from the one
 * behind.  Exit status 0 only if every request went and all came in. */
static void ring_task(int me, struct am_config cfg, int up, int down)
{
    child_limit(RING_SECS);
    ring_me = me;
    am_interface_t *ifc;
    if (am_init(transport, &cfg, &ifc) < 0)
        _exit(2);
    struct ring_addr mine = { me, { 0 } }, all[RING];
    strncpy(mine.addr, am_task_address(ifc, AM_TID_SELF), AM_ADDR_MAX - 1);
    if (write(up, &mine, sizeof mine) != sizeof mine ||
        read(down, all, sizeof all) != sizeof all)
        _exit(3);
    for (int j = 0; j < RING; j++) {
        am_endpoint_t *ep;
        if (j == me || am_allocate_task(ifc, &ep) < 0)
            continue;
        int rc = me < j ? am_connect_task(ifc, ep, all[j].addr)
                        : am_accept_task(ifc, ep, all[j].addr);
        if (rc < 0 || am_insert_task(ifc, ep, j + 1) < 0)
            _exit(4);
    }
    unsigned char *buf = malloc(RING_PAYLOAD);
    if (!buf)
        _exit(5);
    seen[me].phase = 1;
    for (int i = 0; i < RING_AMS; i++) {
        memset(buf, i, RING_PAYLOAD);
        if (am_request(ifc, (me + 1) % RING + 1, h_ring, buf, RING_PAYLOAD) < 0)
            _exit(6);   /* before the fix: AM_ERR_DEAD once the timeout ran out */
        seen[me].sent = (unsigned)i + 1;
    }
    seen[me].phase = 2;
    while (ring_got < RING_AMS || am_outstanding(ifc))
        if (am_wait(ifc, 5000) < 0)
            _exit(7);
    seen[me].phase = 3;
    free(buf);
    am_shutdown(ifc);
    seen[me].phase = 4;
    _exit(ring_bad ? 8 : 0);
}

START_TEST(ring_of_big_senders)
{
    struct am_config cfg = small_cfg();
    cfg.depth = 16;   /* 64 MiB may be in flight per link: more than any socket holds */
    cfg.max_payload = RING_PAYLOAD;
    cfg.timeout_max_us = 3000000;   /* the deadlock shows as dead links in 3 s */
    h_ring = am_address_to_id(on_ring);
    h_ring_ack = am_address_to_id(on_ring_ack);
    ck_assert_int_ge(h_ring, 0);
    ck_assert_int_ge(h_ring_ack, 0);
    seen = mmap(NULL, sizeof *seen * RING, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
                -1, 0);
    ck_assert(seen != MAP_FAILED);
    memset(seen, 0, sizeof *seen * RING);
    int up[2], down[RING][2];
    ck_assert_int_eq(pipe(up), 0);
    pid_t pid[RING];
    for (int i = 0; i < RING; i++) {
        ck_assert_int_eq(pipe(down[i]), 0);
        pid[i] = fork();
        ck_assert_int_ge(pid[i], 0);
        if (!pid[i])
            ring_task(i, cfg, up[1], down[i][0]);
    }
    close(up[1]);   /* a task that dies before it writes ends the read below */
    struct ring_addr all[RING], one;
    for (int i = 0; i < RING; i++) {
        ck_assert_msg(read_within(up[0], &one, sizeof one, RING_SECS) == 0,
                      "ring: %d of %d addresses within %d s", i, RING, RING_SECS);
        ck_assert(one.who >= 0 && one.who < RING);
        all[one.who] = one;
    }
    for (int i = 0; i < RING; i++)
        ck_assert_int_eq(write(down[i][1], all, sizeof all), sizeof all);
    /* the tasks end themselves after RING_SECS (child_limit); whatever
     * they do with signals, none is waited for longer than that and 5 s */
    int st[RING];
    reap_all_within(pid, RING, RING_SECS + 5, st);
    char where[RING * 80] = "", *w = where;
    for (int i = 0; i < RING; i++)
        w += snprintf(w, sizeof where - (size_t)(w - where),
                      "; task %d: phase %u, sent %u, got %u, acked %u", i, seen[i].phase,
                      seen[i].sent, seen[i].got, seen[i].acked);
    for (int i = 0; i < RING; i++) {
        ck_assert_msg(st[i] != -1, "ring task %d still ran after %d s: killed%s", i,
                      RING_SECS + 5, where);
        ck_assert_msg(!WIFSIGNALED(st[i]) || WTERMSIG(st[i]) != SIGALRM,
                      "ring task %d hung: its %d s limit ended it%s", i, RING_SECS, where);
        ck_assert_msg(WIFEXITED(st[i]) && WEXITSTATUS(st[i]) == 0,
                      "ring task %d: status %#x (6: a request failed)%s", i, st[i], where);
    }
    for (int i = 0; i < RING; i++)
        close(down[i][0]), close(down[i][1]);
    close(up[0]);
    munmap(seen, sizeof *seen * RING);
}
END_TEST

void ring_tests(TCase *tc)
{
    if (reliable)
        tcase_add_test(tc, ring_of_big_senders);
}
