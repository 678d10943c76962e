/*
 * state.c - the AM route's shared state and its log, in a file of their
 * own: every part of pvmam uses them, so they sit below all of them and
 * no part has to call the route (am_route.c) back.
 */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include "pvmam_int.h"

struct pvmx_state pvmx = { .cfg = { .transport = "off" } };

long long pvmx_now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

void pvmx_log(const char *fmt, ...)
{
    if (!pvmx.cfg.verbose)
        return;
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "libpvm3am[t%x]: ", pvmx.mytid);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
}

const char *pvmam_transport(void) { return pvmx.on ? pvmx.running : "off"; }
