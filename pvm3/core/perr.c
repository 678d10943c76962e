/*
 * perr.c - error codes and texts of the PVM layer (pvm_errno, pvm_perror,
 * pvm_strerror) and the single reporting helper pvmi_err().
 */
#include <stdio.h>
#include <unistd.h>
#include <pvm3.h>
#include "perr.h"

int pvm_errno = 0;
/* Set by the core once options/tid are known (PvmAutoErr default is on). */
int pvmautoerr = 1;
/* Stock's name for our pid in messages: -1 until the task first connects
 * (compat_vars.c sets it), as stock prints. */
int pvmmyupid = -1;
int pvmi_errtid = 0;

/* Stock's table and texts (what pvm_perror prints), indexed by -code;
 * codes stock never assigned read "Error N". */
char *pvm_errlist[] = {
    [-PvmOk] = "Error 0", "Error 1",
    [-PvmBadParam] = "Bad parameter",
    [-PvmMismatch] = "Parameter mismatch",
    [-PvmOverflow] = "Value too large",
    [-PvmNoData] = "End of buffer",
    [-PvmNoHost] = "No such host",
    [-PvmNoFile] = "No such file",
    [-PvmDenied] = "Permission denied", "Error 9",
    [-PvmNoMem] = "Malloc failed", "Error 11",
    [-PvmBadMsg] = "Can't decode message", "Error 13",
    [-PvmSysErr] = "Can't contact local daemon",
    [-PvmNoBuf] = "No current buffer",
    [-PvmNoSuchBuf] = "No such buffer",
    [-PvmNullGroup] = "Null group name",
    [-PvmDupGroup] = "Already in group",
    [-PvmNoGroup] = "No such group",
    [-PvmNotInGroup] = "Not in group",
    [-PvmNoInst] = "No such instance",
    [-PvmHostFail] = "Host failed",
    [-PvmNoParent] = "No parent task",
    [-PvmNotImpl] = "Not implemented",
    [-PvmDSysErr] = "Pvmd system error",
    [-PvmBadVersion] = "Version mismatch",
    [-PvmOutOfRes] = "Out of resources",
    [-PvmDupHost] = "Duplicate host",
    [-PvmCantStart] = "Can't start pvmd",
    [-PvmAlready] = "Already in progress",
    [-PvmNoTask] = "No such task",
    [-PvmNotFound] = "Not Found",
    [-PvmExists] = "Already Exists",
    [-PvmHostrNMstr] = "Hoster must run on master host",
    [-PvmParentNotSet] = "Spawning parent set PvmNoParent",
    [-PvmIPLoopback] = "Master Host IP Address is Loopback! (See pvm3/Readme)",
};
int pvm_nerr = sizeof pvm_errlist / sizeof pvm_errlist[0];

const char *pvmi_errtext(int code)
{
    if (code <= 0 && -code < pvm_nerr)
        return pvm_errlist[-code];
    return "Unknown Error";
}

int pvmi_err_report(const char *fn, int code)
{
    pvm_errno = code;
    if (pvmi_autoerr) {
        if (pvmi_errtid > 0)
            fprintf(stderr, "libpvm [t%x]: %s(): %s\n", pvmi_errtid, fn, pvmi_errtext(code));
        else
            fprintf(stderr, "libpvm [pid%d]: %s(): %s\n", pvmmyupid, fn, pvmi_errtext(code));
    }
    return code;
}

int pvm_perror(char *msg)
{
    if (pvmi_errtid > 0)
        fprintf(stderr, "libpvm [t%x]: %s: %s\n", pvmi_errtid, msg ? msg : "", pvmi_errtext(pvm_errno));
    else
        fprintf(stderr, "libpvm [pid%d]: %s: %s\n", pvmmyupid, msg ? msg : "", pvmi_errtext(pvm_errno));
    return 0;
}
