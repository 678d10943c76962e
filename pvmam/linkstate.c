/*
 * linkstate.c - the state of one side of an AM link (docs/link-setup.md,
 * "States of one side of a link"): one enum, a table of names and of what
 * each state means for traffic, the legal transitions, and the one
 * function that changes a peer's state.
 *
 * A state change that the table does not allow is a bug in pvmam (the
 * protocol's stray messages are ignored before they get here, link.c):
 * it is refused and logged, and the peer keeps its state, so a task
 * running without PVMAM_VERBOSE carries on as it would have with the old
 * flags; built with -DPVMX_STRICT_STATES it aborts instead, for tests.
 * tests/pvmam/test_linkstate.c checks every pair and that this table and
 * the doc's agree.
 */
#include <stdio.h>
#include <stdlib.h>
#include "pvmam_int.h"

#define TO(s) (1u << (s))

/* tx: our user messages to it go over AM (or fail once it is dead);
 * rx: its AMs are delivered (not held for its SWITCH or READY). */
const struct pvmx_link_info pvmx_link_table[PVMX_NLINK] = {
    [PVMX_UNKNOWN] = { "UNKNOWN", 0, 0, 0, TO(PVMX_STOCK) | TO(PVMX_KNOWN) },
    [PVMX_STOCK] = { "STOCK", 0, 0, 0, TO(PVMX_KNOWN) },
    [PVMX_KNOWN] = { "KNOWN", 0, 0, 0,
                     TO(PVMX_STOCK) | TO(PVMX_S_CONNECTING) | TO(PVMX_L_ACCEPTED) },
    [PVMX_S_CONNECTING] = { "S-CONNECTING", 0, 0, 0,
                            TO(PVMX_S_SWITCHING) | TO(PVMX_OPEN) | TO(PVMX_STOCK) |
                                TO(PVMX_DEAD_HELD) },
    [PVMX_S_SWITCHING] = { "S-SWITCHING", 0, 1, 0, TO(PVMX_OPEN) | TO(PVMX_DEAD_S_SWITCHING) },
    [PVMX_L_ACCEPTED] = { "L-ACCEPTED", 0, 0, 0,
                          TO(PVMX_L_SWITCHED) | TO(PVMX_OPEN) | TO(PVMX_DEAD_HELD) },
    [PVMX_L_SWITCHED] = { "L-SWITCHED", 1, 0, 0, TO(PVMX_OPEN) | TO(PVMX_DEAD_L_SWITCHED) },
    [PVMX_OPEN] = { "OPEN", 1, 1, 0, TO(PVMX_L_SWITCHED) | TO(PVMX_DEAD) },
    [PVMX_DEAD] = { "DEAD", 1, 1, 1, 0 },
    [PVMX_DEAD_HELD] = { "DEAD-HELD", 0, 0, 1,
                         TO(PVMX_DEAD) | TO(PVMX_DEAD_S_SWITCHING) | TO(PVMX_DEAD_L_SWITCHED) },
    [PVMX_DEAD_L_SWITCHED] = { "DEAD-L-SWITCHED", 1, 0, 1, TO(PVMX_DEAD) },
    [PVMX_DEAD_S_SWITCHING] = { "DEAD-S-SWITCHING", 0, 1, 1, TO(PVMX_DEAD) },
};

int pvmx_link_legal(enum pvmx_link from, enum pvmx_link to)
{
    return (unsigned)from < PVMX_NLINK && (unsigned)to < PVMX_NLINK &&
           (pvmx_link_table[from].next & TO(to)) != 0;
}

int pvmx_link_set(struct pvmx_peer *p, enum pvmx_link to)
{
    enum pvmx_link from = p->link;
    if (from == to)
        return 0;
    if (!pvmx_link_legal(from, to)) {
        pvmx_log("t%x: illegal link state change %s -> %s refused (a bug)", p->tid,
                 pvmx_link_table[from].name,
                 (unsigned)to < PVMX_NLINK ? pvmx_link_table[to].name : "?");
#ifdef PVMX_STRICT_STATES
        abort();
#endif
        return -1;
    }
    pvmx_log("t%x: link %s -> %s", p->tid, pvmx_link_table[from].name, pvmx_link_table[to].name);
    p->link = to;
    return 0;
}

/* The link ended (libam declared the endpoint dead, a send found it so,
 * or the peer exited): the dead state that keeps what the traffic did. */
int pvmx_link_die(struct pvmx_peer *p, const char *why)
{
    if (!p->why[0] && why && why[0])
        snprintf(p->why, sizeof p->why, "%s", why);
    static const enum pvmx_link dead_of[PVMX_NLINK] = {
        [PVMX_S_CONNECTING] = PVMX_DEAD_HELD, [PVMX_L_ACCEPTED] = PVMX_DEAD_HELD,
        [PVMX_S_SWITCHING] = PVMX_DEAD_S_SWITCHING, [PVMX_L_SWITCHED] = PVMX_DEAD_L_SWITCHED,
        [PVMX_OPEN] = PVMX_DEAD,
    };
    if (pvmx_link_dead(p))
        return 0;
    enum pvmx_link to = dead_of[p->link];
    /* UNKNOWN (0) in the table: no link, nothing to end */
    return pvmx_link_set(p, to == PVMX_UNKNOWN ? PVMX_NLINK : to);
}
