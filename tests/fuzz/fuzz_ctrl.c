/*
 * fuzz_ctrl.c - libFuzzer target: pvmam's control messages (link set-up,
 * pvmam/link.c: REQ, CONN, SWITCH, READY, NAK, EXIT; pvmam_init's HELLO,
 * TABLE, DONE, GO, CONNS, ACCEPTS, pvmam/init.c), as pvm3 hands them to the AM route's
 * filter.  The task is t40005 with AM on over udp on loopback (accepting
 * a link makes a real endpoint from the address the message names).  The
 * input is a list of records:
 *     u8  what   bits 0-3: the tag (PVMAM_TAG_REQ + n % 12);
 *                0x10: it arrives while AM is still starting (kept, and
 *                handled at the next 0x20 or at the end);
 *                0x20: AM finishes starting before this one;
 *                0x40: AM is off for this one (refused)
 *     u8  src    which task sent it: t40001, t40009, t40005 (us), t40007
 *     u16 len    body bytes that follow (XDR, as pvm3 received them)
 * Deferred replies (NAK, SWITCH...) are not sent: there is no pvmd.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include "lpvm.h"
#include "pvmam_int.h"

#define ME 0x40005

static const int srcs[4] = { 0x40001, 0x40009, ME, 0x40007 };

static int start(void)
{
    static int h_frag = -1;   /* handler ids are for the process: bind once */
    struct am_config c;
    am_config_default(&c);
    c.bind_host = "127.0.0.1";
    c.timeout_max_us = 200000;
    c.key = 0x0123456789abcdefull;   /* known, like every fuzz target's */
    memset(&pvmx, 0, sizeof pvmx);
    strcpy(pvmx.cfg.transport, "udp");
    pvmx.mytid = ME;
    if (am_init("udp", &c, &pvmx.ifc[0]) < 0)
        return -1;
    pvmx.nifc = 1;
    strcpy(pvmx.running, "udp");
    if (h_frag < 0 && (h_frag = pvmx_frag_bind()) < 0)
        return -1;
    pvmx.h_frag = h_frag;
    if (pvmx_addrs_make() < 0)
        return -1;
    pvmx.on = 1;
    return 0;
}

static void up(void)
{
    if (pvmx.starting) {
        pvmx.starting = 0;
        pvmx_ctrl_replay_early();
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (start() < 0)
        goto out;
    size_t off = 0;
    while (off + 4 <= size) {
        unsigned what = data[off];
        int src = srcs[data[off + 1] % 4];
        size_t len = (size_t)data[off + 2] << 8 | data[off + 3];
        off += 4;
        if (len > size - off)
            len = size - off;
        if (what & 0x20)
            up();
        if (what & 0x10)
            pvmx.starting = 1;
        struct pmsg *m = pmsg_new_rx();
        if (!m)
            break;
        pmsg_set_encword(m, pmsg_encword(PvmDataDefault));
        if (len && pmsg_append(m, data + off, len) < 0) {
            pmsg_free(m);
            break;
        }
        pmsg_rewind(m);
        m->tag = PVMAM_TAG_REQ + (int)((what & 0xf) % 12);
        m->ctx = SYSCTX_TC;
        m->src = src;
        m->dst = ME;
        off += len;
        int on = pvmx.on;
        if (what & 0x40)
            pvmx.on = 0;
        pvmx_ctrl_filter(m);   /* takes m */
        pvmx.on = on;
    }
    up();
out:
    pvmx_peers_free();
    if (pvmx.ifc[0])
        am_shutdown(pvmx.ifc[0]);
    pvmx.ifc[0] = NULL;
    pvmx.nifc = 0;
    pvmx.on = 0;
    pvmi_rxq_reset();
    return 0;
}
