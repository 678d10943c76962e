/*
 * badinput.c - what libpvm3am does with bad input, against a real pvmd:
 *   nopvmd   no daemon: pvm_mytid() fails with PvmSysErr, quickly.
 *   garbage  a child writes malformed fragments straight onto its pvmd
 *            socket, addressed to us; we drop them and still receive the
 *            child's real message intact.
 *   halt     the daemon goes away while we block in pvm_recv: we get
 *            PvmSysErr instead of hanging.
 *   params   bad arguments give the stock error codes.
 */
#include <arpa/inet.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <unistd.h>
#include <pvm3.h>

#ifdef PVMAM_BUILD
#include "pvmam.h"
/* pvmam_stats' drops count malformed fragments from the pvmd too */
static unsigned long bad_frags(void)
{
    struct pvmam_stats s;
    return pvmam_stats(0, &s) == 0 ? (unsigned long)s.drops : 0;
}
#define BAD_FRAGS() bad_frags()
#else
#define BAD_FRAGS() 2UL                   /* stock keeps no such count */
#endif

static double now(void)
{
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec / 1e6;
}

static void raw_frag(int fd, int dst, int src, int len, int flags, const void *payload, int plen)
{
    uint32_t h[4] = { htonl((uint32_t)dst), htonl((uint32_t)src), htonl((uint32_t)len),
                      htonl((uint32_t)flags << 24) };
    if (write(fd, h, sizeof h) != sizeof h || (plen && write(fd, payload, (size_t)plen) != plen))
        perror("write");
}

static int child(const char *mode)
{
    int parent = pvm_parent();
    if (!strcmp(mode, "sender")) {
        int *fds;
        pvm_getfds(&fds);
        int me = pvm_mytid();
        char junk[64];
        memset(junk, 0xa5, sizeof junk);
        raw_frag(fds[0], parent, me, 16, 2, junk, 16);     /* EOM without a start */
        raw_frag(fds[0], parent, me, 8, 3, junk, 8);       /* start shorter than a header */
        raw_frag(fds[0], parent, me, 40, 1, junk, 40);     /* start never finished ... */
        int v = 42;                                         /* ... then a real message */
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_send(parent, 5);
        pvm_recv(parent, 6);
    } else if (!strcmp(mode, "halter")) {
        usleep(300000);
        pvm_halt();
    }
    pvm_exit();
    return 0;
}

int main(int argc, char **argv)
{
    setvbuf(stdout, NULL, _IONBF, 0);
    if (argc == 3 && !strcmp(argv[1], "child"))
        return child(argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: badinput nopvmd|garbage|halt|params\n");
        return 2;
    }
    const char *mode = argv[1];
    double t0 = now();
    if (!strcmp(mode, "nopvmd")) {
        int rc = pvm_mytid();
        printf("pvm_mytid without a pvmd: %d after %.2f s\n", rc, now() - t0);
        return rc == PvmSysErr && now() - t0 < 10 ? 0 : 1;
    }
    if (!strcmp(mode, "startpvmd")) {
        /* no pvmd yet: start one, refuse a second, halt it (the halting
         * pvmd sends SIGTERM to its tasks, us included) */
        signal(SIGTERM, SIG_IGN);
        int rc = pvm_start_pvmd(0, NULL, 1);
        int tid = pvm_mytid();
        int save = pvm_setopt(PvmAutoErr, 0);
        int again = pvm_start_pvmd(0, NULL, 1);
        pvm_setopt(PvmAutoErr, save);
        printf("pvm_start_pvmd: %d, then mytid t%x, second start %d\n", rc, tid, again);
        pvm_halt();
        return rc == 0 && tid > 0 && again == PvmDupHost ? 0 : 1;
    }
    if (pvm_mytid() < 0)
        return 99;
    char self[4096];
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        return 99;
    self[n] = '\0';
    if (!strcmp(mode, "garbage")) {
        int tid, v = 0;
        /* The child's real message must follow its garbage through the
         * pvmd: the unfinished start is only found broken when the next
         * fragment from that task comes the same way.  Over an AM link
         * (the parent connects as soon as the child has published, and
         * may be open by then) the real message would bypass it. */
        setenv("PVMAM_TRANSPORT", "off", 1);
        const char *ex = getenv("PVM_EXPORT");
        char exp[1024];
        snprintf(exp, sizeof exp, "%s%sPVMAM_TRANSPORT", ex ? ex : "", ex && *ex ? ":" : "");
        setenv("PVM_EXPORT", exp, 1);
        if (pvm_spawn(self, (char *[]){ "child", "sender", NULL }, 0, "", 1, &tid) != 1)
            return 99;
        struct timeval tmo = { 20, 0 };
        int bid = pvm_trecv(tid, 5, &tmo);
        if (bid > 0)
            pvm_upkint(&v, 1, 1);
        /* the garbage came through the pvmd, the real message perhaps over
         * an AM link that opened meanwhile: no order between the two
         * routes, so give the garbage a bounded moment to be read */
        unsigned long dropped = BAD_FRAGS();
        for (int i = 0; i < 50 && dropped < 2; i++) {
            struct timeval t = { 0, 100000 };
            pvm_trecv(tid, 12345, &t);   /* nothing comes: input is read meanwhile */
            dropped = BAD_FRAGS();
        }
        int stray = pvm_nrecv(-1, -1);
        printf("real message after garbage: bid %d value %d, stray messages %d, "
               "malformed fragments dropped %lu\n", bid, v, stray, dropped);
        pvm_initsend(PvmDataDefault);
        pvm_send(tid, 6);
        pvm_exit();
        return bid > 0 && v == 42 && stray == 0 && dropped >= 2 ? 0 : 1;
    }
    if (!strcmp(mode, "halt")) {
        signal(SIGTERM, SIG_IGN);   /* the halting pvmd sends SIGTERM to tasks */
        int tid;
        if (pvm_spawn(self, (char *[]){ "child", "halter", NULL }, 0, "", 1, &tid) != 1)
            return 99;
        int rc = pvm_recv(-1, 12345);
        printf("pvm_recv while the pvmd halts: %d after %.2f s\n", rc, now() - t0);
        return rc == PvmSysErr && now() - t0 < 20 ? 0 : 1;
    }
    if (!strcmp(mode, "params")) {
        int bad = 0, tid;
        pvm_setopt(PvmAutoErr, 0);
        pvm_initsend(PvmDataDefault);
#define EXPECT(call, code) \
        do { int r_ = (call); if (r_ != (code)) { printf("%s = %d, want %d\n", #call, r_, code); bad++; } } while (0)
        EXPECT(pvm_send(0, 1), PvmBadParam);
        EXPECT(pvm_send(pvm_mytid(), -5), PvmBadParam);
        EXPECT(pvm_spawn(self, NULL, 0, "", 0, &tid), PvmBadParam);
        EXPECT(pvm_spawn("/nonexistent/prog", NULL, 0, "", 1, &tid), 0);
        EXPECT(tid, PvmNoFile);
        EXPECT(pvm_setopt(PvmRoute, 99), PvmBadParam);
        EXPECT(pvm_setrbuf(99999), PvmNoSuchBuf);
        EXPECT(pvm_pstat(0x40000 | 0x3fff0), PvmNoTask);
        EXPECT(pvm_mstat("no-such-host"), PvmNoHost);
        EXPECT(pvm_freebuf(-3), PvmBadParam);
        printf("parameter checks: %d wrong\n", bad);
        pvm_exit();
        return bad ? 1 : 0;
    }
    return 2;
}
