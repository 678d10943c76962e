/*
 * stranger.h - what the stranger (stranger_raw.c) sends to a task and the
 * task (stranger.c) checks it did not get, shared so both agree.
 */
#ifndef STRANGER_H
#define STRANGER_H

/* The message an injected AM would deliver: a user message of this tag
 * (pvmam's fragment layout, pvmam/frag.c) to the fragment handler, which
 * is the first handler a libpvm3am task binds (id 0). */
#define STRANGER_TAG 0x5757
#define STRANGER_HANDLER 0

/* udp: datagrams from the stranger's own port, without a secret and with
 * a wrong one (each), then as many again from the real peer's address
 * (its port, SO_REUSEPORT), sequence numbers 0 up, so the one the task
 * expects next from that peer is among them. */
#define STRANGER_UDP_EACH 100
#define STRANGER_UDP_SENT (4 * STRANGER_UDP_EACH)
#define STRANGER_UDP_SPOOFED (2 * STRANGER_UDP_EACH)

/* tcp: connections with a well-formed first AM but no right secret (HELLO
 * without one, HELLO with a wrong one naming the real peer, the same
 * followed by requests, a request without HELLO); then one of garbage,
 * one that says nothing and one that stops halfway through a header
 * (plain drops, after the task's wait for a HELLO). */
#define STRANGER_TCP_AUTH 4

/* shm: connections to the task's set-up socket saying a hello (with a
 * well-formed segment whose ring already holds requests) without a
 * secret and with a wrong one; then one saying a hello without the
 * segment, one of garbage, one that says nothing and, when the test runs
 * as root, one from another user (plain drops). */
#define STRANGER_SHM_AUTH 2

#endif
