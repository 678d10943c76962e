/*
 * am_wire.c - the AM header on the wire (layout in the comment at the top
 * of am_int.h) and the clock the protocol's timers read.  Called by the
 * protocol files (am_send.c, am_input.c, am_poll.c) and the transports
 * alike, and calls nothing of libam's.
 */
#include <arpa/inet.h>
#include <string.h>
#include <time.h>
#include "am_int.h"

uint64_t amx_now_us(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

void amx_pack_hdr(char *b, const struct amx_hdr *h)
{
    uint32_t w[8] = { htonl(h->len), htonl(h->seq),
                      htonl((uint32_t)h->type << 24 | (uint32_t)h->inst << 16 | h->handler),
                      htonl(AMX_MAGIC), htonl(h->pb_seq),
                      htonl((uint32_t)h->nblank << 16 | (uint32_t)h->flags << 8 |
                            (h->pb ? 0x100u : 0) | h->pb_inst),
                      htonl((uint32_t)(h->key >> 32)), htonl((uint32_t)h->key) };
    memcpy(b, w, AMX_HDR);
}

void amx_put_hdr(const am_interface_t *ifc, char *b, const struct amx_hdr *h)
{
    if (ifc->tr->host_order)
        memcpy(b, h, AMX_HDR);
    else
        amx_pack_hdr(b, h);
}

int amx_parse(const void *buf, size_t len, struct amx_hdr *h)
{
    uint32_t w[8];
    if (len < AMX_HDR)
        return AM_ERR_INVAL;
    memcpy(w, buf, AMX_HDR);
    if (ntohl(w[3]) != AMX_MAGIC)
        return AM_ERR_INVAL;
    h->len = ntohl(w[0]);
    h->seq = ntohl(w[1]);
    uint32_t x = ntohl(w[2]);
    h->type = (uint8_t)(x >> 24);
    h->inst = (uint8_t)(x >> 16);
    h->handler = (uint16_t)x;
    h->pb_seq = ntohl(w[4]);
    x = ntohl(w[5]);
    h->pb = (x & 0x100) != 0;
    h->pb_inst = (uint8_t)x;
    h->flags = (uint8_t)(x >> 8) & AMX_F_ACKNOW;
    h->nblank = (uint8_t)(x >> 16);
    h->key = (uint64_t)ntohl(w[6]) << 32 | ntohl(w[7]);
    if (h->type < AMX_REQ || h->type > AMX_HELLO)
        return AM_ERR_INVAL;
    return AM_OK;
}
