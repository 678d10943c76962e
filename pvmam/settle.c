/*
 * settle.c - the first send to a peer waits a moment for its AM link.
 *
 * Links open on demand (link.c): the first message to a peer goes
 * through the pvmd while the link opens behind it.  A master that streams
 * right after pvm_spawn would so send its first megabytes through the
 * pvmd, because the child has not even started.  So before the first
 * user message of SETTLE_MIN_BYTES or more to a peer goes through the
 * daemon (route.h's settle op), it waits, once per peer:
 *  - for a peer not known yet while it has not connected to its pvmd
 *    (spawned and still starting: it could not read the message anyway),
 *    at most SETTLE_START_MS, and then SETTLE_GRACE_MS more for its
 *    address, which a libpvm3am task publishes right after it connects.
 *    A stock task never publishes: it costs task queries and the grace,
 *    once;
 *  - for a libpvm3am peer (its address is in the mailbox) at most
 *    SETTLE_MS more, until the link is open.
 * A smaller message does not wait: through the pvmd it costs less than
 * the link's set-up (several daemon hops), and a start-up reply, the
 * common first message, would only be delayed.
 * A peer that is busy outside PVM calls cannot answer the link set-up;
 * the bound keeps the sender from waiting on it, and the daemon route
 * carries the message as before.
 */
#include "pvmam_int.h"

#define SETTLE_MIN_BYTES 65536
#define SETTLE_START_MS 1000
#define SETTLE_MS 100
#define SETTLE_GRACE_MS 20
#define ASK_EVERY_MS 2   /* task queries while the peer is starting */

/* Still worth waiting for p?  Asks the pvmd whether an unknown peer has
 * connected, at most every ASK_EVERY_MS. */
static int worth_waiting(struct pvmx_peer *p, long long now, long long *asked,
                         long long *connected)
{
    if (pvmx_link_dead(p) || p->link == PVMX_STOCK)
        return 0;
    if (p->link != PVMX_UNKNOWN) {   /* known libpvm3am: its link is opening */
        if (*connected < 0)
            *connected = now;
        return now - *connected < SETTLE_MS;
    }
    if (*connected >= 0)
        return now - *connected <= SETTLE_GRACE_MS;
    if (now - *asked < ASK_EVERY_MS)
        return 1;
    *asked = now;
    int c = pvmi_task_connected(p->tid);
    if (c < 0)
        return 0;   /* gone, or cannot tell: the daemon route decides */
    if (c > 0)
        *connected = now;
    return 1;
}

int pvmx_settle(void *ctx, int tid, size_t len)
{
    (void)ctx;
    if (len < SETTLE_MIN_BYTES || !pvmx.on || pvmx.starting || pvmx.exiting || tid == pvmx.mytid)
        return 0;
    struct pvmx_peer *p = pvmx_peer_get(tid);
    if (!p || p->settled)
        return 0;
    p->settled = 1;
    pvmx_link_consider(p);   /* the mailbox watch, or the link itself */
    /* connected: when it was seen connected (or known to be libpvm3am) */
    long long t0 = pvmx_now_ms(), now = t0, asked = t0 - ASK_EVERY_MS, connected = -1;
    while (!pvmx_link_tx(p) && now - t0 < SETTLE_START_MS + SETTLE_MS &&
           worth_waiting(p, now, &asked, &connected)) {
        if (pvmi_progress(1) < 0)
            break;
        now = pvmx_now_ms();
    }
    pvmx_log("first send to t%x: %s after %lld ms", tid, pvmx_link_tx(p) ? "AM" : "daemon route",
             now - t0);
    return pvmx_link_tx(p) && !pvmx_link_dead(p);
}
