/*
 * test_linkstate.c - the link state machine (pvmam/linkstate.c): every
 * legal change is taken, every other one refused and logged with the old
 * state kept, a dying link lands in the dead state that keeps its
 * traffic's direction, and docs/link-setup.md names the same states and
 * the same legal changes as the code.
 *
 * The legal changes are written out here again, from the doc's transition
 * tables, so that a change to the code's table shows up as a failure.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "pvmam_int.h"

static const struct { enum pvmx_link from, to; } legal[] = {
    { PVMX_UNKNOWN, PVMX_STOCK }, { PVMX_UNKNOWN, PVMX_KNOWN },
    { PVMX_STOCK, PVMX_KNOWN },
    { PVMX_KNOWN, PVMX_STOCK }, { PVMX_KNOWN, PVMX_S_CONNECTING }, { PVMX_KNOWN, PVMX_L_ACCEPTED },
    { PVMX_S_CONNECTING, PVMX_S_SWITCHING }, { PVMX_S_CONNECTING, PVMX_STOCK },
    { PVMX_S_CONNECTING, PVMX_DEAD_HELD }, { PVMX_S_CONNECTING, PVMX_OPEN },
    { PVMX_S_SWITCHING, PVMX_OPEN }, { PVMX_S_SWITCHING, PVMX_DEAD_S_SWITCHING },
    { PVMX_L_ACCEPTED, PVMX_L_SWITCHED }, { PVMX_L_ACCEPTED, PVMX_DEAD_HELD },
    { PVMX_L_ACCEPTED, PVMX_OPEN },
    { PVMX_L_SWITCHED, PVMX_OPEN }, { PVMX_L_SWITCHED, PVMX_DEAD_L_SWITCHED },
    { PVMX_OPEN, PVMX_DEAD }, { PVMX_OPEN, PVMX_L_SWITCHED },
    { PVMX_DEAD_HELD, PVMX_DEAD }, { PVMX_DEAD_HELD, PVMX_DEAD_S_SWITCHING }, { PVMX_DEAD_HELD, PVMX_DEAD_L_SWITCHED },
    { PVMX_DEAD_L_SWITCHED, PVMX_DEAD }, { PVMX_DEAD_S_SWITCHING, PVMX_DEAD },
};

static int expect_legal(int from, int to)
{
    for (size_t i = 0; i < sizeof legal / sizeof legal[0]; i++)
        if ((int)legal[i].from == from && (int)legal[i].to == to)
            return 1;
    return 0;
}

/* stderr into a file while f runs; returns what was written (static). */
static const char *captured(void (*f)(void *), void *arg)
{
    static char buf[4096];
    FILE *t = tmpfile();
    ck_assert_ptr_nonnull(t);
    fflush(stderr);
    int saved = dup(2);
    dup2(fileno(t), 2);
    f(arg);
    fflush(stderr);
    dup2(saved, 2);
    close(saved);
    rewind(t);
    size_t n = fread(buf, 1, sizeof buf - 1, t);
    buf[n] = '\0';
    fclose(t);
    return buf;
}

struct change { struct pvmx_peer *p; enum pvmx_link to; int rc; };
static void do_change(void *a)
{
    struct change *c = a;
    c->rc = pvmx_link_set(c->p, c->to);
}

START_TEST(every_pair)
{
    pvmx.cfg.verbose = 1;
    for (int from = 0; from < PVMX_NLINK; from++)
        for (int to = 0; to < PVMX_NLINK; to++) {
            struct pvmx_peer p = { .tid = 0x40001, .link = from };
            struct change c = { &p, to, 99 };
            const char *log = captured(do_change, &c);
            if (from == to) {
                ck_assert_int_eq(c.rc, 0);
                ck_assert_int_eq(p.link, from);
                ck_assert_str_eq(log, "");
            } else if (expect_legal(from, to)) {
                ck_assert_msg(c.rc == 0 && (int)p.link == to, "%s -> %s refused",
                              pvmx_link_table[from].name, pvmx_link_table[to].name);
                ck_assert_ptr_nonnull(strstr(log, pvmx_link_table[to].name));
                ck_assert_ptr_null(strstr(log, "illegal"));
            } else {
                ck_assert_msg(c.rc == -1 && (int)p.link == from, "%s -> %s taken",
                              pvmx_link_table[from].name, pvmx_link_table[to].name);
                ck_assert_ptr_nonnull(strstr(log, "illegal"));
            }
            ck_assert_int_eq(pvmx_link_legal(from, to), from != to && expect_legal(from, to));
        }
    /* out of range never passes */
    ck_assert_int_eq(pvmx_link_legal(PVMX_OPEN, PVMX_NLINK), 0);
    ck_assert_int_eq(pvmx_link_legal(PVMX_NLINK, PVMX_OPEN), 0);
}
END_TEST

START_TEST(quiet_without_verbose)
{
    pvmx.cfg.verbose = 0;
    struct pvmx_peer p = { .tid = 0x40001, .link = PVMX_OPEN };
    struct change c = { &p, PVMX_KNOWN, 99 };
    ck_assert_str_eq(captured(do_change, &c), "");
    ck_assert_int_eq(c.rc, -1);
    ck_assert_int_eq(p.link, PVMX_OPEN);
}
END_TEST

START_TEST(dying)
{
    static const enum pvmx_link of[PVMX_NLINK] = {
        [PVMX_UNKNOWN] = PVMX_UNKNOWN, [PVMX_STOCK] = PVMX_STOCK, [PVMX_KNOWN] = PVMX_KNOWN,
        [PVMX_S_CONNECTING] = PVMX_DEAD_HELD, [PVMX_L_ACCEPTED] = PVMX_DEAD_HELD,
        [PVMX_S_SWITCHING] = PVMX_DEAD_S_SWITCHING, [PVMX_L_SWITCHED] = PVMX_DEAD_L_SWITCHED,
        [PVMX_OPEN] = PVMX_DEAD, [PVMX_DEAD] = PVMX_DEAD, [PVMX_DEAD_HELD] = PVMX_DEAD_HELD,
        [PVMX_DEAD_L_SWITCHED] = PVMX_DEAD_L_SWITCHED,
        [PVMX_DEAD_S_SWITCHING] = PVMX_DEAD_S_SWITCHING,
    };
    pvmx.cfg.verbose = 0;
    for (int s = 0; s < PVMX_NLINK; s++) {
        struct pvmx_peer p = { .tid = 0x40001, .link = s };
        pvmx_link_die(&p, "test");
        ck_assert_msg(p.link == of[s], "%s died into %s", pvmx_link_table[s].name,
                      pvmx_link_table[p.link].name);
        /* death keeps the directions: sends that went over AM fail, held AMs stay held */
        ck_assert_int_eq(pvmx_link_table[p.link].tx, pvmx_link_table[s].tx);
        ck_assert_int_eq(pvmx_link_table[p.link].rx, pvmx_link_table[s].rx);
    }
}
END_TEST

/* The cells of the first column (or all, into row) of the table under
 * the heading `head` of docs/link-setup.md. */
static int doc_table(const char *head, char rows[][2][256], int max)
{
    const char *dir = getenv("srcdir");
    char path[1024];
    snprintf(path, sizeof path, "%s/docs/link-setup.md", dir ? dir : ".");
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    char line[2048];
    int in = 0, n = 0, seen = 0;
    while (fgets(line, sizeof line, f)) {
        if (!strncmp(line, "## ", 3)) {
            in = strstr(line, head) != NULL;
            seen = 0;
            continue;
        }
        if (!in || line[0] != '|')
            continue;
        if (++seen <= 2)   /* the header and its rule */
            continue;
        ck_assert_int_lt(n, max);
        char *c1 = line + 1, *e1 = strchr(c1, '|');
        ck_assert_ptr_nonnull(e1);
        *e1 = '\0';
        char *c2 = e1 + 1, *e2 = strchr(c2, '|');
        if (e2)
            *e2 = '\0';
        sscanf(c1, " %255[^ ]", rows[n][0]);
        snprintf(rows[n][1], sizeof rows[n][1], "%s", c2);
        n++;
    }
    fclose(f);
    return n;
}

static int state_of(const char *name)
{
    for (int s = 0; s < PVMX_NLINK; s++)
        if (!strcmp(pvmx_link_table[s].name, name))
            return s;
    return -1;
}

START_TEST(doc_names_the_states)
{
    char rows[32][2][256];
    int n = doc_table("States of one side of a link", rows, 32);
    ck_assert_int_eq(n, PVMX_NLINK);
    for (int s = 0; s < PVMX_NLINK; s++)
        ck_assert_str_eq(rows[s][0], pvmx_link_table[s].name);
}
END_TEST

START_TEST(doc_names_the_changes)
{
    char rows[32][2][256];
    int n = doc_table("Legal state changes", rows, 32);
    ck_assert_int_eq(n, PVMX_NLINK);
    for (int i = 0; i < n; i++) {
        int from = state_of(rows[i][0]);
        ck_assert_msg(from == i, "row %d of the changes is %s", i, rows[i][0]);
        unsigned next = 0;
        for (char *t = strtok(rows[i][1], " ,`"); t; t = strtok(NULL, " ,`")) {
            if (!strcmp(t, "—") || !strcmp(t, "-"))
                continue;
            int to = state_of(t);
            ck_assert_msg(to >= 0, "unknown state %s in the doc", t);
            next |= 1u << to;
        }
        ck_assert_msg(next == pvmx_link_table[from].next, "%s: doc and code differ",
                      pvmx_link_table[from].name);
    }
}
END_TEST

int main(void)
{
    Suite *s = suite_create("linkstate");
    TCase *tc = tcase_create("core");
    tcase_add_test(tc, every_pair);
    tcase_add_test(tc, quiet_without_verbose);
    tcase_add_test(tc, dying);
    tcase_add_test(tc, doc_names_the_states);
    tcase_add_test(tc, doc_names_the_changes);
    suite_add_tcase(s, tc);
    SRunner *r = srunner_create(s);
    srunner_run_all(r, CK_NORMAL);
    int failed = srunner_ntests_failed(r);
    srunner_free(r);
    return failed ? 1 : 0;
}
