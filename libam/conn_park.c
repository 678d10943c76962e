/*
 * conn_park.c - greeting and parking incoming connections (conn_park.h),
 * for every transport with a listener (tr_tcp.c, shm/segment.c).
 *
 * A greeting is never waited for, except in am_accept: a connection that
 * says nothing (a stranger) costs the task a slot for at most
 * HELLO_WAIT_US, not a stall.  A parked connection is not watched and
 * nothing more is read from it until it is claimed; one nobody claims
 * within connect_timeout_ms is closed (its connector sees the end of its
 * stream and keeps the daemon route, docs/link-setup.md).
 */
#define _GNU_SOURCE   /* accept4 */
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include "conn_park.h"

#define HELLO_WAIT_US 1000000u   /* a real connector says hello at once */

void amx_park_init(struct amx_park *p, int lfd, int epfd, const struct amx_park_ops *ops)
{
    memset(p, 0, sizeof *p);
    p->lfd = lfd;
    p->epfd = epfd;
    p->ops = ops;
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
    if (count)
        ifc->st.drops++;
}

/* Close parked connections nobody claimed in time, and connections whose
 * hello did not come in time. */
void amx_park_expire(am_interface_t *ifc, struct amx_park *p)
{
    if (!p->npark && !p->ngreet)
        return;
    uint64_t now = amx_now_us(), limit = (uint64_t)ifc->cfg.connect_timeout_ms * 1000u;
    for (int i = 0; i < p->ngreet;) {
        if (now - p->greet[i].since_us > HELLO_WAIT_US)
            greet_drop(ifc, p, i, 1);
        else
            i++;
    }
    for (int i = 0; i < p->npark;) {
        if (now - p->park[i].since_us > limit) {
            amx_park_close(p, &p->park[i]);
            p->park[i] = p->park[--p->npark];
            ifc->st.drops++;
        } else {
            i++;
        }
    }
}

static int park(struct amx_park *p, const struct amx_parked *pk)
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
    p->park[p->npark++].since_us = amx_now_us();
    return 0;
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
    if (park(p, &pk) < 0) {   /* too many waiting */
        amx_park_close(p, &pk);
        ifc->st.drops++;
    }
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

/* Accept one pending connection and read its hello as far as it has come
 * (a real connector's is there already). */
void amx_park_accept(am_interface_t *ifc, struct amx_park *p)
{
    struct amx_greeting g = { .fd = accept4(p->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC) };
    if (g.fd < 0)
        return;
    if (p->ops->accepted(ifc, &g) < 0) {
        ifc->st.drops++;   /* nothing is read */
        close(g.fd);
        return;
    }
    if (p->ngreet == AMX_GREET_MAX) {   /* the oldest has had the longest to speak */
        int old = 0;
        for (int i = 1; i < p->ngreet; i++)
            if (p->greet[i].since_us < p->greet[old].since_us)
                old = i;
        greet_drop(ifc, p, old, 1);
    }
    struct epoll_event ev = { .events = EPOLLIN, .data.u64 = AMX_GREET_TAG(g.fd) };
    if (epoll_ctl(p->epfd, EPOLL_CTL_ADD, g.fd, &ev) < 0) {
        close(g.fd);
        ifc->st.drops++;
        return;
    }
    g.since_us = amx_now_us();
    g.got = 0;
    p->greet[p->ngreet++] = g;
    greet_input(ifc, p, p->ngreet - 1);
}

/* Wait up to ms for connections and hellos, and take them in. */
static void wait_greetings(am_interface_t *ifc, struct amx_park *p, int ms)
{
    struct pollfd fds[1 + AMX_GREET_MAX];
    int n = 0;
    fds[n++] = (struct pollfd){ .fd = p->lfd, .events = POLLIN };
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
