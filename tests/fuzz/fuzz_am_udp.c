/*
 * fuzz_am_udp.c - libFuzzer target: AM udp datagrams.  An interface A has
 * an endpoint for a peer B; the input is cut into datagrams (2-byte
 * length prefixes) sent to A from B's address (so they reach the
 * endpoint's own socket and the protocol) or, when the length's top bit
 * is set, from a stranger's port.  A polls after each one.
 */
#include <stdint.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fuzz_am.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_interface_t *a = NULL, *b = NULL;
    am_endpoint_t *ea = NULL;
    int fb = -1, fs = -1, one = 1;
    if (fz_start("udp", &a) < 0)
        goto out;
    if (fz_start("udp", &b) < 0)
        goto out;
    if (am_allocate_task(a, &ea) < 0 || am_accept_task(a, ea, am_task_address(b, AM_TID_SELF)) < 0 ||
        am_insert_task(a, ea, 2) < 0)
        goto out;
    /* a socket that looks like B: same port (B binds it with SO_REUSEPORT) */
    struct sockaddr_in sb = fz_sa(fz_port(am_task_address(b, AM_TID_SELF)));
    struct sockaddr_in sa = fz_sa(fz_port(am_task_address(a, AM_TID_SELF)));
    fb = socket(AF_INET, SOCK_DGRAM, 0);
    fs = socket(AF_INET, SOCK_DGRAM, 0);
    if (fb < 0 || fs < 0 || setsockopt(fb, SOL_SOCKET, SO_REUSEPORT, &one, sizeof one) < 0 ||
        bind(fb, (struct sockaddr *)&sb, sizeof sb) < 0)
        goto out;
    size_t off = 0;
    while (off + 2 <= size) {
        unsigned w = (unsigned)data[off] << 8 | data[off + 1];
        size_t len = w & 0x7fff;
        off += 2;
        if (len > size - off)
            len = size - off;
        sendto(w & 0x8000 ? fs : fb, data + off, len, 0, (struct sockaddr *)&sa, sizeof sa);
        off += len;
        for (int i = 0; i < 4; i++)
            am_poll(a);
    }
out:
    if (fb >= 0)
        close(fb);
    if (fs >= 0)
        close(fs);
    if (a)
        am_shutdown(a);
    if (b)
        am_shutdown(b);
    return 0;
}
