/*
 * conn_park.h - incoming connections of a connection transport (tcp, shm)
 * before their endpoint exists.  The acceptor learns which peer a
 * connection is from the connector's hello, and its am_accept may come
 * later than the connection (the peer's CONN is still on its way through
 * the pvmd, docs/link-setup.md), or earlier.  So connections are greeted
 * (their hello read as it comes, never waited for) and then parked under
 * the name the hello gave until am_accept claims them.  The transport
 * says only how to read its hello and what a parked connection holds
 * besides its socket.
 *
 * Nothing a real connector sent is thrown away while it waits: a
 * connection is closed here only when its connector hung up, or has said
 * nothing for connect_timeout_ms (a stranger), or when the bounds below
 * are reached; in each case the connector sees the end of its stream.
 * The claim may come long after the connection: pvmam_init's mesh
 * accepts only once every task has connected (docs/link-setup.md), which
 * takes more than 10 s with hundreds of tasks on a loaded host.
 */
#ifndef CONN_PARK_H
#define CONN_PARK_H

#include <sys/types.h>
#include "am_int.h"

#define AMX_GREET_MAX 64      /* greetings at once; full: one silent for a second goes, or none
                                 is accepted until one speaks (the rest wait in the backlog) */
#define AMX_PARK_MAX 1024     /* parked at once: a sanity bound, far above any burst */
#define AMX_BACKLOG AMX_PARK_MAX   /* the listen backlog: a whole mesh's connections */

/* In the transport's epoll set a greeting's socket is tagged so: endpoints
 * are pointers (multiples of 8, +1 for shm's pidfd), the listener and
 * shm's eventfd are below 8. */
#define AMX_GREET_TAG(fd) ((uint64_t)(fd) << 3 | 3)
static inline int amx_greet_tagged(uint64_t data) { return (data & 7) == 3; }

struct amx_greeting {
    int fd;
    pid_t pid;                        /* shm: the connector's (SO_PEERCRED) */
    uint64_t since_us;
    size_t got;                       /* tcp: bytes of its HELLO read so far */
    char buf[AMX_HDR + AMX_ADDRLEN];
};

struct amx_parked {
    int fd;
    uint64_t since_us;
    uint64_t check_us;                /* when to look whether its connector hung up */
    char name[AMX_ADDRLEN];           /* the connector's address, from its hello */
    void *info;                       /* the transport's, freed by its discard op */
};

/* What a transport's hello op says of a greeting. */
enum { AMX_HELLO_MORE, AMX_HELLO_DONE, AMX_HELLO_DROP, AMX_HELLO_REFUSED };

struct amx_park_ops {
    /* A connection just accepted: 0 to greet it, -1 to close it (a drop). */
    int (*accepted)(am_interface_t *ifc, struct amx_greeting *g);
    /* Read what has come of g's hello, without waiting.  DONE: pk->name
     * and pk->info are filled in.  DROP: garbage or gone (a drop);
     * REFUSED: not a holder of our secret (amx_auth counted it). */
    int (*hello)(am_interface_t *ifc, struct amx_greeting *g, struct amx_parked *pk);
    void (*discard)(void *info);      /* NULL: info is always NULL */
};

struct amx_park {
    int lfd, epfd;                    /* the transport's: not closed here */
    uint64_t ltag;                    /* the listener's tag in epfd */
    int paused;                       /* listener out of epfd: greetings full */
    const struct amx_park_ops *ops;
    struct amx_parked *park;
    int npark, cap;
    struct amx_greeting greet[AMX_GREET_MAX];
    int ngreet;
};

void amx_park_init(struct amx_park *p, int lfd, int epfd, uint64_t ltag,
                   const struct amx_park_ops *ops);
void amx_park_free(struct amx_park *p);
void amx_park_expire(am_interface_t *ifc, struct amx_park *p);
void amx_park_accept(am_interface_t *ifc, struct amx_park *p);
void amx_park_greet_event(am_interface_t *ifc, struct amx_park *p, uint64_t tag);
int amx_park_claim(am_interface_t *ifc, struct amx_park *p, const char *name,
                   struct amx_parked *out);
void amx_park_close(const struct amx_park *p, struct amx_parked *pk);

#endif
