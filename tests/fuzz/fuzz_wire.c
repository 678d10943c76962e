/*
 * fuzz_wire.c - libFuzzer target: PVM fragments as they arrive on the
 * pvmd socket (docs/protocol.md 3).  The input is written into one end of
 * a socket pair and pvm3 reads it with the code that reads the pvmd
 * connection: headers, message headers, reassembly per source, delivery
 * to the queues.  Everything queued is dropped after each input.
 */
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lpvm.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM, 0, sv) < 0)
        return 0;
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    pvmi.tid = 0x40001;   /* as if connected */
    struct pvmi_conn c;
    memset(&c, 0, sizeof c);
    c.fd = sv[0];
    size_t off = 0;
    while (off < size) {   /* in pieces, so partial headers and bodies happen */
        size_t n = size - off > 1000 ? 1000 : size - off;
        if (write(sv[1], data + off, n) != (ssize_t)n)
            break;
        off += n;
        if (pvmi_conn_input(&c) < 0)
            break;
    }
    close(sv[1]);
    for (int i = 0; i < 4 && c.fd >= 0; i++)
        if (pvmi_conn_input(&c) < 0)
            break;
    pvmi_conn_close(&c);
    pvmi_rxq_reset();
    return 0;
}
