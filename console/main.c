/*
 * main.c - pvmam, the console of libpvm3am: start-up (connect to the pvmd
 * or start one, as the stock console does), $HOME/.pvmrc, the command
 * loop, and leaving (end of input quits without halting the machine).
 */
#include "config.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "cons.h"

struct cons_state cons = { .amstat_ms = 2000 };

static void usage(FILE *f)
{
    fprintf(f, "usage: pvmam [-n<hostname>] [-d<debugmask>] [--preload] [--amstat-wait=ms] "
               "[hostfile]\n"
               "  the PVM console over libpvm3am; -n, -d and hostfile go to a pvmd it starts\n"
               "  --preload         spawn runs programs with libpvm3am preloaded\n"
               "  --amstat-wait=ms  how long amstat waits for a task (default 2000)\n");
}

/* The console itself stays off the AM route (it only talks to the pvmd);
 * the PVMAM_* settings of the shell still go to the tasks it spawns. */
static int connect_console(int pargc, char **pargv)
{
    const char *t = getenv("PVMAM_TRANSPORT"), *e = getenv("PVM_EXPORT");
    char *user_t = t ? strdup(t) : NULL, *user_e = e ? strdup(e) : NULL;
    setenv("PVMAM_TRANSPORT", "off", 1);
    pvm_setopt(PvmAutoErr, 0);
    int tid = pvm_mytid();
    if (tid < 0) {
        int rc = pvm_start_pvmd(pargc, pargv, 1);
        if (rc < 0 && rc != PvmDupHost) {
            fprintf(stderr, "pvmam: cannot start pvmd: %s\n", cons_err(rc));
            tid = rc;
        } else {
            tid = pvm_mytid();
        }
    } else {
        printf("pvmd already running.\n");
    }
    if (user_t)
        setenv("PVMAM_TRANSPORT", user_t, 1);
    else
        unsetenv("PVMAM_TRANSPORT");
    if (user_e)
        setenv("PVM_EXPORT", user_e, 1);
    else
        unsetenv("PVM_EXPORT");
    if (user_t)
        cons_export("PVMAM_TRANSPORT");
    free(user_t);
    free(user_e);
    return tid;
}

static void rc_file(void)
{
    const char *home = getenv("HOME");
    char path[1024];
    snprintf(path, sizeof path, "%s/.pvmrc", home ? home : ".");
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    char line[4096];
    while (fgets(line, sizeof line, f))
        if (cons_exec(line))
            break;
    fclose(f);
}

int main(int argc, char **argv)
{
    char **pargv = calloc((size_t)argc + 1, sizeof *pargv);
    int pargc = 0;
    if (!pargv)
        return 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(argv[i], "--preload")) {
            cons.preload = 1;
        } else if (!strncmp(argv[i], "--amstat-wait=", 14)) {
            char *end;
            long w = strtol(argv[i] + 14, &end, 10);
            if (!argv[i][14] || *end || w < 0 || w > 600000) {
                fprintf(stderr, "pvmam: %s: milliseconds from 0 to 600000\n", argv[i]);
                return 2;
            }
            cons.amstat_ms = (int)w;
        } else if (!strncmp(argv[i], "-n", 2) || !strncmp(argv[i], "-d", 2) ||
                   argv[i][0] != '-') {
            pargv[pargc++] = argv[i];
        } else {
            fprintf(stderr, "pvmam: unknown option %s\n", argv[i]);
            usage(stderr);
            return 2;
        }
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    cons.mytid = connect_console(pargc, pargv);
    free(pargv);
    if (cons.mytid < 0) {
        fprintf(stderr, "pvmam: cannot connect to the pvmd: %s\n", cons_err(cons.mytid));
        return 1;
    }
    pvm_setopt(PvmAutoErr, 0);
    pvm_setopt(PvmRoute, PvmDontRoute);   /* it talks to tasks only through the pvmd */
    pvm_setopt(PvmResvTids, 1);
    /* a reset spares consoles: the mark stock consoles leave too */
    pvm_setopt(PvmNoReset, 1);
    int mid = pvm_mkbuf(PvmDataDefault);
    if (mid >= 0) {
        int old = pvm_setsbuf(mid);
        pvm_pkint(&cons.mytid, 1, 1);
        pvm_setsbuf(old);
        pvm_putinfo(PVMNORESETCLASS, mid, PvmMboxMultiInstance);
        pvm_freebuf(mid);
    }
    pvm_notify(PvmHostAdd, CONS_TAG_HOSTADD, -1, NULL);
    cons_trace_init();
    if (cons.preload)
        cons_preload_env(1);
    input_init();
    rc_file();
    int quit = 0;
    while (!quit) {
        char *line = input_line("pvm> ");
        if (!line) {
            /* end of input: as if quit was typed */
            printf("quit\n");
            break;
        }
        quit = cons_exec(line);
    }
    input_done();
    if (cons.halted)
        return 0;
    printf("\npvmd still running.\n");
    fflush(stdout);
    pvm_exit();
    return 0;
}
