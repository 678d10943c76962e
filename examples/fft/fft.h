/*
 * fft.h - the parallel 2-D FFT example: what the master, the slaves and
 * the checks share (message tags, the job, slices, messaging helpers).
 *
 * An ordinary PVM program: it includes only <pvm3.h> and FFTW's header,
 * and is built unchanged against stock libpvm3 and against libpvm3am.
 */
#ifndef FFT_H
#define FFT_H

#include <fftw3.h>
#include <pvm3.h>

#ifndef FFT_LIB
#define FFT_LIB "pvm"
#endif

#define FFT_MAXSLAVES 64

/* Message tags: one per kind of message, so receives never confuse them.
 * Task-exit notifications come with the tag of the receive they should
 * interrupt (see fft_recv). */
enum {
    TAG_SETUP = 0x4654,  /* master -> slave: the job and every slave's tid */
    TAG_READY,           /* slave -> master: plans made, buffers ready */
    TAG_CMD,             /* master -> slave: direction of the next pass, 0 = stop */
    TAG_ROW,             /* master -> slave: input rows */
    TAG_SEG,             /* slave -> slave: transpose data */
    TAG_RES,             /* slave -> master: result columns */
};

/* Message granularity. */
enum { GRAN_ROW, GRAN_PAIR };

/* What every slave knows about the job. */
struct fft_job {
    int n;                      /* the array is n x n complex */
    int s;                      /* slaves */
    int gran;                   /* GRAN_ROW or GRAN_PAIR */
    int tids[FFT_MAXSLAVES];    /* slave k's tid */
};

/* Slave k owns rows (and, after the transpose, columns) lo..hi-1. */
static inline void fft_slice(int n, int s, int k, int *lo, int *hi)
{
    *lo = (int)((long)n * k / s);
    *hi = (int)((long)n * (k + 1) / s);
}

/* messages.c: PVM calls that end the program on an error. */
void fft_die(const char *what, int rc) __attribute__((noreturn));
void fft_on_die(void (*cleanup)(void));
/* Sends count complex numbers with pvm_psend. */
void fft_send(int tid, int tag, const fftw_complex *p, long count);
/* Receives a message of tag from any task into p (room for count complex
 * numbers); returns its sender and sets *got to its complex count.  A
 * task-exit notification (sender not a task in from[0..nfrom-1]) ends the
 * program with a message. */
int fft_recv(int tag, fftw_complex *p, long count, long *got, const int *from, int nfrom);
/* Index of tid in tids[0..n-1], or -1. */
int fft_rank_of(int tid, const int *tids, int n);

/* The master's options (main.c parses them, master.c runs the job). */
struct fft_opts {
    int n, s, gran;
    int runs, warm;             /* timed forward passes; untimed ones before */
    int direct;                 /* PvmRouteDirect */
    int corrupt;                /* 0, or damage the result of FFT_FORWARD/FFT_BACKWARD */
    int timeout;                /* seconds before giving up, 0 = never */
    int quiet;
    unsigned long seed;
    double tol;                 /* largest relative error that passes */
    const char *input;          /* file with the array, or NULL: random */
    const char *slave_prog;     /* program spawned as slave, NULL: this one */
};

/* master.c: returns the exit status (0: every check passed). */
int fft_master_main(const struct fft_opts *o);

/* slave.c */
int fft_slave_main(void);

/* check.c: input, the serial reference and the comparisons. */
void fft_fill_random(fftw_complex *a, int n, unsigned long seed);
int fft_read_input(const char *path, fftw_complex *a, int n);
void fft_serial(fftw_complex *out, const fftw_complex *in, int n, int dir);
/* ||a - scale * b|| / ||scale * b|| over count elements */
double fft_rel_error(const fftw_complex *a, const fftw_complex *b, double scale, long count);

#endif
