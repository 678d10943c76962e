/*
 * amjob.c - a small libpvm3am job for the console tests (amstat).
 *   amjob master NSLAVES NMSG SIZE   spawns NSLAVES "amjob slave", sends
 *                                    each NMSG messages of SIZE bytes that
 *                                    come back, prints "done", then waits in
 *                                    pvm_recv until killed
 *   amjob slave                      echoes what its parent sends
 *   amjob busy SECONDS               connects, then makes no PVM call for
 *                                    SECONDS (cannot answer amstat)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <pvm3.h>

#define TAG_DATA 1
#define TAG_NEVER 999

static int master(int nslaves, int nmsg, int size)
{
    int tids[64];
    if (nslaves < 1 || nslaves > 64 || nmsg < 1 || size < 1)
        return 2;
    char *a[] = { "slave", NULL };
    int n = pvm_spawn("amjob", a, PvmTaskDefault, NULL, nslaves, tids);
    if (n != nslaves) {
        printf("spawn failed: %d of %d (%d)\n", n, nslaves, tids[0]);
        return 1;
    }
    char *buf = calloc(1, (size_t)size);
    if (!buf)
        return 1;
    for (int m = 0; m < nmsg; m++) {
        for (int s = 0; s < nslaves; s++) {
            buf[0] = (char)m;
            pvm_initsend(PvmDataDefault);
            pvm_pkbyte(buf, size, 1);
            if (pvm_send(tids[s], TAG_DATA) < 0)
                return 1;
        }
        for (int s = 0; s < nslaves; s++) {
            if (pvm_recv(tids[s], TAG_DATA) < 0 || pvm_upkbyte(buf, size, 1) < 0 ||
                buf[0] != (char)m)
                return 1;
        }
    }
    printf("done %d x %d bytes with %d slaves\n", nmsg, size, nslaves);
    fflush(stdout);
    free(buf);
    pvm_recv(-1, TAG_NEVER);   /* answers amstat while it waits */
    return 0;
}

static int slave(void)
{
    int parent = pvm_parent(), bytes, tag, src;
    for (;;) {
        int b = pvm_recv(parent, -1);
        if (b < 0)
            return 1;
        pvm_bufinfo(b, &bytes, &tag, &src);
        char *buf = malloc((size_t)bytes + 1);
        if (!buf)
            return 1;
        pvm_upkbyte(buf, bytes, 1);
        pvm_initsend(PvmDataDefault);
        pvm_pkbyte(buf, bytes, 1);
        pvm_send(parent, tag);
        free(buf);
    }
}

int main(int argc, char **argv)
{
    if (pvm_mytid() < 0)
        return 1;
    int rc = 2;
    if (argc == 5 && !strcmp(argv[1], "master"))
        rc = master(atoi(argv[2]), atoi(argv[3]), atoi(argv[4]));
    else if (argc == 2 && !strcmp(argv[1], "slave"))
        rc = slave();
    else if (argc == 3 && !strcmp(argv[1], "busy")) {
        printf("busy\n");
        fflush(stdout);
        /* sleep() ends early on a signal (the library's SIGIO when the
         * console's question arrives): sleep out the whole time */
        time_t end = time(NULL) + atoi(argv[2]);
        for (time_t now; (now = time(NULL)) < end;)
            sleep((unsigned)(end - now));
        rc = 0;
    } else
        fprintf(stderr, "usage: amjob master NSLAVES NMSG SIZE | slave | busy SECONDS\n");
    pvm_exit();
    return rc;
}
