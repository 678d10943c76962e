/*
 * halt.c - pvm_halt as stock has it: the request reaches the pvmd whatever
 * the caller does next, and the call does not come back while the virtual
 * machine halts (the pvmd ends every task, the caller included).
 *
 * The master spawns NCHILD copies of itself with pvm_catchout on, so the
 * pvmd is busy writing the children's output to the master when it calls
 * pvm_halt.  If pvm_halt returns, the master says so and falls off the
 * end of main at once (the shape that lost the halt: the caller closed
 * its connection while the pvmd still wrote to it).  halt.sh checks that
 * the master was ended by the pvmd, and that the pvmd and every child are
 * gone.
 *
 * usage: halt CHILD   (CHILD: program name the pvmd can spawn)
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pvm3.h>

enum { NCHILD = 3, T_READY = 1 };

static int child(void)
{
    int pid = (int)getpid();
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&pid, 1, 1);
    pvm_send(pvm_parent(), T_READY);
    /* Output until the pvmd ends us; bounded in case it never does. */
    for (long i = 0; i < 20000000; i++) {
        printf("child %d line %ld: some output for the master to read\n", pid, i);
        if (i % 256 == 0)
            fflush(stdout);
        if (i % 4096 == 0)
            usleep(1000);
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (pvm_mytid() < 0)
        return 2;
    if (pvm_parent() > 0)
        return child();
    if (argc < 2) {
        fprintf(stderr, "usage: halt CHILD\n");
        return 2;
    }
    pvm_catchout(stdout);
    int tids[NCHILD];
    if (pvm_spawn(argv[1], NULL, PvmTaskDefault, "", NCHILD, tids) != NCHILD) {
        fprintf(stderr, "halt: spawn failed\n");
        return 2;
    }
    struct timeval tmo = { 20, 0 };
    for (int i = 0; i < NCHILD; i++) {
        int pid = 0;
        if (pvm_trecv(-1, T_READY, &tmo) <= 0 || pvm_upkint(&pid, 1, 1) < 0) {
            fprintf(stderr, "halt: a child did not start\n");
            return 2;
        }
        fprintf(stderr, "child pid %d\n", pid);
    }
    fprintf(stderr, "master pid %d halting\n", (int)getpid());
    int rc = pvm_halt();
    fprintf(stderr, "pvm_halt returned %d\n", rc);
    return 0;
}
