/*
 * am_auth.c - who may talk to an interface: the holders of its secret.
 *
 * Each interface has a 64-bit secret (am_config.key, else drawn with
 * getrandom at am_init).  Its printable address, what
 * am_task_address(AM_TID_SELF) gives and what peers pass to
 * am_connect_task/am_accept_task, is the transport's address, "#", and
 * the secret in 16 hex digits: the address is the capability, and
 * whoever publishes it decides who may connect (pvmam: only the pvmd's
 * mailbox, which only tasks of the virtual machine can read).
 *
 * Every AM header carries the receiver's secret (amx_hdr.key).  amx_input
 * drops an AM without it before any handler or placer sees it, on every
 * transport; a transport with connections also checks the message that
 * opens one (tcp's HELLO) with amx_auth before it keeps the connection.
 * Drops are counted in am_stats.auth_drops.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include "am_int.h"

int amx_key_new(uint64_t *key)
{
    uint64_t k = 0;
    while (!k) {   /* 0 means "draw one" in am_config */
        ssize_t r = getrandom(&k, sizeof k, 0);
        if (r < 0 && errno == EINTR)
            continue;
        if (r != (ssize_t)sizeof k)
            return AM_ERR_SYS;
    }
    *key = k;
    return AM_OK;
}

int amx_cap_format(char *buf, size_t size, const char *addr, uint64_t key)
{
    int n = snprintf(buf, size, "%s" AMX_KEYSEP "%016llx", addr, (unsigned long long)key);
    return n > 0 && (size_t)n < size ? AM_OK : AM_ERR_INVAL;
}

static int hexval(char c)
{
    if (c >= '0' && c <= '9')
        return c - '0';
    if (c >= 'a' && c <= 'f')
        return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
        return c - 'A' + 10;
    return -1;
}

/* The last AMX_KEYSEP splits: a transport's own text may hold one too. */
int amx_cap_split(const char *cap, char *addr, size_t size, uint64_t *key)
{
    const char *sep = cap ? strrchr(cap, AMX_KEYSEP[0]) : NULL;
    if (!sep || (size_t)(sep - cap) >= size || strlen(sep + 1) != 16)
        return AM_ERR_BADADDR;
    uint64_t k = 0;
    for (const char *p = sep + 1; *p; p++) {
        int v = hexval(*p);
        if (v < 0)
            return AM_ERR_BADADDR;
        k = k << 4 | (uint64_t)v;
    }
    memcpy(addr, cap, (size_t)(sep - cap));
    addr[sep - cap] = '\0';
    *key = k;
    return AM_OK;
}

/* No branch and no early exit: the time taken says nothing about how
 * much of a guess was right. */
int amx_key_ok(const am_interface_t *ifc, const struct amx_hdr *h)
{
    uint64_t d = h->key ^ ifc->key;
    return (int)(1u ^ (unsigned)((d | (0 - d)) >> 63));
}

int amx_auth(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h)
{
    if (amx_key_ok(ifc, h))
        return 1;
    ifc->st.auth_drops++;
    if (ep)
        ep->st.auth_drops++;
    return 0;
}
