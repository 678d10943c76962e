/*
 * tev_names.h - trace event names in TEV_* order (<pvmtev.h>): stock's
 * names, which trace records carry and decoders print and look up.  One
 * table for the tasks' tracing (pvm3/core/trace.c) and the console's
 * trace command (console/cmd_trace.c): the console is a program, so it gets
 * a copy of this static table, not a symbol libpvm3am would have to export.
 * Nothing but the names: no pvm3 internals.
 */
#ifndef PVM_TEV_NAMES_H
#define PVM_TEV_NAMES_H

#include <pvmtev.h>

static const char *const tev_names[TEV_MAX + 1] = {
    "addhosts", "barrier", "bcast", "bufinfo", "config", "delete", "delhosts", "exit",
    "freebuf", "getfds", "getinst", "getopt", "getrbuf", "getsbuf", "gettid", "gsize", "halt",
    "initsend", "insert", "joingroup", "kill", "lookup", "lvgroup", "mcast", "mkbuf", "mstat",
    "mytid", "notify", "nrecv", "parent", "perror", "pkbyte", "pkcplx", "pkdcplx", "pkdouble",
    "pkfloat", "pkint", "pkuint", "pklong", "pkulong", "pkshort", "pkushort", "pkstr",
    "probe", "pstat", "recv", "recvf", "send", "sendsig", "setopt", "setrbuf", "setsbuf",
    "spawn", "start_pvmd", "tasks", "tickle", "tidtohost", "trecv", "upkbyte", "upkcplx",
    "upkdcplx", "upkdouble", "upkfloat", "upkint", "upkuint", "upklong", "upkulong",
    "upkshort", "upkushort", "upkstr", "version", "reg_hoster", "reg_rm", "reg_tasker",
    "reg_tracer", "newtask", "endtask", "spntask", "archcode", "catchout", "getmwid",
    "gettmask", "hostsync", "packf", "precv", "psend", "reduce", "setmwid", "settmask",
    "unpackf", "gather", "scatter", "putinfo", "getinfo", "delinfo", "getmboxinfo",
    "newcontext", "freecontext", "setcontext", "getcontext", "siblings", "getminfo",
    "setminfo", "addmhf", "delmhf", "mhf_invoke", "timing", "profiling", "user_defined",
};

#endif
