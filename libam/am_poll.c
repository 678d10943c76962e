/*
 * am_poll.c - progress: polling the transport, the timers (retransmission
 * on unreliable transports, owed blank replies), a dead endpoint, and
 * waiting, with the caller's wait hook.  A request waits here for a free
 * instance (am_send.c); docs/architecture.md says why no cycle of waits
 * forms.
 */
#include <errno.h>
#include <poll.h>
#include <sched.h>
#include "am_int.h"

void amx_dead_note(am_endpoint_t *ep, int why, int err, const char *word)
{
    if (ep->dead || ep->why != AM_DEATH_NONE)
        return;
    ep->why = (uint8_t)why;
    ep->why_err = err;
    ep->why_word = word;
}

void amx_declare_dead(am_interface_t *ifc, am_endpoint_t *ep, int why, int err,
                      const char *word)
{
    if (ep->dead)
        return;
    amx_dead_note(ep, why, err, word);
    ep->dead = 1;
    ifc->outstanding -= ep->inflight;
    ep->inflight = 0;
    ep->busy = 0;
    ep->st.timeouts++;
    ifc->st.timeouts++;
    ifc->tr->close_ep(ifc, ep);
    if (ifc->dead_fn)
        ifc->dead_fn(ifc, ep->tid, ifc->dead_arg);
}

/* ---- progress -------------------------------------------------------------- */

static void retransmit(am_interface_t *ifc)
{
    if (!ifc->outstanding)
        return;
    uint64_t now = amx_now_us();
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        for (unsigned i = 0; ep->inflight && i < ifc->cfg.depth; i++) {
            struct amx_slot *s = &ep->slot[i];
            int busy = amx_slot_busy(ep, i);
            if (busy && !s->deadline_us)   /* sent since the last timer run */
                s->deadline_us = now + s->timeout_us;
            if (!busy || s->deadline_us > now)
                continue;
            if ((uint64_t)s->timeout_us * 2 > ifc->cfg.timeout_max_us) {
                amx_declare_dead(ifc, ep, AM_DEATH_TIMEOUT, 0,
                                 "no reply after the last retransmission");
                break;
            }
            s->timeout_us *= 2;
            s->deadline_us = now + s->timeout_us;
            struct iovec v = { s->copy, s->copy_len };
            if (amx_send(ifc, ep, s->nlent ? s->lent : &v, s->nlent ? s->nlent : 1) ==
                AM_ERR_DEAD) {   /* e.g. its port is closed (the transport noted it) */
                amx_declare_dead(ifc, ep, AM_DEATH_SYS, 0, "a retransmission failed");
                break;
            }
            ep->st.retransmits++;
            ifc->st.retransmits++;
        }
    }
}

/* The timers after a poll that handled n AMs.  They need the clock, which
 * costs as much as the rest of a poll: one that handled input skips them
 * (its caller is about to answer and polls again), never more than
 * AMX_TIMER_SKIP in a row, so a busy stream cannot starve them. */
static inline int timers(am_interface_t *ifc, int n)
{
    if (n > 0 && ++ifc->timer_skips < AMX_TIMER_SKIP)
        return n;
    ifc->timer_skips = 0;
    if (!ifc->reliable)
        retransmit(ifc);
    amx_pay_due(ifc);
    return n;
}

/* The same timers as am_poll's, and the same skip count (a caller that
 * alternates the two never starves them either); here an empty poll
 * skips them too, as its caller spins on it: they run at least every
 * AMX_TIMER_SKIP polls whatever each found, which is microseconds, against
 * the milliseconds of AMX_ACK_DELAY_US and of retransmission. */
int am_poll_ep(am_interface_t *ifc, am_endpoint_t *ep)
{
    if (!ifc || !ep)
        return AM_ERR_INVAL;
    if (ifc->in_handler)
        return AM_ERR_STATE;
    amx_pay_now(ifc);
    int n = ifc->tr->recv_ep ? ifc->tr->recv_ep(ifc, ep) : ifc->tr->recv(ifc);
    if (++ifc->timer_skips < AMX_TIMER_SKIP)
        return n;
    timers(ifc, 0);
    return n;
}

/* am_poll_ep's count of polls is kept: a take that found nothing runs
 * the timers when they are due, as am_poll_ep would.  One that took its
 * AM leaves them to the next poll or take that finds nothing (or to
 * am_poll): its caller is about to put the message where a handler of a
 * wait in them (a blank reply paid may wait for room) must not put
 * another.  A caller that takes its message every time still polls now
 * and then (pvm3/core/progress.c, QUICK_MAX), and am_poll runs them. */
int am_take_ep(am_interface_t *ifc, am_endpoint_t *ep, am_take_fn take, void *arg)
{
    if (!ifc || !ep || !take)
        return AM_ERR_INVAL;
    if (ifc->in_handler)
        return AM_ERR_STATE;
    if (!ifc->tr->take_ep)
        return AM_TAKE_POLL;
    amx_pay_now(ifc);
    int rc = ifc->tr->take_ep(ifc, ep, take, arg);
    if ((rc == 0 || rc == 1) && ++ifc->timer_skips >= AMX_TIMER_SKIP && rc == 0)
        timers(ifc, 0);
    return rc;
}

int am_poll(am_interface_t *ifc)
{
    if (!ifc)
        return AM_ERR_INVAL;
    if (ifc->in_handler)
        return AM_ERR_STATE;
    amx_pay_now(ifc);
    return timers(ifc, ifc->tr->recv(ifc));
}

int am_next_timeout_ms(const am_interface_t *ifc)
{
    if (!ifc)
        return -1;
    uint64_t now = amx_now_us(), best = UINT64_MAX;
    /* a deadline of 0 is not stamped yet: it runs from now */
    for (am_endpoint_t *ep = ifc->eps; ep; ep = ep->next) {
        uint64_t d = ep->owe_deadline_us ? ep->owe_deadline_us : now + AMX_ACK_DELAY_US;
        if (ep->owe && d < best)
            best = d;
    }
    for (am_endpoint_t *ep = ifc->eps; !ifc->reliable && ifc->outstanding && ep; ep = ep->next)
        for (unsigned i = 0; ep->inflight && i < ifc->cfg.depth; i++) {
            const struct amx_slot *s = &ep->slot[i];
            uint64_t d = s->deadline_us ? s->deadline_us : now + s->timeout_us;
            if (amx_slot_busy(ep, i) && d < best)
                best = d;
        }
    if (best == UINT64_MAX)
        return -1;
    return best <= now ? 0 : (int)((best - now + 999) / 1000);
}

#define SPIN_US 50

/* Spin briefly (waking a sleeper on the other core costs ~20 us), giving
 * the core away at every poll unless told to keep it (am_config.wait). */
int am_wait(am_interface_t *ifc, int timeout_ms)
{
    if (!ifc)
        return AM_ERR_INVAL;
    uint64_t start = amx_now_us();
    uint64_t end = timeout_ms < 0 ? UINT64_MAX : start + (uint64_t)timeout_ms * 1000u;
    uint64_t spin = ifc->cfg.wait == AM_WAIT_BLOCK ? 0 : SPIN_US;
    for (;;) {
        int n = am_poll(ifc);
        if (n != 0)
            return n;
        uint64_t now = amx_now_us();
        if (now >= end)
            return 0;
        if (now - start < spin) {
            if (ifc->cfg.wait == AM_WAIT_YIELD)
                sched_yield();
            continue;
        }
        int fd = am_event_fd(ifc);
        int ms = timeout_ms < 0 ? -1 : (int)((end - now + 999) / 1000);
        int rt = am_next_timeout_ms(ifc);
        if (rt >= 0 && (ms < 0 || rt < ms))
            ms = rt;
        struct pollfd pf = { .fd = fd, .events = POLLIN };
        if (poll(&pf, 1, ms) < 0 && errno != EINTR)
            return AM_ERR_SYS;
    }
}

/* ---- the caller's turn while waiting ----------------------------------- */

void am_set_wait_hook(am_interface_t *ifc, am_wait_hook_fn fn, void *arg)
{
    if (ifc) {
        ifc->wait_hook = fn;
        ifc->wait_arg = arg;
    }
}

void amx_wait_hook(am_interface_t *ifc)
{
    if (ifc->wait_hook)
        ifc->wait_hook(ifc, ifc->wait_arg);
}

int am_event_fd(am_interface_t *ifc)
{
    if (!ifc)
        return -1;
    amx_pay_all(ifc);   /* about to sleep: nobody else will carry them */
    return ifc->tr->event_fd(ifc);
}
