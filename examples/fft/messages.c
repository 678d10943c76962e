/*
 * messages.c - the fft example's PVM messaging: pvm_psend/pvm_precv of
 * complex arrays, and ending the program cleanly on any error, including
 * a peer that exited (seen as a task-exit notification, fft.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include "fft.h"

static void (*on_die)(void);

void fft_on_die(void (*cleanup)(void)) { on_die = cleanup; }

void fft_die(const char *what, int rc)
{
    if (rc < 0) {
        fprintf(stderr, "fft [t%x]: %s: PVM error %d\n", pvm_mytid(), what, rc);
        pvm_perror((char *)what);
    } else {
        fprintf(stderr, "fft [t%x]: %s\n", pvm_mytid(), what);
    }
    if (on_die)
        on_die();
    pvm_exit();
    exit(1);
}

void fft_send(int tid, int tag, const fftw_complex *p, long count)
{
    int rc = pvm_psend(tid, tag, (void *)p, (int)(2 * count), PVM_DOUBLE);
    if (rc < 0)
        fft_die("pvm_psend", rc);
}

int fft_rank_of(int tid, const int *tids, int n)
{
    for (int k = 0; k < n; k++)
        if (tids[k] == tid)
            return k;
    return -1;
}

int fft_recv(int tag, fftw_complex *p, long count, long *got, const int *from, int nfrom)
{
    int src = 0, rtag = 0, len = 0;
    int rc = pvm_precv(-1, tag, p, (int)(2 * count), PVM_DOUBLE, &src, &rtag, &len);
    if (rc < 0)
        fft_die("pvm_precv", rc);
    if (fft_rank_of(src, from, nfrom) < 0) {
        /* only the pvmd's task-exit notification comes from elsewhere */
        char what[96];
        snprintf(what, sizeof what, "a task it was waiting for exited (message from t%x, tag %d)", src, rtag);
        fft_die(what, 0);
    }
    *got = len / (long)sizeof(fftw_complex);
    return src;
}
