/*
 * amloss.c - one side of the real-loss test (loss-udp.sh): the two sides
 * run in two network namespaces whose input drops UDP at random
 * (nftables), and meet through address files in a shared directory.
 *     amloss server|client BIND_IP DIR [count]
 * The client streams `count` requests of random sizes 0..max with a
 * sequence number and checksum; the server checks order and contents.
 * Exit 0 only if every request arrived once, in order, bit-exact.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "am.h"
#include "sum.h"


static uint32_t next_seq, received, bad_order, bad_sum;

/* payload: u32 seq, u32 checksum, data; shorter ones take the next number */
static void on_data(const am_token_t *tok, void *d, size_t len)
{
    uint32_t w[2];
    received++;
    if (len < 8) {
        next_seq++;
        return;
    }
    memcpy(w, d, 8);
    if (w[0] != next_seq)
        bad_order++;
    if (w[1] != test_sum32((unsigned char *)d + 8, len - 8))
        bad_sum++;
    next_seq = w[0] + 1;
}

static int put_file(const char *dir, const char *name, const char *text)
{
    char p[512], tmp[520];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    snprintf(tmp, sizeof tmp, "%s.tmp", p);
    FILE *f = fopen(tmp, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0)
        return -1;
    return rename(tmp, p);
}

static int get_file(const char *dir, const char *name, char *text, size_t n, int secs)
{
    char p[512];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    for (int i = 0;; i++) {   /* at least one look, then every 0.1 s */
        FILE *f = fopen(p, "r");
        if (f) {
            int ok = fgets(text, (int)n, f) != NULL;
            fclose(f);
            if (ok)
                return 0;
        }
        if (i >= secs * 10)
            return -1;
        usleep(100000);
    }
}

int main(int argc, char **argv)
{
    if (argc < 4)
        return 2;
    int server = !strcmp(argv[1], "server");
    const char *dir = argv[3];
    int count = argc > 4 ? atoi(argv[4]) : 10000;
    alarm(240);
    int h = am_address_to_id(on_data);
    struct am_config cfg;
    am_config_default(&cfg);
    cfg.bind_host = argv[2];
    cfg.timeout_us = 2000;          /* the veth round trip is ~50 us */
    cfg.timeout_max_us = 4000000;   /* many losses in a row are possible */
    am_interface_t *ifc;
    am_endpoint_t *ep;
    char peer[128];
    int rc = am_init("udp", &cfg, &ifc);
    if (rc < 0) {
        fprintf(stderr, "am_init: %s\n", am_strerror(rc));
        return 1;
    }
    put_file(dir, server ? "server.addr" : "client.addr", am_task_address(ifc, AM_TID_SELF));
    if (get_file(dir, server ? "client.addr" : "server.addr", peer, sizeof peer, 20) < 0)
        return 1;
    am_allocate_task(ifc, &ep);
    rc = server ? am_accept_task(ifc, ep, peer) : am_connect_task(ifc, ep, peer);
    if (rc < 0 || am_insert_task(ifc, ep, server ? 1 : 2) < 0) {
        fprintf(stderr, "connect: %s\n", am_strerror(rc));
        return 1;
    }
    struct am_stats st;
    if (server) {
        char done[16];
        /* serve until the client says it is done (and a little after, so
         * lost final replies are re-sent) */
        while (get_file(dir, "client.done", done, sizeof done, 0) < 0)
            am_wait(ifc, 50);
        for (int i = 0; i < 40; i++)
            am_wait(ifc, 10);
        am_interface_stats(ifc, &st);
        printf("server: received %u, order errors %u, checksum errors %u, held back %llu, "
               "duplicates %llu\n", received, bad_order, bad_sum,
               (unsigned long long)st.reordered, (unsigned long long)st.duplicates);
        am_shutdown(ifc);
        return received == (uint32_t)count && !bad_order && !bad_sum ? 0 : 1;
    }
    size_t max = am_max_payload(ifc);
    unsigned char *buf = malloc(max);
    srand(1234);
    for (size_t j = 0; j < max; j++)
        buf[j] = (unsigned char)rand();
    for (int i = 0; i < count; i++) {
        size_t len = (size_t)rand() % (max + 1);
        if (len >= 16) {
            uint64_t salt = (uint64_t)rand() << 32 | (uint64_t)i;
            memcpy(buf + 8, &salt, 8);
        }
        if (len >= 8) {
            uint32_t w[2] = { (uint32_t)i, test_sum32(buf + 8, len - 8) };
            memcpy(buf, w, 8);
        }
        if ((rc = am_request(ifc, 2, h, buf, len)) < 0) {
            fprintf(stderr, "request %d: %s\n", i, am_strerror(rc));
            put_file(dir, "client.done", "0");   /* let the server stop too */
            free(buf);
            am_shutdown(ifc);
            return 1;
        }
    }
    while (am_outstanding(ifc))
        if ((rc = am_wait(ifc, 100)) < 0)
            break;
    am_interface_stats(ifc, &st);
    printf("client: sent %d, retransmissions %llu, duplicate replies %llu, outstanding %u\n",
           count, (unsigned long long)st.retransmits, (unsigned long long)st.duplicates,
           am_outstanding(ifc));
    put_file(dir, "client.done", "1");
    int ok = am_outstanding(ifc) == 0 && st.retransmits > 0;
    free(buf);
    am_shutdown(ifc);
    return ok ? 0 : 1;
}
