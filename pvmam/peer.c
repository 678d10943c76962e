/*
 * peer.c - what pvmam knows about each task it talks to, found by tid.
 * A small open-addressing table: lookups sit on every send and receive.
 */
#include <stdlib.h>
#include <string.h>
#include "pvmam_int.h"

static struct pvmx_peer **slot;   /* hash: tid -> peer */
static unsigned nslot;             /* power of two */
static struct pvmx_peer **list;   /* in creation order */
static int npeer, cap;
static struct pvmx_peer *last;    /* the last one found */

static unsigned hash(int tid, unsigned n) { return ((unsigned)tid * 2654435761u) & (n - 1); }

struct pvmx_peer *pvmx_peer_find(int tid)
{
    /* a message is looked up several times on its way (route, send,
     * handler), and a ping-pong talks to one peer: remember the last */
    if (last && last->tid == tid)
        return last;
    if (!nslot)
        return NULL;
    for (unsigned i = hash(tid, nslot);; i = (i + 1) & (nslot - 1)) {
        if (!slot[i])
            return NULL;
        if (slot[i]->tid == tid)
            return last = slot[i];
    }
}

static int rehash(unsigned n)
{
    struct pvmx_peer **s = calloc(n, sizeof *s);
    if (!s)
        return -1;
    for (int k = 0; k < npeer; k++) {
        unsigned i = hash(list[k]->tid, n);
        while (s[i])
            i = (i + 1) & (n - 1);
        s[i] = list[k];
    }
    free(slot);
    slot = s;
    nslot = n;
    return 0;
}

struct pvmx_peer *pvmx_peer_get(int tid)
{
    struct pvmx_peer *p = pvmx_peer_find(tid);
    if (p)
        return p;
    if (npeer == cap) {
        int nc = cap ? cap * 2 : 16;
        struct pvmx_peer **l = realloc(list, sizeof *l * (size_t)nc);
        if (!l)
            return NULL;
        list = l;
        cap = nc;
    }
    if ((unsigned)(npeer + 1) * 2 > nslot && rehash(nslot ? nslot * 2 : 32) < 0)
        return NULL;
    p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    p->tid = tid;
    list[npeer++] = p;
    unsigned i = hash(tid, nslot);
    while (slot[i])
        i = (i + 1) & (nslot - 1);
    slot[i] = p;
    return p;
}

int pvmx_peer_count(void) { return npeer; }
struct pvmx_peer *pvmx_peer_at(int i) { return i >= 0 && i < npeer ? list[i] : NULL; }

void pvmx_peers_free(void)
{
    for (int k = 0; k < npeer; k++) {
        free(list[k]->addr);
        free(list[k]);
    }
    free(list);
    free(slot);
    last = NULL;
    list = NULL;
    slot = NULL;
    npeer = cap = 0;
    nslot = 0;
}

int pvmx_peer_set_addr(struct pvmx_peer *p, const char *s)
{
    char *c = strdup(s);
    if (!c)
        return PvmNoMem;
    free(p->addr);
    p->addr = c;
    return 0;
}

const char *pvmx_peer_addr(const struct pvmx_peer *p) { return p->addr ? p->addr : ""; }
