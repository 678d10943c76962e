/*
 * mixed.c - one task, several transports (PVMAM_TRANSPORT lists):
 *   mixed MASTER
 * The master runs with the default (shm,tcp) and spawns one child per
 * case below, each with its own PVMAM_TRANSPORT; every pair exchanges
 * ping-pongs with checked contents, and the link's transport must be the
 * expected one on both sides: in the master's pvmam_stats per peer, and in
 * the child's own report (pvmam_report, the console's amstat).
 *   - a child with the default, with shm,udp or with shm alone: shm;
 *   - a child with tcp alone (shm off): tcp;
 *   - a child with udp alone: no transport in common, the daemon route;
 *   - a child with tcp that publishes an shm address of another host
 *     before its tcp one: the master's shm refuses it, the link is tcp;
 *   - children with AM off that publish malformed address lists: no AM
 *     link (never a crash), every message still arrives.
 * Every wait is bounded.  Exit status 0 only if every case passed.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <pvm3.h>
#include "pvmam.h"

#define TAG_PING 1
#define TAG_PONG 2
#define TAG_DONE 3
#define NBYTES 100000
#define MAX_ROUNDS 200

static int fails;
#define CHECK(c, ...) do { if (!(c)) { fails++; printf("FAIL %s:%d: ", __FILE__, __LINE__); \
    printf(__VA_ARGS__); printf("\n"); } } while (0)

struct mcase {
    const char *name;
    const char *transport;   /* the child's PVMAM_TRANSPORT (NULL: unset) */
    const char *entry;       /* "foreign": replace its entry; else a bad one */
    const char *want;        /* the link's transport ("" = daemon route) */
};

/* A well-formed shm address that names a host that is not this one. */
#define FOREIGN_SHM "shm:00000000000000000000000000000000:1:1:1#0123456789abcdef"

static const struct mcase cases[] = {
    { "default", NULL, NULL, "shm" },
    { "tcp alone", "tcp", NULL, "tcp" },
    { "shm,udp", "shm,udp", NULL, "shm" },
    { "shm alone", "shm", NULL, "shm" },
    { "udp alone", "udp", NULL, "" },
    { "foreign shm, then tcp", "tcp", "foreign", "tcp" },
    { "bad: no transport name", "off", "garbage", "" },
    { "bad: empty", "off", "", "" },
    { "bad: two spaces", "off", FOREIGN_SHM "  tcp:127.0.0.1:1#0123456789abcdef", "" },
    { "bad: same transport twice", "off",
      "tcp:127.0.0.1:1#0123456789abcdef tcp:127.0.0.1:2#0123456789abcdef", "" },
    { "bad: three addresses", "off",
      FOREIGN_SHM " tcp:127.0.0.1:1#0123456789abcdef udp:127.0.0.1:1#0123456789abcdef", "" },
    { "bad: trailing space", "off", "tcp:127.0.0.1:1#0123456789abcdef ", "" },
    { "bad: not a string", "off", "NOSTRING", "" },
};
#define NCASES (int)(sizeof cases / sizeof cases[0])

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static unsigned char pattern(int round, int i) { return (unsigned char)(round * 31 + i * 7); }

/* ---- the child ---------------------------------------------------------- */

/* Publish `entry` as our AM address list (our real one is dropped first). */
static int publish(const char *entry)
{
    char name[32], list[512];
    snprintf(name, sizeof name, "pvmam.%x", pvm_mytid());
    if (!strcmp(entry, "foreign")) {   /* "shm:<another host> <our tcp address>" */
        int n = 0;
        char mine[256];
        if (pvm_recvinfo(name, 0, PvmMboxDefault) < 0 || pvm_upkint(&n, 1, 1) < 0 || n <= 0 ||
            n >= (int)sizeof mine || pvm_upkbyte(mine, n, 1) < 0)
            return -1;
        mine[n] = '\0';
        snprintf(list, sizeof list, "%s %s", FOREIGN_SHM, mine);
        entry = list;
    }
    pvm_delinfo(name, 0, PvmMboxDefault);
    pvm_initsend(PvmDataDefault);
    if (!strcmp(entry, "NOSTRING")) {
        int v = -5;
        pvm_pkint(&v, 1, 1);
    } else {
        int n = (int)strlen(entry);
        pvm_pkint(&n, 1, 1);
        pvm_pkbyte((char *)entry, n, 1);
    }
    return pvm_putinfo(name, pvm_getsbuf(), PvmMboxDefault) < 0 ? -1 : 0;
}

static int child(int argc, char **argv)
{
    int parent = pvm_parent();
    if (parent < 0)
        return 1;
    /* Ready, said through the mailbox: a message to the master now would
     * start our link from this side (REQ, with our real address), and the
     * master is to find it from our entry. */
    int ok = argc < 3 || publish(argv[2]) == 0;
    char name[32];
    snprintf(name, sizeof name, "mixed.ready.%x", pvm_mytid());
    pvm_initsend(PvmDataDefault);
    pvm_pkint(&ok, 1, 1);
    pvm_putinfo(name, pvm_getsbuf(), PvmMboxDefault);
    static unsigned char buf[NBYTES];
    struct timeval tmo = { 30, 0 };
    for (;;) {
        int b = pvm_trecv(parent, -1, &tmo);
        int len, tag, src;
        if (b <= 0 || pvm_bufinfo(b, &len, &tag, &src) < 0 || tag == TAG_DONE)
            break;
        /* echo the ping back as it came */
        if (len != NBYTES || pvm_upkbyte((char *)buf, NBYTES, 1) < 0)
            break;
        if (pvm_psend(parent, TAG_PONG, buf, NBYTES, PVM_BYTE) < 0)
            break;
    }
    /* answer amstat (the master's pvmam_report) until told to go */
    pvm_trecv(parent, TAG_DONE, &tmo);
    pvm_exit();
    return 0;
}

/* ---- the master ------------------------------------------------------- */

/* One ping-pong of NBYTES; 0 if the answer came back intact. */
static int pingpong(int tid, int round)
{
    static unsigned char out[NBYTES], in[NBYTES];
    for (int i = 0; i < NBYTES; i++)
        out[i] = pattern(round, i);
    pvm_initsend(round % 2 ? PvmDataRaw : PvmDataDefault);
    pvm_pkbyte((char *)out, NBYTES, 1);
    if (pvm_send(tid, TAG_PING) < 0)
        return -1;
    int len, tag, src;
    struct timeval tmo = { 10, 0 };
    int b = pvm_trecv(tid, TAG_PONG, &tmo);
    if (b <= 0 || pvm_bufinfo(b, &len, &tag, &src) < 0 || len != NBYTES ||
        pvm_upkbyte((char *)in, NBYTES, 1) < 0)
        return -1;
    return memcmp(in, out, NBYTES) ? -1 : 0;
}

static void run_case(const char *self, const struct mcase *c)
{
    printf("== %s: child PVMAM_TRANSPORT=%s\n", c->name, c->transport ? c->transport : "(unset)");
    if (c->transport)
        setenv("PVMAM_TRANSPORT", c->transport, 1);
    else
        unsetenv("PVMAM_TRANSPORT");
    char *args[3] = { "child", (char *)c->entry, NULL };
    int tid = 0;
    int got = pvm_spawn((char *)self, args, PvmTaskDefault, "", 1, &tid);
    CHECK(got == 1, "%s: spawn: %d (t%x)", c->name, got, tid);
    if (got != 1)
        return;
    int ok = 0;
    char name[32];
    snprintf(name, sizeof name, "mixed.ready.%x", tid);
    for (double end = now() + 20; now() < end; nanosleep(&(struct timespec){ 0, 10000000 }, NULL))
        if (pvm_recvinfo(name, 0, PvmMboxDefault) > 0) {
            ok = pvm_upkint(&ok, 1, 1) >= 0 && ok;
            break;
        }
    CHECK(ok, "%s: the child did not publish its entry", c->name);
    /* Round trips until the link is open (or, without AM, a fixed number):
     * every message must arrive intact on either route. */
    struct pvmam_stats st;
    int rounds = 0, bad = 0;
    double end = now() + 20;
    do {
        bad += pingpong(tid, rounds) < 0;
        rounds++;
        pvmam_stats(tid, &st);
    } while (!bad && rounds < MAX_ROUNDS && now() < end &&
             (c->want[0] ? !(st.peers_am && st.am_msgs_sent >= 3) : rounds < 20));
    CHECK(!bad, "%s: a ping-pong failed (round %d)", c->name, rounds);
    CHECK(!strcmp(st.transport, c->want), "%s: master sees transport \"%s\", want \"%s\"",
          c->name, st.transport, c->want);
    if (c->want[0])
        CHECK(st.peers_am == 1 && st.am_msgs_sent > 0 && st.am_msgs_recv > 0,
              "%s: no AM traffic (%d rounds, %llu sent over AM)", c->name, rounds,
              (unsigned long long)st.am_msgs_sent);
    else
        CHECK(st.peers_am == 0 && st.am_msgs_sent == 0 && st.am_msgs_recv == 0 &&
              st.pvmd_msgs_sent >= (uint64_t)rounds,
              "%s: AM used (%llu sent over AM, %llu via the pvmd)", c->name,
              (unsigned long long)st.am_msgs_sent, (unsigned long long)st.pvmd_msgs_sent);
    pvm_initsend(PvmDataDefault);
    pvm_send(tid, TAG_DONE);
    /* the child's side, as the console's amstat shows it */
    static struct pvmam_report r;
    int rc = pvmam_report(tid, 10000, &r);
    CHECK(rc == 0, "%s: no report from the child: %d", c->name, rc);
    if (rc == 0) {
        const char *want_tr = c->transport ? c->transport : "shm,tcp";
        CHECK(!strcmp(r.transport, want_tr) && !strcmp(r.total.transport, want_tr),
              "%s: child reports transport \"%s\" (total \"%s\"), want \"%s\"", c->name,
              r.transport, r.total.transport, want_tr);
        int k = 0;
        while (k < r.npeers && r.peer[k].tid != pvm_mytid())
            k++;
        /* a child with AM off keeps no peers */
        CHECK(k < r.npeers || !strcmp(want_tr, "off"),
              "%s: the child's report has no entry for the master", c->name);
        if (k < r.npeers) {
            CHECK(!strcmp(r.peer[k].st.transport, c->want),
                  "%s: child sees transport \"%s\", want \"%s\"", c->name,
                  r.peer[k].st.transport, c->want);
            CHECK(r.peer[k].route == (c->want[0] ? PVMAM_ROUTE_AM : PVMAM_ROUTE_PVMD),
                  "%s: child's route to the master is %d", c->name, r.peer[k].route);
        }
    }
    pvm_initsend(PvmDataDefault);
    pvm_send(tid, TAG_DONE);
    printf("%s: %d round trips, link transport \"%s\" (%llu messages over AM, %llu via the "
           "pvmd)\n", c->name, rounds, st.transport, (unsigned long long)st.am_msgs_sent,
           (unsigned long long)st.pvmd_msgs_sent);
}

int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(argv[1], "MASTER"))
        return child(argc, argv);
    if (pvm_mytid() < 0)
        return 1;
    printf("master: transport %s\n", pvmam_transport());
    CHECK(!strcmp(pvmam_transport(), "shm,tcp"), "master's transport is %s, want the default "
          "shm,tcp", pvmam_transport());
    /* the children get PVMAM_TRANSPORT only through PVM_EXPORT */
    setenv("PVM_EXPORT", "PVMAM_TRANSPORT:PVMAM_TIMEOUT", 1);
    for (int i = 0; i < NCASES; i++)
        run_case(argv[0], &cases[i]);
    printf("mixed master done: %d failure(s)\n", fails);
    pvm_exit();
    return fails ? 1 : 0;
}
