/*
 * common.h - what mpbench and rawbench share: the size list, clocks,
 * pinning, statistics over repeats and the output files (.dat + table).
 */
#ifndef MPB_COMMON_H
#define MPB_COMMON_H

#include <stdio.h>

#define MPB_MAXSIZES 512
#define MPB_MAXREP 64

/* Options both programs understand (MPBench's, mostly). */
struct mpb_opts {
    long max;           /* -m: largest size in bytes */
    int zero;           /* -z: also measure 0 bytes */
    int points;         /* -n: extra sizes between two powers of two */
    const char *list;   /* -s: explicit comma-separated sizes */
    int iters;          /* -i: timed iterations per point (at most) */
    int warm;           /* -w: warm-up iterations before timing */
    int repeats;        /* -r: timed runs per point; median reported */
    double tcap;        /* -t: seconds per timed run, caps -i */
    const char *out;    /* -o: directory for .dat files */
    int quiet;          /* -q: no progress on stderr */
    int nopin;          /* -P: do not pin to cores */
    long sizes[MPB_MAXSIZES];
    int nsizes;
};

void mpb_opts_default(struct mpb_opts *o);
/* Handles one of the common options; returns 1 if it was one, 0 if not,
 * -1 on a bad value.  arg is the option's value. */
int mpb_opt(struct mpb_opts *o, int c, const char *arg);
/* Builds o->sizes from -m/-z/-n/-s; returns -1 if the list is bad. */
int mpb_make_sizes(struct mpb_opts *o);
extern const char mpb_common_usage[];

/* The tests mpbench measures, in the order it runs them; mpi.c measures
 * those MPI has a counterpart of and skips the others by name. */
enum { MPB_LAT, MPB_RT, MPB_BW, MPB_BIBW, MPB_BCAST, MPB_RED, MPB_ALLRED, MPB_NTESTS };
struct mpb_test {
    const char *name, *unit;
    int collective;     /* among all tasks, not between two */
};
extern const struct mpb_test mpb_tests[MPB_NTESTS];

/* The largest size of o->sizes, at least 8. */
long mpb_max_size(const struct mpb_opts *o);
/* mpbench's and mpbench_mpi's two buffers of max (+ 8) bytes: the message
 * data (set to 7s) and reduce's sums; -1 if too large or out of memory. */
int mpb_buffers(long max, char **buf, char **acc);

/* A series' name: TEST_VARIANT, TEST-pN_VARIANT for a collective test
 * among N tasks other than the default 4. */
void mpb_series_name(char *name, size_t size, int test, int ntasks, const char *variant);

double mpb_now(void);
void mpb_pin(int cpu);
/* A -T or -V list ("a,b" or "all") over count names: on[k] = can[k] (1
 * when can is NULL) for each name listed, 0 for the others; -1 if the list
 * names something unknown or memory ran out.  A program that measures only
 * some of mpbench's tests passes can[] and skips the rest quietly. */
int mpb_pick(const char *list, const char *const *names, int count, const int *can, int *on);
/* The command line of mpbench_mpi and mpbench_ucx: -T list, -V list, -W
 * window and mpb_opt's options.  0 when all are read, else the option
 * that is none of them ('h' for -h, '?' for a stray argument). */
int mpb_args(int argc, char **argv, struct mpb_opts *o, const char **tlist, const char **vlist,
             int *window);
/* mpb_pick over the names of mpb_tests[] (a -T list). */
int mpb_pick_tests(const char *list, const int *can, int *on);
/* reduce's work: dst[k] += src[k] over the n / 8 doubles of two buffers */
void mpb_sum_doubles(char *dst, const char *src, long n);
int mpb_ncpus(void);

/* Median, min and max of n values (sorts them). */
struct mpb_stat { double med, min, max; };
struct mpb_stat mpb_stats(double *v, int n);

/* One measured series: a .dat file "size median", a .runs file "size
 * run1 run2 ..." (every timed run, for the driver's statistics) and rows
 * of the readable table on stdout. */
struct mpb_series {
    FILE *dat, *runs;
    const char *name, *unit;
};
int mpb_series_open(struct mpb_series *s, const struct mpb_opts *o, const char *name,
                    const char *unit);
/* Reports the n timed runs v[] of one size (sorts them). */
void mpb_series_point(struct mpb_series *s, long size, double *v, int n, int iters);
void mpb_series_close(struct mpb_series *s);
/* A test's figure from iters operations of n bytes in dt seconds. */
double mpb_value(int test, long n, int iters, double dt);
/* Times one operation kind: iters of test (variant var) with n bytes,
 * returns seconds (each program's own run_point). */
typedef double (*mpb_point_fn)(int test, int var, long n, int iters);
/* One series: name's .dat file over every size of o, each a warm-up then
 * o->repeats timed runs of point.  0, or -1 if the file cannot be written. */
int mpb_series_run(const struct mpb_opts *o, int test, int var, const char *name,
                   mpb_point_fn point);
/* Progress on stderr: a live line on a terminal, else one line per series. */
void mpb_progress(const struct mpb_opts *o, const char *name, long size);
/* Clears the live line (terminal only). */
void mpb_progress_done(const struct mpb_opts *o);

/* Iterations for a timed run, from the duration of the warm-up. */
int mpb_iters_for(const struct mpb_opts *o, double warm_secs, int warm_iters);

#endif
