/*
 * cmd_host.c - hosts and pvmds: add, delete, conf, mstat, halt, tickle.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pvm3.h>
#include "cons.h"

int cmd_add(int argc, char **argv)
{
    if (argc < 2)
        return cons_wrongargs(argv[0]);
    int n = argc - 1, *sv = calloc((size_t)n, sizeof *sv);
    if (!sv) {
        printf("add: out of memory\n");
        return 0;
    }
    int rc = pvm_addhosts(argv + 1, n, sv);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        free(sv);
        return 0;
    }
    printf("%d successful\n", rc);
    printf("                    HOST     DTID\n");
    for (int i = 0; i < n; i++) {
        if (sv[i] < 0)
            printf("%24s %s\n", argv[i + 1], cons_err(sv[i]));
        else
            printf("%24s %8x\n", argv[i + 1], sv[i]);
    }
    free(sv);
    return 0;
}

int cmd_delete(int argc, char **argv)
{
    if (argc < 2)
        return cons_wrongargs(argv[0]);
    int n = argc - 1, *sv = calloc((size_t)n, sizeof *sv);
    if (!sv) {
        printf("delete: out of memory\n");
        return 0;
    }
    int rc = pvm_delhosts(argv + 1, n, sv);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        free(sv);
        return 0;
    }
    printf("%d successful\n", rc);
    printf("                    HOST  STATUS\n");
    for (int i = 0; i < n; i++)
        printf("%24s  %s\n", argv[i + 1], sv[i] < 0 ? cons_err(sv[i]) : "deleted");
    free(sv);
    return 0;
}

int cmd_conf(int argc, char **argv)
{
    (void)argc;
    int nhost, narch;
    struct pvmhostinfo *h;
    int rc = pvm_config(&nhost, &narch, &h);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    printf("%d host%s, %d data format%s\n", nhost, nhost == 1 ? "" : "s", narch,
           narch == 1 ? "" : "s");
    printf("                    HOST     DTID     ARCH   SPEED       DSIG\n");
    for (int i = 0; i < nhost; i++)
        printf("%24s %8x %8s%8d 0x%08x\n", h[i].hi_name, h[i].hi_tid, h[i].hi_arch,
               h[i].hi_speed, h[i].hi_dsig);
    return 0;
}

int cmd_mstat(int argc, char **argv)
{
    if (argc < 2)
        return cons_wrongargs(argv[0]);
    for (int i = 1; i < argc; i++) {
        int rc = pvm_mstat(argv[i]);
        printf("%24s  %s\n", argv[i], rc == PvmOk ? "ok" : cons_err(rc));
    }
    return 0;
}

int cmd_halt(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    fflush(stdout);
    int rc = pvm_halt();
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    cons.halted = 1;
    return 1;
}

int cmd_tickle(int argc, char **argv)
{
    if (argc < 2)
        return cons_wrongargs(argv[0]);
    int nargs = argc - 1 > 10 ? 10 : argc - 1, args[10], nres = 0, res[16];
    for (int i = 0; i < nargs; i++) {
        char *end;
        args[i] = (int)strtol(argv[i + 1], &end, 0);
        if (*end) {
            printf("tickle: %s: not a number\n", argv[i + 1]);
            return 0;
        }
    }
    int rc = pvm_tickle(nargs, args, &nres, res);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    for (int i = 0; i < nres && i < 16; i++)
        printf("%s%x", i ? " " : "", (unsigned)res[i]);
    printf("%s", nres ? "\n" : "");
    return 0;
}
