/*
 * barrier.c - waking a sleeping consumer without a fence after every
 * record (libam/tr_shm.c, commit and shm_event_fd).
 *
 * The wake-up is a store-then-load on each side: the producer publishes a
 * record and then looks at the consumer's "sleeping" mark; the consumer
 * sets the mark and then looks at the ring.  Without a full fence between
 * the store and the load, each side may read before its own store is
 * seen (x86 lets a load pass an earlier store), both miss, and the
 * consumer sleeps with a record in its ring.  The fence costs the
 * producer more than its instructions: it waits until the record's lines
 * are its own, and a streaming reader has just read them, so every small
 * send waited for one line transfer (a third of a microsecond in the
 * VM's slow cache class, docs/performance.md).
 *
 * So the fence moves to the side that goes to sleep, which does so rarely
 * and makes a system call anyway: membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED)
 * runs a full barrier on every CPU that runs a thread of a process that
 * registered for it, before it returns.  A producer that skipped its fence
 * either loaded the mark after that barrier (and sees "sleeping") or had
 * its record's store drained by it (and the consumer, looking after the
 * call, sees the record).  A producer skips its fence only if it is
 * registered itself (amx_shm_membarrier) and the consumer said that it
 * makes that call before every sleep (CONS_BARRIER in the mark, set once
 * and kept; a stale read of it only costs a fence), so a peer without it
 * (another kernel's seccomp filter, an older libam) keeps the fences.
 * The call waits for the kernel's interrupts to the other CPUs, never
 * for another process to act, so it is no wait in the sense of
 * docs/architecture.md ("Waits"); and the consumer makes it only on its
 * way to sleep, after spinning.
 *
 * Registration belongs to the process's memory: a child made by fork
 * keeps it (the fixture's inherited interface, tests/libam/echo.c), exec
 * drops it, and a child that starts an interface registers again anyway.
 */
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "shm.h"

int amx_shm_membarrier;
static pid_t registered;   /* the process that asked (a forked child asks again) */

/* Register this process, and see that the barrier works here: then its
 * producers may skip fences toward consumers that use it, and its
 * consumers use it.  Once per process, at each interface's start. */
void amx_shm_barrier_init(void)
{
    pid_t me = getpid();
    if (registered == me)
        return;
    registered = me;
    amx_shm_membarrier = 0;
#ifdef SYS_membarrier
    long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0, 0);
    amx_shm_membarrier = q > 0 && (q & MEMBARRIER_CMD_GLOBAL_EXPEDITED) &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED, 0, 0) == 0 &&
        syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0;
#endif
}

/* The consumer's half, between marking its rings and looking at them
 * (shm_event_fd).  -1: it failed; the caller must not sleep. */
int amx_shm_barrier_all(void)
{
#ifdef SYS_membarrier
    if (syscall(SYS_membarrier, MEMBARRIER_CMD_GLOBAL_EXPEDITED, 0, 0) == 0)
        return 0;
#endif
    return -1;
}
