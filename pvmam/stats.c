/*
 * stats.c - pvmam_stats: message and byte counts per peer and per task,
 * over AM and over the daemon, with libam's protocol counters.
 */
#include <string.h>
#include "pvmam_int.h"

static void add(struct pvmam_stats *to, const struct pvmam_stats *s)
{
    to->am_msgs_sent += s->am_msgs_sent;
    to->am_msgs_recv += s->am_msgs_recv;
    to->am_bytes_sent += s->am_bytes_sent;
    to->am_bytes_recv += s->am_bytes_recv;
}

int pvmam_stats(int tid, struct pvmam_stats *out)
{
    if (!out)
        return PvmBadParam;
    memset(out, 0, sizeof *out);
    struct am_stats a;
    memset(&a, 0, sizeof a);
    if (tid == 0) {
        for (int i = 0; i < pvmam_peer_count(); i++) {
            struct pvmam_peer *p = pvmam_peer_at(i);
            add(out, &p->st);
            out->peers_am += p->tx_open && !p->dead;
            out->peers_opening += pvmam_link_opening(p);
        }
        /* daemon-route counts include tasks we never had a peer entry for */
        out->pvmd_msgs_sent = pvmam.total.pvmd_msgs_sent;
        out->pvmd_msgs_recv = pvmam.total.pvmd_msgs_recv;
        out->pvmd_bytes_sent = pvmam.total.pvmd_bytes_sent;
        out->pvmd_bytes_recv = pvmam.total.pvmd_bytes_recv;
        if (pvmam.ifc)
            am_interface_stats(pvmam.ifc, &a);
    } else {
        struct pvmam_peer *p = pvmam_peer_find(tid);
        if (!p)
            return PvmNoTask;
        *out = p->st;
        out->peers_am = p->tx_open && !p->dead;
        out->peers_opening = pvmam_link_opening(p);
        if (pvmam.ifc)
            am_task_stats(pvmam.ifc, tid, &a);
    }
    out->retransmits = a.retransmits;
    out->duplicates = a.duplicates;
    out->drops = a.drops;
    return 0;
}
