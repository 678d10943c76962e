/*
 * stranger.c - a libpvm3am task under attack from a process outside the
 * virtual machine (tests/integration/stranger.sh).
 *     stranger MASTER STRANGER_RAW     (started by hand: the victim)
 *     stranger peer                    (spawned by the victim)
 * The victim opens an AM link to its peer, reads both AM addresses from
 * the mailbox (as any task of the VM may), and runs the stranger with the
 * addresses stripped of their secrets.  While the stranger sends, the
 * victim keeps polling.  Then: nothing was delivered, the drops are
 * counted (stranger.h says how many), and a normal exchange with the peer
 * still goes over AM.  Every wait is bounded.  Exit 0 on success.
 */
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>
#include "pvmam.h"
#include "stranger.h"

#define TAG_PING 1
#define TAG_PONG 2
#define TAG_QUIT 3

extern char **environ;

static int fail(const char *what)
{
    fprintf(stderr, "stranger: FAIL: %s\n", what);
    return 1;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec / 1e9;
}

static int peer_main(void)
{
    int parent = pvm_parent();
    struct timeval tmo = { 60, 0 };
    for (;;) {
        int b = pvm_trecv(parent, -1, &tmo);
        int tag, n;
        if (b <= 0 || pvm_bufinfo(b, NULL, &tag, NULL) < 0 || tag == TAG_QUIT)
            break;
        pvm_upkint(&n, 1, 1);
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&n, 1, 1);
        pvm_send(parent, TAG_PONG);
    }
    pvm_exit();
    return 0;
}

/* n ping-pongs with the peer; 0 if every answer came back in time. */
static int exchange(int peer, int n)
{
    struct timeval tmo = { 10, 0 };
    for (int i = 0; i < n; i++) {
        int v = i, back = -1;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        if (pvm_send(peer, TAG_PING) < 0 || pvm_trecv(peer, TAG_PONG, &tmo) <= 0 ||
            pvm_upkint(&back, 1, 1) < 0 || back != i)
            return -1;
    }
    return 0;
}

/* The task's AM address from the mailbox, without its "#secret". */
static int published(int tid, char *addr, size_t size)
{
    char name[32];
    snprintf(name, sizeof name, "pvmam.%x", tid);
    int b = pvm_recvinfo(name, 0, PvmMboxDefault), n = 0;
    if (b < 0 || pvm_upkint(&n, 1, 1) < 0 || n <= 0 || (size_t)n >= size ||
        pvm_upkbyte(addr, n, 1) < 0)
        return -1;
    addr[n] = '\0';
    char *sep = strrchr(addr, '#');
    if (!sep || strlen(sep) != 17)   /* "#" and 16 hex digits */
        return -1;
    *sep = '\0';
    return 0;
}

/* Run the stranger, polling AM meanwhile (tcp and shm connections are
 * only accepted, and refused, while the task polls).  Its exit status. */
static int run_stranger(const char *raw, const char *tr, const char *va, const char *pa)
{
    pid_t pid;
    char *argv[] = { (char *)raw, (char *)tr, (char *)va, (char *)pa, NULL };
    if (posix_spawn(&pid, raw, NULL, NULL, argv, environ) != 0)
        return -1;
    struct timeval tmo = { 0, 10000 };
    double end = now_s() + 60;
    int st = 0;
    while (waitpid(pid, &st, WNOHANG) == 0) {
        if (now_s() > end) {
            kill(pid, SIGKILL);
            waitpid(pid, &st, 0);
            return -1;
        }
        int b = pvm_trecv(-1, STRANGER_TAG, &tmo);
        if (b > 0)
            return fail("a message from the stranger was delivered"), -1;
    }
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

int main(int argc, char **argv)
{
    int me = pvm_mytid();
    if (me < 0)
        return fail("pvm_mytid");
    if (argc > 1 && !strcmp(argv[1], "peer"))
        return peer_main();
    if (argc != 3 || strcmp(argv[1], "MASTER")) {
        fprintf(stderr, "usage: %s MASTER STRANGER_RAW\n", argv[0]);
        pvm_exit();
        return 2;
    }
    const char *tr = pvmam_transport();
    int peer, rc = 1;
    if (!strcmp(tr, "off") || pvm_spawn(argv[0], (char *[]){ "peer", NULL }, PvmTaskDefault, "",
                                        1, &peer) != 1) {
        fail("AM is off, or the peer did not start");
        goto out;
    }
    /* open the link: ping-pong until messages to the peer go over AM */
    struct pvmam_stats s0, s1, p1;
    double end = now_s() + 30;
    do {
        if (exchange(peer, 1) < 0 || now_s() > end) {
            fail("no AM link to the peer");
            goto quit;
        }
        pvmam_stats(peer, &s0);
    } while (!s0.peers_am);
    if (exchange(peer, 10) < 0) {
        fail("exchange before");
        goto quit;
    }
    char va[128], pa[128];
    if (published(me, va, sizeof va) < 0 || published(peer, pa, sizeof pa) < 0) {
        fail("our addresses are not in the mailbox with a secret");
        goto quit;
    }
    pvmam_stats(0, &s0);
    printf("%s: victim t%x at %s, peer t%x at %s\n", tr, me, va, peer, pa);
    fflush(stdout);
    if (run_stranger(argv[2], tr, va, pa) != 0) {
        fail("the stranger");
        goto quit;
    }
    int udp = !strcmp(tr, "udp");
    uint64_t want = udp ? STRANGER_UDP_SENT : !strcmp(tr, "shm") ? STRANGER_SHM_AUTH
                                                                 : STRANGER_TCP_AUTH;
    struct timeval tmo = { 0, 10000 };
    end = now_s() + 10;
    do {   /* the last datagrams may still be queued: read on, bounded */
        if (pvm_trecv(-1, STRANGER_TAG, &tmo) > 0) {
            fail("a message from the stranger was delivered");
            goto quit;
        }
        pvmam_stats(0, &s1);
    } while (s1.auth_drops - s0.auth_drops < want && now_s() < end);
    pvmam_stats(peer, &p1);
    printf("%s: auth_drops %llu (want %llu), from the peer's address %llu (want %d), "
           "drops %llu\n", tr, (unsigned long long)(s1.auth_drops - s0.auth_drops),
           (unsigned long long)want, (unsigned long long)p1.auth_drops,
           udp ? STRANGER_UDP_SPOOFED : 0, (unsigned long long)(s1.drops - s0.drops));
    if (s1.auth_drops - s0.auth_drops != want ||
        p1.auth_drops != (uint64_t)(udp ? STRANGER_UDP_SPOOFED : 0) ||
        (!udp && s1.drops == s0.drops)) {
        fail("the drop counters do not show the stranger's packets");
        goto quit;
    }
    /* still working: a normal exchange, over AM */
    pvmam_stats(peer, &s0);
    if (exchange(peer, 20) < 0) {
        fail("exchange after");
        goto quit;
    }
    pvmam_stats(peer, &s1);
    if (s1.am_msgs_sent - s0.am_msgs_sent != 20 || s1.am_msgs_recv - s0.am_msgs_recv != 20 ||
        !s1.peers_am) {
        fail("the exchange after did not go over AM");
        goto quit;
    }
    if (pvm_probe(-1, -1) > 0) {
        fail("a message nobody sent is waiting");
        goto quit;
    }
    printf("%s: nothing delivered; 20 messages each way over AM after\n", tr);
    rc = 0;
quit:
    pvm_initsend(PvmDataDefault);
    pvm_send(peer, TAG_QUIT);
out:
    pvm_exit();
    return rc;
}
