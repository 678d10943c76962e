/*
 * fftw_mpi.c - FFTW's own MPI 2-D transform (fftw_mpi_plan_dft_2d), the
 * FFT comparison's fftw-mpi configuration (bench/fft/run.sh), timed like
 * examples/fft: rank 0 holds the whole N x N complex array, as fft's
 * master does; the clock runs from just before its rows go out
 * (MPI_Scatterv of FFTW's row slices) over the transform to the last
 * result row in (MPI_Gatherv), the result in natural order.  FFTW plans
 * with FFTW_ESTIMATE, as fft's slaves do, outside the clock.  The input and
 * the check are examples/fft/check.c's: the same random array for the same
 * seed, compared with FFTW's serial 2-D transform.
 *     mpirun -np S fft_fftw_mpi [-n N] [-r R] [-w W] [-x SEED] [-e TOL] [-T SECS]
 * S ranks play fft's S slaves; rank 0 is also the holder of the array
 * (fft has a master besides its slaves: S + 1 processes there).
 * Output: one line per timed pass, in fft's format (main.c) so that
 * bench/fft/seconds.awk reads both, plus transform=SECS (rank 0's
 * fftw_execute alone):
 *   fft n=N slaves=S gran=- lib=fftw-mpi transport=mpi slave=self
 *       pass=forward run=K seconds=SECS transform=SECS error=E PASS|FAIL
 * Exit status: 0 if every pass printed PASS, 1 on FAIL or an error, 2 on
 * bad options, 3 on -T timeout.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <mpi.h>
#include <fftw3-mpi.h>
#include "fft.h"

static void on_alarm(int sig)
{
    static const char msg[] = "fft_fftw_mpi: timed out (-T); giving up\n";
    (void)sig;
    if (write(2, msg, sizeof msg - 1) < 0) { /* nothing more to do */ }
    _exit(3);
}

static int usage(int rank, int rc)
{
    if (rank == 0)
        fprintf(stderr, "usage: mpirun -np S fft_fftw_mpi [-n N] [-r R] [-w W] [-x SEED] [-e TOL] [-T SECS]\n"
                        "  -n N  array size (default 1152), N >= S   -r R  timed passes (default 1)\n"
                        "  -w W  untimed passes before (default 0)    -x SEED  random input (default 1)\n"
                        "  -e TOL  largest relative error (1e-9)       -T SECS  give up after (0: never)\n");
    MPI_Finalize();
    return rc;
}

int main(int argc, char **argv)
{
    int rank, nranks, c, n = 1152, runs = 1, warm = 0, timeout = 0, status = 1;
    unsigned long seed = 1;
    double tol = 1e-9;
    MPI_Init(&argc, &argv);
    fftw_mpi_init();
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    while ((c = getopt(argc, argv, "n:r:w:x:e:T:h")) != -1) {
        switch (c) {
        case 'n': n = atoi(optarg); break;
        case 'r': runs = atoi(optarg); break;
        case 'w': warm = atoi(optarg); break;
        case 'x': seed = strtoul(optarg, NULL, 0); break;
        case 'e': tol = atof(optarg); break;
        case 'T': timeout = atoi(optarg); break;
        case 'h': return usage(rank, 0);
        default: return usage(rank, 2);
        }
    }
    if (optind < argc || n < 2 || n > 8192 || n < nranks || runs < 1 || warm < 0 || !(tol > 0))
        return usage(rank, 2);
    if (timeout > 0) {
        signal(SIGALRM, on_alarm);
        alarm((unsigned)timeout);
    }

    /* FFTW's distribution: rank r owns rows start..start+rows-1 */
    ptrdiff_t rows, start, alloc = fftw_mpi_local_size_2d(n, n, MPI_COMM_WORLD, &rows, &start);
    long cells = (long)n * n;
    fftw_complex *local = fftw_alloc_complex(alloc > 0 ? (size_t)alloc : 1);
    fftw_complex *in = NULL, *ref = NULL, *out = NULL;
    int *counts = NULL, *displs = NULL;
    fftw_plan plan = NULL;
    if (!local)
        goto out_free;
    plan = fftw_mpi_plan_dft_2d(n, n, local, local, MPI_COMM_WORLD, FFTW_FORWARD, FFTW_ESTIMATE);
    if (!plan)
        goto out_free;
    /* each rank's slice in doubles (re, im), for the scatter and gather */
    int mine[2] = { (int)(rows * n * 2), (int)(start * n * 2) };
    if (rank == 0) {
        counts = malloc(sizeof *counts * (size_t)nranks * 2);
        in = fftw_alloc_complex((size_t)cells);
        ref = fftw_alloc_complex((size_t)cells);
        out = fftw_alloc_complex((size_t)cells);
        if (!counts || !in || !ref || !out) {
            fprintf(stderr, "fft_fftw_mpi: out of memory for %d x %d complex arrays\n", n, n);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        displs = counts + nranks;
        fft_fill_random(in, n, seed);
        fft_serial(ref, in, n, FFTW_FORWARD);
    }
    int *pairs = rank == 0 ? malloc(sizeof *pairs * (size_t)nranks * 2) : NULL;
    if (rank == 0 && !pairs)
        MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(mine, 2, MPI_INT, pairs, 2, MPI_INT, 0, MPI_COMM_WORLD);
    if (rank == 0) {
        for (int r = 0; r < nranks; r++) {
            counts[r] = pairs[2 * r];
            displs[r] = pairs[2 * r + 1];
        }
        free(pairs);
    }

    int ok = 1;
    for (int p = 1 - warm; p <= runs; p++) {
        MPI_Barrier(MPI_COMM_WORLD);   /* every rank waiting, as fft's slaves wait for rows */
        double t0 = MPI_Wtime();
        MPI_Scatterv(in, counts, displs, MPI_DOUBLE, local, mine[0], MPI_DOUBLE, 0, MPI_COMM_WORLD);
        double t1 = MPI_Wtime();
        fftw_execute(plan);
        double t2 = MPI_Wtime();
        MPI_Gatherv(local, mine[0], MPI_DOUBLE, out, counts, displs, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        double secs = MPI_Wtime() - t0;
        if (rank == 0 && p >= 1) {
            double err = fft_rel_error(out, ref, 1, cells);
            ok &= err <= tol;
            printf("fft n=%d slaves=%d gran=- lib=fftw-mpi transport=mpi slave=self pass=forward run=%d "
                   "seconds=%.6f transform=%.6f error=%.3g %s\n",
                   n, nranks, p, secs, t2 - t1, err, err <= tol ? "PASS" : "FAIL");
            fflush(stdout);
        }
    }
    status = ok ? 0 : 1;
    MPI_Bcast(&status, 1, MPI_INT, 0, MPI_COMM_WORLD);
out_free:
    if (status && !plan)
        fprintf(stderr, "fft_fftw_mpi: rank %d: no memory or no plan for N = %d\n", rank, n);
    if (plan)
        fftw_destroy_plan(plan);
    fftw_free(out);
    fftw_free(ref);
    fftw_free(in);
    fftw_free(local);
    free(counts);
    fftw_mpi_cleanup();
    MPI_Finalize();
    return status;
}
