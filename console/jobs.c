/*
 * jobs.c - jobs whose output comes to the console (spawn ->, ->file,
 * ->>file).  Each job has its own output tag; the pvmd sends its tasks'
 * output there (body: int tid, then int n > 0 and n bytes, or 0 for end of
 * output, -1 task spawned, -2 new task, see man/pvmam.1).
 * Lines are shown as "[job:tid] text", "[job:tid] EOF" when a task closes
 * its output, and "[job] finished" when all of the job's tasks have.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pvm3.h>
#include "cons.h"
#include "trace.h"

#define TO_EOF_N    0
#define TO_SPAWN_N  (-1)
#define TO_NEW_N    (-2)

struct jtask {
    struct jtask *next;
    int tid;
    int eof;
    char *buf;          /* partial line */
    size_t len;
};

struct job {
    struct job *next;
    int no;
    FILE *out;          /* stdout or the file of ->file */
    char *name;
    struct jtask *tasks;
};

static struct job *jobs;
static int last_no;

int jobs_new(FILE *out, const char *name)
{
    struct job *j = calloc(1, sizeof *j);
    if (!j)
        return -1;
    j->no = ++last_no;
    j->out = out;
    j->name = strdup(name ? name : "");
    struct job **pp = &jobs;
    while (*pp)
        pp = &(*pp)->next;
    *pp = j;
    return j->no;
}

static struct job *find(int no)
{
    for (struct job *j = jobs; j; j = j->next)
        if (j->no == no)
            return j;
    return NULL;
}

static void job_free(struct job *j)
{
    for (struct job **pp = &jobs; *pp; pp = &(*pp)->next)
        if (*pp == j) {
            *pp = j->next;
            break;
        }
    while (j->tasks) {
        struct jtask *t = j->tasks;
        j->tasks = t->next;
        free(t->buf);
        free(t);
    }
    if (j->out && j->out != stdout)
        fclose(j->out);
    free(j->name);
    free(j);
}

int jobs_reserve(int n)
{
    int no = last_no + 1;
    last_no += n;
    return no;
}

void jobs_drop(int no)
{
    struct job *j = find(no);
    if (j)
        job_free(j);
}

static struct jtask *task(struct job *j, int tid, int create)
{
    struct jtask **pp = &j->tasks;
    for (; *pp; pp = &(*pp)->next)
        if ((*pp)->tid == tid)
            return *pp;
    if (!create || !(*pp = calloc(1, sizeof **pp)))
        return NULL;
    (*pp)->tid = tid;
    return *pp;
}

void jobs_add_task(int no, int tid)
{
    struct job *j = find(no);
    if (j)
        task(j, tid, 1);
}

static void data(struct job *j, struct jtask *t, const char *p, size_t n)
{
    char *b = realloc(t->buf, t->len + n + 1);
    if (!b)
        return;
    t->buf = b;
    memcpy(b + t->len, p, n);
    t->len += n;
    b[t->len] = '\0';
    char *start = b, *nl;
    while ((nl = memchr(start, '\n', t->len - (size_t)(start - b)))) {
        *nl = '\0';
        fprintf(j->out, "[%d:t%x] %s\n", j->no, t->tid, start);
        start = nl + 1;
    }
    t->len -= (size_t)(start - b);
    memmove(b, start, t->len);
    fflush(j->out);
}

static void eof(struct job *j, struct jtask *t)
{
    if (t->len) {
        fprintf(j->out, "[%d:t%x] %.*s\n", j->no, t->tid, (int)t->len, t->buf);
        t->len = 0;
    }
    t->eof = 1;
    fprintf(j->out, "[%d:t%x] EOF\n", j->no, t->tid);
    fflush(j->out);
    for (struct jtask *u = j->tasks; u; u = u->next)
        if (!u->eof)
            return;
    printf("[%d] finished\n", j->no);
    fflush(stdout);
    job_free(j);
}

static void output(int tag)
{
    struct job *j = find(tag - CONS_TAG_JOB0);
    int tid, n;
    if (pvm_upkint(&tid, 1, 1) < 0 || pvm_upkint(&n, 1, 1) < 0)
        return;
    if (!j) {
        printf("Bogus message, job %d has no task t%x\n", tag - CONS_TAG_JOB0, tid);
        return;
    }
    struct jtask *t = task(j, tid, 1);
    if (!t)
        return;
    if (n > 0) {
        char *b = malloc((size_t)n);
        if (b && pvm_upkbyte(b, n, 1) >= 0)
            data(j, t, b, (size_t)n);
        free(b);
    } else if (n == TO_EOF_N) {
        eof(j, t);
    }
    /* TO_SPAWN / TO_NEW: the task is now part of the job (done above) */
}

int jobs_handle(int bufid)
{
    int bytes, tag, src;
    if (pvm_bufinfo(bufid, &bytes, &tag, &src) < 0)
        return 0;
    if (tag == CONS_TAG_HOSTADD) {
        int n = 0;
        pvm_upkint(&n, 1, 1);
        printf("Console: %d new host%s added\n", n, n == 1 ? "" : "s");
        fflush(stdout);
        return 1;
    }
    if (tj_handle(tag, src))
        return 1;
    if (tag > CONS_TAG_JOB0 && tag <= CONS_TAG_JOB0 + last_no) {
        output(tag);
        return 1;
    }
    return 0;
}

void jobs_pump(void)
{
    int bufid;
    while ((bufid = pvm_nrecv(-1, -1)) > 0) {
        int ours = jobs_handle(bufid);
        pvm_freebuf(bufid);
        if (ours)
            input_note_async();
    }
}

void jobs_list(int longfmt)
{
    if (longfmt)
        printf("                    HOST      TID   FLAG 0x COMMAND\n");
    for (struct job *j = jobs; j; j = j->next) {
        printf("%2d:\n", j->no);
        for (struct jtask *t = j->tasks; longfmt && t; t = t->next) {
            int nt;
            struct pvmtaskinfo *ti;
            if (t->eof || pvm_tasks(t->tid, &nt, &ti) < 0 || nt < 1)
                continue;
            char flags[16];
            snprintf(flags, sizeof flags, "%x/", (unsigned)ti[0].ti_flag);
            printf("%24s %8x %9s %-12s\n", "", ti[0].ti_tid, flags,
                   ti[0].ti_a_out && *ti[0].ti_a_out ? ti[0].ti_a_out : "-");
        }
    }
}
