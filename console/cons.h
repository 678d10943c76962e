/*
 * cons.h - the pvmam console: shared declarations of its parts.
 *
 * main.c     start-up, the pvmd, the command loop, exit
 * input.c    line input (readline on a terminal, plain lines otherwise)
 *            while messages from the pvmd are shown as they come
 * cmdtab.c   the command table, help, aliases, splitting a line
 * jobs.c     spawned jobs whose output comes to the console
 * trace_jobs.c, trace_print.c   traced jobs (spawn -@), console/trace.h
 * cmd_*.c    the commands, one family per file
 * util.c     tids, host names, error lines
 */
#ifndef CONS_H
#define CONS_H

#include <stdio.h>

/* A command gets argv[0] = its name; returns 0 to go on, 1 to leave. */
typedef int cons_fn(int argc, char **argv);

struct cons_cmd {
    const char *name;
    cons_fn *run;
    const char *brief;     /* help's one-line description */
    const char *help;      /* "Syntax: ..." and further lines for help NAME */
    int hidden;            /* not in help's list */
};

struct cons_state {
    int mytid;
    int tty;               /* stdin is a terminal */
    int amstat_ms;         /* how long amstat waits for a task */
    int preload;           /* spawn wraps programs with pvmam-run */
    int halted;            /* halt was sent: leave without pvm_exit */
};
extern struct cons_state cons;

/* cmdtab.c */
const struct cons_cmd *cons_find(const char *name);
int cons_exec(const char *line);   /* 1: quit */
void cons_help_list(void);

/* input.c */
int input_init(void);
char *input_line(const char *prompt);   /* NULL at end of input */
void input_done(void);
void input_note_async(void);             /* output came while the prompt showed */

/* jobs.c */
#define CONS_TAG_HOSTADD  0x7fff0001     /* notify tag for new hosts */
#define CONS_TAG_JOB0     0x7fff1000     /* output tag of job n: JOB0 + n */
int jobs_new(FILE *out, const char *name);   /* job number, or -1 */
int jobs_reserve(int n);                  /* n job numbers (a traced job takes 2) */
void jobs_drop(int job);                  /* a job whose spawn failed */
void jobs_add_task(int job, int tid);
int jobs_handle(int bufid);               /* 1 if it was ours */
void jobs_list(int longfmt);
void jobs_pump(void);                     /* show every message waiting */

/* util.c */
int cons_tid(const char *s, int *tid);    /* "40001" or "t40001"; 0 ok, -1 bad */
const char *cons_err(int code);           /* PVM error text */
void cons_errline(const char *cmd, const char *what, int code);
int cons_wrongargs(const char *cmd);      /* "cmd: wrong #args"; returns 0 */

/* cmd_env.c: add or drop a name in PVM_EXPORT; 0 or -1 */
int cons_export(const char *name);
int cons_unexport(const char *name);
/* cmd_am.c: LD_PRELOAD of libpvm3am for spawned tasks on or off */
int cons_preload_env(int on);

/* command families */
cons_fn cmd_add, cmd_delete, cmd_conf, cmd_mstat, cmd_halt, cmd_tickle;
cons_fn cmd_ps, cmd_pstat, cmd_kill, cmd_sig, cmd_reset, cmd_id, cmd_jobs;
cons_fn cmd_spawn;
cons_fn cmd_setenv, cmd_export, cmd_unexport, cmd_echo, cmd_version, cmd_setopt, cmd_getopt;
cons_fn cmd_names, cmd_put;
cons_fn cmd_trace;
void cons_trace_init(void);               /* cmd_trace.c: stock's start-up mask */
cons_fn cmd_transport, cmd_amstat, cmd_preload;
cons_fn cmd_alias, cmd_unalias, cmd_help, cmd_quit;

#endif /* CONS_H */
