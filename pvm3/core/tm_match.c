/*
 * tm_match.c - which incoming daemon message is the reply to a request
 * (tm.c): the one request being waited for and the posted ones whose
 * replies are collected later.  The input path (rxq.c) asks here; kept
 * apart from tm.c, which waits, so that matching a reply never reaches a
 * wait.
 */
#include <stdlib.h>
#include "lpvm.h"
#include "route_int.h"

/* The request being waited for; rxq.c hands its reply over. */
static int wait_tag, wait_wid;
static struct pmsg *wait_reply;

/* Requests whose replies come whenever they come (pvmi_tm_post), by wait
 * id; a reply waits here until its poster collects it. */
struct posted {
    int wid, tag;
    struct pmsg *reply;
};
static struct posted *posts;
static int nposts, capposts;
static unsigned long arrivals;

/* A reply is the pvmd's message with the request's tag and wait id (the
 * pvmd echoes both, docs/protocol.md 5): with posted requests of the same
 * kind outstanding, the tag alone would not say whose it is. */
int pvmi_tm_take_reply(struct pmsg *m)
{
    if (m->src != PVMI_TIDPVMD)
        return 0;
    if (wait_tag && !wait_reply && m->tag == wait_tag && m->wid == wait_wid) {
        wait_reply = m;
        return 1;
    }
    for (int i = 0; i < nposts; i++)
        if (posts[i].wid == m->wid && posts[i].tag == m->tag && !posts[i].reply) {
            posts[i].reply = m;
            arrivals++;
            return 1;
        }
    return 0;
}

int pvmi_tm_busy(void) { return wait_tag != 0; }

void pvmi_tm_expect(int tag, int wid)
{
    wait_tag = tag;
    wait_wid = wid;
}

struct pmsg *pvmi_tm_reply(void) { return wait_reply; }

void pvmi_tm_expect_end(void)
{
    wait_reply = NULL;
    wait_tag = 0;
}

int pvmi_tm_post_room(void)
{
    if (nposts == capposts) {
        int cap = capposts ? capposts * 2 : 16;
        struct posted *np = realloc(posts, sizeof *np * (size_t)cap);
        if (!np)
            return PvmNoMem;
        posts = np;
        capposts = cap;
    }
    return 0;
}

void pvmi_tm_post_add(int wid, int tag)
{
    posts[nposts++] = (struct posted){ .wid = wid, .tag = tag };
}

struct pmsg *pvmi_tm_collect(int wid)
{
    for (int i = 0; i < nposts; i++)
        if (posts[i].wid == wid) {
            struct pmsg *m = posts[i].reply;
            if (m)
                posts[i] = posts[--nposts];
            return m;
        }
    return NULL;
}

unsigned long pvmi_tm_arrivals(void) { return arrivals; }
