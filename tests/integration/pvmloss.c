/*
 * pvmloss.c - 10,000 PVM messages of mixed sizes over the AM route while
 * the network drops packets (pvmloss.sh sets that up):
 *   pvmloss MASTER count
 * The master sends packed and psend messages, each carrying its sequence
 * number and a checksum of its bytes; the slave checks order and content
 * and reports.  The master prints libam's retransmission count.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "pvmam.h"

#define MAXLEN 65536

static uint32_t sum(const unsigned char *p, int n)
{
    uint32_t s = 2166136261u;
    for (int i = 0; i < n; i++)
        s = (s ^ p[i]) * 16777619u;
    return s;
}

static int slave(void)
{
    int parent = pvm_parent(), count, bad = 0, t, g, l;
    pvm_recv(parent, 1);
    pvm_upkint(&count, 1, 1);
    pvmam_init(2);
    unsigned char *b = malloc(MAXLEN + 8);
    for (int i = 0; i < count; i++) {
        int hdr[3];
        if (i % 2) {
            pvm_precv(parent, 3, b, MAXLEN + 8, PVM_BYTE, &t, &g, &l);
            memcpy(hdr, b, sizeof hdr);
            if (l < 12 || hdr[0] != i || hdr[1] != l - 12 ||
                (uint32_t)hdr[2] != sum(b + 12, l - 12)) {
                if (bad++ < 5)
                    fprintf(stderr, "psend %d: got seq %d len %d (says %d)\n", i, hdr[0], l, hdr[1]);
            }
        } else {
            pvm_recv(parent, 2);
            pvm_upkint(hdr, 3, 1);
            if (hdr[0] != i || hdr[1] < 0 || hdr[1] > MAXLEN) {
                if (bad++ < 5)
                    fprintf(stderr, "packed %d: got seq %d len %d\n", i, hdr[0], hdr[1]);
                continue;
            }
            pvm_upkbyte((char *)b, hdr[1], 1);
            if ((uint32_t)hdr[2] != sum(b, hdr[1]) && bad++ < 5)
                fprintf(stderr, "packed %d: %d bytes, checksum differs\n", i, hdr[1]);
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&bad, 1, 1);
    pvm_send(parent, 4);
    free(b);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "MASTER"))
        return slave();
    int count = argc > 2 ? atoi(argv[2]) : 10000, tid, bad = -1;
    if (pvm_mytid() < 0 ||
        pvm_spawn(argv[0], (char *[]){ "slave", NULL }, PvmTaskDefault, "", 1, &tid) != 1)
        return 2;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&count, 1, 1);
    pvm_send(tid, 1);
    if (pvmam_init(2) < 0)
        return 2;
    unsigned char *b = malloc(MAXLEN + 12);
    srand(7);
    for (int i = 0; i < count; i++) {
        int n = rand() % 8 == 0 ? rand() % (MAXLEN + 1) : rand() % 600;
        for (int j = 0; j < n; j++)
            b[12 + j] = (unsigned char)rand();
        int hdr[3] = { i, n, (int)sum(b + 12, n) };
        int rc;
        if (i % 2) {
            memcpy(b, hdr, sizeof hdr);
            rc = pvm_psend(tid, 3, b, n + 12, PVM_BYTE);
        } else {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(hdr, 3, 1);
            pvm_pkbyte((char *)b + 12, n, 1);
            rc = pvm_send(tid, 2);
        }
        if (rc < 0) {
            printf("send %d failed: %d\n", i, rc);
            return 1;
        }
    }
    pvm_recv(tid, 4);
    pvm_upkint(&bad, 1, 1);
    struct pvmam_stats s;
    pvmam_stats(tid, &s);
    printf("%d messages over %s: %d bad; AM messages sent %llu, retransmissions %llu\n",
           count, pvmam_transport(), bad, (unsigned long long)s.am_msgs_sent,
           (unsigned long long)s.retransmits);
    free(b);
    pvm_exit();
    /* everything arrived intact, over AM, and the loss was really there */
    return bad == 0 && s.am_msgs_sent >= (unsigned long long)count && s.retransmits > 0 ? 0 : 1;
}
