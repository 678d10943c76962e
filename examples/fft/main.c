/*
 * main.c - the parallel 2-D FFT example (the thesis's section 8 program):
 * options, help, and the choice between master and slave.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "fft.h"

static void usage(FILE *f)
{
    fprintf(f,
        "usage: fft [options]        (" FFT_LIB " build; run inside a PVM: start pvmd first)\n"
        "Two-dimensional FFT of an N x N complex array by a master and S slaves:\n"
        "the master hands out row slices, each slave transforms its rows (FFTW),\n"
        "the slaves transpose the array among themselves with direct messages,\n"
        "transform their new rows, and the master gathers the result.  The clock\n"
        "runs from just before the rows go out until the last slave's data is in.\n"
        "Every result is checked against FFTW's serial 2-D transform of the same\n"
        "input; then the slaves transform the result back (inverse) and that must\n"
        "give the input again (times N*N).\n"
        "  -n N       array size N (default 1152); N >= 2 and N >= S\n"
        "  -s S       slaves, 1..%d (default 4); N need not be a multiple of S\n"
        "  -g GRAN    message granularity: row  = one message per row segment (the\n"
        "             thesis's many small messages; default), pair = one message per\n"
        "             pair of tasks\n"
        "  -r R       timed forward passes (default 1)\n"
        "  -w W       untimed forward passes before them (default 0)\n"
        "  -d         PvmRouteDirect in the master and the slaves\n"
        "  -i FILE    read the array from FILE: N*N complex numbers as native doubles\n"
        "             (re, im), row by row (default: random numbers from -x)\n"
        "  -x SEED    seed of the random input (default 1)\n"
        "  -e TOL     largest relative error that passes (default 1e-9)\n"
        "  -S PROG    spawn PROG (absolute path) as the slaves instead of this program,\n"
        "             e.g. the other build of this source\n"
        "  -C PASS    deliberately damage the result of the forward (fwd) or the\n"
        "             round-trip (inv) pass before checking it: must print FAIL\n"
        "  -T SECS    give up with an error after SECS seconds (default 0: never)\n"
        "  -h         this help\n"
        "Output: one line per pass on stdout,\n"
        "  fft n=N slaves=S gran=row|pair lib=LIB transport=T slave=PROG pass=forward|roundtrip\n"
        "      run=K seconds=SECS error=E PASS|FAIL\n"
        "where LIB is stock or libpvm3am, T is pvmd or direct for stock (the route) and\n"
        "PVMAM_TRANSPORT (tcp, udp, off) for libpvm3am, and E is the relative 2-norm\n"
        "error against the serial transform (forward) or the input (roundtrip).\n"
        "Exit status: 0 if every pass printed PASS, 1 on FAIL or a PVM error,\n"
        "2 on bad options or input, 3 on -T timeout.\n",
        FFT_MAXSLAVES);
}

/* a whole number in lo..hi, or -1 */
static long number(const char *s, long lo, long hi)
{
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    return (errno || end == s || *end || v < lo || v > hi) ? -1 : v;
}

static int bad(const char *opt, const char *val, const char *want)
{
    fprintf(stderr, "fft: bad %s '%s': %s (fft -h explains the options)\n", opt, val, want);
    return 2;
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "-slave") == 0)
        return fft_slave_main();

    struct fft_opts o = { .n = 1152, .s = 4, .gran = GRAN_ROW, .runs = 1, .seed = 1, .tol = 1e-9 };
    int c;
    char *end;
    while ((c = getopt(argc, argv, "n:s:g:r:w:di:x:e:S:C:T:h")) != -1) {
        switch (c) {
        case 'n':
            if ((o.n = (int)number(optarg, 2, 8192)) < 0)
                return bad("-n", optarg, "a size from 2 to 8192");
            break;
        case 's':
            if ((o.s = (int)number(optarg, 1, FFT_MAXSLAVES)) < 0)
                return bad("-s", optarg, "a number of slaves from 1 to 64");
            break;
        case 'g':
            if (strcmp(optarg, "row") == 0)
                o.gran = GRAN_ROW;
            else if (strcmp(optarg, "pair") == 0)
                o.gran = GRAN_PAIR;
            else
                return bad("-g", optarg, "row or pair");
            break;
        case 'r':
            if ((o.runs = (int)number(optarg, 1, 10000)) < 0)
                return bad("-r", optarg, "a count from 1 to 10000");
            break;
        case 'w':
            if ((o.warm = (int)number(optarg, 0, 10000)) < 0)
                return bad("-w", optarg, "a count from 0 to 10000");
            break;
        case 'd': o.direct = 1; break;
        case 'i': o.input = optarg; break;
        case 'x':
            errno = 0;
            o.seed = strtoul(optarg, &end, 0);
            if (errno || end == optarg || *end)
                return bad("-x", optarg, "a whole number");
            break;
        case 'e':
            errno = 0;
            o.tol = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o.tol > 0 && o.tol < 1))
                return bad("-e", optarg, "a tolerance between 0 and 1");
            break;
        case 'S':
            if (optarg[0] != '/' || access(optarg, X_OK) != 0)
                return bad("-S", optarg, "an executable program, by absolute path");
            o.slave_prog = optarg;
            break;
        case 'C':
            if (strcmp(optarg, "fwd") == 0)
                o.corrupt = FFTW_FORWARD;
            else if (strcmp(optarg, "inv") == 0)
                o.corrupt = FFTW_BACKWARD;
            else
                return bad("-C", optarg, "fwd or inv");
            break;
        case 'T':
            if ((o.timeout = (int)number(optarg, 0, 86400)) < 0)
                return bad("-T", optarg, "seconds from 0 to 86400");
            break;
        case 'h': usage(stdout); return 0;
        default: usage(stderr); return 2;
        }
    }
    if (optind < argc) {
        fprintf(stderr, "fft: unexpected argument '%s' (fft -h explains the options)\n", argv[optind]);
        return 2;
    }
    if (o.s > o.n) {
        fprintf(stderr, "fft: %d slaves for %d rows: every slave needs a row (-s <= -n)\n", o.s, o.n);
        return 2;
    }
    return fft_master_main(&o);
}
