/*
 * trcjob.c - a job that calls every call stock PVM 3.4.6 traces, so that
 * tests/console/trace_calls.sh can compare the events the stock console
 * shows for it built against stock libpvm3/libgpvm3 and against
 * libpvm3am.  Every call is made a fixed number of times, whatever the
 * timing, so that counts per event kind are the same run after run.
 *
 *   trcjob            the parent: everything, with one child in a group
 *   trcjob child      the group partner
 *
 * Not called: pvm_halt (it would end the machine under the test),
 * pvm_reg_rm (a resource manager cannot unregister), pvm_getmwid and
 * pvm_setmwid (Debian's libpvm3 does not export them), and the calls stock
 * does not trace.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/time.h>
#include <pvm3.h>
#include <pvmtev.h>

#define GRP "trcgrp"

int pvm_reg_tracer(int, int, int, int, char *, int, int);

static int me;

/* The handler for tag 77: reads the int and answers with tag 78. */
static int on77(int mid)
{
    int v = 0;
    (void)mid;
    pvm_upkint(&v, 1, 1);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(me, 78);
    return 0;
}

static int match(int mid, int tid, int tag)
{
    int src = -1, t = -1, len;
    pvm_bufinfo(mid, &len, &t, &src);
    return (tid == -1 || tid == src) && (tag == -1 || tag == t);
}

/* The group part, in both tasks (instance 0 is the parent). */
static void group_part(int parent)
{
    int v = 1, sum, all[2], one, part[2] = { 10, 20 };
    pvm_joingroup(GRP);
    pvm_barrier(GRP, 2);
    pvm_gsize(GRP);
    pvm_getinst(GRP, me);
    pvm_gettid(GRP, 0);
    if (parent) {
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_bcast(GRP, 31);
    } else {
        pvm_recv(-1, 31);
    }
    sum = v;
    pvm_reduce(PvmSum, &sum, 1, PVM_INT, 32, GRP, 0);
    pvm_gather(all, &v, 1, PVM_INT, 33, GRP, 0);
    pvm_scatter(&one, part, 1, PVM_INT, 34, GRP, 0);
    pvm_barrier(GRP, 2);
    pvm_lvgroup(GRP);
}

static void child(void)
{
    int *sibs;
    pvm_parent();
    pvm_siblings(&sibs);
    group_part(0);
    pvm_exit();
}

int main(int argc, char **argv)
{
    int child_tid = 0, sleeper = 0, n, na, *fds, d = 0, idx, mid, sibn, *sibs;
    struct pvmhostinfo *hi;
    struct pvmtaskinfo *ti;
    struct pvmmboxinfo *mb;
    struct pvmminfo mi;
    struct timeval tmo = { 10, 0 };
    char *bogus[1] = { "nosuchhost.invalid" }, *sl[2] = { "30", NULL };
    int sv[1], targ[1] = { 1 }, nres, res[10], v = 7;

    if ((me = pvm_mytid()) < 0)
        return 1;
    pvm_setopt(PvmAutoErr, 0);
    if (argc > 1 && !strcmp(argv[1], "child")) {
        child();
        return 0;
    }
    pvm_getopt(PvmAutoErr);
    pvm_parent();
    pvm_siblings(&sibs);
    pvm_config(&n, &na, &hi);
    pvm_tasks(0, &n, &ti);
    pvm_archcode(hi[0].hi_arch);
    pvm_mstat(hi[0].hi_name);
    pvm_pstat(me);
    pvm_tickle(1, targ, &nres, res);
    pvm_getfds(&fds);
    pvm_start_pvmd(0, NULL, 0);   /* one runs: PvmDupHost */
    pvm_addhosts(bogus, 1, sv);
    pvm_delhosts(bogus, 1, sv);
    pvm_reg_tasker();
    pvm_reg_tasker();
    pvm_reg_hoster();
    pvm_reg_hoster();
    char mask[TEV_MASK_LENGTH];
    TEV_MASK_INIT(mask);
    pvm_reg_tracer(0, 0, 0, 0, mask, 0, 0);
    pvm_reg_tracer(0, 0, 0, 0, mask, 0, 0);

    /* contexts */
    int c = pvm_newcontext(), old = pvm_setcontext(c);
    pvm_getcontext();
    pvm_setcontext(old);
    pvm_freecontext(c);

    /* buffers */
    mid = pvm_mkbuf(PvmDataDefault);
    old = pvm_setsbuf(mid);
    pvm_getsbuf();
    pvm_packf("%d", v);
    pvm_getminfo(mid, &mi);
    pvm_setminfo(mid, &mi);
    pvm_setsbuf(old);
    pvm_freebuf(mid);

    /* mailbox, both interfaces */
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_putinfo("trcjob", pvm_getsbuf(), PvmMboxDefault);
    pvm_getmboxinfo("trcjob", &n, &mb);
    if (pvm_recvinfo("trcjob", 0, PvmMboxDefault) > 0)
        pvm_upkint(&v, 1, 1);
    pvm_delinfo("trcjob", 0, PvmMboxDefault);
    idx = pvm_insert("trc33", -1, 7);
    pvm_lookup("trc33", idx, &d);
    pvm_delete("trc33", idx);

    /* a message to ourselves, unpacked by format */
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(me, 40);
    pvm_recv(-1, 40);
    pvm_getrbuf();
    pvm_bufinfo(pvm_getrbuf(), &n, &d, &d);
    pvm_bufinfo(-5, &n, &d, &d);   /* the failure's fields too */
    pvm_unpackf("%d", &v);

    /* the other sends and receives, and more packers */
    double x = 1.5;
    char str[16] = "abc";
    pvm_psend(me, 41, &v, 1, PVM_INT);
    pvm_precv(me, 41, &v, 1, PVM_INT, &d, &d, &d);
    pvm_initsend(PvmDataDefault);
    pvm_pkstr(str);
    pvm_pkdouble(&x, 1, 1);
    pvm_mcast(&me, 0, 42);   /* stock never multicasts to the sender */
    pvm_send(me, 42);
    pvm_recv(-1, 42);
    pvm_upkstr(str);
    pvm_upkdouble(&x, 1, 1);

    /* a matcher of our own, then the old one back */
    int (*om)() = (int (*)())pvm_recvf(match);
    pvm_recvf((int (*)(int, int, int))om);

    /* a message handler: it runs inside trecv and makes the message
     * trecv waits for */
    int h = pvm_addmhf(-1, 77, -1, on77);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    pvm_send(me, 77);
    pvm_trecv(-1, 78, &tmo);
    pvm_delmhf(h);

    /* the child, the group, its exit */
    if (pvm_spawn("trcjob", (char *[]){ "child", NULL }, PvmTaskDefault, "", 1, &child_tid) == 1) {
        pvm_notify(PvmTaskExit, 99, 1, &child_tid);
        group_part(1);
        pvm_recv(-1, 99);
    }
    pvm_probe(-1, 12345);
    pvm_nrecv(-1, 12345);

    /* a task that is not a PVM program, to signal and kill */
    if (pvm_spawn("/bin/sleep", sl, PvmTaskDefault, "", 1, &sleeper) == 1) {
        pvm_sendsig(sleeper, 0);
        pvm_kill(sleeper);
    }
    (void)sibn;
    pvm_exit();
    return 0;
}
