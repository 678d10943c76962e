/*
 * cmdtab.c - the command table, help, aliases, and splitting a line into
 * words (quotes group words; an alias replaces the first word).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cons.h"

#define MAX_ARGS 256
#define MAX_LINE 4096

static const struct cons_cmd table[] = {
    { "add", cmd_add, "Add hosts to the virtual machine",
      "Syntax:  add hostname ...\n"
      "  or     add 'hostname option=value ...' ...\n"
      "(host options as in a pvmd host file, see pvmd3(1PVM))\n", 0 },
    { "alias", cmd_alias, "Define or list command aliases",
      "Syntax:  alias [ name command [ args ... ] ]\n", 0 },
    { "amstat", cmd_amstat, "Show AM links and traffic of libpvm3am tasks",
      "Syntax:  amstat [ -w ms ] [ tid ... ]\n"
      "Without tids, every task in the virtual machine.  Each libpvm3am task\n"
      "answers with its transport, its message and byte counts over AM and\n"
      "through the pvmd, libam's retransmissions, duplicates and drops, the\n"
      "AMs and connections dropped for lacking its secret (AUTH), and the\n"
      "same per peer, with the transport of each peer's link (VIA).  A task\n"
      "that does not answer within -w ms\n"
      "(default 2000) is shown as not answering; stock tasks as stock.\n", 0 },
    { "conf", cmd_conf, "List the virtual machine configuration",
      "Syntax:  conf\n"
      "Output fields:\n"
      "  HOST    host name\n"
      "  DTID    tid base of its pvmd\n"
      "  ARCH    architecture\n"
      "  SPEED   relative speed\n"
      "  DSIG    data signature\n", 0 },
    { "delete", cmd_delete, "Delete hosts from the virtual machine",
      "Syntax:  delete hostname ...\n", 0 },
    { "echo", cmd_echo, "Print the arguments", "Syntax:  echo [ arg ... ]\n", 0 },
    { "export", cmd_export, "Add variables to the export list of spawned tasks",
      "Syntax:  export [ varname ... ]\n", 0 },
    { "getopt", cmd_getopt, "Show PVM options of the console task",
      "Syntax:  getopt [ what ]\n", 0 },
    { "halt", cmd_halt, "Stop every pvmd (and this console)", "Syntax:  halt\n", 0 },
    { "help", cmd_help, "Print help about a command", "Syntax:  help [ command ]\n", 0 },
    { "id", cmd_id, "Print the console's task id", "Syntax:  id\n", 0 },
    { "jobs", cmd_jobs, "List running jobs",
      "Syntax:  jobs [ options ]\n"
      "Options:  -l   long listing\n", 0 },
    { "kill", cmd_kill, "Terminate tasks",
      "Syntax:  kill [ options ] tid ...\n"
      "Options:  -c   also the children of tid\n", 0 },
    { "mstat", cmd_mstat, "Show the status of hosts", "Syntax:  mstat name ...\n", 0 },
    { "names", cmd_names, "List mailbox names", "Syntax:  names [ pattern ]\n", 0 },
    { "preload", cmd_preload, "Show or set: spawn runs programs with libpvm3am preloaded",
      "Syntax:  preload [ on | off ]\n"
      "With on, spawn exports LD_PRELOAD with libpvm3am to the tasks it starts\n"
      "(through PVM_EXPORT), so unmodified stock-linked programs take the AM\n"
      "fast path.\n", 0 },
    { "ps", cmd_ps, "List tasks",
      "Syntax:  ps [ -alx ] [ -hhost-tid ] [ -nhost-name ]\n"
      "Options:  -a       all hosts (default: this host)\n"
      "          -hhost   host given by its pvmd tid\n"
      "          -nhost   host given by name\n"
      "          -l       long listing (parent tid, process id)\n"
      "          -x       also the console and tasks without a program\n"
      "Output fields:\n"
      "  HOST    host name\n"
      "  TID     task id\n"
      "  PTID    parent task id\n"
      "  PID     process id\n"
      "  FLAG    status\n"
      "  COMMAND program\n"
      "FLAG values:\n"
      "  f   started by the pvmd\n"
      "  c   connected to the pvmd\n"
      "  a   waiting for authorization\n"
      "  o   connection closing\n"
      "  H   hoster task\n"
      "  R   resource manager task\n"
      "  T   tasker task\n"
      "  am  libpvm3am task (see amstat)\n", 0 },
    { "pstat", cmd_pstat, "Show the status of tasks", "Syntax:  pstat tid ...\n", 0 },
    { "put", cmd_put, "Put an entry in the mailbox",
      "Syntax:  put name value [ flags ]\n"
      "The value is stored as a string; flags as for pvm_putinfo (default 0).\n", 0 },
    { "quit", cmd_quit, "Leave the console (the virtual machine keeps running)",
      "Syntax:  quit\n", 0 },
    { "reset", cmd_reset, "Kill every task but the consoles", "Syntax:  reset\n", 0 },
    { "setenv", cmd_setenv, "Show or set environment variables",
      "Syntax:  setenv [ name [ value ] ]\n", 0 },
    { "setopt", cmd_setopt, "Set a PVM option of the console task only",
      "Syntax:  setopt what value\n", 0 },
    { "sig", cmd_sig, "Send a signal to tasks", "Syntax:  sig signum tid ...\n", 0 },
    { "spawn", cmd_spawn, "Start tasks",
      "Syntax:  spawn [ options ] file [ arg ... ]\n"
      "Options:  -(count)         how many tasks (default 1)\n"
      "          -(host)          on that host (default any)\n"
      "          -(host):(wd)     on that host, in directory wd\n"
      "          --host=(IP)      on the host with that address\n"
      "          --host=(IP):(wd) on the host with that address, in directory wd\n"
      "          -(ARCH)          on hosts of that architecture\n"
      "          -(ARCH):(wd)     ... in directory wd\n"
      "          -:(wd)           in directory wd\n"
      "          -?               start in the debugger\n"
      "          ->               job output to the console\n"
      "          ->(file)         job output to a file\n"
      "          ->>(file)        job output appended to a file\n"
      "          -@               trace the job: the console shows its events\n"
      "          -@(file)         trace the job into a new trace file\n"
      "          -!               this job with libpvm3am preloaded (pvmam-run)\n", 0 },
    { "tickle", cmd_tickle, "Ask the pvmd to do something (debugging)",
      "Syntax:  tickle how [ arg ... ]\n"
      "How: see pvmd3(1PVM); 0..9 dump or set pvmd internals into its log.\n", 1 },
    { "trace", cmd_trace, "Show or set the trace mask for spawned tasks",
      "Syntax:  trace\n"
      "         trace [+] name ...\n"
      "         trace - name ...\n"
      "         trace [+] *\n"
      "         trace - *\n"
      "         trace xpvm\n"
      "         trace buf nbytes\n"
      "         trace buf\n"
      "         trace opt < full | time | count >\n"
      "         trace opt\n"
      "Alone: the events spawned tasks trace (*).  xpvm: only what XPVM draws\n"
      "(the start-up mask).  buf: bytes a task gathers before it sends them\n"
      "(0: every event at once).  opt: whole events, or only the time or the\n"
      "count per call, sent when the task exits.\n", 0 },
    { "transport", cmd_transport, "Show or set PVMAM_TRANSPORT for spawned tasks",
      "Syntax:  transport [ tcp | udp | shm | shm,tcp | shm,udp | off | default ]\n"
      "Sets PVMAM_TRANSPORT and exports it (PVM_EXPORT) to tasks spawned from\n"
      "now on; default removes it (libpvm3am tasks then use shm,tcp: shm to\n"
      "tasks on their host, tcp to the others).  Two transports are tried in\n"
      "the order given.  Other PVMAM_* settings: setenv NAME value, then\n"
      "export NAME.\n", 0 },
    { "unalias", cmd_unalias, "Remove command aliases", "Syntax:  unalias name ...\n", 0 },
    { "unexport", cmd_unexport, "Remove variables from the export list",
      "Syntax:  unexport [ varname ... ]\n", 0 },
    { "version", cmd_version, "Show the PVM version of libpvm3am", "Syntax:  version\n", 0 },
};
#define NCMDS (sizeof table / sizeof table[0])

const struct cons_cmd *cons_find(const char *name)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (!strcmp(table[i].name, name))
            return &table[i];
    return NULL;
}

void cons_help_list(void)
{
    for (size_t i = 0; i < NCMDS; i++)
        if (!table[i].hidden)
            printf("  %-11s %s\n", table[i].name, table[i].brief);
}

int cmd_help(int argc, char **argv)
{
    const struct cons_cmd *c = cons_find(argc > 1 ? argv[1] : "help");
    if (!c) {
        printf("help: no command %s (help lists them)\n", argv[1]);
        return 0;
    }
    printf("%-11s %s\n%s", c->name, c->brief, c->help);
    if (c == cons_find("help")) {
        printf("Commands are:\n");
        cons_help_list();
    }
    return 0;
}

int cmd_quit(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    return 1;
}

/* ---- aliases ------------------------------------------------------------ */

struct alias {
    struct alias *next;
    char *name, *text;
};
static struct alias *aliases;

static struct alias *alias_find(const char *name)
{
    for (struct alias *a = aliases; a; a = a->next)
        if (!strcmp(a->name, name))
            return a;
    return NULL;
}

int cmd_alias(int argc, char **argv)
{
    if (argc == 1) {
        for (struct alias *a = aliases; a; a = a->next)
            printf("%s\t%s\n", a->name, a->text);
        return 0;
    }
    if (argc == 2) {
        struct alias *a = alias_find(argv[1]);
        if (a)
            printf("%s\t%s\n", a->name, a->text);
        return 0;
    }
    size_t len = 0;
    for (int i = 2; i < argc; i++)
        len += strlen(argv[i]) + 1;
    char *text = malloc(len + 1);
    if (!text) {
        printf("alias: out of memory\n");
        return 0;
    }
    text[0] = '\0';
    for (int i = 2; i < argc; i++) {
        strcat(text, argv[i]);
        if (i + 1 < argc)
            strcat(text, " ");
    }
    struct alias *a = alias_find(argv[1]);
    if (a) {
        free(a->text);
        a->text = text;
        return 0;
    }
    if (!(a = calloc(1, sizeof *a)) || !(a->name = strdup(argv[1]))) {
        free(a);
        free(text);
        printf("alias: out of memory\n");
        return 0;
    }
    a->text = text;
    /* kept in definition order, as listed */
    struct alias **pp = &aliases;
    while (*pp)
        pp = &(*pp)->next;
    *pp = a;
    return 0;
}

int cmd_unalias(int argc, char **argv)
{
    if (argc < 2)
        return cons_wrongargs(argv[0]);
    for (int i = 1; i < argc; i++)
        for (struct alias **pp = &aliases; *pp; pp = &(*pp)->next)
            if (!strcmp((*pp)->name, argv[i])) {
                struct alias *a = *pp;
                *pp = a->next;
                free(a->name);
                free(a->text);
                free(a);
                break;
            }
    return 0;
}

/* ---- splitting and running ------------------------------------------- */

/* Split buf in place into words; quotes group.  Returns the count, or -1
 * (message printed) on an unmatched quote or too many words. */
static int split(char *buf, char **argv)
{
    int argc = 0;
    char *r = buf, *w = buf;
    for (;;) {
        while (*r == ' ' || *r == '\t' || *r == '\n' || *r == '\r')
            r++;
        if (!*r || *r == '#')
            break;
        if (argc == MAX_ARGS - 1) {
            printf("command too long\n");
            return -1;
        }
        argv[argc++] = w;
        while (*r && *r != ' ' && *r != '\t' && *r != '\n' && *r != '\r') {
            if (*r == '\'' || *r == '"') {
                char q = *r++;
                while (*r && *r != q)
                    *w++ = *r++;
                if (!*r) {
                    printf("unmatched %c\n", q);
                    return -1;
                }
                r++;
            } else {
                *w++ = *r++;
            }
        }
        if (*r)
            r++;
        *w++ = '\0';
    }
    argv[argc] = NULL;
    return argc;
}

int cons_exec(const char *line)
{
    char buf[MAX_LINE + 16], *argv[MAX_ARGS];
    if (strlen(line) >= sizeof buf) {
        printf("command too long\n");
        return 0;
    }
    strcpy(buf, line);
    /* an alias replaces the first word; chains are followed a few times */
    for (int depth = 0;; depth++) {
        char first[MAX_LINE];
        const char *s = buf;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strcspn(s, " \t\n\r");
        if (!n || n >= sizeof first)
            break;
        memcpy(first, s, n);
        first[n] = '\0';
        struct alias *a = alias_find(first);
        if (!a)
            break;
        if (depth == 16) {
            printf("alias loop\n");
            return 0;
        }
        char rest[MAX_LINE + 16];
        size_t tl = strlen(a->text), rl = strlen(s + n);
        if (tl + rl + 1 >= sizeof buf) {
            printf("command too long\n");
            return 0;
        }
        memcpy(rest, s + n, rl + 1);
        memcpy(buf, a->text, tl);
        memcpy(buf + tl, rest, rl + 1);
        /* "alias ps ps -a": a command named like its alias ends the chain */
        size_t m = strcspn(a->text, " \t");
        if (m == strlen(first) && !strncmp(a->text, first, m))
            break;
    }
    int argc = split(buf, argv);
    if (argc <= 0)
        return 0;
    const struct cons_cmd *c = cons_find(argv[0]);
    if (!c) {
        printf("%s: not found\n", argv[0]);
        return 0;
    }
    int rc = c->run(argc, argv);
    fflush(stdout);
    return rc;
}
