/*
 * frozen.c - frozen groups answer from the frozen membership.
 * Built against stock (-lgpvm3 -lpvm3) and libpvm3am; frozen.sh runs
 * every master/child combination and compares what they print.
 *
 * The master (instance 0) and one spawned child (instance 1) join a
 * group F and a group D, barrier on both and freeze F.  The master
 * leaves both groups and tells the child, which then asks about both:
 * F must still answer from the frozen map (the master's tid, instance 0,
 * size 2, and pvm_bcast reaches the departed master), D is asked of
 * pvmgs.  After the child leaves F too, its map is gone.
 *
 * usage: frozen CHILD   (CHILD: program name the pvmd can spawn)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>

enum { T_GO = 1, T_RESULT = 2, T_BCAST = 3, NRES = 14 };

static const char *label[NRES] = {
    "F freeze", "F gettid(0)", "F getinst(master)", "F gsize", "F gettid(1)",
    "F getinst(child)", "F bcast", "D gettid(0)", "D getinst(master)", "D gsize",
    "F gettid(0) after child left", "F gsize after child left",
    "F lvgroup (child)", "D lvgroup (child)",
};

static struct timeval tmo = { 30, 0 };

static int child(char *fg, char *dg)
{
    int master = pvm_parent(), me = pvm_mytid(), r[NRES];
    int ok = pvm_joingroup(fg) == 1 && pvm_joingroup(dg) == 1;
    ok = ok && pvm_barrier(fg, 2) == 0;
    r[0] = pvm_freezegroup(fg, 2);
    ok = ok && pvm_barrier(dg, 2) == 0;
    if (!ok || pvm_trecv(master, T_GO, &tmo) <= 0) {
        fprintf(stderr, "child: setup failed\n");
        return 1;
    }
    r[1] = pvm_gettid(fg, 0);
    r[2] = pvm_getinst(fg, master);
    r[3] = pvm_gsize(fg);
    r[4] = pvm_gettid(fg, 1);
    r[5] = pvm_getinst(fg, me);
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&me, 1, 1);
    r[6] = pvm_bcast(fg, T_BCAST);
    r[7] = pvm_gettid(dg, 0);
    r[8] = pvm_getinst(dg, master);
    r[9] = pvm_gsize(dg);
    r[12] = pvm_lvgroup(fg);
    r[10] = pvm_gettid(fg, 0);
    r[11] = pvm_gsize(fg);
    r[13] = pvm_lvgroup(dg);
    /* tids as names so both builds print the same */
    for (int i = 0; i < NRES; i++)
        r[i] = r[i] == master ? 1000 : r[i] == me ? 1001 : r[i];
    pvm_initsend(PvmDataDefault);
    pvm_pkint(r, NRES, 1);
    pvm_send(master, T_RESULT);
    pvm_exit();
    return 0;
}

static int master(char *childname)
{
    int me = pvm_mytid(), kid, r[NRES], fail = 0;
    if (me < 0)
        return 1;
    char fg[64], dg[64];
    snprintf(fg, sizeof fg, "frozen.F.%x", me);
    snprintf(dg, sizeof dg, "frozen.D.%x", me);
    char *args[] = { fg, dg, NULL };
    if (pvm_joingroup(fg) != 0 || pvm_joingroup(dg) != 0
            || pvm_spawn(childname, args, PvmTaskDefault, NULL, 1, &kid) != 1) {
        printf("FAIL: setup\n");
        return 1;
    }
    pvm_barrier(fg, 2);
    int fz = pvm_freezegroup(fg, 2);
    pvm_barrier(dg, 2);
    printf("master: freeze %d, leave F %d, leave D %d\n", fz, pvm_lvgroup(fg), pvm_lvgroup(dg));
    pvm_initsend(PvmDataDefault);
    pvm_send(kid, T_GO);
    if (pvm_trecv(kid, T_RESULT, &tmo) <= 0 || pvm_upkint(r, NRES, 1) < 0) {
        printf("FAIL: no result from the child\n");
        return 1;
    }
    for (int i = 0; i < NRES; i++)
        printf("%s = %s%d\n", label[i], r[i] == 1000 ? "master " : r[i] == 1001 ? "child " : "",
               r[i] >= 1000 ? 0 : r[i]);
    struct timeval quick = { 5, 0 };
    int from = -1, got = pvm_trecv(kid, T_BCAST, &quick) > 0 && pvm_upkint(&from, 1, 1) >= 0;
    printf("master got the child's bcast: %s\n", got && from == kid ? "yes" : "no");
    /* what stock does: the frozen map answers, the dynamic group does not */
    const int want[] = { 2, 1000, 0, 2, 1001, 1, 0 };
    for (int i = 0; i < 7; i++)
        if (r[i] != want[i]) {
            printf("FAIL: %s is %d, want %d\n", label[i], r[i], want[i]);
            fail = 1;
        }
    if (!got || from != kid) {
        printf("FAIL: the bcast to the frozen group did not reach the master\n");
        fail = 1;
    }
    printf("%s\n", fail ? "FAIL" : "PASS");
    pvm_exit();
    return fail;
}

int main(int argc, char **argv)
{
    if (pvm_parent() > 0 && argc == 3)
        return child(argv[1], argv[2]);
    if (argc != 2) {
        fprintf(stderr, "usage: %s CHILD\n", argv[0]);
        return 2;
    }
    return master(argv[1]);
}
