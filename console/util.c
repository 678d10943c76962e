/*
 * util.c - small helpers the commands share: task ids, error lines.
 */
#include <stdio.h>
#include <stdlib.h>
#include <pvm3.h>
#include "cons.h"

extern int pvm_errno;   /* libpvm3am has it; pvm3.h does not declare it */

/* Task ids are hex, with or without a leading 't', as ps prints them. */
int cons_tid(const char *s, int *tid)
{
    if (!s || !*s)
        return -1;
    if (*s == 't')
        s++;
    char *end;
    unsigned long v = strtoul(s, &end, 16);
    if (!*s || *end || *s == '-' || *s == '+' || v == 0 || v > 0x7fffffffUL)
        return -1;
    *tid = (int)v;
    return 0;
}

/* The library's text for a PVM error code. */
const char *cons_err(int code)
{
    int saved = pvm_errno;
    pvm_errno = code;
    const char *t = pvm_strerror();
    pvm_errno = saved;
    return t ? t : "Unknown error";
}

void cons_errline(const char *cmd, const char *what, int code)
{
    if (what)
        printf("%s: %s: %s\n", cmd, what, cons_err(code));
    else
        printf("%s: %s\n", cmd, cons_err(code));
}

int cons_wrongargs(const char *cmd)
{
    printf("%s: wrong #args\n", cmd);
    return 0;
}
