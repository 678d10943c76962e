/*
 * fuzz_am_tcp.c - libFuzzer target: the AM tcp byte stream.  A raw client
 * connects to an interface A.  With byte 0 even it first says a proper
 * HELLO (with A's secret, FZ_KEY) and A accepts it as an endpoint, so the
 * rest of the input is the AM stream A parses; with byte 0 odd the whole
 * input stands in for the HELLO, which A's listener must judge (its secret
 * first).  A polls until the stream ends.
 */
#include <stdint.h>
#include <stdio.h>
#include <sys/socket.h>
#include <unistd.h>
#include "fuzz_am.h"
#include "am_int.h"

/* A HELLO as libam's tcp connector sends it, with A's secret. */
static size_t hello(unsigned char *buf, const char *name)
{
    size_t nl = strlen(name) + 1;
    struct amx_hdr h = { .len = (uint32_t)nl, .type = AMX_HELLO, .key = FZ_KEY };
    amx_pack_hdr((char *)buf, &h);
    memcpy(buf + AMX_HDR, name, nl);
    return AMX_HDR + nl;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    am_interface_t *a = NULL;
    am_endpoint_t *ea = NULL;
    int fd = -1;
    if (size < 1 || fz_start("tcp", &a) < 0)
        goto out;
    struct sockaddr_in sa = fz_sa(fz_port(am_task_address(a, AM_TID_SELF)));
    fd = socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0 || connect(fd, (struct sockaddr *)&sa, sizeof sa) < 0)
        goto out;
    const char *name = "tcp:7f000001:0001";
    if (!(data[0] & 1)) {
        unsigned char h[AMX_HDR + 64];
        size_t hl = hello(h, name);
        if (write(fd, h, hl) != (ssize_t)hl)
            goto out;
        if (am_allocate_task(a, &ea) < 0 || am_accept_task(a, ea, "tcp:7f000001:0001" FZ_KEYTXT) < 0 ||
            am_insert_task(a, ea, 2) < 0)
            goto out;
    }
    if (size > 1 && write(fd, data + 1, size - 1) < 0)
        goto out;
    shutdown(fd, SHUT_WR);   /* the end of the stream: nobody waits for more */
    for (int i = 0; i < 600; i++)
        am_poll(a);
out:
    if (fd >= 0)
        close(fd);
    if (a)
        am_shutdown(a);
    return 0;
}
