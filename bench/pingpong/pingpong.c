/*
 * pingpong.c - ping-pong, one source built against stock
 * libpvm3 (pingpong_stock) and libpvm3am (pingpong_am) so both are
 * measured by the same code.  The master spawns the slave given by path;
 * master and slave pin themselves to different cores.
 *     pingpong MASTER slave-path [max-bytes] [seconds-per-size] [min-bytes]
 * prints "mode size half-rtt-us MB/s" lines, mode = packed | psend.
 * With PINGPONG_DIRECT set, the master asks for PVM's direct route.
 */
#define _GNU_SOURCE
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <pvm3.h>

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

static void pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu, &s);
    sched_setaffinity(0, sizeof s, &s);
}

static void bounce(int peer, int mode, char *buf, int n)
{
    if (mode == 0) {
        pvm_initsend(PvmDataDefault);
        pvm_pkbyte(buf, n, 1);
        pvm_send(peer, 1);
    } else {
        pvm_psend(peer, 1, buf, n, PVM_BYTE);
    }
}

static void take(int peer, int mode, char *buf, int n)
{
    if (mode == 0) {
        pvm_recv(peer, 1);
        pvm_upkbyte(buf, n, 1);
    } else {
        int t, g, l;
        pvm_precv(peer, 1, buf, n, PVM_BYTE, &t, &g, &l);
    }
}

int main(int argc, char **argv)
{
    if (argc >= 2 && !strcmp(argv[1], "slave")) {
        pin(1);
        int parent = pvm_parent(), hdr[2];
        char *buf = malloc(64 << 20);
        for (;;) {
            pvm_recv(parent, 2);
            pvm_upkint(hdr, 2, 1);
            if (hdr[0] < 0)
                break;
            for (int r = 0; r < hdr[1]; r++) {
                take(parent, hdr[0] >> 28, buf, hdr[0] & 0x0fffffff);
                bounce(parent, hdr[0] >> 28, buf, hdr[0] & 0x0fffffff);
            }
        }
        pvm_exit();
        return 0;
    }
    if (argc < 3 || strcmp(argv[1], "MASTER")) {
        fprintf(stderr, "usage: pingpong MASTER slave-path [max-bytes] [seconds] [min-bytes]\n");
        return 2;
    }
    pin(0);
    /* PINGPONG_DIRECT=1: ask for PVM's direct task-to-task route */
    const char *direct = getenv("PINGPONG_DIRECT");
    if (direct && *direct)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    int max = argc > 3 ? atoi(argv[3]) : 4 << 20;
    double secs = argc > 4 ? atof(argv[4]) : 0.15;
    int min = argc > 5 ? atoi(argv[5]) : 8;
    if (min < 8 || min > max)
        min = 8;
    int tid;
    if (pvm_spawn(argv[2], (char *[]){ "slave", NULL }, 0, "", 1, &tid) != 1)
        return 1;
    char *buf = malloc((size_t)max + 8);
    memset(buf, 7, (size_t)max + 8);
    /* warm-up, untimed: links open (AM connects on the first message) */
    for (int mode = 0; mode < 2; mode++) {
        int hdr[2] = { (mode << 28) | 8, 200 };
        pvm_initsend(PvmDataDefault);
        pvm_pkint(hdr, 2, 1);
        pvm_send(tid, 2);
        for (int r = 0; r < hdr[1]; r++) {
            bounce(tid, mode, buf, 8);
            take(tid, mode, buf, 8);
        }
    }
    for (int mode = 0; mode < 2; mode++) {
        for (int n = min; n <= max; n *= 2) {
            /* calibrate the repetitions to about secs seconds */
            int reps = 4;
            for (;;) {
                int hdr[2] = { (mode << 28) | n, reps };
                pvm_initsend(PvmDataDefault);
                pvm_pkint(hdr, 2, 1);
                pvm_send(tid, 2);
                double t0 = now();
                for (int r = 0; r < reps; r++) {
                    bounce(tid, mode, buf, n);
                    take(tid, mode, buf, n);
                }
                double dt = now() - t0;
                if (dt >= secs || reps >= 1 << 20) {
                    double half = dt / reps / 2;
                    printf("%s %d %.4f %.1f\n", mode ? "psend" : "packed", n, half * 1e6, n / half / 1e6);
                    break;
                }
                reps = dt < secs / 20 ? reps * 8 : (int)(reps * secs / dt * 1.1) + 1;
            }
        }
    }
    int hdr[2] = { -1, 0 };
    pvm_initsend(PvmDataDefault);
    pvm_pkint(hdr, 2, 1);
    pvm_send(tid, 2);
    pvm_exit();
    return 0;
}
