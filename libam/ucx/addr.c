/*
 * addr.c - the ucx transport's printable address (libam/ucx/ucx.h):
 *     ucx:<IPv4, 8 hex>:<sender id, 16 hex>:<packed worker address, base64url>
 * made for our worker, read for a peer's (the top of libam/tr_ucx.c).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <arpa/inet.h>
#include "am_net.h"
#include "ucx.h"

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static int b64_val(char c)
{
    const char *p = c ? strchr(b64, c) : NULL;
    return p ? (int)(p - b64) : -1;
}

/* base64url without padding: no '#', ':' or space (am_auth.c, pvmam/addrs.c) */
static int b64_put(char *out, size_t room, const unsigned char *in, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)in[i] << 16 | (i + 1 < n ? (uint32_t)in[i + 1] << 8 : 0) |
                     (i + 2 < n ? in[i + 2] : 0);
        size_t k = n - i >= 3 ? 4 : n - i + 1;
        if (o + k >= room)
            return -1;
        for (size_t j = 0; j < k; j++)
            out[o++] = b64[v >> (18 - 6 * j) & 63];
    }
    out[o] = '\0';
    return 0;
}

int amx_ucx_self_addr(char *buf, size_t size, struct in_addr ip, uint64_t id,
                      const void *wa, size_t wlen)
{
    int n = snprintf(buf, size, "ucx:%08x:%016llx:", (unsigned)ntohl(ip.s_addr),
                     (unsigned long long)id);
    return b64_put(buf + n, size - (size_t)n, wa, wlen);
}

static long b64_get(const char *s, unsigned char *out, size_t room)
{
    size_t n = strlen(s), o = 0;
    if (n % 4 == 1)
        return -1;
    for (size_t i = 0; i < n; i += 4) {
        uint32_t v = 0;
        size_t k = n - i >= 4 ? 4 : n - i;
        for (size_t j = 0; j < 4; j++) {
            int d = j < k ? b64_val(s[i + j]) : 0;
            if (d < 0)
                return -1;
            v = v << 6 | (uint32_t)d;
        }
        for (size_t j = 0; j + 1 < k; j++) {
            if (o == room)
                return -1;
            out[o++] = (unsigned char)(v >> (16 - 8 * j));
        }
    }
    return (long)o;
}

int amx_ucx_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    struct ucx_ep *ue = ep->tp;
    unsigned ip;
    unsigned long long id;
    int off = 0;
    if (strncmp(name, "ucx:", 4) || sscanf(name + 4, "%8x:%16llx:%n", &ip, &id, &off) != 2 ||
        off != 26 || name[4 + 8] != ':' || name[4 + 8 + 1 + 16] != ':')
        return AM_ERR_BADADDR;
    const char *w = name + 4 + off;
    size_t room = strlen(w) / 4 * 3 + 3;
    unsigned char *wa = malloc(room);
    long wl = wa ? b64_get(w, wa, room) : -1;
    if (wl <= 0) {
        free(wa);
        return AM_ERR_BADADDR;
    }
    free(ue->waddr);
    ue->waddr = wa;
    ue->wlen = (size_t)wl;
    ue->ip.s_addr = htonl(ip);
    ue->id = id;
    return AM_OK;
}

void amx_ucx_host(const am_endpoint_t *ep, char *buf, size_t size)
{
    const struct ucx_ep *ue = ep->tp;
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr = ue->ip };
    amx_addr_host(&sa, buf, size);
}
