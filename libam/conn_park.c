/*
 * conn_park.c - greeting and parking incoming connections (conn_park.h),
 * for every transport with a listener (tr_tcp.c, shm/segment.c).
 *
 * A greeting is never waited for, except in am_accept.  A connection that
 * says nothing (a stranger) is closed after HELLO_LIMIT_US (or
 * connect_timeout_ms if shorter), or after HELLO_WAIT_US when the
 * greetings are full and a new one comes; while
 * they are full of younger ones nothing more is accepted (the listener
 * leaves the epoll set, the connections wait in the backlog): a real
 * connector on a loaded host may take more than a second between its
 * connect and its hello, and dropping it would cost its acceptor
 * connect_timeout_ms in am_accept for a connection that never comes.
 *
 * A parked connection is not watched and nothing more is read from it
 * until it is claimed.  It stays parked while its connector keeps it open
 * (looked at every connect_timeout_ms): the claim may come late
 * (pvmam_init's mesh accepts only once every task connected,
 * docs/link-setup.md), and a connector that gave up closes its end (its
 * endpoint is freed).  So nothing a live connector sent is dropped,
 * except beyond AMX_PARK_MAX, and then its connector sees the end of its
 * stream and keeps the daemon route.
 */
#define _GNU_SOURCE   /* accept4 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include "conn_park.h"

#define HELLO_WAIT_US 1000000u   /* a real connector says hello at once, unless starved */
/* The longest a greeting may stay silent: twice the latest hello seen from
 * a starved connector (1.47 s, 256 tasks on 2 cores at load 100), and
 * short enough that a stranger's silent connection goes within seconds
 * (tests/integration/stranger.sh waits 5 s for it). */
#define HELLO_LIMIT_US 3000000u

void amx_park_init(struct amx_park *p, int lfd, int epfd, uint64_t ltag,
                   const struct amx_park_ops *ops)
{
    memset(p, 0, sizeof *p);
    p->lfd = lfd;
    p->epfd = epfd;
    p->ltag = ltag;
    p->ops = ops;
}

/* Take the listener out of the epoll set (greetings full) or put it back. */
static void listen_pause(struct amx_park *p, int pause)
{
    if (p->paused == pause)
        return;
    struct epoll_event ev = { .events = pause ? 0 : EPOLLIN, .data.u64 = p->ltag };
    if (epoll_ctl(p->epfd, EPOLL_CTL_MOD, p->lfd, &ev) == 0)
        p->paused = pause;
}

/* The greeting that has been silent longest. */
static int greet_oldest(const struct amx_park *p)
{
    int old = 0;
    for (int i = 1; i < p->ngreet; i++)
        if (p->greet[i].since_us < p->greet[old].since_us)
            old = i;
    return old;
}

/* Room for a greeting: a free slot, or one silent for HELLO_WAIT_US. */
static int greet_room(const struct amx_park *p, uint64_t now)
{
    return p->ngreet < AMX_GREET_MAX ||
           now - p->greet[greet_oldest(p)].since_us > HELLO_WAIT_US;
}

/* Has the connector closed its end?  Only for parked connections, which
 * are out of the epoll set; a greeting's hangup comes as its event. */
static int hung_up(int fd)
{
    struct pollfd q = { .fd = fd, .events = POLLRDHUP };
    return poll(&q, 1, 0) > 0 && (q.revents & (POLLRDHUP | POLLHUP | POLLERR | POLLNVAL));
}

void amx_park_close(const struct amx_park *p, struct amx_parked *pk)
{
    if (pk->fd >= 0)
        close(pk->fd);
    if (pk->info && p->ops->discard)
        p->ops->discard(pk->info);
    pk->fd = -1;
    pk->info = NULL;
}

void amx_park_free(struct amx_park *p)
{
    for (int i = 0; i < p->npark; i++)
        amx_park_close(p, &p->park[i]);
    for (int i = 0; i < p->ngreet; i++)
        close(p->greet[i].fd);
    free(p->park);
    p->park = NULL;
    p->npark = p->ngreet = p->cap = 0;
}

static void greet_drop(am_interface_t *ifc, struct amx_park *p, int i, int count)
{
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, p->greet[i].fd, NULL);
    close(p->greet[i].fd);
    p->greet[i] = p->greet[--p->ngreet];
    listen_pause(p, 0);   /* room again */
    if (count)
        ifc->st.drops++;
}

/* Close parked connections whose connector hung up, and connections
 * whose hello did not come in time; let the listener in again once a
 * greeting may go. */
void amx_park_expire(am_interface_t *ifc, struct amx_park *p)
{
    if (!p->npark && !p->ngreet && !p->paused)
        return;
    uint64_t now = amx_now_us(), limit = (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    uint64_t glimit = limit < HELLO_LIMIT_US ? limit : HELLO_LIMIT_US;
    for (int i = 0; i < p->ngreet;) {
        if (now - p->greet[i].since_us > glimit)
            greet_drop(ifc, p, i, 1);
        else
            i++;
    }
    if (p->paused && greet_room(p, now))
        listen_pause(p, 0);
    for (int i = 0; i < p->npark;) {
        if (now >= p->park[i].check_us && hung_up(p->park[i].fd)) {
            amx_park_close(p, &p->park[i]);
            p->park[i] = p->park[--p->npark];
            ifc->st.drops++;
        } else {
            if (now >= p->park[i].check_us)   /* still there: look again later */
                p->park[i].check_us = now + limit;
            i++;
        }
    }
}

static int park(struct amx_park *p, const struct amx_parked *pk, unsigned limit_ms)
{
    if (p->npark == p->cap) {
        int cap = p->cap ? p->cap * 2 : 16;
        if (cap > AMX_PARK_MAX)
            return -1;
        struct amx_parked *np = realloc(p->park, sizeof *np * (size_t)cap);
        if (!np)
            return -1;
        p->park = np;
        p->cap = cap;
    }
    p->park[p->npark] = *pk;
    p->park[p->npark].since_us = amx_now_us();
    p->park[p->npark++].check_us = amx_now_us() + (uint64_t)limit_ms * 1000u;
    return 0;
}

/* A whole hello: park the connection under the name it gave. */
static void park_greeted(am_interface_t *ifc, struct amx_park *p, struct amx_parked *pk)
{
    if (park(p, pk, ifc->cfg.connect_timeout_ms) < 0) {   /* too many waiting */
        amx_park_close(p, pk);
        ifc->st.drops++;
    }
}

/* Read what has come of greeting i's hello; once it is whole, park the
 * connection under the name it gives. */
static void greet_input(am_interface_t *ifc, struct amx_park *p, int i)
{
    struct amx_parked pk = { .fd = p->greet[i].fd };
    switch (p->ops->hello(ifc, &p->greet[i], &pk)) {
    case AMX_HELLO_MORE:
        return;
    case AMX_HELLO_DROP:
        greet_drop(ifc, p, i, 1);
        return;
    case AMX_HELLO_REFUSED:
        greet_drop(ifc, p, i, 0);
        return;
    }
    epoll_ctl(p->epfd, EPOLL_CTL_DEL, pk.fd, NULL);   /* parked: not watched */
    p->greet[i] = p->greet[--p->ngreet];
    listen_pause(p, 0);   /* room again */
    park_greeted(ifc, p, &pk);
}

static int greet_find(const struct amx_park *p, int fd)
{
    for (int i = 0; i < p->ngreet; i++)
        if (p->greet[i].fd == fd)
            return i;
    return -1;
}

void amx_park_greet_event(am_interface_t *ifc, struct amx_park *p, uint64_t tag)
{
    int i = greet_find(p, (int)(tag >> 3));
    if (i >= 0)
        greet_input(ifc, p, i);
}

/* Accept one pending connection and read its hello as far as it has
 * come.  A real connector's is there already (it sends it right after its
 * connect): then the connection is parked at once and never enters the
 * epoll set; only one whose hello is not yet whole is greeted (watched). */
static int accept_one(am_interface_t *ifc, struct amx_park *p)
{
    uint64_t now = amx_now_us();
    if (!greet_room(p, now)) {   /* all young: the rest wait in the backlog */
        listen_pause(p, 1);
        return -1;
    }
    struct amx_greeting g = { .fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC),
                              .since_us = now };
    if (g.fd < 0)
        return -1;
    if (p->ops->accepted(ifc, &g) < 0) {
        ifc->st.drops++;   /* nothing is read */
        close(g.fd);
        return 0;
    }
    struct amx_parked pk = { .fd = g.fd };
    switch (p->ops->hello(ifc, &g, &pk)) {
    case AMX_HELLO_DONE:
        park_greeted(ifc, p, &pk);
        return 0;
    case AMX_HELLO_DROP:
        ifc->st.drops++;
        close(g.fd);
        return 0;
    case AMX_HELLO_REFUSED:   /* counted by amx_auth */
        close(g.fd);
        return 0;
    }
    if (p->ngreet == AMX_GREET_MAX)   /* silent for HELLO_WAIT_US (greet_room): a stranger */
        greet_drop(ifc, p, greet_oldest(p), 1);
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = AMX_GREET_TAG(g.fd) };
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, g.fd, &ev) < 0) {
        close(g.fd);
        ifc->st.drops++;
        return 0;
    }
    p->greet[p->ngreet++] = g;
    return 0;
}

/* Accept what is pending, up to ACCEPT_BATCH (the caller stays
 * responsive): a mesh's connectors come all at once, and one accept per
 * readiness of the listener cost an epoll_wait each. */
#define ACCEPT_BATCH 64
void amx_park_accept(am_interface_t *ifc, struct amx_park *p)
{
    for (int k = 0; k < ACCEPT_BATCH && accept_one(ifc, p) == 0; k++)
        ;
}

/* Wait up to ms for connections and hellos, and take them in. */
static void wait_greetings(am_interface_t *ifc, struct amx_park *p, int ms)
{
    struct pollfd fds[1 + AMX_GREET_MAX];
    int n = 0;
    fds[n++] = (struct pollfd){ .fd = p->paused ? -1 : p->lfd, .events = POLLIN };
    for (int i = 0; i < p->ngreet; i++)
        fds[n++] = (struct pollfd){ .fd = p->greet[i].fd, .events = POLLIN };
    if (poll(fds, (nfds_t)n, ms) <= 0)
        return;
    for (int k = 1; k < n; k++) {
        int i = fds[k].revents ? greet_find(p, fds[k].fd) : -1;
        if (i >= 0)
            greet_input(ifc, p, i);
    }
    if (fds[0].revents)
        amx_park_accept(ifc, p);
}

/* am_accept: the connection parked under name, waiting for it up to
 * connect_timeout_ms (the only wait here; it runs no handlers).  AM_OK
 * with *out the caller's to use or amx_park_close, or AM_ERR_TIMEOUT. */
int amx_park_claim(am_interface_t *ifc, struct amx_park *p, const char *name,
                   struct amx_parked *out)
{
    uint64_t deadline = amx_now_us() + (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    for (;;) {
        for (int i = 0; i < p->npark; i++) {
            if (!strcmp(p->park[i].name, name)) {
                *out = p->park[i];
                p->park[i] = p->park[--p->npark];
                return AM_OK;
            }
        }
        uint64_t now = amx_now_us();
        if (now >= deadline)
            return AM_ERR_TIMEOUT;
        amx_park_expire(ifc, p);
        int ms = (int)((deadline - now) / 1000 + 1);
        wait_greetings(ifc, p, ms > 100 ? 100 : ms);   /* wake to expire greetings */
    }
}
