/*
 * common.c - size list, clocks, pinning, statistics and output files
 * shared by mpbench and rawbench.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include "common.h"

const struct mpb_test mpb_tests[MPB_NTESTS] = {
    [MPB_LAT] = { "latency", "us, half round trip", 0 },
    [MPB_RT] = { "roundtrip", "round trips/s", 0 },
    [MPB_BW] = { "bandwidth", "MB/s, 1 MB = 1e6 bytes", 0 },
    [MPB_BIBW] = { "bibandwidth", "MB/s, both directions added", 0 },
    [MPB_BCAST] = { "broadcast", "us per broadcast", 1 },
    [MPB_RED] = { "reduce", "us per reduce (sum of doubles)", 1 },
    [MPB_ALLRED] = { "allreduce", "us per allreduce (sum of doubles)", 1 },
};

const char mpb_common_usage[] =
    "  -m BYTES   largest size (powers of two from 8; default 1048576)\n"
    "  -z         also measure 0 bytes\n"
    "  -n N       N extra sizes between two powers of two (default 0)\n"
    "  -s LIST    explicit sizes, comma-separated (overrides -m/-z/-n)\n"
    "  -i N       timed iterations per point, at most (default 1000)\n"
    "  -w N       warm-up iterations before timing (default 10)\n"
    "  -r N       timed runs per point; the median is reported (default 3)\n"
    "  -t SECS    time cap per timed run; lowers -i for slow points (default 0.1)\n"
    "  -o DIR     write one two-column .dat file (size value) per test there\n"
    "  -q         no progress on stderr\n"
    "  -P         do not pin processes to cores\n";

void mpb_opts_default(struct mpb_opts *o)
{
    memset(o, 0, sizeof *o);
    o->max = 1 << 20;
    o->iters = 1000;
    o->warm = 10;
    o->repeats = 3;
    o->tcap = 0.1;
}

int mpb_opt(struct mpb_opts *o, int c, const char *arg)
{
    switch (c) {
    case 'm': o->max = atol(arg); return o->max >= 0 ? 1 : -1;
    case 'z': o->zero = 1; return 1;
    case 'n': o->points = atoi(arg); return o->points >= 0 && o->points < 16 ? 1 : -1;
    case 's': o->list = arg; return 1;
    case 'i': o->iters = atoi(arg); return o->iters > 0 ? 1 : -1;
    case 'w': o->warm = atoi(arg); return o->warm >= 0 ? 1 : -1;
    case 'r': o->repeats = atoi(arg); return o->repeats > 0 && o->repeats <= MPB_MAXREP ? 1 : -1;
    case 't': o->tcap = atof(arg); return o->tcap > 0 ? 1 : -1;
    case 'o': o->out = arg; return 1;
    case 'q': o->quiet = 1; return 1;
    case 'P': o->nopin = 1; return 1;
    }
    return 0;
}

static int add_size(struct mpb_opts *o, long n)
{
    if (n < 0 || n > (1L << 30) || o->nsizes >= MPB_MAXSIZES)
        return -1;
    if (o->nsizes == 0 || o->sizes[o->nsizes - 1] != n)
        o->sizes[o->nsizes++] = n;
    return 0;
}

int mpb_make_sizes(struct mpb_opts *o)
{
    o->nsizes = 0;
    if (o->list) {
        char *copy = strdup(o->list), *save = NULL;
        int rc = copy ? 0 : -1;
        for (char *t = copy ? strtok_r(copy, ",", &save) : NULL; t && !rc; t = strtok_r(NULL, ",", &save)) {
            char *end;
            long n = strtol(t, &end, 0);
            rc = *end ? -1 : add_size(o, n);
        }
        free(copy);
        return rc || o->nsizes == 0 ? -1 : 0;
    }
    if (o->zero && add_size(o, 0) < 0)
        return -1;
    for (long p = 8; p <= o->max; p *= 2) {
        if (add_size(o, p) < 0)
            return -1;
        /* geometric steps, rounded to 8 bytes so doubles fit exactly */
        for (int j = 1; j <= o->points && 2 * p <= o->max; j++) {
            long n = lround(p * pow(2.0, (double)j / (o->points + 1)) / 8) * 8;
            if (n > p && n < 2 * p && add_size(o, n) < 0)
                return -1;
        }
    }
    return o->nsizes ? 0 : -1;
}

double mpb_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

void mpb_pin(int cpu)
{
    cpu_set_t s;
    CPU_ZERO(&s);
    CPU_SET(cpu % mpb_ncpus(), &s);
    sched_setaffinity(0, sizeof s, &s);
}

int mpb_ncpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

struct mpb_stat mpb_stats(double *v, int n)
{
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    struct mpb_stat s = { n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2, v[0], v[n - 1] };
    return s;
}

int mpb_series_open(struct mpb_series *s, const struct mpb_opts *o, const char *name,
                    const char *unit)
{
    s->name = name;
    s->unit = unit;
    s->dat = s->runs = NULL;
    if (o->out) {
        char path[4096];
        if (mkdir(o->out, 0777) < 0 && errno != EEXIST)
            return -1;
        snprintf(path, sizeof path, "%s/%s.dat", o->out, name);
        if (!(s->dat = fopen(path, "w")))
            return -1;
        snprintf(path, sizeof path, "%s/%s.runs", o->out, name);
        if (!(s->runs = fopen(path, "w"))) {
            fclose(s->dat);
            return -1;
        }
    }
    printf("\n# %s (%s): median of the timed runs, spread min..max\n", name, unit);
    printf("%10s %14s %14s %14s %8s\n", "bytes", "median", "min", "max", "iters");
    return 0;
}

void mpb_series_point(struct mpb_series *s, long size, double *v, int n, int iters)
{
    struct mpb_stat st = mpb_stats(v, n);
    printf("%10ld %14.4g %14.4g %14.4g %8d\n", size, st.med, st.min, st.max, iters);
    fflush(stdout);
    if (s->dat) {
        fprintf(s->dat, "%ld %.6g\n", size, st.med);
        fflush(s->dat);
        fprintf(s->runs, "%ld", size);
        for (int i = 0; i < n; i++)
            fprintf(s->runs, " %.6g", v[i]);
        fprintf(s->runs, "\n");
        fflush(s->runs);
    }
}

void mpb_series_close(struct mpb_series *s)
{
    if (s->dat)
        fclose(s->dat);
    if (s->runs)
        fclose(s->runs);
    s->dat = s->runs = NULL;
}

/* On a terminal a live line rewritten with '\r' at every size; anywhere
 * else (a CI log, `| tee`) the '\r's would pile up into one line of many
 * kilobytes, so each series gets one short line of its own instead. */
static int progress_live(void)
{
    static int live = -1;
    if (live < 0)
        live = isatty(2);
    return live;
}

void mpb_progress(const struct mpb_opts *o, const char *name, long size)
{
    static char last[64];
    static double t0;
    if (o->quiet)
        return;
    if (progress_live()) {
        fprintf(stderr, "\r%-24s %10ld bytes  ", name, size);
        return;
    }
    if (!t0)
        t0 = mpb_now();
    if (!strncmp(last, name, sizeof last - 1))
        return;
    snprintf(last, sizeof last, "%s", name);
    fprintf(stderr, "  %s: %d size%s from %ld bytes (%.0f s)\n", name, o->nsizes,
            o->nsizes == 1 ? "" : "s", size, mpb_now() - t0);
}

void mpb_progress_done(const struct mpb_opts *o)
{
    if (!o->quiet && progress_live())
        fprintf(stderr, "\r%50s\r", "");
}

int mpb_iters_for(const struct mpb_opts *o, double warm_secs, int warm_iters)
{
    if (warm_iters <= 0 || warm_secs <= 0)
        return o->iters;
    double per = warm_secs / warm_iters;
    double k = o->tcap / per;
    if (k >= o->iters)
        return o->iters;
    return k < 2 ? 2 : (int)k;
}

int mpb_pick(const char *list, const char *const *names, int count, const int *can, int *on)
{
    char *copy = strdup(list), *save = NULL;
    int rc = 0;
    if (!copy)
        return -1;
    memset(on, 0, sizeof *on * (size_t)count);
    for (char *t = strtok_r(copy, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
        int all = !strcmp(t, "all"), known = all;
        for (int k = 0; k < count; k++)
            if (all || !strcmp(t, names[k])) {
                on[k] = can ? can[k] : 1;
                known = 1;
            }
        if (!known)
            rc = -1;
    }
    free(copy);
    return rc;
}

double mpb_value(int test, long n, int iters, double dt)
{
    switch (test) {
    case MPB_LAT: return dt / iters / 2 * 1e6;
    case MPB_RT: return iters / dt;
    case MPB_BW: return (double)n * iters / dt / 1e6;
    case MPB_BIBW: return 2.0 * n * iters / dt / 1e6;
    default: return dt / iters * 1e6;
    }
}

int mpb_series_run(const struct mpb_opts *o, int test, int var, const char *name,
                   mpb_point_fn point)
{
    struct mpb_series s;
    if (mpb_series_open(&s, o, name, mpb_tests[test].unit) < 0)
        return -1;
    for (int i = 0; i < o->nsizes; i++) {
        long n = o->sizes[i];
        mpb_progress(o, name, n);
        double warm = o->warm ? point(test, var, n, o->warm) : 0;
        int iters = mpb_iters_for(o, warm, o->warm);
        double val[MPB_MAXREP];
        for (int r = 0; r < o->repeats; r++)
            val[r] = mpb_value(test, n, iters, point(test, var, n, iters));
        mpb_series_point(&s, n, val, o->repeats, iters);
    }
    mpb_series_close(&s);
    return 0;
}

int mpb_args(int argc, char **argv, struct mpb_opts *o, const char **tlist, const char **vlist,
             int *window)
{
    int c;
    while ((c = getopt(argc, argv, "T:V:W:m:zn:s:i:w:r:t:o:qPh")) != -1) {
        int r = mpb_opt(o, c, optarg);
        if (r > 0)
            continue;
        if (r == 0 && c == 'T')
            *tlist = optarg;
        else if (r == 0 && c == 'V')
            *vlist = optarg;
        else if (r == 0 && c == 'W')
            *window = atoi(optarg);
        else
            return c;
    }
    return optind < argc ? '?' : 0;
}

int mpb_pick_tests(const char *list, const int *can, int *on)
{
    const char *names[MPB_NTESTS];
    for (int k = 0; k < MPB_NTESTS; k++)
        names[k] = mpb_tests[k].name;
    return mpb_pick(list, names, MPB_NTESTS, can, on);
}

void mpb_sum_doubles(char *dst, const char *src, long n)
{
    double a, b;
    for (long k = 0; k + 8 <= n; k += 8) {   /* memcpy: the buffers need no alignment */
        memcpy(&a, dst + k, 8);
        memcpy(&b, src + k, 8);
        a += b;
        memcpy(dst + k, &a, 8);
    }
}

long mpb_max_size(const struct mpb_opts *o)
{
    long max = 8;
    for (int i = 0; i < o->nsizes; i++)
        max = o->sizes[i] > max ? o->sizes[i] : max;
    return max;
}

int mpb_buffers(long max, char **buf, char **acc)
{
    if (max > INT_MAX / 2 || !(*buf = calloc(1, (size_t)max + 8)) ||
        !(*acc = calloc(1, (size_t)max + 8)))
        return -1;
    memset(*buf, 7, (size_t)max);
    return 0;
}

void mpb_series_name(char *name, size_t size, int test, int ntasks, const char *variant)
{
    if (mpb_tests[test].collective && ntasks != 4)   /* not the default crowd */
        snprintf(name, size, "%s-p%d_%s", mpb_tests[test].name, ntasks, variant);
    else
        snprintf(name, size, "%s_%s", mpb_tests[test].name, variant);
}
