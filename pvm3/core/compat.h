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

/* Functions stock exports outside pvm3.h, with stock's signatures
 * (compat_util.c, compat_task.c, compat_vars.c, compat_log.c, and the
 * files named). */
struct timeval;
struct sockaddr_in;
int pvmxtoi(char *p);
int pvmstrtoi(char *p);
int pvmput32(char *p, int n);
int pvmput16(char *p, int n);
int pvmput8(char *p, int n);
int pvmget32(char *p);
int pvmget16(char *p);
int pvmget8(char *p);
char *inadport_decimal(struct sockaddr_in *sad);
char *inadport_hex(struct sockaddr_in *sad);
void hex_inadport(char *s, struct sockaddr_in *sad);
int pvmmatchstring(char *str, char *pattern);
unsigned pvmcrcappend(char *buf, int len, unsigned crc);
int pvmhdump(char *cp, int n, char *pad);
int errnamecode(char *s);
char *i_malloc(unsigned len, char *tag);
int i_free(char *loc);
char *i_realloc(char *loc, unsigned len);
int i_choke(void);
int i_dump(int how);
char *pvm_alloc(unsigned n, char *tag);
char *pvm_realloc(char *p, unsigned n);
void pvm_free(char *p);
int pvmsleep(int secs);
char *pvmgetroot(void);
char *pvmgethome(void);
int pvmgetclock(struct timeval *tv);
char *pvmgetpvmd(void);
char *pvmdsockfile(void);
int pvmputenv(char *s);
char **pvmcopyenv(char **ep);
int pvmenvinsert(char ***ep, char *s);
int pvmfreeenv(char **ep);
int pvmbeatask(void);
int pvmendtask(void);
int pvmsettaskname(char *name);
int pvm_fd_add(int fd, int sets);
int pvm_fd_delete(int fd, int sets);
int pvmupkstralloc(char **ss);
int tev_begin(int kind, int entry_exit);
int tev_fin(void);
void pvmbailout(int n);
char *pvmtmpnam(char *buf);                            /* misc.c */
int lpvmerr(char *fn, int code);                       /* mhf.c */
void pvmdisplaymhfinfo(char *who, char *msg, int tid); /* mhf.c */
int pvm_getmwid(int bufid);                            /* buf.c */
int pvm_setmwid(int bufid, int waitid);                /* buf.c */
int pvm_vpackf(const char *fmt, va_list args);         /* packf.c */
int pvm_vunpackf(const char *fmt, va_list args);       /* packf.c */

#endif /* PVM3_COMPAT_H */
