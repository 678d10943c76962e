/*
 * cmd_env.c - the console's environment and options: setenv, export,
 * unexport, echo, version, setopt, getopt.  Spawned tasks get the
 * variables named in PVM_EXPORT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "cons.h"

extern char **environ;

int cmd_setenv(int argc, char **argv)
{
    if (argc == 1) {
        for (char **e = environ; e && *e; e++)
            printf("%s\n", *e);
        return 0;
    }
    if (strchr(argv[1], '=')) {
        printf("setenv: %s: a name has no '=' (setenv name value)\n", argv[1]);
        return 0;
    }
    if (argc == 2) {
        const char *v = getenv(argv[1]);
        if (v)
            printf("%s\n", v);
        return 0;
    }
    char buf[4096] = "";
    for (int i = 2; i < argc; i++) {
        size_t l = strlen(buf);
        snprintf(buf + l, sizeof buf - l, "%s%s", i > 2 ? " " : "", argv[i]);
    }
    if (setenv(argv[1], buf, 1) < 0)
        printf("setenv: %s: cannot set\n", argv[1]);
    return 0;
}

/* Is name in the ':'-separated list? */
static int listed(const char *list, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = list; p && *p;) {
        const char *e = strchr(p, ':');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l == n && !strncmp(p, name, n))
            return 1;
        p = e ? e + 1 : NULL;
    }
    return 0;
}

int cons_export(const char *name)
{
    const char *old = getenv("PVM_EXPORT");
    if (listed(old, name))
        return 0;
    char buf[4096];
    snprintf(buf, sizeof buf, "%s%s%s", old ? old : "", old && *old ? ":" : "", name);
    return setenv("PVM_EXPORT", buf, 1);
}

int cons_unexport(const char *name)
{
    const char *old = getenv("PVM_EXPORT");
    if (!listed(old, name))
        return 0;
    char buf[4096] = "";
    for (const char *p = old; p && *p;) {
        const char *e = strchr(p, ':');
        size_t l = e ? (size_t)(e - p) : strlen(p);
        if (l && !(l == strlen(name) && !strncmp(p, name, l))) {
            size_t b = strlen(buf);
            snprintf(buf + b, sizeof buf - b, "%s%.*s", b ? ":" : "", (int)l, p);
        }
        p = e ? e + 1 : NULL;
    }
    return setenv("PVM_EXPORT", buf, 1);
}

int cmd_export(int argc, char **argv)
{
    if (argc == 1) {
        const char *e = getenv("PVM_EXPORT");
        printf("PVM_EXPORT=%s\n", e ? e : "");
        return 0;
    }
    for (int i = 1; i < argc; i++)
        cons_export(argv[i]);
    return 0;
}

int cmd_unexport(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        cons_unexport(argv[i]);
    return 0;
}

int cmd_echo(int argc, char **argv)
{
    for (int i = 1; i < argc; i++)
        printf("%s%s", argv[i], i + 1 < argc ? " " : "");
    printf("\n");
    return 0;
}

int cmd_version(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    printf("%s\n", pvm_version());
    return 0;
}

#define OPT(x) { #x, x }
static const struct { const char *name; int what; } opts[] = {
    OPT(PvmRoute), OPT(PvmDebugMask), OPT(PvmAutoErr), OPT(PvmOutputTid), OPT(PvmOutputCode),
    OPT(PvmTraceTid), OPT(PvmTraceCode), OPT(PvmTraceBuffer), OPT(PvmTraceOptions),
    OPT(PvmFragSize), OPT(PvmResvTids), OPT(PvmSelfOutputTid), OPT(PvmSelfOutputCode),
    OPT(PvmSelfTraceTid), OPT(PvmSelfTraceCode), OPT(PvmSelfTraceBuffer),
    OPT(PvmSelfTraceOptions), OPT(PvmShowTids), OPT(PvmOutputContext), OPT(PvmTraceContext),
    OPT(PvmSelfOutputContext), OPT(PvmSelfTraceContext), OPT(PvmNoReset),
};
#define NOPTS (sizeof opts / sizeof opts[0])

static int opt_find(const char *name)
{
    for (size_t i = 0; i < NOPTS; i++)
        if (!strcmp(opts[i].name, name))
            return (int)i;
    printf("PVM Option \"%s\" Unknown.\n", name);
    return -1;
}

int cmd_getopt(int argc, char **argv)
{
    if (argc > 2)
        return cons_wrongargs(argv[0]);
    for (size_t i = 0; i < NOPTS; i++) {
        if (argc == 2 && strcmp(opts[i].name, argv[1]))
            continue;
        printf("%s Currently Set to %d\n", opts[i].name, pvm_getopt(opts[i].what));
        if (argc == 2)
            return 0;
    }
    if (argc == 2)
        opt_find(argv[1]);
    return 0;
}

int cmd_setopt(int argc, char **argv)
{
    if (argc != 3)
        return cons_wrongargs(argv[0]);
    int i = opt_find(argv[1]);
    if (i < 0)
        return 0;
    char *end;
    long v = strtol(argv[2], &end, 0);
    if (!*argv[2] || *end) {
        printf("setopt: %s: not a number\n", argv[2]);
        return 0;
    }
    int old = pvm_getopt(opts[i].what);
    int rc = pvm_setopt(opts[i].what, (int)v);
    if (rc < 0)
        cons_errline(argv[0], argv[1], rc);
    else
        printf("%s Changed from %d to %d\n", opts[i].name, old, pvm_getopt(opts[i].what));
    return 0;
}
