/*
 * trace_print.c - decode a traced job's trace messages and write them as
 * stock PVM 3.4.6's console (its tracer library) writes a trace file, the
 * SDDF text that trcsort and XPVM read:
 *
 *   #NNNN: "name(0.i)"         a descriptor: the fields of one kind of
 *   {                          event, entry (0.) or exit (1.), or neither
 *           // "TS" "Time Seconds"   ("name(i)"); i is its variant among
 *           int "TS";                descriptors of that kind, and NNNN =
 *   };;                              1000 (i + 1) + 2 kind + (exit ? 1 : 0)
 *   "name(0.i)" { 1, 2, [3] { "ab" } };;     a record
 *
 * A task sends each kind's descriptor once, with the first record's
 * values; later records carry only values and are read with what that
 * source described (the descriptor-once rule, docs/protocol.md "Trace
 * events").  Descriptors are shared by all traced jobs of the console:
 * one equal to a known one keeps its number, and each trace file writes
 * a descriptor again before its first record there.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/time.h>
#include <pvm3.h>
#include <pvmtev.h>
#include "trace.h"

/* The tracer's own events, numbered as stock's tracer numbers them. */
#define EV_HOST_ADD 401
#define EV_OUTPUT   404
#define NEIDS       405
enum { EE_ENTRY, EE_EXIT, EE_NONE };
#define MAXARR 1024      /* the longest array stock's tracer reads (strings aside) */
#define MAXSTR 4096

/* Field names and descriptions, as trace files (and their readers) have
 * them: stock libpvm3's table for TEV_DID_* (<pvmtev.h>). */
static const struct { const char *name, *desc; } dids[TEV_DID_MAX + 1] = {
    { "AN", "PVM Architecture Name" },
    { "AC", "PVM Architecture Code" },
    { "AS", "Argument Strings (Argc/Argv)" },
    { "BF", "Block Flag" },
    { "CC", "Condition Code" },
    { "CN", "Class Name" },
    { "CI", "Class Index" },
    { "CF", "Class Flags" },
    { "CD", "Class Data" },
    { "CR", "Returned Class Data" },
    { "CL", "Returned Class Names" },
    { "CDA", "Collective Data Address" },
    { "CDT", "Collective Data Type" },
    { "CDX", "Collective Data" },
    { "CDC", "Collective Count" },
    { "CGI", "Collective Group Result Instance" },
    { "CRF", "Collective Reduce Function" },
    { "CXC", "Current Message Context" },
    { "CXF", "Freed Message Context" },
    { "CXN", "New Message Context" },
    { "CXS", "Set Message Context" },
    { "ERI", "PVM Error Identifier" },
    { "ERR", "PVM Error String" },
    { "FDS", "File Descriptors" },
    { "FP", "File Pointer" },
    { "GN", "Group Name" },
    { "GI", "Group Instance Number" },
    { "GT", "Group Task ID" },
    { "GS", "Group Size" },
    { "GBC", "Group Barrier Count" },
    { "HN", "Host Name" },
    { "HNL", "Host Name List" },
    { "HNA", "Host Name Alias" },
    { "HPT", "Host PVMD Task ID" },
    { "HA", "Host Architecture" },
    { "HSP", "Host Speed" },
    { "HIS", "Host Information Structures" },
    { "HCS", "Host Clock Seconds" },
    { "HCU", "Host Clock Microseconds" },
    { "HDS", "Host Delta Seconds" },
    { "HDU", "Host Delta Microseconds" },
    { "HS", "Host Status" },
    { "INB", "Info Number of Message Bytes" },
    { "IMC", "Info Message Code" },
    { "IST", "Info Message Source Task" },
    { "MC", "Message Code" },
    { "MCX", "Message Context" },
    { "MB", "Message Buffer" },
    { "MNB", "Message Number of Bytes" },
    { "SRC", "Message Source Task ID" },
    { "DST", "Message Destination Task ID" },
    { "MDL", "Message Destination Task ID List" },
    { "MTS", "Message Timeout Seconds" },
    { "MTU", "Message Timeout Microseconds" },
    { "MRF", "Message Receive Function" },
    { "MRB", "Message Receive Buffer" },
    { "MSB", "Message Send Buffer" },
    { "ME", "Message Encoding" },
    { "MHI", "Message Handler Index" },
    { "AST", "Actual Message Sender Task ID" },
    { "AMC", "Actual Message Code" },
    { "AML", "Actual Message Length" },
    { "NE", "Notify Event ID" },
    { "NMC", "Notify Message Code" },
    { "NCT", "Notify Count" },
    { "NTL", "Notify Task ID List" },
    { "NH", "Number of Hosts" },
    { "NA", "Number of Architectures" },
    { "OPT", "PVM Option ID" },
    { "OPV", "PVM Option Value" },
    { "OS", "Output String" },
    { "PDA", "Pack Data Address" },
    { "PDT", "Pack Data Type" },
    { "PC", "Pack Count" },
    { "PSD", "Pack Stride" },
    { "PSG", "Pack String" },
    { "PF", "Pack Format" },
    { "PRF", "Profiling Count" },
    { "RST", "Receive Msg Source Task / Wildcard" },
    { "RMC", "Receive Msg Code / Wildcard" },
    { "RCX", "Receive Msg Context" },
    { "SN", "Signal Number" },
    { "SE", "Spawn Executable File" },
    { "SF", "Spawn Flags" },
    { "SW", "Spawn Where" },
    { "SC", "Spawn Count" },
    { "STL", "Spawned Task ID List" },
    { "SIB", "Sibling Task ID List" },
    { "TID", "Task ID" },
    { "PT", "Parent Task ID" },
    { "MT", "My Task ID" },
    { "TF", "Task Flags" },
    { "TN", "Task Name" },
    { "PID", "Task Process ID" },
    { "TT", "Target Task ID" },
    { "TW", "Tasks Where" },
    { "TIS", "Task Information Structures" },
    { "TNT", "Task Info - Number of Tasks" },
    { "TST", "Task Status" },
    { "TUS", "Task User Usage Seconds" },
    { "TUU", "Task User Usage Microseconds" },
    { "TSS", "Task System Usage Seconds" },
    { "TSU", "Task System Usage Microseconds" },
    { "TES", "Task Exit Status" },
    { "TA", "Tickle Arguments" },
    { "TR", "Tickle Responses" },
    { "TS", "Time Seconds" },
    { "TU", "Time Microseconds" },
    { "TGS", "Timing Seconds" },
    { "TGU", "Timing Microseconds" },
    { "TMW", "Trace Mask Who" },
    { "TM", "Trace Mask" },
    { "TRC", "Tracer Message Trace Context" },
    { "TRT", "Tracer Message Trace Tag" },
    { "TRX", "Tracer Message Output Context" },
    { "TRO", "Tracer Message Output Tag" },
    { "TRM", "Tracer Trace Mask" },
    { "TRB", "Tracer Trace Buffering" },
    { "TRL", "Tracer Trace Options" },
    { "VER", "PVM Version" },
    { "VCT", "Trace Event Count" },
    { "VID", "Trace Event ID" },
    { "WID", "Wait Identifier Number" },
};

/* The C type a trace file declares for each TEV_DATA_* type. */
static const char *const types[16] = {
    "void", "char", "float", "double", "double", "float", "int", "int",
    "int", "int", "int", "int", "char", "void", "void", "void",
};

struct tfield {
    int did, dt, arr;
};

struct tdesc {
    struct tdesc *next;
    char *name;
    int eid, ee, index, dump, nf;
    struct tfield *f;
};

/* What one source (a task, or the pvmd for newtask/endtask) described,
 * per kind and direction.  Console-wide: a pvmd describes its events once
 * to a tracer, whatever job they are for; a task's table goes at its
 * endtask (a later task with that tid describes its events afresh). */
struct tsrc {
    struct tsrc *next;
    int tid;
    struct tdesc *d[(TEV_MAX + 1) * 3];
};

static struct tdesc *chains[NEIDS];   /* every descriptor, per kind */
static struct tsrc *srcs;
static struct timeval ttime;          /* latest event time: the tracer's own events use it */

/* ---- text of one record, built while its values are read ------------ */
struct text {
    char *p;
    size_t len, cap;
};

static void tx(struct text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if (t->len + (size_t)n + 1 > t->cap) {
        size_t cap = (t->len + (size_t)n + 1) * 2;
        char *p = realloc(t->p, cap);
        if (!p)
            return;
        t->p = p;
        t->cap = cap;
    }
    va_start(ap, fmt);
    vsnprintf(t->p + t->len, t->cap - t->len, fmt, ap);
    va_end(ap);
    t->len += (size_t)n;
}

/* ---- descriptors ---------------------------------------------------- */
static int same(const struct tdesc *a, const struct tdesc *b)
{
    if (strcmp(a->name, b->name) || a->eid != b->eid || a->ee != b->ee || a->nf != b->nf)
        return 0;
    for (int i = 0; i < a->nf; i++)
        if (a->f[i].did != b->f[i].did || a->f[i].dt != b->f[i].dt || a->f[i].arr != b->f[i].arr)
            return 0;
    return 1;
}

static void desc_free(struct tdesc *d)
{
    if (d) {
        free(d->name);
        free(d->f);
        free(d);
    }
}

/* The registered descriptor equal to d (d is freed), or d registered as
 * the next variant of its kind. */
static struct tdesc *enter(struct tdesc *d)
{
    struct tdesc **pp = &chains[d->eid];
    int index = 0;
    for (; *pp; pp = &(*pp)->next, index++)
        if (same(*pp, d)) {
            desc_free(d);
            return *pp;
        }
    d->index = index;
    d->dump = 1;
    *pp = d;
    return d;
}

static struct tdesc *desc_new(const char *name, int eid, int ee)
{
    struct tdesc *d = calloc(1, sizeof *d);
    if (!d || !(d->name = strdup(name))) {
        free(d);
        return NULL;
    }
    d->eid = eid;
    d->ee = ee;
    return d;
}

static int add_field(struct tdesc *d, int did, int dt, int arr)
{
    struct tfield *f = realloc(d->f, sizeof *f * (size_t)(d->nf + 1));
    if (!f)
        return -1;
    d->f = f;
    f[d->nf++] = (struct tfield){ did, dt, arr };
    return 0;
}

/* The tracer's own host_add and output descriptors. */
static struct tdesc *special(int eid)
{
    if (chains[eid])
        return chains[eid];
    static const int host[] = { TEV_DID_TS, TEV_DID_TU, TEV_DID_TID, TEV_DID_HN, TEV_DID_HNA,
                                TEV_DID_HA, TEV_DID_HSP };
    static const int out[] = { TEV_DID_TS, TEV_DID_TU, TEV_DID_TID, TEV_DID_OS };
    const int *ids = eid == EV_OUTPUT ? out : host;
    int n = eid == EV_OUTPUT ? 4 : 7;
    struct tdesc *d = desc_new(eid == EV_OUTPUT ? "output" : "host_add", eid, EE_NONE);
    for (int i = 0; d && i < n; i++) {
        int str = ids[i] == TEV_DID_HN || ids[i] == TEV_DID_HNA || ids[i] == TEV_DID_HA ||
                  ids[i] == TEV_DID_OS;
        if (add_field(d, ids[i], str ? TEV_DATA_STRING : TEV_DATA_INT, 0) < 0) {
            desc_free(d);
            return NULL;
        }
    }
    return d ? enter(d) : NULL;
}

void tp_reset(void)
{
    for (int e = 0; e < NEIDS; e++)
        for (struct tdesc *d = chains[e]; d; d = d->next)
            d->dump = 1;
    gettimeofday(&ttime, NULL);
}

void tp_line_start(struct tjob *j, int tid)
{
    if (j->tprefix && pvm_getopt(PvmShowTids))
        fprintf(j->tout, "[T%d:t%x] ", j->no, tid);
}

static void dump_desc(struct tjob *j, struct tdesc *d, int tid)
{
    FILE *f = j->tout;
    tp_line_start(j, tid);
    fputc('\n', f);
    tp_line_start(j, tid);
    fprintf(f, "#%d: \"%s(", 1000 * (d->index + 1) + 2 * d->eid + (d->ee == EE_EXIT), d->name);
    if (d->ee != EE_NONE)
        fprintf(f, "%d.", d->ee);
    fprintf(f, "%d)\"\n", d->index);
    tp_line_start(j, tid);
    fputs("{\n", f);
    tp_line_start(j, tid);
    for (int i = 0; i < d->nf; i++) {
        const struct tfield *x = &d->f[i];
        fprintf(f, "\t// \"%s\" \"%s\"\n", dids[x->did].name, dids[x->did].desc);
        tp_line_start(j, tid);
        fprintf(f, "\t%s \"%s\"%s%s;\n", types[x->dt], dids[x->did].name, x->arr ? "[]" : "",
                x->dt == TEV_DATA_STRING ? "[]" : "");
        tp_line_start(j, tid);
    }
    fputs("};;\n", f);
    tp_line_start(j, tid);
    fputc('\n', f);
    d->dump = 0;
}

static void record(struct tjob *j, struct tdesc *d, int tid, const char *body)
{
    if (d->dump)
        dump_desc(j, d, tid);
    tp_line_start(j, tid);
    if (d->ee != EE_NONE)
        fprintf(j->tout, "\"%s(%d.%d)\" { %s };;\n", d->name, d->ee, d->index, body);
    else
        fprintf(j->tout, "\"%s(%d)\" { %s };;\n", d->name, d->index, body);
}

/* ---- the tracer's own events ---------------------------------------- */
void tp_header(struct tjob *j, int mytid)
{
    time_t now = time(NULL);
    char date[64];
    snprintf(date, sizeof date, "%s", ctime(&now));
    date[strcspn(date, "\n")] = '\0';
    tp_line_start(j, mytid);
    fputs("/*\n", j->tout);
    tp_line_start(j, mytid);
    fprintf(j->tout, " * \"Creation Date\" \"%s\"\n", date);
    tp_line_start(j, mytid);
    fprintf(j->tout, " * \"Machine\" \"Console %s (PVM %s)\"\n", pvm_version(), pvm_version());
    tp_line_start(j, mytid);
    fputs(" */ ;;\n", j->tout);
    tp_line_start(j, mytid);
    fputc('\n', j->tout);
}

static void str_value(struct text *t, const char *s)
{
    tx(t, ", [%u] { \"%s\" }", (unsigned)strlen(s) + 1, s);
}

void tp_host_add(struct tjob *j, const struct pvmhostinfo *h)
{
    struct tdesc *d = special(EV_HOST_ADD);
    struct text t = { 0 };
    char alias[256];
    snprintf(alias, sizeof alias, "%.*s", (int)strcspn(h->hi_name, "."), h->hi_name);
    tx(&t, "%ld, %ld, %d", (long)ttime.tv_sec, (long)ttime.tv_usec, h->hi_tid);
    str_value(&t, h->hi_name);
    str_value(&t, alias);
    str_value(&t, h->hi_arch);
    tx(&t, ", %d", h->hi_speed);
    if (d && t.p)
        record(j, d, h->hi_tid, t.p);
    free(t.p);
}

void tp_output(struct tjob *j, int tid, const char *line)
{
    struct tdesc *d = special(EV_OUTPUT);
    struct text t = { 0 };
    tx(&t, "%ld, %ld, %d", (long)ttime.tv_sec, (long)ttime.tv_usec, tid);
    str_value(&t, line);
    if (d && t.p)
        record(j, d, tid, t.p);
    free(t.p);
    if (!j->oout)
        return;
    /* the job's output as a plain job shows it; the markers are not output */
    int eof = !strcmp(line, "GOTEOF");
    if (!eof && (!strcmp(line, "CREATION") || !strcmp(line, "GOTSPAWN")))
        return;
    if (pvm_getopt(PvmShowTids))
        fprintf(j->oout, "[%d:t%x] ", j->no, tid);
    fprintf(j->oout, "%s\n", eof ? "EOF" : line);
    fflush(j->oout);
}

/* ---- trace messages ------------------------------------------------- */
struct facts {          /* what the task bookkeeping needs from a record */
    int tid, has_tid;
    long ts, tu;
    int has_ts, has_tu;
    char tn[256];
};

/* One string as stock packs it: int length with the NUL, then the bytes. */
static int get_str(char *buf, int cap)
{
    int n;
    if (pvm_upkint(&n, 1, 1) < 0 || n < 0 || n > cap)
        return -1;
    if (n > 0 && pvm_upkbyte(buf, n, 1) < 0)
        return -1;
    buf[n > 0 ? n - 1 : 0] = '\0';
    buf[cap - 1] = '\0';
    return 0;
}

/* Read one field's value and append its text; -1 if the message is bad. */
static int value(struct text *t, const struct tfield *f, struct facts *k)
{
    static char sbuf[MAXSTR + 1];
    int num = 1;
    if (f->arr) {
        if (pvm_upkint(&num, 1, 1) < 0 || num < 0 ||
            (num > MAXARR && f->dt != TEV_DATA_STRING))
            return -1;
        if (f->dt == TEV_DATA_CPLX || f->dt == TEV_DATA_DCPLX)
            tx(t, "[%d] { ", num * 2);
        else if (f->dt == TEV_DATA_STRING)
            tx(t, "[%d] ", num);
        else if (f->dt == TEV_DATA_BYTE)
            tx(t, "[%d] { ", num + 1);
        else
            tx(t, "[%d] { ", num);
    }
    int n2 = f->dt == TEV_DATA_CPLX || f->dt == TEV_DATA_DCPLX ? num * 2 : num;
    switch (f->dt) {
    case TEV_DATA_NULL:
        break;
    case TEV_DATA_BYTE: {
        char b[MAXARR];
        if (num > 0 && pvm_upkbyte(b, num, 1) < 0)
            return -1;
        tx(t, "%s%.*s%s", f->arr ? "\"" : "", num, b, f->arr ? "\"" : "");
        break;
    }
    case TEV_DATA_CPLX:
    case TEV_DATA_FLOAT: {
        float v[MAXARR * 2];
        if (n2 > 0 && pvm_upkfloat(v, n2, 1) < 0)
            return -1;
        for (int i = 0; i < n2; i++)
            tx(t, i ? ", %f" : "%f", v[i]);
        break;
    }
    case TEV_DATA_DCPLX:
    case TEV_DATA_DOUBLE: {
        double v[MAXARR * 2];
        if (n2 > 0 && pvm_upkdouble(v, n2, 1) < 0)
            return -1;
        for (int i = 0; i < n2; i++)
            tx(t, i ? ", %lf" : "%lf", v[i]);
        break;
    }
    case TEV_DATA_INT:
    case TEV_DATA_UINT: {
        int v[MAXARR];
        if (num > 0 && pvm_upkint(v, num, 1) < 0)
            return -1;
        for (int i = 0; i < num; i++)
            tx(t, f->dt == TEV_DATA_INT ? (i ? ", %d" : "%d") : (i ? ", %u" : "%u"), v[i]);
        if (num > 0 && f->dt == TEV_DATA_INT) {
            if (f->did == TEV_DID_TID && !k->has_tid) {
                k->tid = v[0];
                k->has_tid = 1;
            } else if (f->did == TEV_DID_TS) {
                k->ts = v[0];
                k->has_ts = 1;
            } else if (f->did == TEV_DID_TU) {
                k->tu = v[0];
                k->has_tu = 1;
            }
        }
        break;
    }
    case TEV_DATA_LONG:
    case TEV_DATA_ULONG: {
        long v[MAXARR];
        if (num > 0 && pvm_upklong(v, num, 1) < 0)
            return -1;
        for (int i = 0; i < num; i++)
            tx(t, i ? ", %ld" : "%ld", v[i]);
        break;
    }
    case TEV_DATA_SHORT:
    case TEV_DATA_USHORT: {
        short v[MAXARR];
        if (num > 0 && pvm_upkshort(v, num, 1) < 0)
            return -1;
        for (int i = 0; i < num; i++)   /* stock prints an unsigned short widened as an int */
            tx(t, f->dt == TEV_DATA_SHORT ? (i ? ", %d" : "%d") : (i ? ", %u" : "%u"),
               f->dt == TEV_DATA_SHORT ? (int)v[i] : (unsigned)(int)v[i]);
        break;
    }
    case TEV_DATA_STRING: {
        if (num < 1)
            break;
        struct text s = { 0 };
        size_t maxlen = 0;
        for (int i = 0; i < num; i++) {
            if (get_str(sbuf, sizeof sbuf) < 0) {
                free(s.p);
                return -1;
            }
            if (strlen(sbuf) > maxlen)
                maxlen = strlen(sbuf);
            tx(&s, i ? ", \"%s\"" : "\"%s\"", sbuf);
            if (f->did == TEV_DID_TN)
                snprintf(k->tn, sizeof k->tn, "%s", sbuf);
        }
        tx(t, "[%zu] { %s%s", maxlen + 1, s.p ? s.p : "", f->arr ? "" : " }");
        free(s.p);
        break;
    }
    default:
        return -1;
    }
    if (f->arr)
        tx(t, " }");
    return 0;
}

static struct tsrc *source(int tid)
{
    struct tsrc *s = srcs;
    for (; s; s = s->next)
        if (s->tid == tid)
            return s;
    if ((s = calloc(1, sizeof *s))) {
        s->tid = tid;
        s->next = srcs;
        srcs = s;
    }
    return s;
}

static void source_gone(int tid)
{
    for (struct tsrc **pp = &srcs; *pp; pp = &(*pp)->next)
        if ((*pp)->tid == tid) {
            struct tsrc *s = *pp;
            *pp = s->next;
            free(s);
            return;
        }
}

static int kind_of(int raw, int *ee)
{
    *ee = raw & TEV_EVENT_ENTRY ? EE_ENTRY : raw & TEV_EVENT_EXIT ? EE_EXIT : EE_NONE;
    return raw & ~(TEV_EVENT_ENTRY | TEV_EVENT_EXIT);
}

/* After a record: times, and the tasks newtask, spntask, endtask name. */
static void learn(struct tjob *j, const struct tdesc *d, const struct facts *k)
{
    if (k->has_ts && k->has_tu &&
        (k->ts > ttime.tv_sec || (k->ts == ttime.tv_sec && k->tu > ttime.tv_usec))) {
        ttime.tv_sec = k->ts;
        ttime.tv_usec = k->tu;
    }
    if (!k->has_tid)
        return;
    if (!strcmp(d->name, "newtask") || !strcmp(d->name, "spntask"))
        tj_newtask(j, k->tid, k->tn[0] ? k->tn : NULL);
    else if (!strcmp(d->name, "endtask")) {
        source_gone(k->tid);
        tj_endtask(j, k->tid);
    }
}

/* A descriptor and its record's values (after the -5). */
static int descriptor(struct tjob *j, int src, struct tsrc *s)
{
    int raw, ee, did, dt;
    char name[256];
    if (pvm_upkint(&raw, 1, 1) < 0 || get_str(name, sizeof name) < 0)
        return -1;
    int eid = kind_of(raw, &ee);
    if (eid < 0 || eid > TEV_MAX)
        return -1;
    struct tdesc *d = desc_new(name, eid, ee);
    struct text t = { 0 };
    struct facts k = { 0 };
    if (!d)
        return -1;
    for (;;) {
        if (pvm_upkint(&did, 1, 1) < 0)
            goto bad;
        if (did == TEV_MARK_EVENT_DESC_END)
            break;
        if (did < 0 || did > TEV_DID_MAX || pvm_upkint(&dt, 1, 1) < 0)
            goto bad;
        int arr = (dt & TEV_DATA_ARRAY) != 0;
        dt &= ~TEV_DATA_ARRAY;
        if (dt < 0 || dt >= 16 || add_field(d, did, dt, arr) < 0)
            goto bad;
        if (d->nf > 1)
            tx(&t, ", ");
        if (value(&t, &d->f[d->nf - 1], &k) < 0)
            goto bad;
    }
    d = enter(d);
    s->d[eid * 3 + ee] = d;
    record(j, d, src, t.p ? t.p : "");
    free(t.p);
    learn(j, d, &k);
    return 0;
bad:
    desc_free(d);
    free(t.p);
    return -1;
}

/* A record read with the descriptor its source sent (after the -7). */
static int plain(struct tjob *j, int src, struct tsrc *s)
{
    int raw, ee, end;
    if (pvm_upkint(&raw, 1, 1) < 0)
        return -1;
    int eid = kind_of(raw, &ee);
    struct tdesc *d = eid >= 0 && eid <= TEV_MAX ? s->d[eid * 3 + ee] : NULL;
    if (!d) {
        printf("Error: Event ID %d(%d) Descriptor Not Found T(%d/%x)\n", eid, ee, src, src);
        return -1;
    }
    struct text t = { 0 };
    struct facts k = { 0 };
    for (int i = 0; i < d->nf; i++) {
        if (i)
            tx(&t, ", ");
        if (value(&t, &d->f[i], &k) < 0)
            goto bad;
    }
    if (pvm_upkint(&end, 1, 1) < 0 || end != TEV_MARK_EVENT_RECORD_END) {
        printf("Error: No Event End Marker\n");
        goto bad;
    }
    record(j, d, src, t.p ? t.p : "");
    free(t.p);
    learn(j, d, &k);
    return 0;
bad:
    free(t.p);
    return -1;
}

/* Field name lists (-3 .. -4): stock 3.4 tasks send none; read past them. */
static int did_list(void)
{
    char a[64], b[1024];
    int did;
    for (;;) {
        if (pvm_upkint(&did, 1, 1) < 0)
            return -1;
        if (did == TEV_MARK_DATA_ID_END)
            return 0;
        if (get_str(a, sizeof a) < 0 || get_str(b, sizeof b) < 0)
            return -1;
    }
}

void tp_message(struct tjob *j, int src)
{
    struct tsrc *s = source(src);
    int marker, nest = 0, done = 0, rc = 0;
    if (!s || pvm_upkint(&marker, 1, 1) < 0)
        return;
    if (marker > 0) {
        printf("Error: t%x sent a PVM 3.3 trace event, not read\n", src);
        return;
    }
    while (!done && rc == 0) {
        switch (marker) {
        case TEV_MARK_EVENT_BUFFER:
            nest++;
            break;
        case TEV_MARK_EVENT_BUFFER_END:
            done = --nest <= 0;
            break;
        case TEV_MARK_DATA_ID:
            rc = did_list();
            done = !nest;
            break;
        case TEV_MARK_EVENT_DESC:
            rc = descriptor(j, src, s);
            done = !nest;
            break;
        case TEV_MARK_EVENT_RECORD:
            rc = plain(j, src, s);
            done = !nest;
            break;
        default:   /* user-defined records (-9) are not read */
            rc = -1;
        }
        if (!done && rc == 0 && pvm_upkint(&marker, 1, 1) < 0)
            rc = -1;
    }
    if (rc < 0)
        fprintf(stderr, "[%d] trace: a message from t%x could not be read to its end\n", j->no,
                src);
    fflush(j->tout);
}
