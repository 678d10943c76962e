/*
 * config.c - PVMAM_* settings from the environment.  A bad value is one
 * clear line on stderr naming the valid values; the task then runs without
 * AM (daemon route only) rather than guessing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pvmam_int.h"

/* A setting, or NULL when unset or empty: `PVMAM_X= prog` asks for the
 * default, as a shell user would expect, rather than for an error. */
static const char *setting(const char *name)
{
    const char *v = getenv(name);
    return v && *v ? v : NULL;
}

static int parse_uint(const char *name, unsigned lo, unsigned hi, unsigned *out)
{
    const char *v = setting(name);
    if (!v)
        return 0;
    char *end;
    unsigned long x = strtoul(v, &end, 10);
    if (!*v || *end || x < lo || x > hi || v[0] == '-') {
        fprintf(stderr, "libpvm3am: %s=\"%s\" is not valid (a number from %u to %u); "
                "running without AM\n", name, v, lo, hi);
        return -1;
    }
    *out = (unsigned)x;
    return 0;
}

/* A transport libam has (am_transports()), or "off". */
static int known_transport(const char *t)
{
    for (const char *const *n = am_transports(); *n; n++)
        if (!strcmp(t, *n))
            return 1;
    return !strcmp(t, "off");
}

/* "tcp, udp, shm, two of them ... such as shm,tcp, or off": the valid
 * values, for the error line. */
static void transport_choices(char *buf, size_t size)
{
    size_t l = 0;
    for (const char *const *n = am_transports(); *n; n++) {
        int k = snprintf(buf + l, size - l, "%s%s", l ? ", " : "", *n);
        if (k < 0 || (size_t)k >= size - l)
            break;
        l += (size_t)k;
    }
    snprintf(buf + l, size - l, ", two of them in order of preference such as %s, or off",
             PVMX_DEFAULT_TRANSPORT);
}

/* "shm,tcp": 1..PVMX_NIFC different transports separated by single
 * commas, or "off" alone.  0 (cfg->tr, cfg->ntr set) or -1. */
static int parse_transport(const char *v, struct pvmx_config *cfg)
{
    cfg->ntr = 0;
    if (!strcmp(v, "off")) {
        strcpy(cfg->transport, v);
        return 0;
    }
    if (strlen(v) >= sizeof cfg->transport)
        return -1;
    const char *a = v;
    for (;;) {
        size_t len = strcspn(a, ",");
        if (cfg->ntr == PVMX_NIFC || len == 0 || len >= sizeof cfg->tr[0])
            return -1;
        char *t = cfg->tr[cfg->ntr];
        memcpy(t, a, len);
        t[len] = '\0';
        if (!known_transport(t) || !strcmp(t, "off"))
            return -1;
        for (int i = 0; i < cfg->ntr; i++)
            if (!strcmp(cfg->tr[i], t))
                return -1;
        cfg->ntr++;
        if (!a[len])
            break;
        a += len + 1;
    }
    strcpy(cfg->transport, v);
    return 0;
}

int pvmx_read_config(struct pvmx_config *cfg)
{
    parse_transport(PVMX_DEFAULT_TRANSPORT, cfg);
    cfg->depth = 8;
    cfg->timeout_ms = 30000;
    cfg->verbose = 0;
    int bad = 0;
    const char *t = setting("PVMAM_TRANSPORT");
    if (t) {
        if (parse_transport(t, cfg) < 0) {
            char choices[128];
            transport_choices(choices, sizeof choices);
            fprintf(stderr, "libpvm3am: PVMAM_TRANSPORT=\"%s\" is not valid (%s); "
                    "running without AM\n", t, choices);
            bad = 1;
            parse_transport("off", cfg);
        }
    }
    const char *w = setting("PVMAM_WAIT");
    if (w && pvmi_wait_set(w) < 0) {
        /* waiting is pvm3's: the daemon route waits the same way */
        fprintf(stderr, "libpvm3am: PVMAM_WAIT=\"%s\" is not valid (%s); "
                "running without AM\n", w, pvmi_wait_choices());
        bad = 1;
    }
    unsigned verbose = 0;
    if (parse_uint("PVMAM_DEPTH", 1, 64, &cfg->depth) < 0 ||
        parse_uint("PVMAM_TIMEOUT", 100, 3600000, &cfg->timeout_ms) < 0 ||
        parse_uint("PVMAM_VERBOSE", 0, 1, &verbose) < 0)
        bad = 1;
    cfg->verbose = (int)verbose;
    if (bad)
        parse_transport("off", cfg);
    return bad ? -1 : 0;
}

void pvmx_export_env(void)
{
    static const char *const names[] = { "PVMAM_TRANSPORT", "PVMAM_DEPTH", "PVMAM_TIMEOUT",
                                         "PVMAM_VERBOSE", "PVMAM_WAIT" };
    const char *old = getenv("PVM_EXPORT");
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", old ? old : "");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        if (!getenv(names[i]) || strstr(buf, names[i]))
            continue;
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s%s", l ? ":" : "", names[i]);
    }
    if (*buf)
        setenv("PVM_EXPORT", buf, 1);
}
