/*
 * launch.c - spawn N copies of a program (as the console's "spawn -N"
 * would) and wait, bounded, until they have all exited.  Their output goes
 * to the pvmd log, which the calling test reads.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <pvm3.h>

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: launch N program\n");
        return 2;
    }
    int n = atoi(argv[1]);
    int tids[64];
    if (n < 1 || n > 64 || pvm_spawn(argv[2], NULL, 0, "", n, tids) != n)
        return 1;
    for (int k = 0; k < 600; k++) {     /* at most 60 s */
        int alive = 0;
        for (int i = 0; i < n; i++)
            if (pvm_pstat(tids[i]) == PvmOk)
                alive++;
        if (!alive) {
            pvm_exit();
            return 0;
        }
        usleep(100000);
    }
    fprintf(stderr, "launch: tasks still running after 60 s\n");
    pvm_exit();
    return 1;
}
