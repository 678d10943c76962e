/*
 * bistream.c - two tasks stream big messages at each other at once: each
 * sends all of a round's messages before it receives any, as MPBench's
 * bidirectional bandwidth test does.  Every send that has to wait (for
 * its window, for room in a ring or socket, for the peer's copy) must go
 * on taking in what the peer sends, or both wait for ever (the shm ring
 * that started over under a waiting send, libam/tr_shm.c reserve).
 *
 *   bistream MASTER N [ROUNDS]      (the peer is a spawned copy)
 *
 * A round is N messages each way.  Round r sends sizes of kind r % 4:
 * all 64 KiB (MPBench's size); all of a size whose fragment fills the shm
 * ring (512 KiB at the default depth) exactly in eighths, then one that
 * fills it in quarters (a record is the message, the fragment header 32,
 * the AM header 32 and the record header 24, in 64-byte lines); then a mix
 * of those, half the ring, all of it and more, and small ones.  Even
 * messages go by pvm_psend, odd ones packed (pvm_send).  Every word says who
 * sent it, the round, the message and its place, and the receiver checks
 * them all and the length.  Exit 0 when both tasks got everything intact;
 * the whole run is bounded by an alarm.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include "guard.h"

enum { TAG_PS = 0x6200, TAG_PK, TAG_REPORT };
#define LIMIT_S 60
static const int MIX[] = { 65536, 65448, 65536, 130984, 65536, 262144, 8, 524288,
                           65536, 1048576, 16384, 65448 };
#define NMIX (int)(sizeof MIX / sizeof MIX[0])

static int size_of(int r, int i)
{
    switch (r % 4) {
    case 0: return 65536;
    case 1: return 65448;
    case 2: return 130984;
    default: return MIX[i % NMIX];
    }
}
#define MAXWORDS (1048576 / 4)

static unsigned word(int from, int r, int i, int k)
{
    return (unsigned)from * 2654435761u ^ (unsigned)r * 97u ^ (unsigned)i * 40503u ^
           (unsigned)k * 69069u;
}

/* One round: n messages to peer, then n from it; returns the bad ones. */
static int round_trip(int me, int peer, int r, int n, unsigned *buf)
{
    for (int i = 0; i < n; i++) {
        int w = size_of(r, i) / 4;
        for (int k = 0; k < w; k++)
            buf[k] = word(me, r, i, k);
        if (i % 2 == 0) {
            CK(pvm_psend(peer, TAG_PS, buf, w, PVM_UINT));
        } else {
            CK(pvm_initsend(PvmDataRaw));
            CK(pvm_pkuint(buf, w, 1));
            CK(pvm_send(peer, TAG_PK));
        }
    }
    int bad = 0;
    for (int i = 0; i < n; i++) {
        int w = size_of(r, i) / 4, tid, tag, len;
        if (i % 2 == 0) {
            CK(pvm_precv(peer, TAG_PS, buf, MAXWORDS, PVM_UINT, &tid, &tag, &len));
        } else {
            int b = pvm_recv(peer, TAG_PK);
            CK(b);
            CK(pvm_bufinfo(b, &len, &tag, &tid));
            if (len == w * 4)
                CK(pvm_upkuint(buf, w, 1));
        }
        int ok = len == w * 4;
        for (int k = 0; ok && k < w; k++)
            ok = buf[k] == word(peer, r, i, k);
        if (!ok && bad++ < 5)
            fprintf(stderr, "bistream[t%x]: round %d message %d from t%x: %d bytes, %s\n",
                    pvm_mytid(), r, i, peer, len, len == w * 4 ? "wrong words" : "wrong length");
    }
    return bad;
}

int main(int argc, char **argv)
{
    int master = argc > 1 && !strcmp(argv[1], "MASTER");
    int n = argc > 2 ? atoi(argv[2]) : 1000, rounds = argc > 3 ? atoi(argv[3]) : 4;
    int me = pvm_mytid(), peer, bad = 0;
    guard_start("bistream", LIMIT_S);
    if (me < 0)
        return 1;
    unsigned *buf = malloc(sizeof *buf * MAXWORDS);
    if (!buf)
        die("malloc", -1);
    if (master) {
        char na[16], ra[16];
        snprintf(na, sizeof na, "%d", n);
        snprintf(ra, sizeof ra, "%d", rounds);
        char *args[] = { "PEER", na, ra, NULL };
        int got = pvm_spawn(argv[0], args, PvmTaskDefault, "", 1, &peer);
        if (got != 1)
            die("pvm_spawn", got == 1 ? 0 : peer);
    } else {
        peer = pvm_parent();
    }
    for (int r = 0; r < rounds; r++)
        bad += round_trip(me, peer, r, n, buf);
    free(buf);   /* before guard_report: the slave exits inside it (LeakSanitizer) */
    int pbad = guard_report(master, peer, TAG_REPORT, bad);   /* the master reports for both */
    printf("bistream: %d rounds of %d messages each way at once: %d bad here, %d at the peer\n",
           rounds, n, bad, pbad);
    pvm_exit();
    return bad || pbad;
}
