/*
 * group_cache.c - frozen groups kept in the task, as stock libgpvm3 keeps
 * them.  Once pvmgs answers with the STATIC state it appends the frozen
 * map (docs/protocol.md: name, member count, instance table, hosts);
 * from then on membership queries about that group are answered from the
 * map, so a task can still learn the tid of an instance that has left.
 * The map is dropped when we leave the group or our tid changes
 * (pvm_exit, then a new pvm_mytid), never on the server's word.
 */
#include <stdlib.h>
#include <string.h>
#include "group.h"

struct fgroup {
    struct fgroup *next;
    char *name;
    int ntids;        /* members when frozen */
    int maxntids;     /* instance table size (holes are -1) */
    int *tids;
    int nhosts;
    int *nmem;        /* members per host */
    int *coord;       /* coordinator tid per host */
};

static struct fgroup *groups;
static int owner;     /* our tid when the maps were taken */

static void fg_free(struct fgroup *g)
{
    if (!g)
        return;
    free(g->coord);
    free(g->nmem);
    free(g->tids);
    free(g->name);
    free(g);
}

/* Maps taken under another tid describe another task's view: drop them. */
static void check_owner(void)
{
    if (owner == pvmi.tid)
        return;
    while (groups) {
        struct fgroup *g = groups;
        groups = g->next;
        fg_free(g);
    }
    owner = pvmi.tid;
}

static struct fgroup *find(const char *name)
{
    check_owner();
    if (!name)
        return NULL;
    for (struct fgroup *g = groups; g; g = g->next)
        if (!strcmp(g->name, name))
            return g;
    return NULL;
}

void pvmi_gcache_drop(const char *name)
{
    check_owner();
    for (struct fgroup **p = &groups; *p; p = &(*p)->next)
        if (name && !strcmp((*p)->name, name)) {
            struct fgroup *g = *p;
            *p = g->next;
            fg_free(g);
            return;
        }
}

/* n ints from m into a new array (n may be 0); NULL on a short message. */
static int *get_ints(struct pmsg *m, int n)
{
    if (n < 0 || (size_t)n > pmsg_unread(m) / 4)
        return NULL;
    int *v = malloc(sizeof *v * (size_t)(n ? n : 1));
    if (!v)
        return NULL;
    for (int i = 0; i < n; i++)
        if (pvmi_get_int(m, &v[i]) < 0) {
            free(v);
            return NULL;
        }
    return v;
}

int pvmi_gcache_take(struct pmsg *m)
{
    int state, len;
    if (pvmi_get_int(m, &state) < 0 || state != PVMI_GS_STATIC)
        return 0;
    check_owner();
    struct fgroup *g = calloc(1, sizeof *g);
    if (!g)
        return PvmNoMem;
    if (pvmi_get_int(m, &len) < 0 || len < 0 || !(g->name = pvmi_get_strdup(m))
            || pvmi_get_int(m, &g->ntids) < 0 || pvmi_get_int(m, &g->maxntids) < 0
            || !(g->tids = get_ints(m, g->maxntids)) || pvmi_get_int(m, &g->nhosts) < 0
            || !(g->nmem = get_ints(m, g->nhosts)) || !(g->coord = get_ints(m, g->nhosts))) {
        fg_free(g);
        return PvmBadMsg;
    }
    pvmi_gcache_drop(g->name);   /* a newer map replaces the old one */
    g->next = groups;
    groups = g;
    return 1;
}

int pvmi_gcache_gettid(const char *name, int inst)
{
    struct fgroup *g = find(name);
    if (!g || inst < 0 || inst >= g->maxntids || g->tids[inst] == -1)
        return PvmNoInst;
    return g->tids[inst];
}

int pvmi_gcache_getinst(const char *name, int tid)
{
    struct fgroup *g = find(name);
    if (g)
        for (int i = 0; i < g->maxntids; i++)
            if (g->tids[i] == tid)
                return i;
    return PvmNotInGroup;
}

int pvmi_gcache_gsize(const char *name)
{
    struct fgroup *g = find(name);
    return g ? g->ntids : PvmNoGroup;
}

int pvmi_gcache_tids(const char *name, int noholes, int **tids, int *ntids)
{
    struct fgroup *g = find(name);
    if (!g)
        return PvmNoGroup;
    int *t = malloc(sizeof *t * (size_t)(g->maxntids ? g->maxntids : 1));
    if (!t)
        return PvmNoMem;
    int n = 0;
    for (int i = 0; i < g->maxntids; i++) {
        if (g->tids[i] == -1 && noholes) {
            free(t);
            return PvmNoInst;
        }
        if (g->tids[i] != -1)
            t[n++] = g->tids[i];
    }
    if (n == 0) {
        free(t);
        return PvmNoInst;
    }
    *tids = t;
    *ntids = n;
    return 0;
}

int pvmi_gcache_hostinfo(const char *name, int host, int *coord, int *nmem, int *nhosts)
{
    struct fgroup *g = find(name);
    if (g)
        for (int i = 0; i < g->nhosts; i++)
            if ((g->coord[i] & PVMI_TIDHOST) == (host & PVMI_TIDHOST)) {
                *coord = g->coord[i];
                *nmem = g->nmem[i];
                *nhosts = g->nhosts;
                return 0;
            }
    return PvmNoGroup;
}

int pvmi_gcache_vhostinfo(const char *name, int **coordv, int **nmemv, int *nhosts)
{
    struct fgroup *g = find(name);
    if (!g)
        return PvmNoGroup;
    *coordv = g->coord;
    *nmemv = g->nmem;
    *nhosts = g->nhosts;
    return 0;
}
