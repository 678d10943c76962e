/*
 * trace.h - the console as a tracer (spawn -@, -@file): traced jobs
 * (trace_jobs.c) and the decoder that prints their events in the trace
 * file format stock's console writes (trace_print.c; docs/protocol.md
 * "Trace events" for what the tasks send).
 */
#ifndef CONS_TRACE_H
#define CONS_TRACE_H

#include <stdio.h>
#include <pvm3.h>

/* A task of a traced job: its events (newtask .. endtask) and its output
 * (spawned .. EOF) end separately; the job is complete when no task has
 * either still open. */
enum { TT_NOLIFE, TT_ALIVE, TT_DEAD, TT_IGNORE };   /* event side */
enum { TO_NONE, TO_OPEN, TO_EOF };                 /* output side */
struct ttask {
    struct ttask *next;
    int tid, ev, out;
    char *partial;          /* output line not ended yet */
};

struct tjob {
    struct tjob *next;
    int no;                 /* job number; tags CONS_TAG_JOB0 + no (events), + no + 1 (output) */
    FILE *tout;             /* the trace: a file, or stdout with "[Tno:tid] " */
    int tprefix;
    FILE *oout;             /* task output lines (->, ->file), or NULL */
    struct ttask *tasks;
    int complete;
};

/* trace_print.c */
void tp_reset(void);                              /* a new trace file */
void tp_header(struct tjob *j, int mytid);
void tp_host_add(struct tjob *j, const struct pvmhostinfo *h);
void tp_output(struct tjob *j, int tid, const char *line);
void tp_message(struct tjob *j, int src);         /* the receive buffer */
void tp_line_start(struct tjob *j, int tid);      /* the "[Tno:tid] " prefix */

/* trace_jobs.c */
/* A traced job numbered no: the trace to file tfile ("" the console),
 * task output to the console or file ofile ("" the console) when
 * with_output; NULL if a file cannot be made (it says so). */
struct tjob *tj_start(int no, const char *tfile, int with_output, const char *ofile);
void tj_drop(struct tjob *j);          /* its spawn started nothing */
int tj_handle(int tag, int src);       /* a message of a traced job: 1 */
/* what the decoder learns about tasks */
void tj_status(struct tjob *j, const char *msg);
void tj_newtask(struct tjob *j, int tid, const char *name);
void tj_endtask(struct tjob *j, int tid);

#endif /* CONS_TRACE_H */
