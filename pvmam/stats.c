/*
 * stats.c - pvmam_stats: message and byte counts per peer and per task,
 * over AM and over the daemon, with libam's protocol counters, and the
 * transport each link uses.
 */
#include <stdio.h>
#include <string.h>
#include "pvmam_int.h"

static void add(struct pvmam_stats *to, const struct pvmam_stats *s)
{
    to->am_msgs_sent += s->am_msgs_sent;
    to->am_msgs_recv += s->am_msgs_recv;
    to->am_bytes_sent += s->am_bytes_sent;
    to->am_bytes_recv += s->am_bytes_recv;
}

const char *pvmam_dead_reason(int tid)
{
    struct pvmx_peer *p = pvmx_peer_find(tid);
    if (p && p->need_close && !pvmx_link_dead(p))   /* closing: link.c, close_exited */
        return "the pvmd said the task exited (its link is closing)";
    return p && pvmx_link_dead(p) ? (p->why[0] ? p->why : "unknown") : NULL;
}

int pvmam_stats(int tid, struct pvmam_stats *out)
{
    if (!out)
        return PvmBadParam;
    memset(out, 0, sizeof *out);
    struct am_stats a;
    memset(&a, 0, sizeof a);
    if (tid == 0) {
        for (int i = 0; i < pvmx_peer_count(); i++) {
            struct pvmx_peer *p = pvmx_peer_at(i);
            add(out, &p->st);
            out->peers_am += (pvmx_link_tx(p) && !pvmx_link_dead(p));
            out->peers_opening += pvmx_link_opening(p);
        }
        /* daemon-route counts include tasks we never had a peer entry for */
        out->pvmd_msgs_sent = pvmx.total.pvmd_msgs_sent;
        out->pvmd_msgs_recv = pvmx.total.pvmd_msgs_recv;
        out->pvmd_bytes_sent = pvmx.total.pvmd_bytes_sent;
        out->pvmd_bytes_recv = pvmx.total.pvmd_bytes_recv;
        for (int i = 0; i < pvmx.nifc; i++) {
            struct am_stats b;
            am_interface_stats(pvmx.ifc[i], &b);
            a.retransmits += b.retransmits;
            a.duplicates += b.duplicates;
            a.drops += b.drops;
            a.auth_drops += b.auth_drops;
        }
        snprintf(out->transport, sizeof out->transport, "%s", pvmam_transport());
    } else {
        struct pvmx_peer *p = pvmx_peer_find(tid);
        if (!p)
            return PvmNoTask;
        *out = p->st;
        out->peers_am = (pvmx_link_tx(p) && !pvmx_link_dead(p));
        out->peers_opening = pvmx_link_opening(p);
        if (p->ifc) {   /* it has an endpoint: the link's transport */
            am_task_stats(p->ifc, tid, &a);
            snprintf(out->transport, sizeof out->transport, "%s",
                     am_transport_name(p->ifc));
        }
    }
    out->retransmits = a.retransmits;
    out->duplicates = a.duplicates;
    out->drops = a.drops;
    if (!tid)   /* malformed fragments the pvmd brought (pvm3/core/wire.c) count too */
        out->drops += pvmi_bad_fragments();
    out->auth_drops = a.auth_drops;
    return 0;
}
