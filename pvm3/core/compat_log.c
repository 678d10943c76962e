/*
 * compat_log.c - stock libpvm3's logging calls, used by stock libfpvm3
 * (pvmlogerror) and by programs: everything goes to stderr with the
 * "libpvm [tNNN]" prefix stock uses ("libpvm [pidNNN]" when not connected,
 * pid -1 until the first connect, as stock).  pvmbailout is a no-op hook.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include "lpvm.h"
#include "compat.h"

int pvmlogerror(char *s)
{
    if (pvmi.tid > 0)
        fprintf(stderr, "libpvm [t%x]: %s", pvmi.tid, s ? s : "");
    else
        fprintf(stderr, "libpvm [pid%d]: %s", pvmmyupid, s ? s : "");
    return 0;
}

/* The prefix goes before the first piece of each line only. */
int vpvmlogprintf(const char *fmt, va_list ap)
{
    static int at_line_start = 1;
    if (!fmt)
        return 0;
    if (at_line_start) {
        if (pvmi.tid > 0)
            fprintf(stderr, "libpvm [t%x] ", pvmi.tid);
        else
            fprintf(stderr, "libpvm [pid%d] ", pvmmyupid);
    }
    int n = vfprintf(stderr, fmt, ap);
    size_t len = strlen(fmt);
    at_line_start = len > 0 && fmt[len - 1] == '\n';
    fflush(stderr);
    return n;
}

int pvmlogprintf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vpvmlogprintf(fmt, ap);
    va_end(ap);
    return n;
}

int pvmlogperror(char *s)
{
    const char *e = strerror(errno);
    pvmlogprintf("%s: %s\n", s ? s : "", e);
    return 0;
}

void pvmbailout(int n) { (void)n; }
