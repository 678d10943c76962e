/*
 * addrs.c - a task's AM address list, and which interface reaches a peer.
 *
 * A task runs up to PVMX_NIFC interfaces (PVMAM_TRANSPORT "shm,tcp") and
 * publishes all their addresses in one mailbox entry, in its order of
 * preference, separated by one space:
 *
 *     shm:<host>:<pid>:<n>#<secret> tcp:<ip>:<port>#<secret>
 *
 * A list of one address is what a task with one transport publishes (and
 * what every task published before lists existed).  The list comes from
 * the mailbox or a control message, so it is split strictly: anything
 * else means "no AM link" to that task.  Per peer, the connector takes
 * the first of its own interfaces, in its order, whose transport the
 * peer published; libam refuses an address its interface cannot reach
 * (shm: another host's) with AM_ERR_BADADDR, and the connector then
 * tries its next one (link.c).
 */
#include <string.h>
#include "pvmam_int.h"

/* "name:rest", printable, no space, shorter than AM_ADDR_MAX: 0 or -1. */
static int one_addr(const char *a, size_t n)
{
    if (n == 0 || n >= AM_ADDR_MAX)
        return -1;
    size_t colon = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)a[i];
        if (c <= ' ' || c > '~')
            return -1;
        if (c == ':' && !colon)
            colon = i;
    }
    return colon > 0 && colon < 8 ? 0 : -1;   /* a transport name is short */
}

/* The transport name of an address ("tcp" of "tcp:..."), into t[8]. */
static void name_of(const char *addr, char t[8])
{
    size_t k = strcspn(addr, ":");
    if (k > 7)
        k = 7;
    memcpy(t, addr, k);
    t[k] = '\0';
}

int pvmx_addrs_split(const char *list, char out[][AM_ADDR_MAX], int max)
{
    int n = 0;
    const char *a = list;
    if (!list)
        return -1;
    for (;;) {
        size_t len = strcspn(a, " ");
        if (n == max || one_addr(a, len) < 0)
            return -1;
        memcpy(out[n], a, len);
        out[n][len] = '\0';
        char t[8], u[8];
        name_of(out[n], t);
        for (int i = 0; i < n; i++) {
            name_of(out[i], u);
            if (!strcmp(t, u))
                return -1;   /* one address per transport */
        }
        n++;
        if (!a[len])
            return n;
        a += len + 1;   /* exactly one space, then another address */
    }
}

int pvmx_addrs_make(void)
{
    size_t l = 0;
    pvmx.addr[0] = '\0';
    for (int i = 0; i < pvmx.nifc; i++) {
        const char *a = am_task_address(pvmx.ifc[i], AM_TID_SELF);
        size_t k = a ? strlen(a) : 0;
        if (!k || l + k + 2 > sizeof pvmx.addr)
            return -1;
        if (l)
            pvmx.addr[l++] = ' ';
        memcpy(pvmx.addr + l, a, k + 1);
        l += k;
    }
    return l ? 0 : -1;
}

am_interface_t *pvmx_ifc_of(const char *addr)
{
    char t[8];
    name_of(addr, t);
    for (int i = 0; i < pvmx.nifc; i++)
        if (!strcmp(am_transport_name(pvmx.ifc[i]), t))
            return pvmx.ifc[i];
    return NULL;
}

am_interface_t *pvmx_ifc_next(const struct pvmx_peer *p, int *i, char *addr)
{
    char list[PVMX_NIFC][AM_ADDR_MAX];
    int n = pvmx_addrs_split(pvmx_peer_addr(p), list, PVMX_NIFC);
    for (; n > 0 && *i < pvmx.nifc; ++*i) {
        const char *mine = am_transport_name(pvmx.ifc[*i]);
        for (int k = 0; k < n; k++) {
            char t[8];
            name_of(list[k], t);
            if (!strcmp(t, mine)) {
                strcpy(addr, list[k]);
                return pvmx.ifc[(*i)++];
            }
        }
    }
    return NULL;
}
