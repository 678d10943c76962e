/*
 * perr.h - pvm3 internal: the one error convention of the PVM layer.
 * Every pvm_* entry point returns PVM codes (0 / positive result, or a
 * negative PvmXxx from pvm3.h) and reports failures through pvmi_err().
 */
#ifndef PVM3_PERR_H
#define PVM3_PERR_H

extern int pvm_errno;
/* The PvmAutoErr option; stock's name, so a program setting the variable
 * gets the option (compat.h). */
extern int pvmautoerr;
#define pvmi_autoerr pvmautoerr
extern int pvmmyupid;      /* pid in messages; -1 before the first connect */
extern int pvmi_errtid;   /* own tid for messages, 0 before connect */

/* Set pvm_errno, print "libpvm [tNNN]: fn(): text" when PvmAutoErr is on,
 * and return code (so callers can `return pvmi_err(__func__, PvmBadParam);`).
 * Code 0 or positive is returned as is without side effects (inline: every
 * successful call ends here). */
int pvmi_err_report(const char *fn, int code);
static inline int pvmi_err(const char *fn, int code)
{
    return code >= 0 ? code : pvmi_err_report(fn, code);
}

/* Text for an error code (also backs pvm_strerror/pvm_perror). */
const char *pvmi_errtext(int code);
/* Stock names: the texts by -code, and how many there are. */
extern char *pvm_errlist[];
extern int pvm_nerr;

#endif /* PVM3_PERR_H */
