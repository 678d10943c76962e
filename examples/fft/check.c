/*
 * check.c - the fft example's input and its oracle: a reproducible random
 * array (or one read from a file), FFTW's serial 2-D transform of it, and
 * the relative error of a parallel result against either.
 */
#include <math.h>
#include <stdio.h>
#include "fft.h"

/* splitmix64: the same input for the same seed on every machine */
static unsigned long long next_u64(unsigned long long *state)
{
    unsigned long long z = (*state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

/* uniform in [-1, 1) */
static double next_unit(unsigned long long *state)
{
    return (double)(next_u64(state) >> 11) * 0x1p-52 - 1.0;
}

void fft_fill_random(fftw_complex *a, int n, unsigned long seed)
{
    unsigned long long st = seed;
    for (long i = 0; i < (long)n * n; i++) {
        a[i][0] = next_unit(&st);
        a[i][1] = next_unit(&st);
    }
}

/* The file holds n*n complex numbers as native doubles (re, im), row by
 * row: exactly n*n*16 bytes.  Returns 0, or -1 after saying why not. */
int fft_read_input(const char *path, fftw_complex *a, int n)
{
    FILE *f = fopen(path, "rb");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t want = (size_t)n * n, got = fread(a, sizeof *a, want, f);
    int extra = fgetc(f) != EOF;
    fclose(f);
    if (got != want || extra) {
        fprintf(stderr, "fft: %s: expected exactly %zu bytes (%d x %d complex doubles)\n", path,
                want * sizeof *a, n, n);
        return -1;
    }
    for (size_t i = 0; i < want; i++)
        if (!isfinite(a[i][0]) || !isfinite(a[i][1])) {
            fprintf(stderr, "fft: %s: element %zu is not a finite number\n", path, i);
            return -1;
        }
    return 0;
}

void fft_serial(fftw_complex *out, const fftw_complex *in, int n, int dir)
{
    fftw_plan p = fftw_plan_dft_2d(n, n, (fftw_complex *)in, out, dir, FFTW_ESTIMATE);
    fftw_execute(p);
    fftw_destroy_plan(p);
}

double fft_rel_error(const fftw_complex *a, const fftw_complex *b, double scale, long count)
{
    double num = 0, den = 0;
    for (long i = 0; i < count; i++) {
        double dr = a[i][0] - scale * b[i][0], di = a[i][1] - scale * b[i][1];
        num += dr * dr + di * di;
        den += scale * scale * (b[i][0] * b[i][0] + b[i][1] * b[i][1]);
    }
    if (!(num == num))          /* NaN in the result */
        return INFINITY;
    return den > 0 ? sqrt(num / den) : sqrt(num);
}
