/*
 * stocknames.c - stock libpvm3's other exported names and its stderr
 * warnings.  Built against stock (-lpvm3) and libpvm3am;
 * stocknames.sh runs both and compares what they print (tids and pids
 * normalised), so every line here is stock's behaviour.
 *
 * usage: stocknames SELF [quiet]   (SELF: this program's name, spawned as
 *        the child; quiet: PvmShowTids off, so pvm_exit waits silently)
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <sys/time.h>
#include <pvm3.h>

/* Stock exports these without declaring them in an installed header. */
extern char *pvm_errlist[];
extern int pvm_nerr, pvm_errno, pvm_useruid, pvmautoerr, pvmfrgsiz, pvmshowtaskid, pvmtoplvl;
extern int pvmmytid, pvmmyptid, pvmmyupid, pvmnsibs, pvmnoresetindex, pvmrouteopt, pvmdebmask;
extern int pvmmyctx;
int pvmlogerror(char *);
int pvmlogprintf(const char *, ...);
int pvmsleep(int);
int pvmstrtoi(char *);
int pvmxtoi(char *);
int pvmmatchstring(char *, char *);
unsigned pvmcrcappend(char *, int, unsigned);
int pvmput32(char *, int);
int pvmget32(char *);
int pvmput16(char *, int);
int pvmget16(char *);
char *inadport_hex(struct sockaddr_in *);
char *inadport_decimal(struct sockaddr_in *);
void hex_inadport(char *, struct sockaddr_in *);
int errnamecode(char *);
int pvmgetclock(struct timeval *);
char **pvmcopyenv(char **);
int pvmenvinsert(char ***, char *);
int pvmfreeenv(char **);
int pvmupkstralloc(char **);
int pvmsettaskname(char *);
int pvm_fd_add(int, int);
int pvm_fd_delete(int, int);
int pvm_vpackf(const char *, va_list);
int pvm_vunpackf(const char *, va_list);

static int packf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pvm_vpackf(fmt, ap);
    va_end(ap);
    return rc;
}

static int unpackf(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int rc = pvm_vunpackf(fmt, ap);
    va_end(ap);
    return rc;
}

static void vars(const char *when)
{
    printf("%s: mytid %s, ptid %s, upid %s, useruid %s, autoerr %d, frgsiz %d, showtid %d, "
           "toplvl %d, nsibs %d, noresetindex %d, route %d, debmask %d, ctx %s\n", when,
           pvmmytid == -1 ? "-1" : pvmmytid == pvm_mytid() ? "mine" : "WRONG",
           pvmmyptid == -1 ? "-1" : pvmmyptid == 0 ? "0" : "a tid",
           pvmmyupid == -1 ? "-1" : pvmmyupid == (int)getpid() ? "mine" : "WRONG",
           pvm_useruid == -1 ? "-1" : pvm_useruid == (int)geteuid() ? "mine" : "WRONG",
           pvmautoerr, pvmfrgsiz, pvmshowtaskid, pvmtoplvl, pvmnsibs, pvmnoresetindex,
           pvmrouteopt, pvmdebmask, pvmmyctx == 0 ? "0" : pvmmyctx == pvm_getcontext() ? "new" : "WRONG");
}

static void helpers(void)
{
    char b[4];
    struct sockaddr_in sa;
    printf("strtoi %d %d %d, xtoi %d %d\n", pvmstrtoi("0x1f"), pvmstrtoi("017"),
           pvmstrtoi("42"), pvmxtoi("ff:10"), pvmxtoi("0XaB"));
    printf("match %d %d %d %d %d %d\n", pvmmatchstring("hello world", "lo w"),
           pvmmatchstring("hello world", "h*d"), pvmmatchstring("hello", "x*"),
           pvmmatchstring("a*b", "a\\*b"), pvmmatchstring("anything", "**"),
           pvmmatchstring("abc", "abcd"));
    printf("crc %08x %08x\n", pvmcrcappend("123456789", 9, 0xffffffffu) ^ 0xffffffffu,
           pvmcrcappend("", 0, 7));
    pvmput32(b, 0x01020304);
    printf("get32 %08x", pvmget32(b));
    pvmput16(b, 0xbeef);
    printf(" get16 %04x\n", pvmget16(b));
    hex_inadport("7f000001:9c41", &sa);
    printf("inadport %s", inadport_hex(&sa));
    printf(" %s\n", inadport_decimal(&sa));
    printf("errnamecode %d %d %d\n", errnamecode("PvmNoTask"), errnamecode("PvmOk"),
           errnamecode("bogus"));
    struct timeval tv = { 0, 0 };
    int crc = pvmgetclock(&tv);
    printf("sleep %d, clock %d %s\n", pvmsleep(0), crc, tv.tv_sec > 0 ? "set" : "unset");
    char *e0[] = { "A=1", "B=2", NULL };
    char **ev = pvmcopyenv(e0);
    pvmenvinsert(&ev, "B=3");
    pvmenvinsert(&ev, "C=4");
    printf("env");
    for (char **p = ev; *p; p++)
        printf(" %s", *p);
    printf("\n");
    pvmfreeenv(ev);
}

static int child(void)
{
    int parent = pvm_parent();
    /* print only once the master is about to call pvm_exit, and a second
     * later, so its warning comes first on every run */
    struct timeval tmo = { 30, 0 };
    if (pvm_trecv(parent, 2, &tmo) > 0)
        sleep(1);
    printf("child: last line\n");
    fflush(stdout);
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    if (argc == 2 && !strcmp(argv[1], "--child"))
        return child();
    if (argc < 2) {
        fprintf(stderr, "usage: %s SELF [quiet]\n", argv[0]);
        return 2;
    }
    setvbuf(stdout, NULL, _IONBF, 0);
    printf("nerr %d\n", pvm_nerr);
    for (int i = 0; i < pvm_nerr; i++)
        printf("errlist[%d] %s\n", i, pvm_errlist[i]);
    vars("before");
    pvmlogerror("logerror before connect\n");
    pvm_errno = PvmMismatch;
    pvm_perror("perror before connect");
    helpers();

    int me = pvm_mytid();
    if (me < 0)
        return 1;
    vars("connected");
    pvmlogerror("logerror connected\n");
    pvmlogprintf("logprintf %d", 1);
    pvmlogprintf(" continued\n");
    printf("settaskname %d\n", pvmsettaskname("late"));
    printf("fd_add %d %d, fd_delete %d\n", pvm_fd_add(-1, 1), pvm_fd_add(0, 1), pvm_fd_delete(0, 1));
    pvm_setopt(PvmFragSize, 8000);
    pvm_setopt(PvmRoute, PvmRouteDirect);
    pvm_setopt(PvmAutoErr, 0);
    int oldctx = pvm_setcontext(pvm_newcontext());
    vars("options set");
    pvm_freecontext(pvm_setcontext(oldctx));
    pvmautoerr = 1;   /* stock: the variable is the option */
    printf("getopt(PvmAutoErr) after the program set pvmautoerr: %d\n", pvm_getopt(PvmAutoErr));

    /* strings and va_list packing through a message to ourselves */
    char *s = NULL, name[16];
    int n = 0;
    pvm_initsend(PvmDataDefault);
    pvm_pkstr("allocated string");
    packf("%d %s", 42, "viapackf");
    pvm_send(me, 5);
    pvm_recv(me, 5);
    int rc = pvmupkstralloc(&s);
    int rc2 = unpackf("%d %s", &n, name);
    printf("upkstralloc %d [%s], vunpackf %d %d [%s]\n", rc, s ? s : "", rc2, n, name);
    free(s);

    /* pvm_exit with a child whose output we catch and which is still
     * running: stock warns on stderr (with PvmShowTids on) and waits */
    int quiet = argc > 2 && !strcmp(argv[2], "quiet");
    if (quiet)
        pvm_setopt(PvmShowTids, 0);
    pvm_catchout(stdout);
    char *cargs[] = { "--child", NULL };
    int kid;
    if (pvm_spawn(argv[1], cargs, PvmTaskDefault, NULL, 1, &kid) != 1) {
        printf("FAIL: spawn\n");
        return 1;
    }
    pvm_initsend(PvmDataDefault);
    pvm_send(kid, 2);
    pvm_exit();
    printf("master: pvm_exit returned\n");
    vars("after exit");
    pvmlogerror("logerror after exit\n");
    printf("DONE\n");
    return 0;
}
