/*
 * cmd_mbox.c - the pvmd's mailbox: names [pattern], put name value [flags].
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "cons.h"

int cmd_names(int argc, char **argv)
{
    if (argc > 2)
        return cons_wrongargs(argv[0]);
    int n;
    struct pvmmboxinfo *c;
    int rc = pvm_getmboxinfo(argc == 2 ? argv[1] : "", &n, &c);
    if (rc < 0) {
        cons_errline(argv[0], NULL, rc);
        return 0;
    }
    for (int i = 0; i < n; i++) {
        printf("<%s>:\n", c[i].mi_name);
        for (int k = 0; k < c[i].mi_nentries; k++)
            printf("\tindex=%d owner=0x%x/%d flags=0x%x\n", c[i].mi_indices[k],
                   (unsigned)c[i].mi_owners[k], c[i].mi_owners[k], (unsigned)c[i].mi_flags[k]);
        printf("\n");
    }
    return 0;
}

int cmd_put(int argc, char **argv)
{
    if (argc < 3 || argc > 4)
        return cons_wrongargs(argv[0]);
    int flags = 0;
    if (argc == 4) {
        char *end;
        flags = (int)strtol(argv[3], &end, 0);
        if (!*argv[3] || *end) {
            printf("put: %s: flags are a number (pvm_putinfo flags)\n", argv[3]);
            return 0;
        }
    }
    int mid = pvm_mkbuf(PvmDataDefault);
    if (mid < 0) {
        cons_errline(argv[0], NULL, mid);
        return 0;
    }
    int old = pvm_setsbuf(mid);
    int rc = pvm_pkstr(argv[2]);
    pvm_setsbuf(old);
    if (rc >= 0)
        rc = pvm_putinfo(argv[1], mid, flags);
    pvm_freebuf(mid);
    if (rc < 0)
        cons_errline(argv[0], argv[1], rc);
    return 0;
}
