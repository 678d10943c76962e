/*
 * trace_jobs.c - traced jobs (spawn -@, -@file): the console is the
 * tracer and the output sink of their tasks, as stock's console is.  Each
 * job has two tags: CONS_TAG_JOB0 + no for trace messages (from the tasks
 * and, for newtask/spntask/endtask, from the pvmd) and + no + 1 for task
 * output (body as in jobs.c).  Output lines become "output" events of the
 * trace too, and also go to the console or a file with "->".  A job is
 * complete, and "[no] finished" is printed, when none of its tasks has
 * its events or its output still open, checked as stock's tracer checks
 * it: when endtask or the end of output comes for a task whose events are
 * alive.  The group server (pvmgs) is left out, as stock leaves it out.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pvm3.h>
#include "cons.h"
#include "trace.h"

static struct tjob *tjobs;   /* finished ones stay (marked) so late messages are dropped */

void tj_status(struct tjob *j, const char *msg)
{
    fprintf(stderr, "[%d] libpvmtrc: %s\n", j->no, msg);
}

static struct ttask *task(struct tjob *j, int tid)
{
    for (struct ttask *t = j->tasks; t; t = t->next)
        if (t->tid == tid)
            return t;
    return NULL;
}

static struct ttask *task_new(struct tjob *j, int tid)
{
    char msg[80];
    snprintf(msg, sizeof msg, "Task TID=0x%x Connected to Console", tid);
    tj_status(j, msg);
    struct ttask *t = calloc(1, sizeof *t);
    if (t) {
        t->tid = tid;
        t->next = j->tasks;
        j->tasks = t;
    }
    return t;
}

static int alive(struct tjob *j)
{
    for (struct ttask *t = j->tasks; t; t = t->next)
        if (t->ev == TT_ALIVE || t->out == TO_OPEN)
            return 1;
    return 0;
}

static void end_trace(struct tjob *j)
{
    tj_status(j, "Trace File Complete");
    j->complete = 1;
}

void tj_newtask(struct tjob *j, int tid, const char *name)
{
    struct ttask *t = task(j, tid);
    if (!t && !(t = task_new(j, tid)))
        return;
    t->ev = TT_ALIVE;
    /* the group server never ends: stock's tracer leaves it out */
    if (name && (!strncmp(name, "pvmg", 4) || !strncmp(name, "pvmcg", 5))) {
        char msg[300];
        snprintf(msg, sizeof msg, "Ignoring Task \"%s\"", name);
        tj_status(j, msg);
        t->ev = TT_IGNORE;
    }
}

void tj_endtask(struct tjob *j, int tid)
{
    struct ttask *t = task(j, tid);
    if (!t) {
        printf("\nWarning: ENDTASK Unknown Task TID=0x%x.\n\n", tid);
        return;
    }
    int was = t->ev;
    t->ev = TT_DEAD;
    if (was == TT_ALIVE && !alive(j))
        end_trace(j);
}

/* Output bytes of a task: each whole line is an output event; a partial
 * line waits for the rest (or for the end of the output). */
static void output_text(struct tjob *j, int tid, const char *p, size_t n)
{
    struct ttask *t = task(j, tid);
    char *line = NULL;
    size_t len = 0;
    if (t && t->partial) {
        line = t->partial;
        len = strlen(line);
        t->partial = NULL;
        if (n == 7 && !memcmp(p, "GOTEOF\n", 7)) {
            tp_output(j, tid, line);
            len = 0;
        }
    }
    char *b = realloc(line, len + n + 1);
    if (!b) {
        free(line);
        return;
    }
    line = b;
    for (size_t i = 0; i < n; i++) {
        if (p[i] != '\n') {
            line[len++] = p[i];
            continue;
        }
        line[len] = '\0';
        tp_output(j, tid, line);
        len = 0;
    }
    line[len] = '\0';
    if (len && t) {
        t->partial = line;
        return;
    }
    if (len) {
        printf("Warning: Partial Task Output Line\n");
        tp_output(j, tid, line);
    }
    free(line);
}

static void output_msg(struct tjob *j)
{
    int tid, n;
    if (pvm_upkint(&tid, 1, 1) < 0 || pvm_upkint(&n, 1, 1) < 0)
        return;
    struct ttask *t = task(j, tid);
    if (n > 0) {
        char *b = malloc((size_t)n);
        if (b && pvm_upkbyte(b, n, 1) >= 0)
            output_text(j, tid, b, (size_t)n);
        free(b);
    } else if (n == 0) {
        output_text(j, tid, "GOTEOF\n", 7);
        if (!t) {
            printf("\nWarning: GOTEOF Unknown Task TID=0x%x.\n\n", tid);
        } else {
            int was = t->ev;
            t->out = TO_EOF;
            if (was == TT_ALIVE && !alive(j))
                end_trace(j);
        }
    } else if (n == -1 || n == -2) {
        /* -1: the task was spawned, -2: a new task of the job */
        output_text(j, tid, n == -1 ? "GOTSPAWN\n" : "CREATION\n", 9);
        if (!t && !(t = task_new(j, tid)))
            return;
        t->out = TO_OPEN;
    } else {
        fprintf(stderr, "Console: unknown output msg 0x%x?\n", tid);
    }
}

/* Open FILE as stock does: a new file only, never one that exists. */
static FILE *open_new(const char *file)
{
    int fd = open(file, O_RDWR | O_CREAT | O_EXCL | O_TRUNC, 0600);
    FILE *f = fd < 0 ? NULL : fdopen(fd, "w");
    if (!f) {
        if (fd >= 0)
            close(fd);
        fprintf(stderr, "\nError Opening File \"%s\"\n\n", file);
    }
    return f;
}

static void close_files(struct tjob *j)
{
    if (j->tout && j->tout != stdout)
        fclose(j->tout);
    if (j->oout && j->oout != stdout)
        fclose(j->oout);
    j->tout = j->oout = NULL;
}

static void finish(struct tjob *j)
{
    close_files(j);
    while (j->tasks) {
        struct ttask *t = j->tasks;
        j->tasks = t->next;
        free(t->partial);
        free(t);
    }
    j->complete = 1;
}

struct tjob *tj_start(int no, const char *tfile, int with_output, const char *ofile)
{
    struct tjob *j = calloc(1, sizeof *j);
    if (!j)
        return NULL;
    j->no = no;
    j->tout = stdout;
    j->tprefix = !*tfile;
    if (*tfile && !(j->tout = open_new(tfile)))
        goto fail;
    if (with_output)
        j->oout = *ofile ? open_new(ofile) : stdout;
    if (with_output && !j->oout)
        goto fail;
    tp_reset();
    tp_header(j, cons.mytid);
    int nh, na;
    struct pvmhostinfo *h;
    if (pvm_config(&nh, &na, &h) >= 0)
        for (int i = 0; i < nh; i++)
            tp_host_add(j, &h[i]);
    fflush(j->tout);
    j->next = tjobs;
    tjobs = j;
    return j;
fail:
    close_files(j);
    free(j);
    return NULL;
}

void tj_drop(struct tjob *j)
{
    finish(j);   /* stays listed, as finished: its number is spent */
}

int tj_handle(int tag, int src)
{
    struct tjob *j = tjobs;
    for (; j; j = j->next)
        if (tag == CONS_TAG_JOB0 + j->no || tag == CONS_TAG_JOB0 + j->no + 1)
            break;
    if (!j)
        return 0;
    if (j->complete)
        return 1;   /* late messages of a finished trace */
    if (tag == CONS_TAG_JOB0 + j->no)
        tp_message(j, src);
    else
        output_msg(j);
    if (j->tout)
        fflush(j->tout);
    if (j->complete) {
        finish(j);
        printf("[%d] finished\n", j->no);
        fflush(stdout);
    }
    return 1;
}
