/*
 * svc.c - services test program, built against stock libpvm3 + libgpvm3
 * (svc_stock) and against libpvm3am (svc_am).  The master runs every
 * check and spawns helpers of both kinds by name; svc.sh runs the master
 * of each kind and compares what they print.  Each check prints "ok" or
 * "FAIL" with the values seen.
 *
 *   svc_X            master
 *   svc_X grp        mixed-group member (collectives, exact results)
 *   svc_X wait       waits to be killed
 *   svc_X talk CTX   sends tag 31 in context CTX, then in context 0
 *   svc_X hmf        sends three tag-40 messages, then one tag 41
 *   svc_X put        stores "svc-late" in the mailbox after a delay
 *   svc_X print      prints two lines (for pvm_catchout)
 *   svc_X bad        joins "bad" and reduces with a different count
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/time.h>
#include <pvm3.h>

#define G "mix"
#define NMEM 4
static int failures;

static void check(int ok, const char *what, long a, long b)
{
    printf("%s %s (%ld %ld)\n", ok ? "ok" : "FAIL", what, a, b);
    if (!ok)
        failures++;
}

static int spawn1(const char *kind, char *arg1, char *arg2)
{
    char name[32], *argv[3] = { arg1, arg2, NULL };
    int tid = 0;
    snprintf(name, sizeof name, "svc_%s", kind);
    if (pvm_spawn(name, argv, PvmTaskDefault, "", 1, &tid) != 1)
        return tid < 0 ? tid : -1;
    return tid;
}

static struct timeval tv(int ms) { struct timeval t = { ms / 1000, (ms % 1000) * 1000 }; return t; }

/* ---- group member: the same sequence for every member ---------------- */

static void bor(int *t, void *x, void *y, int *n, int *info)
{
    for (int i = 0; i < *n; i++)
        ((int *)x)[i] |= ((int *)y)[i];
    *info = *t == PVM_INT ? 0 : PvmBadParam;
}

static int group_ops(int master)
{
    int bad = 0, me = pvm_mytid();
    int inst = master ? pvm_getinst(G, me) : pvm_joingroup(G);
    if (inst < 0)
        return 100;
    pvm_barrier(G, NMEM);
    /* broadcast from instance 0 in the user's context */
    if (inst == 0) {
        int v = 4242;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        if (pvm_bcast(G, 10) < 0)
            bad++;
    } else {
        int v = 0;
        pvm_recv(-1, 10);
        pvm_upkint(&v, 1, 1);
        bad += v != 4242;
    }
    /* reduce: ints to 0, doubles to 1, min to 2, product to 3, user fn to 0 */
    int s[5];
    for (int j = 0; j < 5; j++)
        s[j] = (inst + 1) * (j + 1);
    if (pvm_reduce(PvmSum, s, 5, PVM_INT, 11, G, 0) < 0)
        bad++;
    if (inst == 0)
        for (int j = 0; j < 5; j++)
            bad += s[j] != 10 * (j + 1);
    double d = inst + 0.5;
    pvm_reduce(PvmMax, &d, 1, PVM_DOUBLE, 12, G, 1);
    if (inst == 1)
        bad += d != 3.5;
    int mn = inst + 1;
    pvm_reduce(PvmMin, &mn, 1, PVM_INT, 13, G, 2);
    if (inst == 2)
        bad += mn != 1;
    int pr = inst + 1;
    pvm_reduce(PvmProduct, &pr, 1, PVM_INT, 14, G, 3);
    if (inst == 3)
        bad += pr != 24;
    int bits = 1 << inst;
    pvm_reduce(bor, &bits, 1, PVM_INT, 15, G, 0);
    if (inst == 0)
        bad += bits != 15;
    long l = 100000L * (inst + 1);
    float f = 0.25f * (float)(inst + 1);
    pvm_reduce(PvmSum, &l, 1, PVM_LONG, 16, G, 3);
    pvm_reduce(PvmSum, &f, 1, PVM_FLOAT, 17, G, 3);
    if (inst == 3)
        bad += l != 1000000L || f != 2.5f;
    /* gather to 1, scatter from 2 */
    int mine[2] = { inst, inst * 10 }, all[2 * NMEM];
    pvm_gather(all, mine, 2, PVM_INT, 18, G, 1);
    if (inst == 1)
        for (int i = 0; i < NMEM; i++)
            bad += all[2 * i] != i || all[2 * i + 1] != 10 * i;
    int src[NMEM], got = -1;
    for (int i = 0; i < NMEM; i++)
        src[i] = 100 + i;
    pvm_scatter(&got, src, 1, PVM_INT, 19, G, 2);
    bad += got != 100 + inst;
    bad += pvm_gsize(G) != NMEM;
    bad += pvm_gettid(G, inst) != me;
    bad += pvm_getinst(G, me) != inst;
    pvm_barrier(G, NMEM);
    pvm_lvgroup(G);
    if (!master) {   /* report to the master */
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&bad, 1, 1);
        pvm_send(pvm_parent(), 99);
    }
    return bad;
}

static void test_groups(void)
{
    /* join first so the master is instance 0, then spawn both kinds */
    char *kinds[] = { "stock", "am", "stock" };
    int inst = pvm_joingroup(G);
    check(inst == 0, "joingroup first instance", inst, 0);
    for (int i = 0; i < 3; i++)
        spawn1(kinds[i], "grp", NULL);
    int bad = group_ops(1);
    for (int i = 0; i < 3; i++) {
        int b = -1;
        struct timeval t = tv(20000);
        if (pvm_trecv(-1, 99, &t) > 0)
            pvm_upkint(&b, 1, 1);
        bad += b;
    }
    check(bad == 0, "mixed group: bcast, reduce (sum max min product user long float), gather, scatter, queries", bad, 0);
}

/* ---- everything else ------------------------------------------------- */

static void test_notify(void)
{
    int t[2] = { spawn1("stock", "wait", NULL), spawn1("am", "wait", NULL) };
    check(t[0] > 0 && t[1] > 0, "spawn waiters", t[0] > 0, t[1] > 0);
    check(pvm_notify(PvmTaskExit, 20, 2, t) == 0, "notify TaskExit", 0, 0);
    usleep(200000);
    pvm_kill(t[0]);
    pvm_kill(t[1]);
    int seen = 0;
    for (int i = 0; i < 2; i++) {
        struct timeval w = tv(10000);
        int v = 0;
        if (pvm_trecv(-1, 20, &w) > 0 && pvm_upkint(&v, 1, 1) == 0 && (v == t[0] || v == t[1]))
            seen++;
    }
    check(seen == 2, "exit notifications for a stock and an am child", seen, 2);
    int ghost = (pvm_mytid() & ~0x3ffff) | 0x3fff0;
    pvm_notify(PvmTaskExit, 21, 1, &ghost);
    struct timeval w = tv(5000);
    int v = 0;
    int got = pvm_trecv(-1, 21, &w) > 0 && pvm_upkint(&v, 1, 1) == 0 && v == ghost;
    check(got, "exit notification for a task that does not exist", got, 1);
    check(pvm_notify(PvmTaskExit, 20, 0, t) == PvmBadParam, "notify count 0", 0, 0);
}

static void test_hosts(void)
{
    int rc = pvm_notify(PvmHostAdd, 22, -1, NULL);
    check(rc == 0, "notify HostAdd", rc, 0);
    char *names[] = { "no-such-host.invalid" };
    int sv = 1;
    rc = pvm_addhosts(names, 1, &sv);
    check(rc == 0 && sv < 0, "addhosts bogus host", rc, sv);
    rc = pvm_delhosts(names, 1, &sv);
    check(rc == 0 && sv < 0, "delhosts bogus host", rc, sv);
    check(pvm_addhosts(names, 0, &sv) == PvmBadParam, "addhosts count 0", 0, 0);
    rc = pvm_notify(PvmHostAdd, 22, 0, NULL);
    check(rc == 0, "notify HostAdd cancel", rc, 0);
    int bogus = 0x7ffc0000;
    pvm_notify(PvmHostDelete, 23, 1, &bogus);
    struct timeval w = tv(5000);
    int v = 0;
    int got = pvm_trecv(-1, 23, &w) > 0 && pvm_upkint(&v, 1, 1) == 0;
    check(got && v == bogus, "HostDelete notification for a host that does not exist", got, v == bogus);
    struct timeval clk, delta;
    rc = pvm_hostsync(pvm_tidtohost(pvm_mytid()), &clk, &delta);
    check(rc == 0 && clk.tv_sec > 0 && (delta.tv_sec == 0 || delta.tv_sec == -1), "hostsync own host", rc,
          delta.tv_sec == 0 || delta.tv_sec == -1);
    rc = pvm_hostsync(0x7ffc0000, &clk, &delta);
    check(rc < 0, "hostsync bogus host", rc < 0, 1);
}

static void test_contexts(void)
{
    int c = pvm_newcontext();
    check(c > 0, "newcontext", c > 0, 1);
    char cs[32];
    snprintf(cs, sizeof cs, "%d", c);
    int a = spawn1("stock", "talk", cs), b = spawn1("am", "talk", cs);
    char s[64];
    int mixups = 0;
    for (int i = 0; i < 2; i++) {   /* context 0: only the "in-0" messages */
        pvm_recv(-1, 31);
        pvm_upkstr(s);
        mixups += strcmp(s, "in-0") != 0;
    }
    struct timeval w = tv(300);
    mixups += pvm_trecv(-1, 31, &w) != 0;
    int old = pvm_setcontext(c);
    for (int i = 0; i < 2; i++) {
        pvm_recv(-1, 31);
        pvm_upkstr(s);
        mixups += strcmp(s, "in-c") != 0;
    }
    pvm_setcontext(old);
    check(mixups == 0 && a > 0 && b > 0, "messages stay in their context (stock and am senders)", mixups, 0);
    check(pvm_freecontext(c) == 0, "freecontext", 0, 0);
}

static void test_mbox(void)
{
    int v = 7, rc;
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&v, 1, 1);
    rc = pvm_putinfo("svc-box", pvm_getsbuf(), PvmMboxDefault);
    check(rc == 0, "putinfo", rc, 0);
    rc = pvm_recvinfo("svc-box", 0, PvmMboxDefault);
    v = 0;
    if (rc > 0)
        pvm_upkint(&v, 1, 1);
    check(rc > 0 && v == 7, "recvinfo", rc > 0, v);
    int n = 0;
    struct pvmmboxinfo *ci;
    rc = pvm_getmboxinfo("svc-*", &n, &ci);
    check(rc == 0 && n == 1 && !strcmp(ci[0].mi_name, "svc-box"), "getmboxinfo", rc, n);
    check(pvm_delinfo("svc-box", 0, 0) == 0, "delinfo", 0, 0);
    rc = pvm_recvinfo("svc-box", 0, PvmMboxDefault);
    check(rc == PvmNotFound, "recvinfo of a missing name", rc, PvmNotFound);
    check(pvm_recvinfo(NULL, 0, 0) == PvmBadParam, "recvinfo NULL name", 0, 0);
    rc = pvm_insert("svc-old", -1, 55);
    int d = 0;
    int rc2 = pvm_lookup("svc-old", -1, &d);
    check(rc >= 0 && rc2 >= 0 && d == 55, "insert/lookup (3.3)", rc, d);
    check(pvm_delete("svc-old", rc) >= 0, "delete (3.3)", 0, 0);
    spawn1("am", "put", NULL);
    rc = pvm_recvinfo("svc-late", 0, PvmMboxWaitForInfo);
    v = 0;
    if (rc > 0)
        pvm_upkint(&v, 1, 1);
    check(rc > 0 && v == 9, "recvinfo waits for a later putinfo", rc > 0, v);
    pvm_delinfo("svc-late", 0, 0);
}

static int hcalls, hsum;
static int handler(int mid)
{
    int v = 0;
    pvm_upkint(&v, 1, 1);   /* the message is the receive buffer */
    hsum += v;
    hcalls++;
    hcalls += pvm_getsbuf() != 0 ? 100 : 0;   /* no send buffer inside */
    pvm_initsend(PvmDataDefault);              /* left over: freed by the library */
    return mid > 0 ? 0 : -1;
}

static void test_mhf(void)
{
    int id = pvm_addmhf(-1, 40, 0, handler);
    check(id >= 0, "addmhf", id >= 0, 1);
    int rc = pvm_addmhf(-1, 40, -1, handler);
    check(rc == PvmExists, "addmhf overlapping", rc, PvmExists);
    int sb = pvm_initsend(PvmDataDefault);
    spawn1("stock", "hmf", NULL);
    pvm_recv(-1, 41);
    int rb = pvm_getrbuf();
    check(hcalls == 3 && hsum == 15, "handler ran for each tag-40 message, not the queue", hcalls, hsum);
    check(pvm_getsbuf() == sb && rb > 0, "buffers restored around handlers", pvm_getsbuf() == sb, rb > 0);
    struct timeval w = tv(200);
    check(pvm_trecv(-1, 40, &w) == 0, "handled messages never queued", 0, 0);
    check(pvm_delmhf(id) == 0, "delmhf", 0, 0);
    check(pvm_delmhf(id) == PvmNotFound, "delmhf twice", 0, 0);
    check(pvm_delmhf(-1) == PvmBadParam, "delmhf -1", 0, 0);
}

static void test_badinput(void)
{
    check(pvm_joingroup(NULL) == PvmNullGroup, "joingroup NULL", 0, 0);
    check(pvm_joingroup("") == PvmNullGroup, "joingroup empty", 0, 0);
    int rc = pvm_lvgroup("svc-nosuch");
    check(rc < 0, "lvgroup of a group never joined", rc, 0);
    rc = pvm_gettid("svc-nosuch", 0);
    check(rc < 0, "gettid in a missing group", rc, 0);
    rc = pvm_gsize("svc-nosuch");
    check(rc <= 0, "gsize of a missing group", rc, 0);
    rc = pvm_barrier("svc-nosuch", 2);
    check(rc < 0, "barrier in a group not joined", rc, 0);
    int x = 1;
    rc = pvm_reduce(PvmSum, &x, 1, PVM_INT, 50, "svc-nosuch", 0);
    check(rc < 0, "reduce in a group not joined", rc, 0);
    rc = pvm_reduce(PvmSum, NULL, 1, PVM_INT, 50, G, 0);
    check(rc == PvmBadParam, "reduce NULL data", rc, PvmBadParam);
    /* different counts: the root gets fewer items than it asks for */
    pvm_joingroup("bad");
    spawn1("am", "bad", NULL);
    pvm_barrier("bad", 2);
    int v[4] = { 1, 2, 3, 4 };
    rc = pvm_reduce(PvmSum, v, 4, PVM_INT, 51, "bad", 0);
    check(rc < 0, "reduce with mismatched counts fails without hanging", rc, 0);
    pvm_barrier("bad", 2);   /* nobody leaves before both reduced */
    pvm_lvgroup("bad");
}

static void test_catchout(void)
{
    pvm_catchout(stdout);
    int t = spawn1("stock", "print", NULL);
    pvm_notify(PvmTaskExit, 60, 1, &t);
    pvm_recv(-1, 60);
    t = spawn1("am", "print", NULL);
    pvm_notify(PvmTaskExit, 60, 1, &t);
    pvm_recv(-1, 60);
    fflush(stdout);
}

static int child(const char *role, char **argv)
{
    if (!strcmp(role, "grp"))
        return group_ops(0);
    if (!strcmp(role, "wait")) {
        pvm_recv(-1, 12345);
        return 0;
    }
    if (!strcmp(role, "talk")) {
        int c = atoi(argv[2]);
        int old = pvm_setcontext(c);
        pvm_initsend(PvmDataDefault);
        pvm_pkstr("in-c");
        pvm_send(pvm_parent(), 31);
        pvm_setcontext(0);
        pvm_initsend(PvmDataDefault);
        pvm_pkstr("in-0");
        pvm_send(pvm_parent(), 31);
        pvm_setcontext(old);
        return 0;
    }
    if (!strcmp(role, "hmf")) {
        for (int i = 4; i <= 6; i++) {
            pvm_initsend(PvmDataDefault);
            pvm_pkint(&i, 1, 1);
            pvm_send(pvm_parent(), 40);
        }
        pvm_initsend(PvmDataDefault);
        pvm_send(pvm_parent(), 41);
        return 0;
    }
    if (!strcmp(role, "put")) {
        usleep(500000);
        int v = 9;
        pvm_initsend(PvmDataDefault);
        pvm_pkint(&v, 1, 1);
        pvm_putinfo("svc-late", pvm_getsbuf(), PvmMboxPersistent);
        return 0;
    }
    if (!strcmp(role, "print")) {
        printf("hello from a child\nsecond line");
        fflush(stdout);
        printf(" ends here\n");
        return 0;
    }
    if (!strcmp(role, "bad")) {
        pvm_joingroup("bad");
        pvm_barrier("bad", 2);
        int v[2] = { 10, 20 };
        pvm_reduce(PvmSum, v, 2, PVM_INT, 51, "bad", 0);
        pvm_barrier("bad", 2);
        pvm_lvgroup("bad");
        return 0;
    }
    return 1;
}

int main(int argc, char **argv)
{
    if (pvm_mytid() < 0)
        return 2;
    pvm_setopt(PvmAutoErr, 0);
    if (argc > 1) {
        int rc = child(argv[1], argv);
        pvm_exit();
        return rc;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    test_notify();
    test_hosts();
    test_contexts();
    test_mbox();
    test_mhf();
    test_groups();
    test_badinput();
    test_catchout();
    printf("%s: %d failures\n", failures ? "FAIL" : "PASS", failures);
    pvm_exit();
    return failures != 0;
}
