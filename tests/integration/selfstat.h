/*
 * selfstat.h - what a test task reads about itself from /proc: its open
 * descriptors and its resident memory (churn.c, scale.c,
 * tests/torture/runner.c).
 */
#ifndef SELFSTAT_H
#define SELFSTAT_H

#include <dirent.h>
#include <stdio.h>

/* Open descriptors, the one reading them not counted. */
static inline int selfstat_fds(void)
{
    DIR *d = opendir("/proc/self/fd");
    int n = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        n += e->d_name[0] != '.';
    if (d)
        closedir(d);
    return n - 1;   /* the directory itself */
}

/* Resident memory in kB (VmRSS), or -1. */
static inline long selfstat_rss_kb(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[128];
    long kb = -1;
    while (f && fgets(line, sizeof line, f))
        if (sscanf(line, "VmRSS: %ld", &kb) == 1)
            break;
    if (f)
        fclose(f);
    return kb;
}

#endif
