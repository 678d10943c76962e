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

static struct {
    int nhello, hello_tid[MAX_TASKS], hello_n[MAX_TASKS];
    char hello_addr[MAX_TASKS][ADDR_MAX];
    int table_n;                 /* 0 none yet, -1 refused */
    int table_tid[MAX_TASKS];
    char table_addr[MAX_TASKS][ADDR_MAX];
    int ndone, go;
} st;

void pvmx_init_note(struct pmsg *m)
{
    int v[2];
    switch (m->tag) {
    case PVMAM_TAG_HELLO:
        if (st.nhello < MAX_TASKS &&
            pvmx_ctrl_unpack(m, v, 2, st.hello_addr[st.nhello], ADDR_MAX) >= 0 &&
            v[0] == m->src) {
            st.hello_tid[st.nhello] = v[0];
            st.hello_n[st.nhello] = v[1];
            st.nhello++;
        }
        break;
    case PVMAM_TAG_TABLE: {
        /* n, n tids, n addresses */
        int n = 0;
        if (pvmi_get_int(m, &n) < 0 || n <= 0 || n > MAX_TASKS ||
            pvmi_get_ints(m, st.table_tid, n) < 0)
            n = -1;
        for (int i = 0; i < n; i++)
            if (pvmi_get_counted(m, st.table_addr[i], ADDR_MAX) < 0)
                n = -1;
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
        if (st.table_tid[i] == me || !st.table_addr[i][0] || !pvmx.on) {
            open++;
            continue;
        }
        struct pvmx_peer *p = pvmx_peer_find(st.table_tid[i]);
        if (p && ((p->tx_open && p->rx_open) || p->kind == PEER_STOCK || p->dead))
            open++;
    }
    return open;
}

static int connect_all(int me, long long deadline)
{
    for (int i = 0; i < st.table_n; i++) {
        int tid = st.table_tid[i];
        if (tid <= me || !st.table_addr[i][0] || !pvmx.on)
            continue;
        struct pvmx_peer *p = pvmx_peer_get(tid);
        if (!p)
            return PvmNoMem;
        if (!p->tx_open && p->kind != PEER_STOCK) {
            p->kind = PEER_AM;
            snprintf(p->addr, sizeof p->addr, "%s", st.table_addr[i]);
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
        bad |= st.hello_n[i] != ntasks;
    int n = bad ? -1 : ntasks;
    int tids[MAX_TASKS];
    tids[0] = me;
    for (int i = 0; i < ntasks - 1; i++)
        tids[i + 1] = st.hello_tid[i];
    st.table_n = ntasks;
    memcpy(st.table_tid, tids, sizeof(int) * (size_t)ntasks);
    snprintf(st.table_addr[0], ADDR_MAX, "%s", addr);
    for (int i = 0; i < ntasks - 1; i++)
        memcpy(st.table_addr[i + 1], st.hello_addr[i], ADDR_MAX);
    /* TABLE = n, tids, then each address */
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return fail("out of memory", PvmNoMem);
    pvmi_put_int(m, n);
    if (n > 0) {
        pvmi_put_ints(m, tids, n);
        for (int i = 0; i < n; i++)
            pvmi_put_counted(m, st.table_addr[i]);
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
            pvmx_send_ctrl(st.table_tid[i], PVMAM_TAG_GO, NULL, 0, NULL);
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
    if (rc < 0)
        return rc;
    rc = connect_all(me, deadline);
    if (rc < 0)
        return fail("links did not open in time", rc);
    rc = release(me, parent, ntasks, deadline);
    if (rc < 0)
        return rc;
    memset(&st, 0, sizeof st);
    return 0;
}
