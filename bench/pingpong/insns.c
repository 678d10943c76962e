/*
 * insns.c - an 8-byte ping-pong for counting instructions (insns.sh runs the
 * master under callgrind): pvm_psend/pvm_precv, then pvm_send/pvm_recv of 8
 * packed bytes (PvmDataDefault), N round trips each.  The slave writes a
 * byte to a FIFO after each reply, and the master reads it before it
 * receives, so the reply is in already and the receive counts no empty
 * poll: the counts are those of one message each way, whatever the load.
 *     insns MASTER self-path N
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <pvm3.h>

static int said(int fd)
{
    return write(fd, "x", 1) == 1 ? 0 : -1;
}

static int heard(int fd)
{
    char c;
    return read(fd, &c, 1) == 1 ? 0 : -1;
}

static int slave(int n, const char *fifo)
{
    char buf[8] = { 0 };
    int parent = pvm_parent(), t, g, l, fd = open(fifo, O_WRONLY), rc = 0;
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_precv(parent, 1, buf, 8, PVM_BYTE, &t, &g, &l);
        pvm_psend(parent, 1, buf, 8, PVM_BYTE);
        rc = said(fd);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_recv(parent, 2);
        pvm_upkbyte(buf, 8, 1);
        pvm_initsend(PvmDataDefault);
        pvm_pkbyte(buf, 8, 1);
        pvm_send(parent, 2);
        rc = said(fd);
    }
    pvm_exit();
    return rc != 0;
}

int main(int argc, char **argv)
{
    if (argc == 4 && !strcmp(argv[1], "slave"))
        return slave(atoi(argv[2]), argv[3]);
    if (argc != 4 || strcmp(argv[1], "MASTER")) {
        fprintf(stderr, "usage: insns MASTER self-path N\n");
        return 2;
    }
    int n = atoi(argv[3]), tid, t, g, l, rc = 0;
    char buf[8] = { 0 }, fifo[64];
    snprintf(fifo, sizeof fifo, "/tmp/pvmam-insns.%d", (int)getpid());
    if (mkfifo(fifo, 0600) < 0)
        return perror("mkfifo"), 1;
    char *args[] = { "slave", argv[3], fifo, NULL };
    if (pvm_spawn(argv[2], args, PvmTaskDefault, "", 1, &tid) != 1) {
        unlink(fifo);
        return 1;
    }
    int fd = open(fifo, O_RDONLY);
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_psend(tid, 1, buf, 8, PVM_BYTE);
        if ((rc = heard(fd)) == 0)
            pvm_precv(tid, 1, buf, 8, PVM_BYTE, &t, &g, &l);
    }
    for (int i = 0; i < n && rc == 0; i++) {
        pvm_initsend(PvmDataDefault);
        pvm_pkbyte(buf, 8, 1);
        pvm_send(tid, 2);
        if ((rc = heard(fd)) == 0) {
            pvm_recv(tid, 2);
            pvm_upkbyte(buf, 8, 1);
        }
    }
    unlink(fifo);
    pvm_exit();
    return rc != 0;
}
