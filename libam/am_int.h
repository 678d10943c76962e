/*
 * am_int.h - libam internals: interfaces, endpoints, the wire header and
 * the transport ops table (thesis appendix C).
 *
 * Wire header (24 bytes, network order), in front of every AM:
 *   u32 len      payload bytes that follow
 *   u32 seq      per-endpoint request number (a reply echoes it)
 *   u8  type     AMX_REQ, AMX_REP or AMX_HELLO (tcp connect)
 *   u8  inst     request instance (0..depth-1)
 *   u16 handler  address identifier; AMX_BLANK for a blank reply
 *   u32 magic    AMX_MAGIC: cheap rejection of stray packets
 *   u32 pb_seq   with bit 0x100 of pb: a blank reply for the receiver's
 *   u32 pb       request (pb & 0xff = inst, pb_seq) rides along
 *
 * Protocol (thesis section 5, plus ordering): a sender keeps at most
 * `depth` requests in flight per endpoint, one per instance; the reply
 * (blank if the handler sends none) frees the instance.  seq numbers
 * let the receiver hand requests to handlers in send order: early ones
 * are held, duplicates re-send the saved reply.  Unreliable transports
 * keep a copy of each request and retransmit it with a doubling timeout
 * until timeout_max, then the endpoint is dead.  Reliable transports
 * (tcp) keep no copies, timestamps or saved replies (thesis section 10).
 *
 * Blank replies are owed for a moment (AMX_ACK_DELAY_US) rather than sent
 * at once: the next request to that peer carries it in its header, so a
 * ping-pong costs one packet per message, as with raw sockets.  At most
 * one is owed per endpoint (an older one is sent when a newer is owed);
 * polling sends it when the delay is over, and waiting sends it first.
 */
#ifndef LIBAM_AM_INT_H
#define LIBAM_AM_INT_H

#include <stdint.h>
#include <sys/socket.h>
#include <netinet/in.h>
#include "am.h"

#define AMX_HDR 24
#define AMX_MAGIC 0x414d3032u   /* "AM02" */
#define AMX_ACK_DELAY_US 40
#define AMX_TIMER_SKIP 16   /* polls with input in a row that skip the timers */
#define AMX_REQ 1
#define AMX_REP 2
#define AMX_HELLO 3
#define AMX_BLANK 0xffff
#define AMX_MAX_DEPTH 64
#define AMX_PACK_MAX 256   /* payloads up to this go out copied behind the header */
#define AMX_ADDRLEN 64

struct amx_hdr {
    uint32_t len, seq;
    uint8_t type, inst;
    uint16_t handler;
    uint8_t pb, pb_inst;     /* piggybacked blank reply (see above) */
    uint32_t pb_seq;
};

/* A request instance on the sending side. */
struct amx_slot {
    int busy;
    uint32_t seq;
    uint64_t deadline_us;   /* unreliable only; 0 until the next timer run */
    unsigned timeout_us;
    char *copy;             /* header + payload, unreliable only */
    size_t copy_len, copy_cap;
};

/* Per instance on the receiving side (unreliable only). */
struct amx_rslot {
    int held;               /* an early request waits here */
    uint32_t held_seq;
    char *held_pkt;         /* header + payload */
    size_t held_len;
    int replied;            /* saved reply for seq rep_seq */
    uint32_t rep_seq;
    char *rep_pkt;
    size_t rep_len, rep_cap;
};

struct am_endpoint {
    struct am_endpoint *next;     /* interface's list */
    int32_t tid;
    int inserted, connected, dead;
    char name[AMX_ADDRLEN];        /* peer's printable address */
    char host[AMX_ADDRLEN];
    struct sockaddr_in sa;         /* peer's address */
    /* sender */
    uint32_t next_seq;
    unsigned inflight;
    struct amx_slot slot[AMX_MAX_DEPTH];
    /* receiver */
    uint32_t expect_seq;
    unsigned nheld;                /* rslots holding an early request */
    struct amx_rslot rslot[AMX_MAX_DEPTH];
    int owe;                       /* a blank reply is owed for ... */
    uint8_t owe_inst;
    uint32_t owe_seq;
    uint64_t owe_deadline_us;      /* 0 until the next timer run */
    /* transport state (tcp connection) */
    int fd;
    char *rx;                      /* tcp: buffer for the AM being read */
    size_t rx_cap, rx_got, rx_need;
    int writing;                   /* tcp: in the middle of a write */
    /* tcp: a request whose payload is being read into a placer's buffer */
    size_t land_left, land_total;  /* bytes still to read, all placed bytes */
    char *land_dst;                /* where the next ones go */
    int land_discard;              /* the place went away: read into rx, drop */
    struct amx_hdr land_h;         /* its header, len = the head only */
    char land_head[AM_PLACE_HEAD_MAX];
    char *outq;                    /* tcp: replies queued during a write */
    size_t outq_len, outq_cap;
    struct am_stats st;
};

struct am_token {
    am_interface_t *ifc;
    am_endpoint_t *ep;
    int is_request;
    int replied;
    uint8_t inst;
    uint32_t seq;
    size_t placed;      /* payload bytes a placer took (am_set_placer) */
};

struct am_transport_ops;

struct am_interface {
    const struct am_transport_ops *tr;
    void *trd;                     /* transport private data */
    struct am_config cfg;
    int reliable;
    struct am_endpoint *eps;       /* all allocated endpoints */
    char self_addr[AMX_ADDRLEN];
    char addr_buf[AMX_ADDRLEN];
    void *user;
    am_dead_fn dead_fn;
    void *dead_arg;
    unsigned outstanding;
    unsigned timer_skips;          /* am_poll: see AMX_TIMER_SKIP */
    int in_handler;
    size_t rx_placed;              /* for the delivery under way (tcp) */
    uint64_t rx_read;              /* bytes read by the transport (am_bytes_read) */
    char *rxbuf;                   /* receive staging (udp) */
    size_t rxbuf_cap;
    struct am_stats st;
};

/* Transport ops (appendix C). Optional ops may point at the stubs. */
struct am_transport_ops {
    const char *name;
    int reliable;
    size_t default_payload, max_payload;
    int (*init)(am_interface_t *ifc);                       /* network_init */
    int (*pkaddr)(const char *text, struct sockaddr_in *sa);/* text -> binary */
    int (*upkaddr)(const struct sockaddr_in *sa, char *text, size_t size);
    int (*connect)(am_interface_t *ifc, am_endpoint_t *ep);
    int (*accept)(am_interface_t *ifc, am_endpoint_t *ep);
    /* One whole AM (header + payload), fully sent or an error. */
    int (*send)(am_interface_t *ifc, am_endpoint_t *ep, const struct iovec *iov, int n);
    /* Receive and dispatch what is there (calls amx_input). >= 0 handled. */
    int (*recv)(am_interface_t *ifc);
    int (*event_fd)(const am_interface_t *ifc);
    void (*close_ep)(am_interface_t *ifc, am_endpoint_t *ep);
    void (*shutdown)(am_interface_t *ifc);
};

const struct am_transport_ops *amx_transport(const char *name);
extern const struct am_transport_ops amx_tcp_ops, amx_udp_ops;

/* tr_stub.c: shared "not supported" ops */
int amx_stub_connect(am_interface_t *ifc, am_endpoint_t *ep);
int amx_stub_accept(am_interface_t *ifc, am_endpoint_t *ep);

/* am_proto.c: a whole AM arrived from ep (header parsed, payload at p). */
int amx_input(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p);
/* ...one whose payload after the head (h->len bytes at p) went to a placer. */
int amx_input_placed(am_interface_t *ifc, am_endpoint_t *ep, const struct amx_hdr *h, char *p,
                     size_t placed);
/* Would this request be handed to its handler now (reliable order)? */
int amx_deliverable(const am_interface_t *ifc, const am_endpoint_t *ep, const struct amx_hdr *h);
am_place_fn amx_placer(int id, size_t *head_len);   /* am_base.c; NULL if none */
int amx_parse(const void *buf, size_t len, struct amx_hdr *h);
void amx_pack_hdr(char *buf, const struct amx_hdr *h);
void amx_declare_dead(am_interface_t *ifc, am_endpoint_t *ep);
void amx_pay_owed(am_interface_t *ifc, am_endpoint_t *ep);
uint64_t amx_now_us(void);

/* am_net.c: helpers shared by the socket transports. */
int amx_self_ip(const char *bind_host, struct in_addr *out);
int amx_addr_parse(const char *prefix, const char *text, struct sockaddr_in *sa);
int amx_addr_format(const char *prefix, const struct sockaddr_in *sa, char *text, size_t size);
/* shared: SO_REUSEPORT, so per-peer sockets can take the same port (udp) */
int amx_bound_socket(am_interface_t *ifc, int type, const char *prefix, int shared);
/* A new epoll fd watching fd for input (event data NULL), or -1. */
int amx_epoll_with(int fd);

#endif /* LIBAM_AM_INT_H */
