/*
 * fuzz_am.h - shared by the libam fuzz targets: a loopback interface with
 * a handler that replies to some requests, and address helpers.
 */
#ifndef FUZZ_AM_H
#define FUZZ_AM_H

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include "am.h"

/* Every interface here has this secret, so the seeds (tests/fuzz/seeds.py)
 * carry it and reach the protocol and the handlers. */
#define FZ_KEY 0x0123456789abcdefull
#define FZ_KEYTXT "#0123456789abcdef"

static int fz_handler_id = -1;

/* Replies to every other request, sometimes with data, so both the blank
 * and the data reply paths run. */
static void fz_handler(const am_token_t *tok, void *data, size_t len)
{
    if (am_token_is_request(tok) && len && (((unsigned char *)data)[0] & 1))
        am_reply(tok, fz_handler_id, data, len > 64 ? 64 : len);
}

static void fz_bind(void)
{
    if (fz_handler_id < 0)
        fz_handler_id = am_address_to_id(fz_handler);
}

static int fz_start(const char *tr, am_interface_t **ifc)
{
    struct am_config c;
    am_config_default(&c);
    c.bind_host = "127.0.0.1";
    c.timeout_max_us = 200000;      /* nothing waits long at shutdown */
    c.connect_timeout_ms = 200;
    c.key = FZ_KEY;
    fz_bind();
    return am_init(tr, &c, ifc);
}

/* The port of an address "tr:xxxxxxxx:pppp#key". */
static int fz_port(const char *addr)
{
    const char *p = addr ? strrchr(addr, ':') : NULL;
    return p ? (int)strtol(p + 1, NULL, 16) : -1;
}

static struct sockaddr_in fz_sa(int port)
{
    struct sockaddr_in sa;
    memset(&sa, 0, sizeof sa);
    sa.sin_family = AF_INET;
    sa.sin_port = htons((uint16_t)port);
    sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return sa;
}

#endif
