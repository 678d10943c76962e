/*
 * compat.h - stock libpvm3's other exported names (no installed header
 * declares them): variables and helpers that programs, stock libfpvm3 and
 * stock libgpvm3 reference.  Defined in compat_vars.c, compat_util.c,
 * compat_log.c and compat_task.c; docs/compat.md "Stock symbols" lists them and
 * the stock internals left out.
 */
#ifndef PVM3_COMPAT_H
#define PVM3_COMPAT_H

#include <stdarg.h>
#include <pvm3.h>
#include <pvmtev.h>

/* Variables, as stock names and types them. */
extern char *pvm_errlist[];
extern int pvm_nerr;
extern int pvm_useruid, pvmdebmask, pvmautoerr, pvmfrgsiz, pvmrouteopt, pvmshowtaskid;
extern int pvmtoplvl, pvmudpmtu, pvmmytid, pvmmyptid, pvmmyupid, pvmmydsig, pvmschedtid;
extern int pvmnsibs, *pvmsibtids, pvmmyctx, pvmnoreset, pvmnoresetindex, pvmrescode;
extern char *pvmmytaskname;
extern struct Pvmtracer pvmtrc, pvmctrc;
extern void *pvmtrccodef;

/* Copy the task's state into the variables above (after connect, exit,
 * option and context changes). */
void pvmi_compat_publish(void);

int pvmlogerror(char *s);
int pvmlogprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
int vpvmlogprintf(const char *fmt, va_list ap);
int pvmlogperror(char *s);

#endif /* PVM3_COMPAT_H */
