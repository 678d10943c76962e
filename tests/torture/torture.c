/*
 * torture.c - the one program of the torture test (tests/torture/README.md),
 * built twice: against libpvm3am (torture_am) and stock libpvm3
 * (torture_stock), so stock tasks can be mixed in.  Its first argument
 * picks the role:
 *   RUN ...        the runner: scenarios one after another (runner.c)
 *   W ...          a scenario's task, spawned (worker.c)
 *   HALT ... / H   the halt scenario, its runner and tasks (halt.c)
 *   FIND from [pattern count]  seeds that cover each pattern and ending,
 *                  or the first count seeds of a pattern (for make check)
 *   SHOW seed      a seed's shape in words
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shape.h"
#include "torture.h"

double torture_slow(void)
{
    const char *v = getenv("TORTURE_SLOW");
    double f = v ? atof(v) : 1;
    return f >= 1 ? f : 1;
}

static int has(const struct t_shape *s, int (*pred)(const struct t_shape *, int))
{
    for (int i = 0; i < s->n; i++)
        if (pred(s, i))
            return 1;
    return 0;
}
static int is_stock(const struct t_shape *s, int i) { return s->t[i].stock; }
static int receives(const struct t_shape *s, int i)
{
    for (int j = 0; j < s->n; j++)
        if (j != i && shape_expected(s, j, i, NULL) > 0)
            return 1;
    return 0;
}
static int is_big(const struct t_shape *s, int i)
{
    for (int k = 0; k < s->t[i].nmsg; k++)
        if (s->t[i].msg[k].size > 8u << 20)
            return 1;
    return 0;
}

/* The first seed from `from` on for each pattern x ending, then a few
 * other classes: stock tasks mixed in, catchout, many tasks, big
 * messages; then each receive mode but pvm_trecv(-1,-1) by a task that
 * receives something, each collective, a collective phase with a
 * stock member and a task that takes its senders' messages by tag in a
 * shuffled order.  New classes go at the end, so the seeds found for the
 * older ones (and the transports torture.sh --check gives them) stay. */
int torture_find(int argc, char **argv)
{
    uint64_t from = argc > 2 ? strtoull(argv[2], NULL, 10) : 1;
    static struct t_shape s;
    if (argc > 4) {   /* FIND from pattern-number count */
        int p = atoi(argv[3]), c = atoi(argv[4]);
        for (uint64_t seed = from; c > 0 && seed < from + 1000000; seed++) {
            shape_draw(seed, &s);
            if (s.pattern == p)
                printf("%llu\n", (unsigned long long)seed), c--;
        }
        return 0;
    }
    enum { C_STOCK = P_N * E_N, C_CATCH, C_MANY, C_BIG, C_RECV, C_COLL = C_RECV + R_OLD - 1,
           C_COLLSTOCK = C_COLL + CO_N, C_SHUFFLE,
           /* the fourth stream's (shape.c draw_more) */
           C_RECV2, C_MCSELF = C_RECV2 + R_N - R_OLD, C_MCDUP, C_MCGONE, C_CROWD, C_PKILL, C_JITTER,
           C_N };
    uint64_t found[C_N] = { 0 };
    int left = C_N;
    static struct t_shape full;
    for (uint64_t seed = from; left && seed < from + 200000; seed++) {
        /* the older classes on the shape without the fourth stream's draws,
         * so the seeds found for them stay what they were */
        shape_draw_old(seed, &s);
        int c[TW_MAX * 2 + E_N + R_N + CO_N + 16], nc = 0;
        int anyend = 0;
        for (int i = 0; i < s.n; i++)
            if (s.t[i].ending != E_NORMAL) {
                c[nc++] = s.pattern * E_N + s.t[i].ending;
                anyend = 1;
            }
        if (!anyend)
            c[nc++] = s.pattern * E_N + E_NORMAL;
        if (has(&s, is_stock))
            c[nc++] = C_STOCK;
        if (s.catchout && s.pattern != P_EXITRACE)
            c[nc++] = C_CATCH;
        if (s.n > 6)
            c[nc++] = C_MANY;
        if (has(&s, is_big))
            c[nc++] = C_BIG;
        for (int i = 0; i < s.n; i++)
            if (s.t[i].recv != R_ANY && receives(&s, i))
                c[nc++] = C_RECV + s.t[i].recv - 1;
        for (int r = 0; r < s.coll.nround && s.coll.members; r++)
            c[nc++] = C_COLL + s.coll.r[r].kind;
        for (int i = 0; i < s.n; i++)
            if (s.t[i].stock && (s.coll.members & (1u << i))) {
                c[nc++] = C_COLLSTOCK;
                break;
            }
        for (int i = 0; i < s.n; i++)
            if (s.t[i].shuffle && receives(&s, i)) {
                c[nc++] = C_SHUFFLE;
                break;
            }
        shape_draw(seed, &full);
        int seen = 0;
        for (int i = 0; i < full.n; i++) {
            /* no polls, which take anything by pvm_nrecv(-1, -1) */
            if (full.t[i].recv >= R_OLD && receives(&full, i) && full.t[i].order != O_INTERLEAVE)
                c[nc++] = C_RECV2 + full.t[i].recv - R_OLD;
            for (int o = 0; o < full.t[i].nop && o < 3; o++) {   /* early, at a busy one */
                int v = full.t[i].op[o].a;
                if (full.t[i].op[o].kind == 'K' && !shape_gone(&full, i) &&
                    (full.t[v].nmsg >= 3 || receives(&full, v)))
                    c[nc++] = C_PKILL;
            }
            for (int k = 0; k < full.t[i].nmsg; k++) {
                const struct t_msg *m = &full.t[i].msg[k];
                int gone = 0, stay = 0, f = 0;
                for (int j = 0; j < full.n; j++)
                    if (m->how == H_MCAST && (m->dst & (1u << j)))
                        shape_gone(&full, j) ? gone++ : stay++;
                if ((m->list & M_SELF) && full.t[i].ending == E_NORMAL && !(seen & 1))
                    c[nc++] = C_MCSELF, f |= 1;
                if ((m->list & M_DUP) && !(seen & 2))
                    c[nc++] = C_MCDUP, f |= 2;
                if (gone && stay && !(seen & 4))
                    c[nc++] = C_MCGONE, f |= 4;
                seen |= f;
            }
        }
        if (full.crowd)
            c[nc++] = C_CROWD;
        if (full.jitter)
            c[nc++] = C_JITTER;
        for (int j = 0; j < nc; j++)
            if (!found[c[j]]) {
                found[c[j]] = seed;
                left--;
            }
    }
    for (int j = 0; j < C_N; j++)
        if (found[j])
            printf("%llu\n", (unsigned long long)found[j]);
    return 0;
}

int main(int argc, char **argv)
{
    const char *role = argc > 1 ? argv[1] : "";
    if (!strcmp(role, "W"))
        return torture_worker(argc, argv);
    if (!strcmp(role, "H"))
        return torture_halt_worker(argc, argv);
    if (!strcmp(role, "RUN"))
        return torture_runner(argc, argv);
    if (!strcmp(role, "HALT"))
        return torture_halt(argc, argv);
    if (!strcmp(role, "FIND"))
        return torture_find(argc, argv);
    if (!strcmp(role, "SHOW") && argc > 2) {
        static struct t_shape s;
        static char buf[65536];
        shape_draw(strtoull(argv[2], NULL, 10), &s);
        shape_describe(&s, buf, sizeof buf);
        fputs(buf, stdout);
        return 0;
    }
    fprintf(stderr, "usage: see tests/torture/README.md\n");
    return 2;
}
