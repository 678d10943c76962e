/*
 * am_base.c - libam objects: status texts, configuration, interfaces,
 * endpoints and statistics.  The address-identifier table is in
 * am_handlers.c, waiting in am_poll.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "am_int.h"

/* ---- status texts ------------------------------------------------------ */

const char *am_strerror(int s)
{
    switch (s) {
    case AM_OK: return "success";
    case AM_ERR_INVAL: return "invalid argument";
    case AM_ERR_NOMEM: return "out of memory";
    case AM_ERR_SYS: return "system call failed";
    case AM_ERR_DEAD: return "endpoint is dead";
    case AM_ERR_TIMEOUT: return "timed out";
    case AM_ERR_TOOBIG: return "payload too large";
    case AM_ERR_NOTASK: return "no such task";
    case AM_ERR_NOTSUP: return "operation not supported by the transport";
    case AM_ERR_BADADDR: return "bad address";
    case AM_ERR_EXISTS: return "already exists";
    case AM_ERR_NOHANDLER: return "handler id not bound";
    case AM_ERR_STATE: return "call not valid now";
    case AM_ERR_NOTRANSPORT: return "unknown transport";
    default: return "unknown status";
    }
}

/* ---- configuration and interfaces ------------------------------------ */

void am_config_default(struct am_config *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->depth = 8;
    cfg->timeout_us = 20000;
    cfg->timeout_max_us = 5000000;
    cfg->connect_timeout_ms = 10000;
}

/* The names, in the order of amx_transport_table (the build's list). */
#define MAX_TRANSPORTS 32
const char *const *am_transports(void)
{
    static const char *names[MAX_TRANSPORTS + 1];
    for (int i = 0; i < MAX_TRANSPORTS && amx_transport_table[i]; i++)
        names[i] = amx_transport_table[i]->name;
    return names;
}

static const struct am_transport_ops *transport_named(const char *name)
{
    for (int i = 0; name && amx_transport_table[i]; i++)
        if (!strcmp(amx_transport_table[i]->name, name))
            return amx_transport_table[i];
    return NULL;
}

int am_init(const char *transport, const struct am_config *cfg, am_interface_t **out)
{
    if (!out)
        return AM_ERR_INVAL;
    *out = NULL;
    const struct am_transport_ops *tr = transport_named(transport);
    if (!tr)
        return AM_ERR_NOTRANSPORT;
    am_interface_t *ifc = calloc(1, sizeof *ifc);
    if (!ifc)
        return AM_ERR_NOMEM;
    struct am_config def;
    am_config_default(&def);
    ifc->cfg = cfg ? *cfg : def;
    if (!ifc->cfg.depth)
        ifc->cfg.depth = def.depth;
    if (!ifc->cfg.timeout_us)
        ifc->cfg.timeout_us = def.timeout_us;
    if (!ifc->cfg.timeout_max_us)
        ifc->cfg.timeout_max_us = def.timeout_max_us;
    if (!ifc->cfg.connect_timeout_ms)
        ifc->cfg.connect_timeout_ms = def.connect_timeout_ms;
    if (!ifc->cfg.max_payload)
        ifc->cfg.max_payload = tr->default_payload;
    int rc = AM_ERR_INVAL;
    if (ifc->cfg.depth > AMX_MAX_DEPTH || ifc->cfg.max_payload > tr->max_payload ||
        ifc->cfg.wait < AM_WAIT_YIELD || ifc->cfg.wait > AM_WAIT_BLOCK)
        goto fail;
    rc = AM_ERR_NOTSUP;   /* a reliable transport cannot lose: no pretending */
    if (ifc->cfg.fault_drop_ppm && tr->reliable)
        goto fail;
    ifc->tr = tr;
    ifc->reliable = tr->reliable;
    /* every half window, and when it is full, the receiver should not sit
     * on replies (only then: flagging every request past the half would
     * bring back one reply per request); a mask, so that a request asks
     * with one shift */
    unsigned half = (ifc->cfg.depth + 1) / 2 < 2 ? 2 : (ifc->cfg.depth + 1) / 2;
    for (unsigned n = 1; n <= ifc->cfg.depth; n++)
        if (n == ifc->cfg.depth || n == half || n == 2 * half)
            ifc->acknow_at |= (uint64_t)1 << (n - 1);
    ifc->drop_rnd = (unsigned)getpid() * 2654435761u;
    ifc->key = ifc->cfg.key;
    if (!ifc->key && (rc = amx_key_new(&ifc->key)) < 0)
        goto fail;
    if ((rc = tr->init(ifc)) < 0)
        goto fail;
    if ((rc = amx_cap_format(ifc->self_cap, sizeof ifc->self_cap, ifc->self_addr, ifc->key)) < 0)
        goto fail_tr;
    *out = ifc;
    return AM_OK;
fail_tr:
    tr->shutdown(ifc);
fail:
    free(ifc);
    return rc;
}

static char no_addr[1];   /* an endpoint's name and cap until set_peer */

static void free_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (ifc->hold_ep == ep)
        ifc->hold_ep = NULL;
    ifc->tr->ep_free(ifc, ep);
    if (ep->cap != no_addr)
        free(ep->cap);
    for (unsigned i = 0; i < ifc->cfg.depth; i++) {
        free(ep->slot[i].copy);
        free(ep->slot[i].lent);
        if (ep->rslot) {
            free(ep->rslot[i].held_pkt);
            free(ep->rslot[i].rep_pkt);
        }
    }
    free(ep);
}

int am_shutdown(am_interface_t *ifc)
{
    if (!ifc)
        return AM_ERR_INVAL;
    /* let outstanding requests finish, bounded by the dead-peer limit */
    uint64_t limit = amx_now_us() + ifc->cfg.timeout_max_us;
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next)
        amx_pay_owed(ifc, ep);   /* peers wait for these */
    while (ifc->outstanding && amx_now_us() < limit)
        if (am_wait(ifc, 10) < 0)
            break;
    ifc->closing = 1;
    while (ifc->eps) {
        am_endpoint_t *ep = ifc->eps;
        ifc->eps = ep->next;
        free_ep(ifc, ep);
    }
    ifc->tr->shutdown(ifc);
    free(ifc);
    return AM_OK;
}

const char *am_transport_name(const am_interface_t *ifc) { return ifc ? ifc->tr->name : NULL; }
size_t am_max_payload(const am_interface_t *ifc) { return ifc ? ifc->cfg.max_payload : 0; }
void am_set_user(am_interface_t *ifc, void *user) { if (ifc) ifc->user = user; }
void *am_get_user(const am_interface_t *ifc) { return ifc ? ifc->user : NULL; }
void am_set_dead_handler(am_interface_t *ifc, am_dead_fn fn, void *arg)
{
    if (ifc) {
        ifc->dead_fn = fn;
        ifc->dead_arg = arg;
    }
}

unsigned am_outstanding(const am_interface_t *ifc) { return ifc ? ifc->outstanding : 0; }

/* ---- endpoints (thesis 5.1) --------------------------------------------- */

am_endpoint_t *am_find_task(am_interface_t *ifc, int32_t tid)
{
    if (!ifc)
        return NULL;
    /* move-to-front: consecutive AMs mostly go to the same task */
    for (am_endpoint_t **pp = &ifc->eps; *pp; pp = &(*pp)->next) {
        am_endpoint_t *ep = *pp;
        if (ep->inserted && ep->tid == tid) {
            *pp = ep->next;
            ep->next = ifc->eps;
            ifc->eps = ep;
            return ep;
        }
    }
    return NULL;
}

/* The requests by tid: here, by their lookup, so that am_send.c calls
 * nothing in the file that picks the transports (libam calls in layers,
 * tests/libam/call-circles.sh). */
int am_request_vdata(am_interface_t *ifc, int32_t tid, int handler,
                     const struct iovec *iov, int iovcnt)
{
    am_endpoint_t *ep = am_find_task(ifc, tid);
    if (!ep)
        return ifc ? AM_ERR_NOTASK : AM_ERR_INVAL;
    return am_request_vdata_ep(ifc, ep, handler, iov, iovcnt);
}

int am_request(am_interface_t *ifc, int32_t tid, int handler, const void *data, size_t len)
{
    struct iovec v = { (void *)data, len };
    return am_request_vdata(ifc, tid, handler, &v, len ? 1 : 0);
}

const char *am_task_address(am_interface_t *ifc, int32_t tid)
{
    if (!ifc)
        return NULL;
    if (tid == AM_TID_SELF)
        return ifc->self_cap;
    am_endpoint_t *ep = am_find_task(ifc, tid);
    return ep ? ep->cap : NULL;
}

const char *am_hostname(am_interface_t *ifc, int32_t tid)
{
    am_endpoint_t *ep = am_find_task(ifc, tid);
    if (!ep)
        return NULL;
    ep->host[0] = '\0';
    if (ep->name[0])   /* the transport knows its addresses */
        ifc->tr->host(ep, ep->host, sizeof ep->host);
    return ep->host;
}

int am_allocate_task(am_interface_t *ifc, am_endpoint_t **out)
{
    if (!ifc || !out)
        return AM_ERR_INVAL;
    /* The window's slots come with the endpoint, as many as the window
     * is deep (not AMX_MAX_DEPTH): an idle peer costs little. */
    size_t nslot = ifc->cfg.depth, nrslot = ifc->reliable ? 0 : ifc->cfg.depth;
    am_endpoint_t *ep = calloc(1, sizeof *ep + nslot * sizeof *ep->slot +
                                      nrslot * sizeof *ep->rslot);
    if (!ep)
        return AM_ERR_NOMEM;
    ep->slot = (struct amx_slot *)(ep + 1);
    ep->rslot = nrslot ? (struct amx_rslot *)(ep->slot + nslot) : NULL;
    ep->ifc = ifc;
    ep->name = ep->cap = no_addr;
    int rc = ifc->tr->ep_new(ifc, ep);
    if (rc < 0) {
        free(ep);
        return rc;
    }
    ep->next = ifc->eps;
    ifc->eps = ep;
    *out = ep;
    return AM_OK;
}

/* The secret at the end is ours to take (am_auth.c); the address before
 * it is the transport's business: it parses that text. */
static int set_peer(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    char addr[AMX_ADDRLEN];
    uint64_t key;
    if (!name || strlen(name) >= AMX_CAPLEN ||
        amx_cap_split(name, addr, sizeof addr, &key) < 0 || ifc->tr->peer(ifc, ep, addr) < 0)
        return AM_ERR_BADADDR;
    size_t nl = strlen(addr) + 1, cl = strlen(name) + 1;
    char *b = malloc(cl + nl);
    if (!b)
        return AM_ERR_NOMEM;
    if (ep->cap != no_addr)
        free(ep->cap);
    ep->cap = memcpy(b, name, cl);
    ep->name = memcpy(b + cl, addr, nl);
    ep->key = key;
    return AM_OK;
}

int am_connect_task(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    int rc = set_peer(ifc, ep, name);
    if (rc < 0)
        return rc;
    if ((rc = ifc->tr->connect(ifc, ep)) < 0)
        return rc;
    ep->connected = 1;
    return AM_OK;
}

int am_accept_task(am_interface_t *ifc, am_endpoint_t *ep, const char *name)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    int rc = set_peer(ifc, ep, name);
    if (rc < 0)
        return rc;
    if ((rc = ifc->tr->accept(ifc, ep)) < 0)
        return rc;
    ep->connected = 1;
    return AM_OK;
}

int am_insert_task(am_interface_t *ifc, am_endpoint_t *ep, int32_t tid)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    if (am_find_task(ifc, tid))
        return AM_ERR_EXISTS;
    ep->tid = tid;
    ep->inserted = 1;
    return AM_OK;
}

int am_remove_task(am_interface_t *ifc, int32_t tid)
{
    am_endpoint_t *ep = am_find_task(ifc, tid);
    if (!ep)
        return AM_ERR_NOTASK;
    ep->inserted = 0;
    return AM_OK;
}

int am_deallocate_task(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    for (am_endpoint_t **pp = &ifc->eps; *pp; pp = &(*pp)->next) {
        if (*pp == ep) {
            *pp = ep->next;
            ifc->outstanding -= ep->inflight;
            free_ep(ifc, ep);
            return AM_OK;
        }
    }
    return AM_ERR_NOTASK;
}

int am_task_dead(const am_endpoint_t *ep) { return ep ? ep->dead : 1; }

int am_task_death(const am_endpoint_t *ep, int *err)
{
    int dead = ep && ep->dead;
    if (err)
        *err = dead ? ep->why_err : 0;
    return dead ? ep->why : AM_DEATH_NONE;
}

/* "<transport>: <its word>[: <errno's text>]", made when asked: a death
 * costs the endpoint three fields, not the text's room. */
const char *am_task_dead_reason(const am_endpoint_t *ep)
{
    if (!ep || !ep->dead)
        return "";
    am_interface_t *ifc = ep->ifc;
    snprintf(ifc->why_text, sizeof ifc->why_text, "%s: %s%s%s", ifc->tr->name,
             ep->why_word ? ep->why_word : "declared dead", ep->why_err ? ": " : "",
             ep->why_err ? strerror(ep->why_err) : "");
    return ifc->why_text;
}

/* A reliable transport is one with connections here (am_int.h: tcp,
 * shm), and it declares an endpoint dead when its connection ends, after
 * reading what came before. */
int am_task_ended(const am_endpoint_t *ep) { return !ep || ep->dead || !ep->ifc->reliable; }

/* ---- statistics ---------------------------------------------------------- */

void am_interface_stats(const am_interface_t *ifc, struct am_stats *out)
{
    if (ifc && out)
        *out = ifc->st;
}

int am_task_stats(am_interface_t *ifc, int32_t tid, struct am_stats *out)
{
    am_endpoint_t *ep = am_find_task(ifc, tid);
    if (!ep)
        return AM_ERR_NOTASK;
    if (out)
        *out = ep->st;
    return AM_OK;
}

/* ---- tokens ----------------------------------------------------------- */

am_interface_t *am_token_interface(const am_token_t *t) { return t ? t->ifc : NULL; }
am_endpoint_t *am_token_endpoint(const am_token_t *t) { return t ? t->ep : NULL; }
int32_t am_token_tid(const am_token_t *t) { return t && t->ep ? t->ep->tid : -1; }
int am_token_is_request(const am_token_t *t) { return t ? t->is_request : 0; }
size_t am_token_placed(const am_token_t *t) { return t ? t->placed : 0; }
uint64_t am_bytes_read(const am_interface_t *ifc) { return ifc ? ifc->rx_read : 0; }

void am_hold_big(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (ifc)
        ifc->hold_ep = ep;
}

void am_placement_discard(am_endpoint_t *ep)
{
    if (ep && ep->ifc->tr->placement_discard)   /* NULL: nothing is ever placed */
        ep->ifc->tr->placement_discard(ep);
}
