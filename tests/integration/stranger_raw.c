/*
 * stranger_raw.c - a process that is not a task of the virtual machine
 * talks to a task's AM address (tests/integration/stranger.sh).  It knows
 * the transport addresses (what a port scan finds), never the secrets
 * (those are only in the pvmd's mailbox), and builds its packets with
 * libam's own header code (amx_pack_hdr), so they are well formed in
 * every other way.  Exit 0 when everything was sent and (tcp) the task
 * closed every connection; what the task got is the task's to check.
 *     stranger_raw udp VICTIM_ADDR PEER_ADDR
 *     stranger_raw tcp VICTIM_ADDR PEER_ADDR
 * (addresses without their "#secret")
 */
#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <unistd.h>
#include "am_int.h"
#include "am_net.h"
#include "stranger.h"

static uint64_t wrong_key;   /* looks like a real one: 64 random bits */

/* One request to pvmam's fragment handler that, delivered, would be a
 * whole user message of STRANGER_TAG with a 4-byte XDR body. */
static size_t request(char *buf, uint32_t seq, uint64_t key)
{
    static const uint32_t frag[] = { 3, STRANGER_TAG, 0, 0x10000000, 0, 0, 0, 4, 0x57575757 };
    struct amx_hdr h = { .len = sizeof frag, .seq = seq, .type = AMX_REQ,
                         .inst = (uint8_t)(seq % 8), .handler = STRANGER_HANDLER, .key = key };
    amx_pack_hdr(buf, &h);
    for (size_t i = 0; i < sizeof frag / 4; i++) {
        uint32_t v = htonl(frag[i]);
        memcpy(buf + AMX_HDR + 4 * i, &v, 4);
    }
    return AMX_HDR + sizeof frag;
}

static size_t hello(char *buf, const char *name, uint64_t key)
{
    size_t nl = strlen(name) + 1;
    struct amx_hdr h = { .len = (uint32_t)nl, .type = AMX_HELLO, .key = key };
    amx_pack_hdr(buf, &h);
    memcpy(buf + AMX_HDR, name, nl);
    return AMX_HDR + nl;
}

static int udp_burst(int fd, const struct sockaddr_in *to, uint64_t key)
{
    char pkt[256];
    for (uint32_t s = 0; s < STRANGER_UDP_EACH; s++) {
        size_t n = request(pkt, s, key);
        if (sendto(fd, pkt, n, 0, (const struct sockaddr *)to, sizeof *to) != (ssize_t)n) {
            perror("stranger: sendto");
            return -1;
        }
        usleep(200);   /* a burst must not overflow a socket buffer: every one counts */
    }
    return 0;
}

static int udp_stranger(const struct sockaddr_in *victim, const struct sockaddr_in *peer)
{
    int one = 1;
    int fs = socket(AF_INET, SOCK_DGRAM, 0);
    int fp = socket(AF_INET, SOCK_DGRAM, 0);
    if (fs < 0 || fp < 0)
        return perror("stranger: socket"), 1;
    /* the peer's own address: its sockets allow sharing the port */
    if (setsockopt(fp, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
        bind(fp, (const struct sockaddr *)peer, sizeof *peer) < 0)
        return perror("stranger: bind to the peer's address"), 1;
    if (udp_burst(fs, victim, 0) < 0 || udp_burst(fs, victim, wrong_key) < 0 ||
        udp_burst(fp, victim, 0) < 0 || udp_burst(fp, victim, wrong_key) < 0)
        return 1;
    printf("stranger: %d datagrams without the secret, %d of them from the peer's address\n",
           STRANGER_UDP_SENT, STRANGER_UDP_SPOOFED);
    close(fs);
    close(fp);
    return 0;
}

/* Open a connection, send what is given, and wait (bounded) for the task
 * to close it: it must not keep a connection without its secret. */
static int tcp_try(const struct sockaddr_in *victim, const char *what, const char *buf, size_t n)
{
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (const struct sockaddr *)victim, sizeof *victim) < 0)
        return perror("stranger: connect"), -1;
    if (send(fd, buf, n, MSG_NOSIGNAL) != (ssize_t)n)
        return perror("stranger: send"), -1;
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char c;
    int closed = 0;
    for (int i = 0; i < 50 && !closed; i++) {   /* 50 x 100 ms */
        if (poll(&p, 1, 100) > 0) {
            ssize_t r = recv(fd, &c, 1, 0);
            if (r > 0) {
                fprintf(stderr, "stranger: %s: the task answered\n", what);
                close(fd);
                return -1;
            }
            closed = r == 0 || errno == ECONNRESET;
        }
    }
    close(fd);
    if (!closed) {
        fprintf(stderr, "stranger: %s: the task kept the connection 5 s\n", what);
        return -1;
    }
    printf("stranger: %s: closed by the task\n", what);
    return 0;
}

static int tcp_stranger(const struct sockaddr_in *victim, const char *peer_name)
{
    char buf[4096];
    size_t n;
    int rc = 0;
    n = hello(buf, peer_name, 0);
    rc |= tcp_try(victim, "HELLO without a secret", buf, n);
    n = hello(buf, peer_name, wrong_key);
    rc |= tcp_try(victim, "HELLO with a wrong secret", buf, n);
    n = hello(buf, peer_name, wrong_key);
    for (uint32_t s = 0; s < 20; s++)
        n += request(buf + n, s, wrong_key);
    rc |= tcp_try(victim, "HELLO with a wrong secret, then requests", buf, n);
    n = 0;
    for (uint32_t s = 0; s < 20; s++)
        n += request(buf + n, s, wrong_key);
    rc |= tcp_try(victim, "requests without HELLO", buf, n);
    memset(buf, 0x5a, 64);
    rc |= tcp_try(victim, "garbage", buf, 64);
    rc |= tcp_try(victim, "nothing", buf, 0);
    n = hello(buf, peer_name, wrong_key);
    rc |= tcp_try(victim, "half a header", buf, AMX_HDR / 2);
    return rc ? 1 : 0;
}

int main(int argc, char **argv)
{
    if (argc != 4) {
        fprintf(stderr, "usage: stranger_raw udp|tcp VICTIM_ADDR PEER_ADDR\n");
        return 2;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct sockaddr_in victim, peer;
    if (amx_addr_parse(argv[1], argv[2], &victim) < 0 ||
        amx_addr_parse(argv[1], argv[3], &peer) < 0) {
        fprintf(stderr, "stranger: bad address\n");
        return 2;
    }
    if (getrandom(&wrong_key, sizeof wrong_key, 0) != (ssize_t)sizeof wrong_key)
        return 2;
    return strcmp(argv[1], "udp") ? tcp_stranger(&victim, argv[3])
                                  : udp_stranger(&victim, &peer);
}
