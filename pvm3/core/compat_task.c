/*
 * compat_task.c - stock libpvm3's exported task-level internals that
 * programs and stock libgpvm3 call: pvmbeatask (join PVM; libgpvm3 calls
 * it while pvmmytid is -1), pvmendtask (leave without TM_EXIT),
 * pvmsettaskname (the name sent with TM_CONN2, before joining),
 * pvm_fd_add/pvm_fd_delete, pvmupkstralloc.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include "lpvm.h"
#include "compat.h"

int pvmbeatask(void)
{
    return pvmi_beatask();
}

/* Close the daemon connection the way a task that dies does: the pvmd
 * cleans up on EOF (docs/protocol.md). */
int pvmendtask(void)
{
    pvmi_disconnect();
    return 0;
}

int pvmsettaskname(char *name)
{
    if (!name)
        return pvmi_err("pvmsettaskname", PvmBadParam);
    if (pvmi.tid > 0)
        return pvmi_err("pvmsettaskname", PvmExists);
    char *copy = strdup(name);
    if (!copy)
        return pvmi_err("pvmsettaskname", PvmNoMem);
    free(pvmmytaskname);
    pvmmytaskname = copy;
    return 0;
}

/* Stock adds these descriptors to the read set its message wait selects
 * on; only its own sockets are ever read there, so for a program the
 * calls have no visible effect.  Ours validate and remember them. */
static fd_set user_fds;

int pvm_fd_add(int fd, int sets)
{
    if (fd < 0 || fd >= FD_SETSIZE) {
        pvmlogprintf("pvm_fd_add() bad fd %d\n", fd);
        return 1;
    }
    if (sets & 1)
        FD_SET(fd, &user_fds);
    return 0;
}

int pvm_fd_delete(int fd, int sets)
{
    if (fd < 0 || fd >= FD_SETSIZE) {
        pvmlogprintf("pvm_fd_delete() bad fd %d\n", fd);
        return 1;
    }
    if (sets & 1)
        FD_CLR(fd, &user_fds);
    return 0;
}

/* Unpack a string from the receive buffer into new memory (*ss). */
int pvmupkstralloc(char **ss)
{
    int len, rc;
    if (!ss)
        return PvmBadParam;
    *ss = NULL;
    if ((rc = pvm_upkint(&len, 1, 1)) < 0)
        return rc;
    if (len < 1 || len > (1 << 30))
        return PvmBadMsg;
    char *s = malloc((size_t)len);
    if (!s)
        return PvmNoMem;
    if ((rc = pvm_upkbyte(s, len, 1)) < 0) {
        free(s);
        return rc;
    }
    s[len - 1] = '\0';
    *ss = s;
    return 0;
}
