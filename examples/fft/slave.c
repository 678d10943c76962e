/*
 * slave.c - one slave of the parallel 2-D FFT.  Per pass: take my rows
 * from the master, transform them, transpose with the other slaves
 * (direct slave-to-slave messages), transform my new rows (columns of the
 * array) and send them to the master.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fft.h"

static struct fft_job job;
static int me, parent, lo, hi, rows;
static fftw_complex *a;     /* my rows, n wide */
static fftw_complex *t;     /* my columns after the transpose, as rows */
static fftw_complex *tmp;   /* a received or outgoing block */
static int got[FFT_MAXSLAVES];

static void recv_setup(void)
{
    int hdr[4];
    int rc = pvm_recv(parent, TAG_SETUP);
    if (rc < 0 || (rc = pvm_upkint(hdr, 4, 1)) < 0)
        fft_die("receiving the job", rc);
    job.n = hdr[0], job.s = hdr[1], job.gran = hdr[2], me = hdr[3];
    if (job.s < 1 || job.s > FFT_MAXSLAVES || job.n < job.s || me < 0 || me >= job.s ||
        (job.gran != GRAN_ROW && job.gran != GRAN_PAIR))
        fft_die("bad job from the master", 0);
    if ((rc = pvm_upkint(job.tids, job.s, 1)) < 0)
        fft_die("receiving the job", rc);
}

/* Interrupt our receives if the master or a sibling exits: the
 * notification carries the tag of the receive that waits for it. */
static void watch_peers(void)
{
    int rc;
    if ((rc = pvm_notify(PvmTaskExit, TAG_CMD, 1, &parent)) < 0 ||
        (rc = pvm_notify(PvmTaskExit, TAG_ROW, 1, &parent)) < 0 ||
        (rc = pvm_notify(PvmTaskExit, TAG_SEG, 1, &parent)) < 0 ||
        (job.s > 1 && (rc = pvm_notify(PvmTaskExit, TAG_SEG, job.s, job.tids)) < 0))
        fft_die("pvm_notify", rc);
}

static void get_rows(void)
{
    long n = job.n, k;
    if (job.gran == GRAN_PAIR) {
        fft_recv(TAG_ROW, a, rows * n, &k, &parent, 1);
        if (k != rows * n)
            fft_die("rows from the master: wrong length", 0);
        return;
    }
    for (int r = 0; r < rows; r++) {
        fft_recv(TAG_ROW, a + r * n, n, &k, &parent, 1);
        if (k != n)
            fft_die("a row from the master: wrong length", 0);
    }
}

/* Rows r0..r0+nr-1 of the array, restricted to my columns (lo..hi-1), are
 * at src with the given row stride; element (r, c) goes to t[c - lo][r]. */
static void place(const fftw_complex *src, long stride, int r0, int nr)
{
    long n = job.n;
    for (int r = 0; r < nr; r++)
        for (int c = 0; c < rows; c++)
            memcpy(t[(long)c * n + r0 + r], src[r * stride + c], sizeof(fftw_complex));
}

static void send_segments(void)
{
    long n = job.n;
    for (int d = 1; d < job.s; d++) {
        int j = (me + d) % job.s, jlo, jhi;   /* staggered: not all to slave 0 first */
        fft_slice(job.n, job.s, j, &jlo, &jhi);
        if (job.gran == GRAN_ROW) {
            for (int r = 0; r < rows; r++)
                fft_send(job.tids[j], TAG_SEG, a + r * n + jlo, jhi - jlo);
            continue;
        }
        for (int r = 0; r < rows; r++)
            memcpy(tmp + (long)r * (jhi - jlo), a + r * n + jlo, sizeof(fftw_complex) * (jhi - jlo));
        fft_send(job.tids[j], TAG_SEG, tmp, (long)rows * (jhi - jlo));
    }
}

static void recv_segments(void)
{
    long k;
    memset(got, 0, sizeof got);
    int expect = job.gran == GRAN_ROW ? (job.n - rows) : job.s - 1;
    for (int m = 0; m < expect; m++) {
        int src = fft_recv(TAG_SEG, tmp, (long)job.n * rows, &k, job.tids, job.s);
        int i = fft_rank_of(src, job.tids, job.s), ilo, ihi;
        fft_slice(job.n, job.s, i, &ilo, &ihi);
        if (i == me)
            fft_die("transpose data from myself", 0);
        long want = job.gran == GRAN_ROW ? rows : (long)(ihi - ilo) * rows;
        int most = job.gran == GRAN_ROW ? ihi - ilo : 1;
        if (k != want || got[i] >= most) {
            char what[160];
            snprintf(what, sizeof what, "transpose data from t%x (slave %d): %ld numbers, want %ld; "
                     "message %d of %d", src, i, k, want, got[i] + 1, most);
            fft_die(what, 0);
        }
        if (job.gran == GRAN_ROW)   /* a sibling's rows come in order */
            place(tmp, rows, ilo + got[i], 1);
        else
            place(tmp, rows, ilo, ihi - ilo);
        got[i]++;
    }
}

static void send_result(void)
{
    long n = job.n;
    if (job.gran == GRAN_PAIR) {
        fft_send(parent, TAG_RES, t, rows * n);
        return;
    }
    for (int r = 0; r < rows; r++)
        fft_send(parent, TAG_RES, t + r * n, n);
}

static void pass(fftw_plan plan)
{
    get_rows();
    fftw_execute_dft(plan, a, a);
    send_segments();
    place(a + lo, job.n, lo, rows);   /* my own block needs no message */
    recv_segments();
    fftw_execute_dft(plan, t, t);
    send_result();
}

int fft_slave_main(void)
{
    int rc;
    if (pvm_mytid() < 0)
        return 1;
    parent = pvm_parent();
    if (parent < 0)
        fft_die("no parent: slaves are started by the master", 0);
    recv_setup();
    watch_peers();
    fft_slice(job.n, job.s, me, &lo, &hi);
    rows = hi - lo;
    long n = job.n, cells = (long)rows * n;
    a = fftw_malloc(sizeof(fftw_complex) * cells);
    t = fftw_malloc(sizeof(fftw_complex) * cells);
    tmp = fftw_malloc(sizeof(fftw_complex) * cells);
    if (!a || !t || !tmp)
        fft_die("out of memory", 0);
    fftw_plan fwd = fftw_plan_many_dft(1, &job.n, rows, a, NULL, 1, job.n, a, NULL, 1, job.n,
                                       FFTW_FORWARD, FFTW_ESTIMATE);
    fftw_plan inv = fftw_plan_many_dft(1, &job.n, rows, a, NULL, 1, job.n, a, NULL, 1, job.n,
                                       FFTW_BACKWARD, FFTW_ESTIMATE);
    if (!fwd || !inv)
        fft_die("fftw_plan_many_dft failed", 0);
    if ((rc = pvm_initsend(PvmDataDefault)) < 0 || (rc = pvm_send(parent, TAG_READY)) < 0)
        fft_die("telling the master we are ready", rc);
    for (;;) {
        int dir;
        if ((rc = pvm_recv(-1, TAG_CMD)) < 0 || (rc = pvm_upkint(&dir, 1, 1)) < 0)
            fft_die("receiving a command", rc);
        int bufid = pvm_getrbuf(), len, tag, src;
        if ((rc = pvm_bufinfo(bufid, &len, &tag, &src)) < 0)
            fft_die("pvm_bufinfo", rc);
        if (src != parent)
            fft_die("the master exited", 0);
        if (dir == 0)
            break;
        pass(dir == FFTW_FORWARD ? fwd : inv);
    }
    fftw_destroy_plan(fwd);
    fftw_destroy_plan(inv);
    fftw_free(a);
    fftw_free(t);
    fftw_free(tmp);
    fftw_cleanup();
    pvm_exit();
    return 0;
}
