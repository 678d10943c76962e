/*
 * wait.c - how a task waits for input: spin on the routes for a moment,
 * then block in poll() on the daemon socket and every route's fds.
 *
 * Spinning pays when the sender runs on another, idle core: a wake-up
 * across cores costs ~20 us here, a message ~5 us.  It costs dearly when
 * tasks outnumber cores: the spinner holds the core its sender needs.
 * The policies below were measured against each other with MPBench
 * (docs/am-route.md, "Waiting"); the default gives the core away (sched_yield)
 * while it spins, so a runnable peer never waits for it, and yields less
 * often while nobody else wants the core (yield_core).  PVMAM_WAIT
 * (pvmam/config.c) picks another.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "lpvm.h"
#include "route_int.h"

enum { W_YIELD, W_SPIN, W_BLOCK, W_IDLE, W_ADAPT, W_AUTO, W_COUNT };
static const char *const names[W_COUNT] = { "yield", "spin", "block", "idle", "adapt", "auto" };
static int policy = W_YIELD;

#define MAX_FDS 64
#define SPIN_US 100
#define SPIN_CLOCK_EVERY 16   /* polls between clock reads: a read costs as much as a poll */
#define ADAPT_MIN_US 5
#define BUSY_CHECK_US 500   /* /proc/loadavg costs ~1 us: not every wait */
#define YIELD_GAP_MAX 64    /* polls between yields that find nobody */
#define YIELD_RAN_US 3      /* a yield that took longer ran another task */

int pvmi_wait_set(const char *name)
{
    for (int i = 0; i < W_COUNT; i++)
        if (!strcmp(name, names[i])) {
            policy = i;
            return 0;
        }
    return -1;
}

const char *pvmi_wait_name(void) { return names[policy]; }

const char *pvmi_wait_choices(void) { return "yield, spin, block, idle, adapt or auto"; }

static long long now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

/* "idle": tasks runnable on the whole machine now (the fourth field of
 * /proc/loadavg, "running/total"), against the cores we may run on. */
static int machine_busy(void)
{
    static int fd = -1, cpus;
    if (!cpus) {
        cpu_set_t cs;
        cpus = sched_getaffinity(0, sizeof cs, &cs) == 0 ? CPU_COUNT(&cs) : 1;
    }
    if (fd < 0)
        fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC);
    char b[128];
    ssize_t n = fd >= 0 ? pread(fd, b, sizeof b - 1, 0) : -1;
    int running = 0, total = 0;
    if (n > 0) {
        b[n] = '\0';
        if (sscanf(b, "%*f %*f %*f %d/%d", &running, &total) != 2)
            running = 0;
    }
    if (running <= 0) {   /* not what we opened (the program closed it?) */
        if (fd >= 0)
            close(fd);
        fd = -1;
        return 1;   /* cannot tell: do not spin */
    }
    return running > cpus;
}

/* machine_busy(), read again at most every BUSY_CHECK_US. */
static int busy_now(long long now)
{
    static long long checked = -BUSY_CHECK_US;
    static int busy;
    if (now - checked >= BUSY_CHECK_US) {
        busy = machine_busy();
        checked = now;
    }
    return busy;
}

/* "adapt": twice the recent waits that spinning ended, halved by every
 * wait it did not end. */
static long long adapt_us = SPIN_US;

static long long spin_length(long long now)
{
    switch (policy) {
    case W_BLOCK: return 0;
    case W_IDLE:
    case W_AUTO: return busy_now(now) ? 0 : SPIN_US;
    case W_ADAPT: return adapt_us;
    default: return SPIN_US;
    }
}

static void adapt(long long waited_us, int ended)
{
    if (policy != W_ADAPT)
        return;
    long long want = ended ? 2 * waited_us + ADAPT_MIN_US : adapt_us / 2;
    if (want > SPIN_US)
        want = SPIN_US;
    adapt_us = (adapt_us + want) / 2;
    if (adapt_us < ADAPT_MIN_US)
        adapt_us = ADAPT_MIN_US;
}

/* "yield": give the core to a runnable task on it, if any.  A yield
 * that comes back at once found nobody: then yield half as often (at
 * most every YIELD_GAP_MAX polls), since each costs the lone spinner
 * ~0.5 us; one that took long ran someone else: yield at every poll
 * again.  Returns the polls until the next yield; `gap` also tells the
 * next wait whether to yield at once (spin). */
static unsigned gap = 1;

static unsigned yield_core(void)
{
    long long y0 = now_us();
    sched_yield();
    if (now_us() - y0 > YIELD_RAN_US)
        gap = 1;
    else if (gap < YIELD_GAP_MAX)
        gap *= 2;
    return gap;
}

/* A wait for one source (pvmi_progress_for) polls what that source sends
 * alone (route.h poll_from: one ring, no link work), but every FULL_EVERY
 * polls all of every route: other peers' input and the routes' own work
 * wait at most that many polls, the daemon socket is looked at on every
 * poll anyway (spin's hint), and each wait's first poll, in
 * pvmi_progress, is a full one.  An empty poll of one ring costs a
 * fraction of a full one, and a message is seen that much sooner. */
#define FULL_EVERY 16

static int poll_routes(int from, unsigned spins)
{
    if (from != -1 && spins % FULL_EVERY != FULL_EVERY - 1) {
        int rc = pvmi_routes_poll_from(from);
        if (rc >= 0)
            return rc;
    }
    return pvmi_routes_poll();
}

static void daemon_failed(void)
{
    pvmi.dead = 1;
    pvmi_conn_close(&pvmi.pvmd);
}

/* The daemon socket is watched (dwatch.c), so it needs no system call
 * until its signal comes.  While a big message streams in, keep spinning:
 * sleeping then would let the sender's socket fill and stall it too.  A
 * caller's timeout still bounds the spin. */
static void spin(int hint, int timeout_ms, int from, int (*woken)(const void *),
                 const void *arg)
{
    long long t = 0, t0 = 0, len = 0, spin_end = 0, limit = -1;
    /* At once if the last yield ran somebody: the answer cannot be here
     * yet, and the peer may need this core (polling first measured slower
     * on a loaded machine).  If the recent yields ran nobody, poll `gap`
     * times first: a yield costs more than a short ping-pong wait (8-byte
     * pvm_psend over shm: 0.45 us against 0.23 us spinning alone). */
    unsigned next_yield = gap > 1 ? gap : 0;
    for (unsigned spins = 0;; spins++) {
        if (hint > 0 && pvmi_conn_input(&pvmi.pvmd) < 0)
            daemon_failed();
        if (woken(arg)) {
            if (timeout_ms && policy == W_ADAPT)   /* no clock read on the way out */
                adapt(now_us() - t0, 1);
            return;
        }
        /* The clock only once the answer was not there at once; then every
         * SPIN_CLOCK_EVERY polls, which keeps the spin bounded cheaply */
        if (!spins) {
            t = t0 = now_us();
            len = spin_length(t);
            spin_end = timeout_ms ? t + len : t;
            limit = timeout_ms > 0 ? t + timeout_ms * 1000LL : -1;
            if (t >= spin_end)
                break;
        } else if (!(spins % SPIN_CLOCK_EVERY) && (t = now_us()) >= spin_end) {
            break;
        }
        if ((policy == W_YIELD || policy == W_AUTO) && spins == next_yield)
            next_yield = spins + yield_core();
        if (poll_routes(from, spins) > 0 && (limit < 0 || t + len < limit))
            spin_end = t + len;
        hint = pvmi_dwatch_ready();
    }
    if (timeout_ms)
        adapt(0, 0);
}

/* Block in poll() on the daemon socket and every route's fds. */
static int block(int timeout_ms)
{
    struct pollfd fds[MAX_FDS];
    int n = 0;
    fds[n++] = (struct pollfd){ .fd = pvmi.pvmd.fd, .events = POLLIN };
    n += pvmi_routes_fds(fds + n, MAX_FDS - n, &timeout_ms);

    int r = poll(fds, (nfds_t)n, timeout_ms);
    if (r < 0 && errno != EINTR)
        return PvmSysErr;
    if (r > 0 && fds[0].revents && pvmi_conn_input(&pvmi.pvmd) < 0)
        daemon_failed();
    for (int i = 1; r > 0 && i < n; i++) {
        if (fds[i].revents) {
            pvmi_routes_poll();
            break;
        }
    }
    return 0;
}

int pvmi_wait(int timeout_ms, int from, int (*woken)(const void *), const void *arg)
{
    int hint = pvmi_dwatch_ready();
    if (hint >= 0) {   /* spinning needs the daemon socket watched */
        spin(hint, timeout_ms, from, woken, arg);
        if (woken(arg) || timeout_ms == 0)
            return 0;
    }
    return block(timeout_ms);
}
