/*
 * misc.c - small calls: pvm_version, pvm_getfds, pvm_strerror,
 * pvm_start_pvmd, pvmgetrsh.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>
#include "lpvm.h"
#include "trace.h"
#include "compat.h"

char *pvm_version(void) { return PVM_VER; }

char *pvm_strerror(void) { return (char *)pvmi_errtext(pvm_errno); }

char *pvmgetrsh(void)
{
    const char *r = getenv("PVM_RSH");
    return (char *)(r && *r ? r : "/usr/bin/rsh");
}

/* The pvmd socket is the task's one descriptor (it opens no direct
 * routes; a route's own descriptors are not the program's to watch). */
int pvm_getfds(int **fds)
{
    PVMI_TEV(pvmi_tev_getfds(fds));
    static int buf[1];
    int rc = pvmi_enter("pvm_getfds");
    if (rc < 0)
        return rc;
    buf[0] = pvmi.pvmd.fd;
    if (fds)
        *fds = buf;
    return 1;
}

/* Start a pvmd like stock: refuse when one answers already, else fork the
 * daemon and (block) wait until we can connect to it. */
int pvm_start_pvmd(int argc, char **argv, int block)
{
    PVMI_TEV(pvmi_tev_start_pvmd(argc, argv, block));
    char addr[256];
    if (argc < 0 || (argc > 0 && !argv))
        return pvmi_err("pvm_start_pvmd", PvmBadParam);
    if (pvmi.tid > 0 || (pvmi_addr_file(addr, sizeof addr) == 0 && pvm_mytid() > 0))
        return pvmi_err("pvm_start_pvmd", PvmDupHost);
    const char *root = getenv("PVM_ROOT");
    char path[512];
    snprintf(path, sizeof path, "%s/lib/pvmd", root && *root ? root : "/usr/lib/pvm3");
    char **av = calloc((size_t)argc + 2, sizeof *av);
    if (!av)
        return pvmi_err("pvm_start_pvmd", PvmNoMem);
    av[0] = path;
    for (int i = 0; i < argc; i++)
        av[i + 1] = argv[i];
    pid_t pid = fork();
    if (pid < 0) {
        free(av);
        return pvmi_err("pvm_start_pvmd", PvmSysErr);
    }
    if (pid == 0) {
        int nul = open("/dev/null", O_RDWR);
        if (nul >= 0) {
            dup2(nul, 0);
            dup2(nul, 1);
        }
        setsid();
        execv(path, av);
        execvp("pvmd", av);
        _exit(127);
    }
    free(av);
    if (!block)
        return 0;
    for (int i = 0; i < 100; i++) {   /* bounded: about 10 s */
        int st;
        if (waitpid(pid, &st, WNOHANG) == pid)
            return pvmi_err("pvm_start_pvmd", PvmCantStart);
        if (pvmi_addr_file(addr, sizeof addr) == 0) {
            int save = pvmi_autoerr;
            pvmi_autoerr = 0;
            int rc = pvm_mytid();
            pvmi_autoerr = save;
            if (rc > 0)
                return 0;
        }
        usleep(100000);
    }
    return pvmi_err("pvm_start_pvmd", PvmCantStart);
}

/* A temporary file name in the PVM temporary directory (stock's
 * pvmtmpnam): into buf if given, else a static buffer. */
char *pvmtmpnam(char *buf)
{
    static char own[256];
    static int n;
    char *out = buf ? buf : own;
    snprintf(out, buf ? 32 + strlen(pvmgettmp()) : sizeof own, "%s/pvmtmp%06d.%d",
             pvmgettmp(), (int)getpid() % 1000000, n++);
    return out;
}
