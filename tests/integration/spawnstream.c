/*
 * spawnstream.c - a master streams right after pvm_spawn, with no
 * pvmam_init: the first message to the child
 * waits briefly for the link (pvmam/settle.c), so the pvmd carries almost
 * none of the payload.  Built against libpvm3am (spawnstream_am) and
 * stock libpvm3 (spawnstream_stock: a stock child, whose messages must
 * still arrive, through the pvmd).
 *
 *   spawnstream_am CHILD N BYTES   master: spawn CHILD, pvm_psend N
 *                                  messages of BYTES, each filled by its
 *                                  index; the child checks every byte and
 *                                  answers with how many were right
 *   prints "via-pvmd M of N" (pvmam_stats of the child) and PASS/FAIL.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#ifdef SS_AM
#include "pvmam.h"
#endif

#define TAG_DATA 11
#define TAG_DONE 12

static void fill(unsigned char *b, size_t len, int i)
{
    for (size_t k = 0; k < len; k++)
        b[k] = (unsigned char)(i * 31 + k % 251);
}

static int child(int parent, int n, size_t len)
{
    unsigned char *b = malloc(len), *want = malloc(len);
    int good = 0;
    for (int i = 0; b && want && i < n; i++) {
        int t, g, c;
        if (pvm_precv(parent, TAG_DATA, b, (int)len, PVM_BYTE, &t, &g, &c) < 0)
            break;
        fill(want, len, i);
        good += c == (int)len && !memcmp(b, want, len);
    }
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&good, 1, 1);
    pvm_send(parent, TAG_DONE);
    free(b);
    free(want);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc < 4) {
        fprintf(stderr, "usage: spawnstream CHILD N BYTES\n");
        return 2;
    }
    int n = atoi(argv[2]);
    size_t len = (size_t)atol(argv[3]);
    if (pvm_mytid() < 0)
        return 1;
    int parent = pvm_parent();
    if (parent > 0)
        return child(parent, n, len);
    int tid;
    char *args[] = { argv[1], argv[2], argv[3], NULL };
    if (pvm_spawn(argv[1], args, PvmTaskDefault, "", 1, &tid) != 1) {
        printf("FAIL: cannot spawn %s\n", argv[1]);
        pvm_exit();
        return 1;
    }
    unsigned char *b = malloc(len);
    int rc = b ? 0 : 1;
    for (int i = 0; !rc && i < n; i++) {
        fill(b, len, i);
        rc = pvm_psend(tid, TAG_DATA, b, (int)len, PVM_BYTE) < 0;
    }
    int good = -1;
    struct timeval tmo = { 60, 0 };
    if (!rc && pvm_trecv(tid, TAG_DONE, &tmo) > 0)
        pvm_upkint(&good, 1, 1);
#ifdef SS_AM
    long via = -1;
    struct pvmam_stats s;
    if (pvmam_stats(tid, &s) == 0)
        via = (long)s.pvmd_msgs_sent - 1;   /* less pvm_spawn's TC_SIBLINGS */
    printf("transport %s, child %s: via-pvmd %ld of %d\n", pvmam_transport(), argv[1], via, n);
#endif
    printf("%s: %d of %d messages arrived intact\n", good == n ? "PASS" : "FAIL", good, n);
    free(b);
    pvm_exit();
    return good == n ? 0 : 1;
}
