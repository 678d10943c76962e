/*
 * dwatch.c - the daemon route watches its own socket with SIGIO.
 *
 * A route with descriptors of its own (pvmam's AM interface) asks for it
 * with pvmi_route_watch_daemon(): from then on the signal says when the
 * pvmd socket has input, so waiting can spin on the routes without a
 * system call for that socket (rxq.c).  Without such a route nothing is
 * armed and the socket is simply part of every poll().
 */
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include "lpvm.h"
#include "route_int.h"

static struct sigaction old_sigio;
static volatile sig_atomic_t sigio;
static int watched_fd = -1;

static void on_sigio(int sig, siginfo_t *si, void *uc)
{
    sigio = 1;
    /* someone else's SIGIO handler keeps working */
    if ((old_sigio.sa_flags & SA_SIGINFO) && old_sigio.sa_sigaction)
        old_sigio.sa_sigaction(sig, si, uc);
    else if (!(old_sigio.sa_flags & SA_SIGINFO) && old_sigio.sa_handler != SIG_DFL &&
             old_sigio.sa_handler != SIG_IGN)
        old_sigio.sa_handler(sig);
}

int pvmi_route_watch_daemon(void)
{
    int fd = pvmi.pvmd.fd;
    if (watched_fd >= 0)
        return 0;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigio;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigemptyset(&sa.sa_mask);
    if (fd < 0 || sigaction(SIGIO, &sa, &old_sigio) < 0)
        return PvmSysErr;
    int fl = fcntl(fd, F_GETFL);
    if (fcntl(fd, F_SETOWN, getpid()) < 0 || fl < 0 || fcntl(fd, F_SETFL, fl | O_ASYNC) < 0) {
        sigaction(SIGIO, &old_sigio, NULL);
        return PvmSysErr;
    }
    watched_fd = fd;
    sigio = 1;   /* whatever came before the signal was armed */
    return 0;
}

void pvmi_dwatch_stop(void)
{
    if (watched_fd < 0)
        return;
    int fl = fcntl(watched_fd, F_GETFL);
    if (fl >= 0)
        fcntl(watched_fd, F_SETFL, fl & ~O_ASYNC);
    sigaction(SIGIO, &old_sigio, NULL);
    watched_fd = -1;
}

/* Watching, and the socket has said nothing since the last look (which
 * this one leaves to pvmi_dwatch_ready). */
int pvmi_dwatch_quiet(void) { return watched_fd >= 0 && !sigio; }

int pvmi_dwatch_ready(void)
{
    if (watched_fd < 0)
        return -1;
    if (!sigio)
        return 0;
    sigio = 0;
    return 1;
}
