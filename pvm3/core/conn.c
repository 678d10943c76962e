/*
 * conn.c - becoming a PVM task: find the local pvmd (PVMSOCK or the
 * address file), connect, run the TM_CONNECT / TM_CONN2 authentication
 * handshake (docs/protocol.md); pvm_mytid, pvm_parent, pvm_exit.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/un.h>
#include "lpvm.h"
#include "route_int.h"
#include "compat.h"

struct pvmi_state pvmi = {
    .pvmd = { .fd = -1 },
    .route = PvmAllowDirect,
    .autoerr = 1,
    .showtids = 1,   /* stock default */
    .nsiblings = -1,
    .nextwid = 1,
};

static int tmp_counter;

static const char *tmpdir(void)
{
    const char *t = getenv("PVM_TMP");
    return t && *t ? t : "/tmp";
}

char *pvmgettmp(void) { return (char *)tmpdir(); }

/* Text of the pvmd address: PVMSOCK, else the address file. */
int pvmi_addr_file(char *buf, size_t size)
{
    const char *s = getenv("PVMSOCK");
    if (s && *s) {
        snprintf(buf, size, "%s", s);
        return 0;
    }
    char path[512];
    const char *vmid = getenv("PVM_VMID");
    if (vmid && *vmid)
        snprintf(path, sizeof path, "%s/pvmd.%d.%s", tmpdir(), (int)geteuid(), vmid);
    else
        snprintf(path, sizeof path, "%s/pvmd.%d", tmpdir(), (int)geteuid());
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return PvmSysErr;
    ssize_t n = read(fd, buf, size - 1 < 128 ? size - 1 : 128);
    close(fd);
    if (n <= 0)
        return PvmSysErr;
    buf[n] = '\0';
    return 0;
}

static int connect_addr(const char *addr)
{
    int fd;
    if (addr[0] == '/') {
        struct sockaddr_un sa = { .sun_family = AF_UNIX };
        if (strlen(addr) >= sizeof sa.sun_path)
            return -1;
        strcpy(sa.sun_path, addr);
        fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
            goto fail;
    } else {
        unsigned ip, port;
        if (sscanf(addr, "%x:%x", &ip, &port) != 2)
            return -1;
        struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port),
                                  .sin_addr.s_addr = htonl(ip) };
        fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
        if (fd < 0)
            return -1;
        if (connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
            goto fail;
        int one = 1;
        setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    }
    fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK);
    return fd;
fail:
    close(fd);
    return -1;
}

/* Unique empty file in dir, mode 0600, for the authentication step. */
static int make_auth_file(char *path, size_t size)
{
    for (int tries = 0; tries < 10000; tries++) {
        tmp_counter = tmp_counter % 10000 + 1;
        snprintf(path, size, "%s/pvmtmp%06d.%d", tmpdir(), (int)getpid(), tmp_counter);
        int fd = open(path, O_CREAT | O_EXCL | O_RDWR, 0600);
        if (fd >= 0) {
            close(fd);
            return 0;
        }
        if (errno != EEXIST)
            return -1;
    }
    return -1;
}

/* Each side proves it may write the other's file: we read a byte the
 * pvmd wrote to ours, then write one to its.  0 or PvmSysErr. */
static int prove_files(const char *tpath, const char *dpath)
{
    char c;
    int fd = open(tpath, O_RDONLY);
    int ok = fd >= 0 && read(fd, &c, 1) == 1;
    if (fd >= 0)
        close(fd);
    unlink(tpath);
    if (!ok)
        return PvmSysErr;
    fd = open(dpath, O_WRONLY);
    ok = fd >= 0 && write(fd, "/", 1) == 1;
    if (fd >= 0)
        close(fd);
    return ok ? 0 : PvmSysErr;
}

/* TM_CONNECT: protocol version and the authentication files. */
static int connect_step(void)
{
    char tpath[512], dpath[512];
    struct pmsg *req, *rep = NULL;
    int rc, v, ack;

    if (make_auth_file(tpath, sizeof tpath) < 0)
        return PvmSysErr;
    req = pvmi_xbuf();
    pvmi_put_int(req, TDPROTOCOL);
    pvmi_put_str(req, tpath);
    rc = pvmi_tm_call(TM_CONNECT, req, &rep);
    pmsg_free(req);
    if (rc >= 0) {
        rc = PvmSysErr;
        if (pvmi_get_int(rep, &v) >= 0 && pvmi_get_int(rep, &ack) >= 0 &&
            pvmi_get_str(rep, dpath, sizeof dpath) >= 0)
            rc = v != TDPROTOCOL ? PvmBadVersion : !ack ? PvmSysErr : 0;
    }
    pmsg_free(rep);
    if (rc < 0) {
        unlink(tpath);
        return rc;
    }
    return prove_files(tpath, dpath);
}

/* TM_CONN2: our pid (and the pvmd's exec id, task name); the answer is
 * our tid, parent, output and trace destinations. */
static int conn2_step(void)
{
    const char *epid = getenv("PVMEPID");
    struct pmsg *req = pvmi_xbuf(), *rep = NULL;
    pvmi_put_int(req, (int)getpid());
    pvmi_put_int(req, epid ? (int)strtol(epid, NULL, 0) : 0);
    if (pvmmytaskname)   /* pvmsettaskname() before joining */
        pvmi_put_str(req, pvmmytaskname);
    int rc = pvmi_tm_call(TM_CONN2, req, &rep);
    pmsg_free(req);
    if (rc < 0)
        return rc;
    int f[10];
    rc = PvmSysErr;
    for (int i = 0; i < 10; i++)
        if (pvmi_get_int(rep, &f[i]) < 0)
            goto out;
    if (!f[0])
        goto out;
    pvmi.tid = f[1];
    pvmi.ptid = f[2];
    pvmi.outtid = f[3];
    pvmi.outctx = f[4];
    pvmi.outtag = f[5];
    pvmi.trctid = f[6];
    pvmi.trcctx = f[7];
    pvmi.trctag = f[8];
    pvmi.udpmax = f[9];
    pvmi_get_int(rep, &pvmi.dsig);
    pvmi_get_str(rep, pvmi.inaddr, sizeof pvmi.inaddr);
    pvmi_get_int(rep, &pvmi.schedtid);
    rc = 0;
out:
    pmsg_free(rep);
    return rc;
}

static int handshake(void)
{
    int rc = connect_step();
    return rc < 0 ? rc : conn2_step();
}

static void init_options(void)
{
    const char *s;
    if ((s = getenv("PVMCTX")))
        pvmi.ctx = (int)strtol(s, NULL, 0);
    if ((s = getenv("PVMTMASK")) && strlen(s) == 35)
        strcpy(pvmi.tmask, s);
    if ((s = getenv("PVMTRCBUF")))
        pvmi.s_trcbuf = pvmi.c_trcbuf = atoi(s);
    if ((s = getenv("PVMTRCOPT")))
        pvmi.s_trcopt = pvmi.c_trcopt = atoi(s);
    if ((s = getenv("PVMTASKDEBUG")))
        pvmi.debugmask = (int)strtol(s, NULL, 0);
}

int pvmi_beatask(void)
{
    if (pvmi.tid > 0)
        return pvmi.dead ? PvmSysErr : 0;
    if (pvmi.dead)
        return PvmSysErr;
    pvmi_routes_load();   /* their filters see the handshake's input too */
    char addr[256];
    int fd = -1;
    if (pvmi_addr_file(addr, sizeof addr) == 0) {
        /* the address file may exist a moment before the socket listens */
        for (int i = 0; i < 5 && fd < 0; i++) {
            fd = connect_addr(addr);
            if (fd < 0 && i < 4)
                usleep(200000);
        }
    }
    if (fd < 0)
        return PvmSysErr;
    pvmi.pvmd.fd = fd;
    pvmi.connecting = 1;
    init_options();
    int rc = handshake();
    pvmi.connecting = 0;
    if (rc < 0) {
        pvmi_conn_close(&pvmi.pvmd);
        pvmi.tid = 0;
        return rc;
    }
    pvmi_errtid = pvmi.tid;
    pvmi.autoerr = pvmi_autoerr;
    pvmi.c_outtid = pvmi.outtid;
    pvmi.c_outctx = pvmi.outctx;
    pvmi.c_outtag = pvmi.outtag;
    pvmi.c_trctid = pvmi.trctid;
    pvmi.c_trcctx = pvmi.trcctx;
    pvmi.c_trctag = pvmi.trctag;
    pvmi_routes_connected();
    pvmi_compat_publish();
    return 0;
}

int pvm_mytid(void)
{
    PVMI_TEV(pvmi_tev_mytid());
    int rc = pvmi_enter("pvm_mytid");
    if (rc < 0)
        return rc;
    return pvmi.tid;
}

int pvm_parent(void)
{
    PVMI_TEV(pvmi_tev_parent());
    int rc = pvmi_enter("pvm_parent");
    if (rc < 0)
        return rc;
    if (pvmi.ptid == PvmParentNotSet)
        return PvmParentNotSet;
    if (pvmi.ptid == 0)
        return PvmNoParent;   /* not an error report, as in stock */
    return pvmi.ptid;
}

void pvmi_disconnect(void)
{
    pvmi_dwatch_stop();
    pvmi_routes_exit();
    pvmi_conn_close(&pvmi.pvmd);
    pvmi.tid = 0;
    pvmi.ptid = 0;
    pvmi.dead = 0;
    pvmi_errtid = 0;
    pvmi_compat_publish();
}

int pvm_exit(void)
{
    PVMI_TEV(pvmi_tev_exit());
    if (pvmi.tid <= 0)
        return 0;
    if (pvmi.output_flush)
        pvmi.output_flush();
    pvmi_mhf_clear();
    if (!pvmi.dead) {
        pvmi_routes_flush();   /* our messages first: the pvmd reports the exit */
        struct pmsg *req = pvmi_xbuf(), *rep = NULL;
        if (req && pvmi_tm_call(TM_EXIT, req, &rep) == 0)
            pmsg_free(rep);
        pmsg_free(req);
    }
    pvmi_disconnect();
    return 0;
}
