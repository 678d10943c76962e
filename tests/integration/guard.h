/*
 * guard.h - how a two-task test program (bistream.c, shortmix.c) ends when
 * it hangs or a PVM call fails: guard_start(NAME, SECONDS) arms an alarm
 * that prints "NAME: no end in time (hung)" and exits 3; CK(call) ends
 * the task with the call's text and error code (after pvm_exit) when the
 * call returns a negative code; guard_report ends the slave and gives
 * the master the slave's count of bad messages.
 */
#ifndef GUARD_H
#define GUARD_H

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>

static const char *guard_name = "test";

static void guard_alarm(int sig)
{
    (void)sig;
    static const char m[] = ": no end in time (hung)\n";
    write(2, guard_name, strlen(guard_name));   /* strlen and write: async-signal-safe */
    write(2, m, sizeof m - 1);
    _exit(3);
}

static inline void guard_start(const char *name, unsigned seconds)
{
    guard_name = name;
    signal(SIGALRM, guard_alarm);
    alarm(seconds);
}

static inline void die(const char *what, int rc)
{
    fprintf(stderr, "%s[t%x]: %s (%d)\n", guard_name, pvm_mytid(), what, rc);
    pvm_exit();
    exit(1);
}
#define CK(call) do { int rc_ = (call); if (rc_ < 0) die(#call, rc_); } while (0)

/* The end of a two-task test: the slave sends its count of bad messages
 * to the master (tag) and exits with it; the master gets that count. */
static inline int guard_report(int master, int peer, int tag, int bad)
{
    int pbad = 0;
    if (!master) {
        CK(pvm_initsend(PvmDataDefault));
        CK(pvm_pkint(&bad, 1, 1));
        CK(pvm_send(peer, tag));
        pvm_exit();
        exit(bad != 0);
    }
    CK(pvm_recv(peer, tag));
    CK(pvm_upkint(&pbad, 1, 1));
    return pbad;
}

#endif
