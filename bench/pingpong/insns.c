/*
 * insns.c - small messages for counting instructions (insns.sh runs the
 * master under callgrind).
 *
 * Ping-pong (insns MASTER self-path N [SIZE]): pvm_psend/pvm_precv, then
 * pvm_send/pvm_recv of SIZE packed bytes (PvmDataDefault; default 8), N
 * round trips each.  The slave writes a byte to a FIFO after each reply,
 * and the master reads it before it receives, so the reply is in already
 * and the receive counts no empty poll: the counts are those of one
 * message each way, whatever the load.
 *
 * Streaming (insns STREAM self-path N SIZE): what mpbench's bandwidth test
 * does per message (bench/mpbench/mpbench.c, pvm_psend variant): windows
 * of WINDOW pvm_psends of SIZE bytes, each window answered by an empty
 * pvm_send (the ack), N windows each way.  First the master sends
 * (stream_send: its WINDOW psends; stream_ack: its pvm_recv of the ack,
 * which the FIFO says is in), then it receives (stream_recv: WINDOW
 * pvm_precvs of messages the FIFO says are all in, and the ack): the
 * sender's and the receiver's work per window, neither ever polling an
 * empty ring.  insns.sh collects only inside those three functions.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pvm3.h>

#define WINDOW 8   /* mpbench's default (-W) */
enum { TAG_PP = 1, TAG_PACK, TAG_DATA, TAG_ACK };

static int said(int fd)
{
    return write(fd, "x", 1) == 1 ? 0 : -1;
}

static int heard(int fd)
{
    char c;
    return read(fd, &c, 1) == 1 ? 0 : -1;
}

static void ack(int tid)
{
    pvm_initsend(PvmDataDefault);
    pvm_send(tid, TAG_ACK);
}

/* noinline: insns.sh collects inside these (callgrind --toggle-collect) */
static __attribute__((noinline)) void stream_send(int tid, char *buf, int size)
{
    for (int i = 0; i < WINDOW; i++)
        pvm_psend(tid, TAG_DATA, buf, size, PVM_BYTE);
}

static __attribute__((noinline)) void stream_ack(int tid)
{
    pvm_recv(tid, TAG_ACK);
}

static __attribute__((noinline)) void stream_recv(int tid, char *buf, int size)
{
    int t, g, l;
    for (int i = 0; i < WINDOW; i++)
        pvm_precv(tid, TAG_DATA, buf, size, PVM_BYTE, &t, &g, &l);
    ack(tid);
}

static int stream_slave(int parent, int n, int size, int fd)
{
    char *buf = calloc(1, (size_t)size + 1);
    int t, g, l, rc = buf ? 0 : -1;
    for (int w = 0; w < n && rc == 0; w++) {   /* the master sends */
        for (int i = 0; i < WINDOW; i++)
            pvm_precv(parent, TAG_DATA, buf, size, PVM_BYTE, &t, &g, &l);
        ack(parent);
        rc = said(fd);
    }
    /* the master's go carries the blank reply it owes for the last ack:
     * without it the first window would wait for that credit, and the
     * master, reading the FIFO, would never pay it */
    if (rc == 0)
        pvm_recv(parent, TAG_ACK);
    for (int w = 0; w < n && rc == 0; w++) {   /* the master receives */
        for (int i = 0; i < WINDOW; i++)
            pvm_psend(parent, TAG_DATA, buf, size, PVM_BYTE);
        if ((rc = said(fd)) == 0)
            pvm_recv(parent, TAG_ACK);
    }
    free(buf);
    return rc;
}

static int stream_master(int tid, int n, int size, int fd)
{
    char *buf = calloc(1, (size_t)size + 1);
    int rc = buf ? 0 : -1;
    for (int w = 0; w < n && rc == 0; w++) {
        stream_send(tid, buf, size);
        if ((rc = heard(fd)) == 0)
            stream_ack(tid);
    }
    if (rc == 0)
        ack(tid);   /* go (stream_slave) */
    for (int w = 0; w < n && rc == 0; w++)
        if ((rc = heard(fd)) == 0)
            stream_recv(tid, buf, size);
    free(buf);
    return rc;
}

static int pp_slave(int parent, int n, int size, int fd)
{
    char *buf = calloc(1, (size_t)size + 1);
    int t, g, l, rc = buf ? 0 : -1;
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_precv(parent, TAG_PP, buf, size, PVM_BYTE, &t, &g, &l);
        pvm_psend(parent, TAG_PP, buf, size, PVM_BYTE);
        rc = said(fd);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_recv(parent, TAG_PACK);
        pvm_upkbyte(buf, size, 1);
        pvm_initsend(PvmDataDefault);
        pvm_pkbyte(buf, size, 1);
        pvm_send(parent, TAG_PACK);
        rc = said(fd);
    }
    free(buf);
    return rc;
}

static int pp_master(int tid, int n, int size, int fd)
{
    char *buf = calloc(1, (size_t)size + 1);
    int t, g, l, rc = buf ? 0 : -1;
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_psend(tid, TAG_PP, buf, size, PVM_BYTE);
        if ((rc = heard(fd)) == 0)
            pvm_precv(tid, TAG_PP, buf, size, PVM_BYTE, &t, &g, &l);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkbyte(buf, size, 1);
        pvm_send(tid, TAG_PACK);
        if ((rc = heard(fd)) == 0) {
            pvm_recv(tid, TAG_PACK);
            pvm_upkbyte(buf, size, 1);
        }
    }
    free(buf);
    return rc;
}

int main(int argc, char **argv)
{
    /* slave MODE N SIZE FIFO */
    if (argc == 6 && !strcmp(argv[1], "slave")) {
        int fd = open(argv[5], O_WRONLY), parent = pvm_parent();
        int n = atoi(argv[3]), size = atoi(argv[4]);
        int rc = fd < 0 ? -1 : !strcmp(argv[2], "STREAM") ? stream_slave(parent, n, size, fd)
                                                          : pp_slave(parent, n, size, fd);
        pvm_exit();
        return rc != 0;
    }
    if ((argc != 4 && argc != 5) || (strcmp(argv[1], "MASTER") && strcmp(argv[1], "STREAM"))) {
        fprintf(stderr, "usage: insns MASTER|STREAM self-path N [SIZE]\n");
        return 2;
    }
    int n = atoi(argv[3]), size = argc == 5 ? atoi(argv[4]) : 8, tid, rc;
    if (n < 1 || size < 1) {
        fprintf(stderr, "insns: N and SIZE must be positive\n");
        return 2;
    }
    char fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/pvmam-insns.%d", (int)getpid());
    if (mkfifo(fifo, 0600) < 0)
        return perror("mkfifo"), 1;
    char sz[16];
    snprintf(sz, sizeof sz, "%d", size);
    char *args[] = { "slave", argv[1], argv[3], sz, fifo, NULL };
    if (pvm_spawn(argv[2], args, PvmTaskDefault, "", 1, &tid) != 1) {
        unlink(fifo);
        return 1;
    }
    int fd = open(fifo, O_RDONLY);
    if (fd < 0)
        rc = -1;
    else if (!strcmp(argv[1], "STREAM"))
        rc = stream_master(tid, n, size, fd);
    else
        rc = pp_master(tid, n, size, fd);
    unlink(fifo);
    pvm_exit();
    return rc != 0;
}
