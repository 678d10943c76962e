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
int pvmi_autoerr = 1;
int pvmi_errtid = 0;

static const struct {
    int code;
    const char *text;
} errtab[] = {
    { PvmOk, "Ok" },
    { PvmBadParam, "Bad parameter" },
    { PvmMismatch, "Count mismatch" },
    { PvmOverflow, "Value too large" },
    { PvmNoData, "End of buffer" },
    { PvmNoHost, "No such host" },
    { PvmNoFile, "No such file" },
    { PvmDenied, "Permission denied" },
    { PvmNoMem, "Malloc failed" },
    { PvmBadMsg, "Can't decode message" },
    { PvmSysErr, "Can't contact local daemon" },
    { PvmNoBuf, "No current buffer" },
    { PvmNoSuchBuf, "No such buffer" },
    { PvmNullGroup, "Null group name" },
    { PvmDupGroup, "Already in group" },
    { PvmNoGroup, "No such group" },
    { PvmNotInGroup, "Not in group" },
    { PvmNoInst, "No such instance" },
    { PvmHostFail, "Host failed" },
    { PvmNoParent, "No parent task" },
    { PvmNotImpl, "Not implemented" },
    { PvmDSysErr, "Pvmd system error" },
    { PvmBadVersion, "Version mismatch" },
    { PvmOutOfRes, "Out of resources" },
    { PvmDupHost, "Duplicate host" },
    { PvmCantStart, "Can't start pvmd" },
    { PvmAlready, "Already in progress" },
    { PvmNoTask, "No such task" },
    { PvmNotFound, "Not Found" },
    { PvmExists, "Already exists" },
    { PvmHostrNMstr, "Host not master" },
    { PvmParentNotSet, "Parent not set" },
    { PvmIPLoopback, "Master host uses loopback address" },
};

const char *pvmi_errtext(int code)
{
    for (size_t i = 0; i < sizeof errtab / sizeof errtab[0]; i++)
        if (errtab[i].code == code)
            return errtab[i].text;
    return "Unknown error";
}

int pvmi_err(const char *fn, int code)
{
    if (code >= 0)
        return code;
    pvm_errno = code;
    if (pvmi_autoerr) {
        if (pvmi_errtid > 0)
            fprintf(stderr, "libpvm [t%x]: %s(): %s\n", pvmi_errtid, fn, pvmi_errtext(code));
        else
            fprintf(stderr, "libpvm [pid%d]: %s(): %s\n", (int)getpid(), fn, pvmi_errtext(code));
    }
    return code;
}

int pvm_perror(char *msg)
{
    if (pvmi_errtid > 0)
        fprintf(stderr, "libpvm [t%x]: %s: %s\n", pvmi_errtid, msg ? msg : "", pvmi_errtext(pvm_errno));
    else
        fprintf(stderr, "libpvm [pid%d]: %s: %s\n", (int)getpid(), msg ? msg : "", pvmi_errtext(pvm_errno));
    return 0;
}
