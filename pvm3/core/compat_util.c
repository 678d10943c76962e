/*
 * compat_util.c - stock libpvm3's small exported helpers, for programs
 * written against stock (Debian's examples call pvmsleep, stock libfpvm3
 * calls it for pvmfsleep): sleeping, number parsing, big-endian byte
 * access, socket-address text, clock, pattern match, CRC, hex dump, error
 * names, allocation wrappers, installation paths, environment vectors.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/time.h>
#include "lpvm.h"
#include "compat.h"

int pvmsleep(int secs) { return (int)sleep(secs > 0 ? (unsigned)secs : 0); }

int pvmgetclock(struct timeval *tv) { return gettimeofday(tv, NULL); }

static int hexval(int c) { return isdigit(c) ? c - '0' : tolower(c) - 'a' + 10; }

/* Hex digits (optional 0x) up to the first non-digit. */
int pvmxtoi(char *p)
{
    unsigned v = 0;
    if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
        p += 2;
    for (; isxdigit((unsigned char)*p); p++)
        v = (v << 4) | (unsigned)hexval((unsigned char)*p);
    return (int)v;
}

/* C notation: 0x hex, leading 0 octal, else decimal. */
int pvmstrtoi(char *p)
{
    if (p[0] != '0')
        return atoi(p);
    if (p[1] == 'x' || p[1] == 'X')
        return pvmxtoi(p);
    unsigned v = 0;
    for (p++; *p >= '0' && *p <= '7'; p++)
        v = (v << 3) | (unsigned)(*p - '0');
    return (int)v;
}

/* Big-endian integers in byte buffers. */
int pvmput32(char *p, int n)
{
    for (int i = 0; i < 4; i++)
        p[i] = (char)((unsigned)n >> (24 - 8 * i));
    return 0;
}
int pvmput16(char *p, int n) { p[0] = (char)(n >> 8); p[1] = (char)n; return 0; }
int pvmput8(char *p, int n) { p[0] = (char)n; return 0; }
int pvmget32(char *p)
{
    const unsigned char *u = (const unsigned char *)p;
    return (int)((unsigned)u[0] << 24 | (unsigned)u[1] << 16 | (unsigned)u[2] << 8 | u[3]);
}
int pvmget16(char *p) { const unsigned char *u = (const unsigned char *)p; return u[0] << 8 | u[1]; }
int pvmget8(char *p) { return *(unsigned char *)p; }

/* "a.b.c.d:port" and "aaaaaaaa:pppp" (the pvmd address file's form). */
char *inadport_decimal(struct sockaddr_in *sad)
{
    static char buf[32];
    unsigned a = ntohl(sad->sin_addr.s_addr);
    snprintf(buf, sizeof buf, "%u.%u.%u.%u:%u", a >> 24, (a >> 16) & 255, (a >> 8) & 255,
             a & 255, (unsigned)ntohs(sad->sin_port));
    return buf;
}

char *inadport_hex(struct sockaddr_in *sad)
{
    static char buf[16];
    snprintf(buf, sizeof buf, "%08x:%04x", ntohl(sad->sin_addr.s_addr),
             (unsigned)ntohs(sad->sin_port));
    return buf;
}

void hex_inadport(char *s, struct sockaddr_in *sad)
{
    char *colon = strchr(s, ':');
    sad->sin_addr.s_addr = htonl((unsigned)pvmxtoi(s));
    sad->sin_port = htons((unsigned short)(colon ? pvmxtoi(colon + 1) : 0));
}

/* Does pattern occur in str?  '*' in the pattern matches any run of
 * characters, "\*" a star. */
static int prefix_match(const char *s, const char *p)
{
    if (!*p)
        return 1;
    if (*p == '*') {
        for (;; s++) {
            if (prefix_match(s, p + 1))
                return 1;
            if (!*s)
                return 0;
        }
    }
    char lit = *p++;
    if (lit == '\\' && *p == '*')
        lit = *p++;
    return *s == lit && prefix_match(s + 1, p);
}

int pvmmatchstring(char *str, char *pattern)
{
    for (const char *s = str;; s++) {
        if (prefix_match(s, pattern))
            return 1;
        if (!*s)
            return 0;
    }
}

/* CRC-32 (reflected, polynomial 0xedb88320) continued over buf. */
unsigned pvmcrcappend(char *buf, int len, unsigned crc)
{
    while (len-- > 0) {
        crc ^= (unsigned char)*buf++;
        for (int k = 0; k < 8; k++)
            crc = crc & 1 ? (crc >> 1) ^ 0xedb88320u : crc >> 1;
    }
    return crc;
}

/* Hex dump to the log, 16 bytes a line, pad before each line. */
int pvmhdump(char *cp, int n, char *pad)
{
    char line[16 * 3 + 2];
    pad = pad ? pad : "";
    for (int i = 0; i < n; i += 16) {
        size_t o = 0;
        for (int j = i; j < n && j < i + 16; j++)
            o += (size_t)snprintf(line + o, sizeof line - o, "%s%02x", j > i ? " " : "",
                                  (unsigned char)cp[j]);
        pvmlogprintf("%s%s\n", pad, line);
    }
    return 0;
}

/* "PvmNoTask" -> PvmNoTask; 0 for an unknown name. */
int errnamecode(char *s)
{
#define E(x) { #x, x }
    static const struct { const char *name; int code; } t[] = {
        E(PvmOk), E(PvmBadParam), E(PvmMismatch), E(PvmOverflow), E(PvmNoData),
        E(PvmNoHost), E(PvmNoFile), E(PvmDenied), E(PvmNoMem), E(PvmBadMsg),
        E(PvmSysErr), E(PvmNoBuf), E(PvmNoSuchBuf), E(PvmNullGroup), E(PvmDupGroup),
        E(PvmNoGroup), E(PvmNotInGroup), E(PvmNoInst), E(PvmHostFail), E(PvmNoParent),
        E(PvmNotImpl), E(PvmDSysErr), E(PvmBadVersion), E(PvmOutOfRes), E(PvmDupHost),
        E(PvmCantStart), E(PvmAlready), E(PvmNoTask), E(PvmNotFound), E(PvmExists),
        E(PvmHostrNMstr), E(PvmParentNotSet), E(PvmIPLoopback),
    };
#undef E
    for (size_t i = 0; s && i < sizeof t / sizeof t[0]; i++)
        if (!strcmp(s, t[i].name))
            return t[i].code;
    return 0;
}

/* Stock's allocation wrappers (the tag names the use in stock's debug
 * allocator; here plain malloc).  i_choke and i_dump check and print that
 * allocator's heap: nothing to do. */
char *i_malloc(unsigned len, char *tag) { return malloc(len ? len : 1); }
int i_free(char *loc) { free(loc); return 0; }
char *i_realloc(char *loc, unsigned len) { return realloc(loc, len ? len : 1); }
int i_choke(void) { return 0; }
int i_dump(int how) { return 0; }

char *pvm_alloc(unsigned n, char *tag)
{
    char *r = malloc(n ? n : 1);
    if (!r)
        pvmlogprintf("pvm_alloc: can't get %u bytes", n);
    return r;
}
char *pvm_realloc(char *p, unsigned n)
{
    char *r = realloc(p, n ? n : 1);
    if (!r)
        pvmlogprintf("pvm_realloc: can't get %u bytes", n);
    return r;
}
void pvm_free(char *p) { free(p); }

/* Installation paths as Debian's stock library reports them. */
char *pvmgetroot(void)
{
    char *r = getenv("PVM_ROOT");
    if (r && *r)
        return r;
    setenv("PVM_ROOT", "/usr/lib/pvm3", 0);   /* Debian's stock default */
    return getenv("PVM_ROOT");
}

char *pvmgethome(void)
{
    static char *home;
    if (!home) {
        const char *h = getenv("HOME");
        if (!h) {
            pvmlogerror("warning: can't getenv(HOME), using /\n");
            h = "/";
        }
        home = strdup(h);
    }
    return home ? home : "/";
}

char *pvmgetpvmd(void) { return "/usr/bin/pvmd"; }

/* The pvmd address file this task reads. */
char *pvmdsockfile(void)
{
    static char path[512];
    const char *t = getenv("PVM_TMP"), *vmid = getenv("PVM_VMID");
    t = t && *t ? t : "/tmp";
    if (vmid && *vmid)
        snprintf(path, sizeof path, "%s/pvmd.%d.%s", t, (int)geteuid(), vmid);
    else
        snprintf(path, sizeof path, "%s/pvmd.%d", t, (int)geteuid());
    return path;
}

/* Environment vectors: NAME=value strings, NULL-terminated. */
int pvmputenv(char *s)
{
    return s && strchr(s, '=') && s[0] != '=' ? putenv(s) : -1;
}

char **pvmcopyenv(char **ep)
{
    int n = 0;
    while (ep && ep[n])
        n++;
    char **v = calloc((size_t)n + 1, sizeof *v);
    if (!v)
        return NULL;
    for (int i = 0; i < n; i++)
        if (!(v[i] = strdup(ep[i]))) {
            while (i-- > 0)
                free(v[i]);
            free(v);
            return NULL;
        }
    return v;
}

int pvmenvinsert(char ***ep, char *s)
{
    char *eq = s ? strchr(s, '=') : NULL;
    if (!eq || !ep || !*ep)
        return -1;
    size_t klen = (size_t)(eq - s) + 1;
    int n = 0;
    for (; (*ep)[n]; n++)
        if (!strncmp((*ep)[n], s, klen)) {
            char *d = strdup(s);
            if (!d)
                return -1;
            free((*ep)[n]);
            (*ep)[n] = d;
            return 0;
        }
    char **v = realloc(*ep, sizeof *v * ((size_t)n + 2));
    if (!v)
        return -1;
    *ep = v;
    if (!(v[n] = strdup(s)))
        return -1;
    v[n + 1] = NULL;
    return 0;
}

int pvmfreeenv(char **ep)
{
    for (char **p = ep; p && *p; p++)
        free(*p);
    free(ep);
    return 0;
}
