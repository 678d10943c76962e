/*
 * fixture.h - the shared fixture of the libam tests (fixture.c): a peer
 * process to talk to, handlers with the same ids in both processes, and
 * checked streams.  The tests are grouped by concern, one file each, and
 * test_am.c's main runs them all once per transport:
 *   basics.c     API contracts on one interface, no peer
 *   exchange.c   requests and replies in order, with and without loss
 *   placement.c  receive placement (am_set_placer)
 *   echo.c       echoes, lent payloads, streams both ways at once
 *   hostile.c    peer death, junk at the address (over ucx through a UCX
 *                worker of its own), wrong secrets
 *   ring.c       three tasks sending big AMs round a ring
 *   park.c       connections claimed late, and more at once than a backlog
 *   acks.c       blank replies of a one-way stream (tcp)
 *   waits.c      a shm sender and a receiver that does not run (256 KiB);
 *                a receiver that leaves others' big AMs for a while;
 *                small requests waking a sleeping receiver
 */
#ifndef TEST_AM_FIXTURE_H
#define TEST_AM_FIXTURE_H

#include <check.h>
#include <stdint.h>
#include <sys/types.h>
#include "am.h"
#include "sum.h"

extern const char *transport;
extern int reliable;   /* tcp, shm, ucx: nothing is lost, so no loss knob either */
extern int shm;        /* addresses name a host and a process, not an IPv4 port */
extern int ucx;        /* addresses carry a UCX worker address; no connections */

/* handler ids (register_handlers) */
extern int h_data, h_ack, h_pdata, h_echo, h_echoed, h_sink;
extern uint32_t expect_seq;              /* h_data's receiver: next number */
extern uint32_t echoed, echo_errors;     /* echoes back, and bad ones */
extern uint32_t sink_got, sink_errors;   /* sink requests in, and bad ones */

/* h_data's handler: checks order and checksum, replies to h_ack */
void on_data(const am_token_t *tok, void *data, size_t len);
void register_handlers(void);
/* Open descriptors of this process: libam must leave none behind. */
int count_fds(void);

/* what the child reports: order errors, checksum errors, requests,
 * reordered, placed requests, placer calls, bytes received, sink
 * requests and sink errors (on_sink), its own stream's status, and its
 * socket reads that returned data */
#define NRES 11

/* Both ways at once: the child streams this many sink requests to the
 * parent as soon as it is connected (0: it only serves). */
extern int child_streams;
/* Set: sink_stream sends small requests, 8 to 4199 bytes, each size in
 * turn (across a transport's short limit, AMX_PACK_MAX and AMX_PUT_MAX);
 * else big ones. */
extern int sink_small;
/* placement.c: the peer's placer takes every big request (not every
 * other one), and stream_to sends only requests of this many bytes (0:
 * random sizes) */
extern int place_all;
extern size_t stream_len;
/* the peer sleeps this long once connected, before it serves */
extern int child_delay_ms;
extern size_t read_whole_upto;   /* the peer's reads wait for what they ask (fixture.c) */

struct peer {
    pid_t pid;
    int to[2], from[2];   /* pipes for addresses and results */
};

/* A forked child's own time limit: SIGALRM in secs, ending that child
 * alone (not the test's process group, as Check's inherited handler
 * would).  The parent's waits for it are bounded as well: reap_within
 * returns the child's wait status, or -1 after killing it (by pid) when
 * it ran over secs; reap_all_within does that for n children at once
 * (st[i]: each one's); read_within reads all n bytes within secs, or -1. */
void child_limit(unsigned secs);
int reap_within(pid_t pid, int secs);
void reap_all_within(const pid_t *pid, int n, int secs, int *st);
int read_within(int fd, void *buf, size_t n, int secs);

/* the peer process's limit (within the case's 120 s, test_am.c) */
#define PEER_SECS 100
/* Waits are bounded in time, not in am_wait calls: one returns as soon as
 * it handled an AM, so 3000 calls could pass in 0.1 s while the peer (a
 * slower process: the sanitizers, a loaded machine) still had much to
 * send; "for (k < 3000 && sink_got < n) am_wait(10)" failed so under ASan. */
#define WAIT_SECS 30
uint64_t test_now_ms(void);   /* the monotonic clock */
/* send and sendmsg calls this process made (fixture.c) */
extern uint64_t sock_sends;
/* Serve ifc while cond holds, at most secs seconds. */
#define WAIT_WHILE(ifc, secs, cond) \
    do { \
        uint64_t wait_end_ = test_now_ms() + (uint64_t)(secs) * 1000u; \
        while ((cond) && test_now_ms() < wait_end_) \
            am_wait((ifc), 10); \
    } while (0)


struct am_config small_cfg(void);
/* A child process connected as task 2; the parent's interface returned.
 * inherit: the child serves with an interface made before the fork. */
am_interface_t *start_pair_as(struct peer *p, struct am_config cfg, int inherit);
am_interface_t *start_pair(struct peer *p, struct am_config cfg);
void collect_pair(struct peer *p, uint64_t res[NRES]);
void stop_pair(struct peer *p, uint64_t res[NRES]);

/* n checked requests for handler h, every reply waited for: bytes sent */
uint64_t stream_to(am_interface_t *ifc, int h, int n, unsigned seed);
void stream(am_interface_t *ifc, int n, unsigned seed);
/* n sink requests to tid: AM_OK or the first error (no ck_assert) */
int sink_stream(am_interface_t *ifc, int32_t tid, int n, unsigned seed);

unsigned char *echo_start(size_t max, unsigned seed);
void echo_send(am_interface_t *ifc, unsigned char *buf, uint32_t seq, size_t len);
void echo_drain(am_interface_t *ifc, uint32_t n);

/* Each file's tests into a case (the files above; main in test_am.c). */
void basics_tests(TCase *tc);
void exchange_tests(TCase *tc);
void placement_tests(TCase *tc);
void echo_tests(TCase *tc);
void both_ways_tests(TCase *tc);
void death_tests(TCase *tc);
void hostile_tests(TCase *tc);
void ring_tests(TCase *tc);
void park_tests(TCase *tc);
void waits_tests(TCase *tc);
void acks_tests(TCase *tc);

#endif
