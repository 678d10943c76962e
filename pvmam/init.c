/*
 * init.c - pvmam_init: the ordered full mesh of thesis 6.5.
 *
 * Children send HELLO {tid, ntasks, history, address} to the master (the
 * task without a parent); the master answers every child with TABLE {n,
 * n tids, n histories, n addresses}.  A pair of tasks of which neither
 * has sent a user message through the daemon (history 0) opens its link
 * as the mesh (link.c, "pvmam_init's mesh"): every task connects to the
 * larger tids without CONN and tells the master whom (CONNS); the master
 * tells each task whom to accept (ACCEPTS); each accepts, reports DONE
 * with the ones it could not accept, and the master's GO (with those)
 * opens the connectors' sides.  So a link costs no message through the
 * pvmd, where CONN, SWITCH and READY were three.  Other pairs open with
 * the per-link exchange and are open before DONE.  Each wait is bounded
 * by PVMAM_TIMEOUT.  Messages may arrive before pvmam_init is called:
 * they are kept here until then.
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
    int tid, n, hist;
    char *addr;
};

/* A pair from CONNS (s connected to l over its interface idx) or DONE
 * (l refused s), as the master collects them. */
struct pair {
    int s, l, idx;
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
    int active;                  /* inside pvmam_init: ACCEPTS are for us */
    struct pair *conns, *refused;   /* the master's, from CONNS and DONE */
    int nconns, conns_cap, nrefused, refused_cap, nconns_msgs;
    int *accepts;                /* ACCEPTS: (s, idx) pairs; -1 count: not yet */
    int naccepts;
    int *go_refused;             /* GO: larger tids that refused us */
    int ngo_refused;
} st = { .naccepts = -1 };

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
    free(st.conns);
    free(st.refused);
    free(st.accepts);
    free(st.go_refused);
    memset(&st, 0, sizeof st);
    st.naccepts = -1;
}

/* Room for one more pair in *v; NULL when there is none. */
static struct pair *pair_slot(struct pair **v, int *n, int *cap)
{
    if (*n == *cap) {
        int c = *cap ? 2 * *cap : 64;
        struct pair *w = c <= MAX_TASKS * MAX_TASKS ? realloc(*v, sizeof *w * (size_t)c) : NULL;
        if (!w)
            return NULL;
        *v = w;
        *cap = c;
    }
    return &(*v)[(*n)++];
}

/* {k, k groups of `per` ints} from m into a new array; the count, or -1. */
static int get_groups(struct pmsg *m, int per, int **out)
{
    int k = 0;
    *out = NULL;
    if (pvmi_get_int(m, &k) < 0 || k < 0 || k > MAX_TASKS)
        return -1;
    if (!k)
        return 0;
    int *v = malloc(sizeof *v * (size_t)(k * per));
    if (!v || pvmi_get_ints(m, v, k * per) < 0) {
        free(v);
        return -1;
    }
    *out = v;
    return k;
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
    int v[3];
    switch (m->tag) {
    case PVMAM_TAG_HELLO: {
        struct entry *e = hello_slot();
        char *a = e ? get_addr(m, 3, v) : NULL;
        if (a && v[0] == m->src) {
            e->tid = v[0];
            e->n = v[1];
            e->hist = v[2];
            e->addr = a;
            st.nhello++;
        } else {
            free(a);
        }
        break;
    }
    case PVMAM_TAG_TABLE: {
        /* n, n tids, n histories, n addresses */
        int n = 0, *tids = NULL;
        free_table();   /* only one is ever sent: a second replaces it */
        if (pvmi_get_int(m, &n) < 0 || n <= 0 || n > MAX_TASKS ||
            !(tids = malloc(sizeof *tids * (size_t)(2 * n))) ||
            pvmi_get_ints(m, tids, 2 * n) < 0 ||
            !(st.table = calloc((size_t)n, sizeof *st.table)))
            n = -1;
        else
            st.table_len = n;
        for (int i = 0; i < n; i++) {
            st.table[i].tid = tids[i];
            st.table[i].hist = tids[n + i];
            if (!(st.table[i].addr = get_addr(m, 0, NULL)))
                n = -1;
        }
        free(tids);
        st.table_n = n;
        break;
    }
    case PVMAM_TAG_CONNS: {   /* {k, k (l, idx)} from m->src: the master's */
        int *g = NULL, k = get_groups(m, 2, &g);
        for (int i = 0; i < k; i++) {
            struct pair *c = pair_slot(&st.conns, &st.nconns, &st.conns_cap);
            if (c)
                *c = (struct pair){ m->src, g[2 * i], g[2 * i + 1] };
        }
        free(g);
        st.nconns_msgs++;
        break;
    }
    case PVMAM_TAG_ACCEPTS:   /* {k, k (s, idx)}: only ours, while in pvmam_init */
        if (st.active && st.naccepts < 0) {
            int k = get_groups(m, 2, &st.accepts);
            st.naccepts = k < 0 ? 0 : k;
        }
        break;
    case PVMAM_TAG_DONE: {    /* {tid, k, k refused s} */
        int who = 0, *g = NULL;
        if (pvmi_get_int(m, &who) >= 0) {
            int k = get_groups(m, 1, &g);
            for (int i = 0; i < k; i++) {
                struct pair *r = pair_slot(&st.refused, &st.nrefused, &st.refused_cap);
                if (r)
                    *r = (struct pair){ g[i], m->src, 0 };
            }
        }
        free(g);
        st.ndone++;
        break;
    }
    case PVMAM_TAG_GO:        /* {k, k refusing l} */
        free(st.go_refused);
        st.ngo_refused = get_groups(m, 1, &st.go_refused);
        if (st.ngo_refused < 0)
            st.ngo_refused = 0;
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

/* May the link between table entries a and b open as the mesh?  Only if
 * neither task sent a user message through the daemon before pvmam_init
 * (to anybody: HELLO says only whether): then no daemon-route message
 * between them can be overtaken (link.c, "pvmam_init's mesh"). */
static int mesh_pair(const struct entry *a, const struct entry *b)
{
    return !a->hist && !b->hist;
}

static const struct entry *entry_of(int tid)
{
    for (int i = 0; i < st.table_n; i++)
        if (st.table[i].tid == tid)
            return &st.table[i];
    return NULL;
}

/* Is every link ready for DONE: open, given up, dead, or (our mesh
 * connections) waiting for GO? */
static int links_ready(int me)
{
    int ready = 0;
    for (int i = 0; i < st.table_n; i++) {
        if (st.table[i].tid == me || !st.table[i].addr[0] || !pvmx.on) {
            ready++;
            continue;
        }
        struct pvmx_peer *p = pvmx_peer_find(st.table[i].tid);
        if (p && (p->link == PVMX_OPEN || p->link == PVMX_STOCK || pvmx_link_dead(p) ||
                  (p->mesh && p->link == PVMX_S_CONNECTING)))
            ready++;
    }
    return ready;
}

/* Connect to every larger tid: the mesh's pairs without CONN (appended to
 * conns as {l, idx}), the others with the per-link exchange.  One exit
 * watch request for the mesh's links the pvmd must watch per peer (udp's;
 * shm and tcp links end by themselves, link.c self_watched) and one for
 * the hosts of its tcp links; the per-link ones ask their own. */
static int connect_all(int me, int *conns, int *nconns)
{
    const struct entry *mine = entry_of(me);
    int watch[MAX_TASKS], nwatch = 0;
    *nconns = 0;
    for (int i = 0; i < st.table_n; i++) {
        int tid = st.table[i].tid;
        if (tid <= me || !st.table[i].addr[0] || !pvmx.on)
            continue;
        struct pvmx_peer *p = pvmx_peer_get(tid);
        if (!p)
            return PvmNoMem;
        if (pvmx_link_tx(p) || p->link == PVMX_STOCK)
            continue;
        int known = p->link == PVMX_UNKNOWN || p->link == PVMX_KNOWN;
        if (p->link == PVMX_UNKNOWN)
            pvmx_link_set(p, PVMX_KNOWN);
        if (!p->ep && known && mine && mesh_pair(mine, &st.table[i]) &&
            pvmx_peer_set_addr(p, st.table[i].addr) >= 0) {
            int idx = pvmx_link_mesh_connect(p);
            if (idx >= 0) {
                conns[2 * *nconns] = tid;
                conns[2 * *nconns + 1] = idx;
                ++*nconns;
                if (!p->self_watch)
                    watch[nwatch++] = tid;
            }
            continue;
        }
        pvmx_peer_set_addr(p, st.table[i].addr);
        pvmx_link_connect(p);
    }
    if (pvmi_notify_exits(watch, nwatch, SYSCTX_TC, PVMAM_TAG_EXIT) < 0)
        pvmx_log("cannot ask the pvmd to watch the mesh's tasks");
    pvmx_link_watch_hosts();
    return 0;
}

/* The mesh's connectors to accept: pairs {s, idx}; refused into ref
 * (their count into *nref).  A smaller tid of the mesh that did not
 * connect (it could not) stays on the daemon route. */
static int accept_all(int me, const int *acc, int nacc, int *ref, int *nref)
{
    const struct entry *mine = entry_of(me);
    int watch[MAX_TASKS], nwatch = 0;
    *nref = 0;
    for (int i = 0; i < nacc; i++) {
        const struct entry *e = entry_of(acc[2 * i]);
        char list[PVMX_NIFC][AM_ADDR_MAX];
        int n = e ? pvmx_addrs_split(e->addr, list, PVMX_NIFC) : -1;
        struct pvmx_peer *p = e ? pvmx_peer_get(e->tid) : NULL;
        int idx = acc[2 * i + 1];
        if (!p || e->tid >= me || idx < 0 || idx >= n ||
            pvmx_link_mesh_accept(p, list[idx]) < 0) {
            if (e)
                ref[(*nref)++] = e->tid;
            continue;
        }
        if (!p->self_watch)
            watch[nwatch++] = e->tid;
    }
    for (int i = 0; mine && i < st.table_n; i++) {   /* the mesh's that did not connect */
        const struct entry *e = &st.table[i];
        if (e->tid >= me || !e->addr[0] || !pvmx.on || !mesh_pair(mine, e))
            continue;
        struct pvmx_peer *p = pvmx_peer_get(e->tid);
        if (p && !p->ep && (p->link == PVMX_UNKNOWN || p->link == PVMX_KNOWN))
            pvmx_link_set(p, PVMX_STOCK);
    }
    if (pvmi_notify_exits(watch, nwatch, SYSCTX_TC, PVMAM_TAG_EXIT) < 0)
        pvmx_log("cannot ask the pvmd to watch the mesh's tasks");
    pvmx_link_watch_hosts();
    return 0;
}

/* Wait until cond() or the deadline; 0 or PvmSysErr.  Like wait_for, it
 * polls every source while it waits and ends by the deadline, so no cycle
 * of waits can hold it: what it waits for (the master's ACCEPTS, links
 * opening) comes from tasks that poll as they wait too. */
static int wait_until(int (*cond)(int), int me, long long deadline)
{
    while (!cond(me)) {
        long long left = deadline - pvmx_now_ms();
        if (left <= 0)
            return PvmSysErr;
        int rc = pvmi_progress(left > 100 ? 100 : (int)left);
        if (rc < 0)
            return rc;
    }
    return 0;
}

static int all_ready(int me) { return links_ready(me) >= st.table_n; }
static int have_accepts(int me) { (void)me; return st.naccepts >= 0; }

static int fail(const char *why, int rc)
{
    fprintf(stderr, "libpvm3am: pvmam_init: %s\n", why);
    return rc;
}

/* Any user message of ours through the daemon before pvmam_init (to
 * anybody)?  Then no link of ours opens as the mesh. */
static int history(void)
{
    for (int i = 0; i < pvmx_peer_count(); i++)
        if (pvmx_peer_at(i)->daemon_sent)
            return 1;
    return 0;
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
    int tids[2 * MAX_TASKS];
    struct pmsg *m = NULL;
    if (!(st.table = calloc((size_t)ntasks, sizeof *st.table)) || !(m = pvmi_xbuf()) ||
        !(st.table[0].addr = strdup(addr))) {
        pmsg_free(m);
        return fail("out of memory", PvmNoMem);
    }
    st.table_n = st.table_len = ntasks;
    st.table[0].tid = tids[0] = me;
    st.table[0].hist = tids[ntasks] = history();
    for (int i = 0; i < ntasks - 1; i++) {   /* the table takes the HELLOs' lists */
        st.table[i + 1] = st.hello[i];
        st.hello[i].addr = NULL;
        tids[i + 1] = st.hello[i].tid;
        tids[ntasks + i + 1] = st.hello[i].hist;
    }
    /* TABLE = n, tids, histories, then each address */
    pvmi_put_int(m, n);
    if (n > 0) {
        pvmi_put_ints(m, tids, 2 * n);
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
    int v[3] = { me, ntasks, history() };
    int rc = pvmx_send_ctrl(parent, PVMAM_TAG_HELLO, v, 3, addr);
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

/* {k, k groups of ints} into a new control message to dst. */
static int post_groups(int dst, int tag, const int *head, int nhead, const int *v, int k, int per)
{
    struct pmsg *m = pvmi_xbuf();
    if (!m)
        return PvmNoMem;
    int rc = pvmi_put_ints(m, head, nhead);
    if (rc >= 0)
        rc = pvmi_put_int(m, k);
    if (rc >= 0 && k)
        rc = pvmi_put_ints(m, v, k * per);
    if (rc < 0) {
        pmsg_free(m);
        return rc;
    }
    return pvmx_ctrl_post(m, tag, &dst, 1);
}

/* The master: once every task said whom it connected to (CONNS), tell
 * each whom to accept (ACCEPTS: {s, idx}); ours into st.accepts. */
static int master_accepts(int ntasks, long long deadline)
{
    if (wait_for(&st.nconns_msgs, ntasks - 1, deadline) < 0)
        return fail("not every task connected in time", PvmSysErr);
    int *v = malloc(sizeof *v * 2 * MAX_TASKS);
    if (!v)
        return fail("out of memory", PvmNoMem);
    for (int t = 0; t < ntasks; t++) {
        int l = st.table[t].tid, k = 0;
        for (int i = 0; i < st.nconns; i++)
            if (st.conns[i].l == l && k < MAX_TASKS) {
                v[2 * k] = st.conns[i].s;
                v[2 * k + 1] = st.conns[i].idx;
                k++;
            }
        if (t > 0) {
            post_groups(l, PVMAM_TAG_ACCEPTS, NULL, 0, v, k, 2);
        } else if (k && !(st.accepts = malloc(sizeof *v * 2 * (size_t)k))) {
            free(v);
            return fail("out of memory", PvmNoMem);
        } else {
            if (k)
                memcpy(st.accepts, v, sizeof *v * 2 * (size_t)k);
            st.naccepts = k;
        }
    }
    free(v);
    return 0;
}

/* Once every link is ready: children say DONE (with the mesh connectors
 * they could not accept); the master's GO (to each, the larger tids that
 * refused it) releases and opens the mesh's connections. */
static int release(int me, int parent, int ntasks, const int *ref, int nref,
                   long long deadline)
{
    if (parent < 0) {
        for (int i = 0; i < nref; i++) {
            struct pair *r = pair_slot(&st.refused, &st.nrefused, &st.refused_cap);
            if (r)
                *r = (struct pair){ ref[i], me, 0 };
        }
        if (wait_for(&st.ndone, ntasks - 1, deadline) < 0)
            return fail("not every task connected in time", PvmSysErr);
        int v[MAX_TASKS];
        for (int t = 0; t < ntasks; t++) {
            int s = st.table[t].tid, k = 0;
            for (int i = 0; i < st.nrefused; i++)
                if (st.refused[i].s == s && k < MAX_TASKS)
                    v[k++] = st.refused[i].l;
            if (t > 0) {
                post_groups(s, PVMAM_TAG_GO, NULL, 0, v, k, 1);
                continue;
            }
            free(st.go_refused);
            st.go_refused = k ? malloc(sizeof *v * (size_t)k) : NULL;
            if (k && !st.go_refused)
                return fail("out of memory", PvmNoMem);
            if (k)
                memcpy(st.go_refused, v, sizeof *v * (size_t)k);
            st.ngo_refused = k;
            st.go = 1;
        }
        return 0;
    }
    post_groups(parent, PVMAM_TAG_DONE, &me, 1, ref, nref, 1);
    if (wait_for(&st.go, 1, deadline) < 0)
        return fail("no go from the master in time", PvmSysErr);
    return 0;
}

/* GO came: our mesh connections open (or were refused). */
static void open_mesh(void)
{
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (!p->mesh || p->tid < pvmx.mytid)
            continue;
        int refused = 0;
        for (int k = 0; k < st.ngo_refused; k++)
            refused |= st.go_refused[k] == p->tid;
        pvmx_link_mesh_go(p, refused);
    }
}

/* pvmam_init failed: our mesh connections send the CONN they skipped. */
static void fall_back(void)
{
    for (int i = 0; i < pvmx_peer_count(); i++) {
        struct pvmx_peer *p = pvmx_peer_at(i);
        if (p->mesh && p->tid > pvmx.mytid)
            pvmx_link_mesh_fallback(p);
    }
}

static int mesh(int me, int parent, int ntasks, long long deadline)
{
    int *conns = malloc(sizeof *conns * 4 * MAX_TASKS), nconns = 0, nref = 0;
    int *ref = conns + 2 * MAX_TASKS;
    if (!conns)
        return fail("out of memory", PvmNoMem);
    int rc = connect_all(me, conns, &nconns);
    if (rc >= 0 && parent >= 0)
        rc = post_groups(parent, PVMAM_TAG_CONNS, NULL, 0, conns, nconns, 2);
    if (rc >= 0 && parent < 0) {   /* ours, as a child's would come */
        for (int i = 0; i < nconns; i++) {
            struct pair *c = pair_slot(&st.conns, &st.nconns, &st.conns_cap);
            if (c)
                *c = (struct pair){ me, conns[2 * i], conns[2 * i + 1] };
        }
        rc = master_accepts(ntasks, deadline);
    }
    if (rc >= 0 && (rc = wait_until(have_accepts, me, deadline)) < 0)
        fail("no answer from the master in time", rc);
    if (rc >= 0)
        rc = accept_all(me, st.accepts, st.naccepts, ref, &nref);
    if (rc >= 0 && (rc = wait_until(all_ready, me, deadline)) < 0)
        fail("links did not open in time", rc);
    if (rc >= 0)
        rc = release(me, parent, ntasks, ref, nref, deadline);
    free(conns);
    if (rc >= 0)
        open_mesh();
    return rc;
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
    st.active = 1;
    int rc = parent < 0 ? master_table(me, ntasks, addr, deadline)
                        : child_table(me, parent, ntasks, addr, deadline);
    if (rc >= 0)
        rc = mesh(me, parent, ntasks, deadline);
    if (rc < 0)
        fall_back();
    forget();   /* a failed call leaves nothing for a later one to trip on */
    return rc < 0 ? rc : 0;
}
