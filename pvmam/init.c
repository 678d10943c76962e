/*
 * init.c - pvmam_init: the ordered full-mesh connect of thesis 6.5.
 *
 * Children send HELLO {tid, ntasks, address} to the master (the task
 * without a parent); the master answers every child with TABLE {n, n tids,
 * n addresses}; every task connects to the tasks with larger tids (they
 * accept) and waits until each link is open both ways; children report
 * DONE, and the master's GO releases everybody.  Each wait is bounded by
 * PVMAM_TIMEOUT.  Messages may arrive before pvmam_init is called: they
 * are kept here until then.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "pvmam_int.h"

#define MAX_TASKS 1024
#define ADDR_MAX PVMX_ADDRS_MAX   /* address lists (addrs.c) */

/* A HELLO's or a TABLE's entry: a task, its count of tasks (HELLO) and
 * its address list, on the heap at its real length ("" for a task without
 * AM): room for the longest list (ucx's addresses) cost 2 KB an entry,
 * kept resident after the mesh was up (freed blocks stay in the heap, and
 * in ASan's quarantine). */
struct entry {
    int tid, n;
    char *addr;
};

/* Allocated as entries come and freed once pvmam_init is done: static
 * tables for MAX_TASKS cost every task 400 KB. */
static struct {
    struct entry *hello;
    int nhello, hello_cap;
    struct entry *table;
    int table_n;                 /* 0 none yet, -1 refused */
    int table_len;               /* entries of table to free (their addr or NULL) */
    int ndone, go;
} st;

static void free_table(void)
{
    for (int i = 0; i < st.table_len; i++)
        free(st.table[i].addr);
    free(st.table);
    st.table = NULL;
    st.table_len = 0;
}

static void forget(void)
{
    for (int i = 0; i < st.nhello; i++)
        free(st.hello[i].addr);
    free(st.hello);
    free_table();
    memset(&st, 0, sizeof st);
}

/* An address list read from m into a buffer of its own length; NULL when
 * malformed or out of memory. */
static char *get_addr(struct pmsg *m, int nint, int *ints)
{
    char buf[ADDR_MAX];
    int rc = nint ? pvmx_ctrl_unpack(m, ints, nint, buf, sizeof buf)
                  : pvmi_get_counted(m, buf, sizeof buf);
    return rc < 0 ? NULL : strdup(buf);
}

/* Room for one more HELLO; NULL when there is none. */
static struct entry *hello_slot(void)
{
    if (st.nhello == st.hello_cap) {
        int cap = st.hello_cap ? 2 * st.hello_cap : 16;
        struct entry *h = cap <= MAX_TASKS ? realloc(st.hello, sizeof *h * (size_t)cap) : NULL;
        if (!h)
            return NULL;
        st.hello = h;
        st.hello_cap = cap;
    }
    return &st.hello[st.nhello];
}

void pvmx_init_note(struct pmsg *m)
{
    int v[2];
    switch (m->tag) {
    case PVMAM_TAG_HELLO: {
        struct entry *e = hello_slot();
        char *a = e ? get_addr(m, 2, v) : NULL;
        if (a && v[0] == m->src) {
            e->tid = v[0];
            e->n = v[1];
            e->addr = a;
            st.nhello++;
        } else {
            free(a);
        }
        break;
    }
    case PVMAM_TAG_TABLE: {
        /* n, n tids, n addresses */
        int n = 0, *tids = NULL;
        free_table();   /* only one is ever sent: a second replaces it */
        if (pvmi_get_int(m, &n) < 0 || n <= 0 || n > MAX_TASKS ||
            !(tids = malloc(sizeof *tids * (size_t)n)) || pvmi_get_ints(m, tids, n) < 0 ||
            !(st.table = calloc((size_t)n, sizeof *st.table)))
            n = -1;
        else
            st.table_len = n;
        for (int i = 0; i < n; i++) {
            st.table[i].tid = tids[i];
            if (!(st.table[i].addr = get_addr(m, 0, NULL)))
                n = -1;
        }
        free(tids);
        st.table_n = n;
        break;
    }
    case PVMAM_TAG_DONE:
        st.ndone++;
        break;
    case PVMAM_TAG_GO:
        st.go = 1;
        break;
    }
}

/* Wait until *flag >= want or the deadline; 0 or PvmSysErr. */
static int wait_for(const int *flag, int want, long long deadline)
{
    while (*flag < want) {
        long long left = deadline - pvmx_now_ms();
        if (left <= 0)
            return PvmSysErr;
        int rc = pvmi_progress(left > 100 ? 100 : (int)left);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int links_open(int me)
{
    int open = 0;
    for (int i = 0; i < st.table_n; i++) {
        if (st.table[i].tid == me || !st.table[i].addr[0] || !pvmx.on) {
            open++;
            continue;
        }
        struct pvmx_peer *p = pvmx_peer_find(st.table[i].tid);
        if (p && (p->link == PVMX_OPEN || p->link == PVMX_STOCK || pvmx_link_dead(p)))
            open++;
    }
    return open;
}

static int connect_all(int me, long long deadline)
{
    for (int i = 0; i < st.table_n; i++) {
        int tid = st.table[i].tid;
        if (tid <= me || !st.table[i].addr[0] || !pvmx.on)
            continue;
        struct pvmx_peer *p = pvmx_peer_get(tid);
        if (!p)
            return PvmNoMem;
        if (!pvmx_link_tx(p) && p->link != PVMX_STOCK) {
            if (p->link == PVMX_UNKNOWN)
                pvmx_link_set(p, PVMX_KNOWN);
            pvmx_peer_set_addr(p, st.table[i].addr);
            pvmx_link_connect(p);
        }
    }
    while (links_open(me) < st.table_n) {
        if (pvmx_now_ms() >= deadline)
            return PvmSysErr;
        int rc = pvmi_progress(100);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int fail(const char *why, int rc)
{
    fprintf(stderr, "libpvm3am: pvmam_init: %s\n", why);
    return rc;
}

/* The master: wait for every child's HELLO, then send them all TABLE. */
static int master_table(int me, int ntasks, const char *addr, long long deadline)
{
    if (wait_for(&st.nhello, ntasks - 1, deadline) < 0)
        return fail("not every task called pvmam_init in time", PvmSysErr);
    int bad = 0;
    for (int i = 0; i < ntasks - 1; i++)
        bad |= st.hello[i].n != ntasks;
    int n = bad ? -1 : ntasks;
    int tids[MAX_TASKS];
    struct pmsg *m = NULL;
    if (!(st.table = calloc((size_t)ntasks, sizeof *st.table)) || !(m = pvmi_xbuf()) ||
        !(st.table[0].addr = strdup(addr))) {
        pmsg_free(m);
        return fail("out of memory", PvmNoMem);
    }
    st.table_n = st.table_len = ntasks;
    st.table[0].tid = tids[0] = me;
    for (int i = 0; i < ntasks - 1; i++) {   /* the table takes the HELLOs' lists */
        st.table[i + 1] = st.hello[i];
        st.hello[i].addr = NULL;
        tids[i + 1] = st.hello[i].tid;
    }
    /* TABLE = n, tids, then each address */
    pvmi_put_int(m, n);
    if (n > 0) {
        pvmi_put_ints(m, tids, n);
        for (int i = 0; i < n; i++)
            pvmi_put_counted(m, st.table[i].addr);
    }
    pvmx_ctrl_post(m, PVMAM_TAG_TABLE, tids + 1, ntasks - 1);
    if (bad)
        return fail("tasks disagree on the number of tasks", PvmMismatch);
    return 0;
}

/* A child: HELLO to the master, then wait for its TABLE. */
static int child_table(int me, int parent, int ntasks, const char *addr, long long deadline)
{
    int v[2] = { me, ntasks };
    int rc = pvmx_send_ctrl(parent, PVMAM_TAG_HELLO, v, 2, addr);
    if (rc < 0)
        return fail("cannot reach the parent", rc);
    while (st.table_n == 0) {
        if (pvmx_now_ms() >= deadline)
            return fail("no answer from the master in time", PvmSysErr);
        if ((rc = pvmi_progress(100)) < 0)
            return rc;
    }
    if (st.table_n < 0)
        return fail("tasks disagree on the number of tasks", PvmMismatch);
    return 0;
}

/* Once every link is open: children say DONE, the master's GO releases. */
static int release(int me, int parent, int ntasks, long long deadline)
{
    if (parent < 0) {
        if (wait_for(&st.ndone, ntasks - 1, deadline) < 0)
            return fail("not every task connected in time", PvmSysErr);
        for (int i = 1; i < ntasks; i++)
            pvmx_send_ctrl(st.table[i].tid, PVMAM_TAG_GO, NULL, 0, NULL);
        return 0;
    }
    pvmx_send_ctrl(parent, PVMAM_TAG_DONE, &me, 1, NULL);
    if (wait_for(&st.go, 1, deadline) < 0)
        return fail("no go from the master in time", PvmSysErr);
    return 0;
}

int pvmam_init(int ntasks)
{
    if (ntasks < 1 || ntasks > MAX_TASKS)
        return PvmBadParam;
    int me = pvm_mytid();
    if (me < 0)
        return me;
    if (ntasks == 1)
        return 0;
    long long deadline = pvmx_now_ms() + pvmx.cfg.timeout_ms;
    int parent = pvm_parent();
    const char *addr = pvmx.on ? pvmx.addr : "";
    int rc = parent < 0 ? master_table(me, ntasks, addr, deadline)
                        : child_table(me, parent, ntasks, addr, deadline);
    if (rc >= 0 && (rc = connect_all(me, deadline)) < 0)
        fail("links did not open in time", rc);
    if (rc >= 0)
        rc = release(me, parent, ntasks, deadline);
    forget();   /* a failed call leaves nothing for a later one to trip on */
    return rc < 0 ? rc : 0;
}
