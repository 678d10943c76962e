/*
 * master.c - the master of the parallel 2-D FFT: make the input and its
 * serial transform, spawn the slaves, then per pass start the clock, hand
 * out row slices, gather the transformed columns and stop the clock when
 * the last slave's data is in; check every result and print one line per
 * pass (the format is in main.c's usage text).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include "fft.h"

static const struct fft_opts *opt;
static int tids[FFT_MAXSLAVES], nslaves;
static fftw_complex *tmp;     /* one received block */
static char label[256];       /* the fields every output line starts with */

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void kill_slaves(void)
{
    for (int k = 0; k < nslaves; k++)
        pvm_kill(tids[k]);
    nslaves = 0;
}

/* A lost message would leave every task waiting for ever: give up. */
static void on_alarm(int sig)
{
    static const char msg[] = "fft: timed out (-T): a message never arrived; giving up\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(3);
}

static void spawn_slaves(void)
{
    char self[PATH_MAX];
    const char *prog = opt->slave_prog;
    if (!prog) {
        /* the pvmd spawns by absolute path: our own binary */
        ssize_t l = readlink("/proc/self/exe", self, sizeof self - 1);
        if (l <= 0)
            fft_die("readlink /proc/self/exe failed", 0);
        self[l] = 0;
        prog = self;
    }
    int started = pvm_spawn((char *)prog, (char *[]){ "-slave", NULL }, PvmTaskDefault, "", opt->s, tids);
    if (started < 0)
        fft_die("pvm_spawn", started);
    for (int k = 0; k < opt->s; k++)
        if (k < started)
            tids[nslaves++] = tids[k];
        else
            fprintf(stderr, "fft: slave %d not started: PVM error %d\n", k, tids[k]);
    if (started < opt->s)
        fft_die("could not start every slave", 0);
}

static void setup_slaves(void)
{
    int rc;
    /* a slave that dies interrupts the receive waiting for it */
    if ((rc = pvm_notify(PvmTaskExit, TAG_READY, nslaves, tids)) < 0 ||
        (rc = pvm_notify(PvmTaskExit, TAG_RES, nslaves, tids)) < 0)
        fft_die("pvm_notify", rc);
    for (int k = 0; k < nslaves; k++) {
        int hdr[4] = { opt->n, opt->s, opt->gran, k };
        if ((rc = pvm_initsend(PvmDataDefault)) < 0 || (rc = pvm_pkint(hdr, 4, 1)) < 0 ||
            (rc = pvm_pkint(tids, nslaves, 1)) < 0 || (rc = pvm_send(tids[k], TAG_SETUP)) < 0)
            fft_die("sending the job", rc);
    }
    for (int k = 0; k < nslaves; k++) {
        int len, tag, src;
        if ((rc = pvm_recv(-1, TAG_READY)) < 0 || (rc = pvm_bufinfo(rc, &len, &tag, &src)) < 0)
            fft_die("waiting for the slaves", rc);
        if (fft_rank_of(src, tids, nslaves) < 0)
            fft_die("a slave exited during setup", 0);
    }
}

static void distribute(int dir, const fftw_complex *src)
{
    long n = opt->n;
    int rc;
    if ((rc = pvm_initsend(PvmDataDefault)) < 0 || (rc = pvm_pkint(&dir, 1, 1)) < 0 ||
        (rc = pvm_mcast(tids, nslaves, TAG_CMD)) < 0)
        fft_die("sending the command", rc);
    if (opt->gran == GRAN_PAIR) {
        for (int k = 0; k < nslaves; k++) {
            int lo, hi;
            fft_slice(opt->n, opt->s, k, &lo, &hi);
            fft_send(tids[k], TAG_ROW, src + lo * n, (hi - lo) * n);
        }
        return;
    }
    /* row by row, taking turns, so that every slave can start early */
    for (int i = 0; i < opt->n / opt->s + 1; i++)
        for (int k = 0; k < nslaves; k++) {
            int lo, hi;
            fft_slice(opt->n, opt->s, k, &lo, &hi);
            if (lo + i < hi)
                fft_send(tids[k], TAG_ROW, src + (lo + i) * n, n);
        }
}

/* Slave k's transformed columns lo..hi-1 arrive as rows: put them back. */
static void gather(fftw_complex *dst)
{
    long n = opt->n, k;
    int got[FFT_MAXSLAVES] = { 0 };
    int expect = opt->gran == GRAN_ROW ? opt->n : nslaves;
    for (int m = 0; m < expect; m++) {
        int src = fft_recv(TAG_RES, tmp, (n / opt->s + 1) * n, &k, tids, nslaves);
        int i = fft_rank_of(src, tids, nslaves), lo, hi;
        fft_slice(opt->n, opt->s, i, &lo, &hi);
        /* a slave's columns come in order */
        int c0 = opt->gran == GRAN_ROW ? lo + got[i] : lo, nc = opt->gran == GRAN_ROW ? 1 : hi - lo;
        int most = opt->gran == GRAN_ROW ? hi - lo : 1;
        if (k != nc * n || got[i] >= most) {
            char what[160];
            snprintf(what, sizeof what, "result from t%x (slave %d): %ld numbers, want %ld; message %d of %d",
                     src, i, k, nc * n, got[i] + 1, most);
            fft_die(what, 0);
        }
        got[i]++;
        for (int c = 0; c < nc; c++)
            for (long r = 0; r < n; r++)
                memcpy(dst[r * n + c0 + c], tmp[c * n + r], sizeof(fftw_complex));
    }
}

/* One parallel pass; returns its time in seconds. */
static double pass(int dir, const fftw_complex *src, fftw_complex *dst)
{
    double t0 = now();
    distribute(dir, src);
    gather(dst);
    return now() - t0;
}

/* The deliberate damage of -C: two neighbours swap places, as an
 * off-by-one in the transpose would do.  Doing it again undoes it. */
static void corrupt(fftw_complex *a)
{
    long i = (long)opt->n * opt->n / 3;
    fftw_complex x;
    memcpy(x, a[i], sizeof x);
    memcpy(a[i], a[i + 1], sizeof x);
    memcpy(a[i + 1], x, sizeof x);
}

static int report(const char *what, int run, double secs, double err)
{
    int ok = err <= opt->tol;
    printf("%s pass=%s run=%d seconds=%.6f error=%.3g %s\n", label, what, run, secs, err,
           ok ? "PASS" : "FAIL");
    fflush(stdout);
    return ok;
}

static void make_label(void)
{
    const char *transport;
    if (strcmp(FFT_LIB, "stock") == 0)
        transport = opt->direct ? "direct" : "pvmd";
    else
        transport = getenv("PVMAM_TRANSPORT") && *getenv("PVMAM_TRANSPORT") ? getenv("PVMAM_TRANSPORT") : "shm,tcp";
    const char *sp = opt->slave_prog ? strrchr(opt->slave_prog, '/') : NULL;
    snprintf(label, sizeof label, "fft n=%d slaves=%d gran=%s lib=%s transport=%s slave=%s", opt->n,
             opt->s, opt->gran == GRAN_ROW ? "row" : "pair", FFT_LIB, transport,
             opt->slave_prog ? (sp ? sp + 1 : opt->slave_prog) : "self");
}

/* Spawns the slaves and runs every pass; returns 1 if all passed. */
static int run_job(const fftw_complex *in, const fftw_complex *ref, fftw_complex *out, fftw_complex *back)
{
    const struct fft_opts *o = opt;
    long cells = (long)o->n * o->n;
    int ok = 1, rc;
    if (o->direct)
        pvm_setopt(PvmRoute, PvmRouteDirect);
    pvm_catchout(stderr);   /* the slaves' error messages show up here */
    fft_on_die(kill_slaves);
    spawn_slaves();
    setup_slaves();

    for (int w = 0; w < o->warm; w++)
        pass(FFTW_FORWARD, in, out);
    for (int r = 1; r <= o->runs; r++) {
        double secs = pass(FFTW_FORWARD, in, out);
        if (o->corrupt == FFTW_FORWARD)
            corrupt(out);
        ok &= report("forward", r, secs, fft_rel_error(out, ref, 1, cells));
        if (o->corrupt == FFTW_FORWARD)
            corrupt(out);   /* the round trip starts from the undamaged result */
    }
    /* the round trip starts from the parallel forward result */
    double secs = pass(FFTW_BACKWARD, out, back);
    if (o->corrupt == FFTW_BACKWARD)
        corrupt(back);
    ok &= report("roundtrip", 1, secs, fft_rel_error(back, in, (double)cells, cells));

    int stop = 0;
    if ((rc = pvm_initsend(PvmDataDefault)) < 0 || (rc = pvm_pkint(&stop, 1, 1)) < 0 ||
        (rc = pvm_mcast(tids, nslaves, TAG_CMD)) < 0)
        fft_die("stopping the slaves", rc);
    return ok;
}

int fft_master_main(const struct fft_opts *o)
{
    opt = o;
    long n = o->n, cells = n * n;
    int status = 1;
    fftw_complex *in = NULL, *ref = NULL, *out = NULL, *back = NULL;
    if (!(in = fftw_malloc(sizeof(fftw_complex) * cells)) ||
        !(ref = fftw_malloc(sizeof(fftw_complex) * cells)) ||
        !(out = fftw_malloc(sizeof(fftw_complex) * cells)) ||
        !(back = fftw_malloc(sizeof(fftw_complex) * cells)) ||
        !(tmp = fftw_malloc(sizeof(fftw_complex) * (n / o->s + 1) * n))) {
        fprintf(stderr, "fft: out of memory for %ld x %ld complex arrays\n", n, n);
        goto out_free;
    }
    if (o->input && fft_read_input(o->input, in, o->n) < 0) {
        status = 2;
        goto out_free;
    }
    if (!o->input)
        fft_fill_random(in, o->n, o->seed);
    fft_serial(ref, in, o->n, FFTW_FORWARD);
    make_label();

    if (o->timeout > 0) {
        signal(SIGALRM, on_alarm);
        alarm((unsigned)o->timeout);
    }
    int mytid = pvm_mytid();
    if (mytid < 0) {
        fprintf(stderr, "fft: cannot reach a pvmd (PVM error %d): start PVM first\n", mytid);
        goto out_free;
    }
    status = run_job(in, ref, out, back) ? 0 : 1;
    alarm(0);
    pvm_exit();
out_free:
    fftw_free(tmp);
    fftw_free(back);
    fftw_free(out);
    fftw_free(ref);
    fftw_free(in);
    fftw_cleanup();
    return status;
}
