/*
 * group_ops.c - the predefined reduce functions PvmMax, PvmMin, PvmSum and
 * PvmProduct: x[i] = x[i] op y[i] for num elements of the given type.
 * Complex max/min pick the operand of larger/smaller modulus; sum and
 * product are the complex ones.  Max/min also take bytes; unsupported
 * types set *info to PvmBadParam, as stock does.
 */
#include <stddef.h>
#include <pvm3.h>

#define LOOP(T, expr) do { T *a = x, *b = y; for (int i = 0; i < n; i++) { expr; } } while (0)
#define MAXOP(a, b) ((a) > (b) ? (a) : (b))
#define MINOP(a, b) ((a) < (b) ? (a) : (b))

enum op { OP_MAX, OP_MIN, OP_SUM, OP_PROD };

#define REAL_CASES(op2)                                               \
    case PVM_SHORT: LOOP(short, a[i] = (short)op2(a[i], b[i])); break; \
    case PVM_INT: LOOP(int, a[i] = op2(a[i], b[i])); break;           \
    case PVM_LONG: LOOP(long, a[i] = op2(a[i], b[i])); break;         \
    case PVM_FLOAT: LOOP(float, a[i] = op2(a[i], b[i])); break;       \
    case PVM_DOUBLE: LOOP(double, a[i] = op2(a[i], b[i])); break;

#define ADDOP(a, b) ((a) + (b))
#define MULOP(a, b) ((a) * (b))

/* Complex pairs: pick by modulus (max/min). */
#define CPICK(T, cmp) do { T *a = x, *b = y; for (int i = 0; i < 2 * n; i += 2) { \
        T ma = a[i] * a[i] + a[i + 1] * a[i + 1], mb = b[i] * b[i] + b[i + 1] * b[i + 1]; \
        if (mb cmp ma) { a[i] = b[i]; a[i + 1] = b[i + 1]; } } } while (0)
#define CMUL(T) do { T *a = x, *b = y; for (int i = 0; i < 2 * n; i += 2) { \
        T re = a[i] * b[i] - a[i + 1] * b[i + 1], im = a[i] * b[i + 1] + a[i + 1] * b[i]; \
        a[i] = re; a[i + 1] = im; } } while (0)

/* x[i] += y[i] four at a time with restrict pointers, which the
 * compiler's straight-line vectoriser turns into packed adds at -O2 (the
 * plain loop stays one scalar add per item: a fifth of the root's CPU in a
 * 1 MiB allreduce, docs/performance.md).  Only where x and y do not
 * overlap; the caller's loop does the rest.  Sums keep their order per
 * item, so results are bit for bit those of the plain loop. */
#define SUM4(T) \
    static int sum4_##T(T *restrict a, const T *restrict b, int n) \
    { \
        int i = 0; \
        for (; i + 4 <= n; i += 4) { \
            a[i] += b[i]; a[i + 1] += b[i + 1]; a[i + 2] += b[i + 2]; a[i + 3] += b[i + 3]; \
        } \
        return i; \
    }
SUM4(double)
SUM4(float)
SUM4(int)
SUM4(long)

static int apart(const void *x, const void *y, size_t bytes)
{
    const char *a = x, *b = y;
    return a + bytes <= b || b + bytes <= a;
}

/* The first items of the sum, four at a time, for the types sum4 has
 * and arrays that do not overlap: *x and *y move past them; returns how
 * many are left for the plain loop. */
static int sum_fast(int t, void **x, void **y, int n)
{
    size_t es = t == PVM_DOUBLE ? sizeof(double) : t == PVM_FLOAT ? sizeof(float)
              : t == PVM_INT ? sizeof(int) : t == PVM_LONG ? sizeof(long) : 0;
    if (!es || n <= 0 || !apart(*x, *y, es * (size_t)n))
        return n;
    int done = t == PVM_DOUBLE ? sum4_double(*x, *y, n) : t == PVM_FLOAT ? sum4_float(*x, *y, n)
             : t == PVM_INT ? sum4_int(*x, *y, n) : sum4_long(*x, *y, n);
    *x = (char *)*x + es * (size_t)done;
    *y = (char *)*y + es * (size_t)done;
    return n - done;
}

static void apply(enum op op, int t, void *x, void *y, int n, int *info)
{
    *info = PvmOk;
    switch (op) {
    case OP_MAX:
        switch (t) {
        case PVM_BYTE: LOOP(char, a[i] = (char)MAXOP(a[i], b[i])); return;
        REAL_CASES(MAXOP)
        case PVM_CPLX: CPICK(float, >); break;
        case PVM_DCPLX: CPICK(double, >); break;
        default: *info = PvmBadParam;
        }
        return;
    case OP_MIN:
        switch (t) {
        case PVM_BYTE: LOOP(char, a[i] = (char)MINOP(a[i], b[i])); return;
        REAL_CASES(MINOP)
        case PVM_CPLX: CPICK(float, <); break;
        case PVM_DCPLX: CPICK(double, <); break;
        default: *info = PvmBadParam;
        }
        return;
    case OP_SUM:
        n = sum_fast(t, &x, &y, n);   /* then the loop below does the rest */
        switch (t) {
        REAL_CASES(ADDOP)
        case PVM_CPLX: { n *= 2; LOOP(float, a[i] += b[i]); break; }
        case PVM_DCPLX: { n *= 2; LOOP(double, a[i] += b[i]); break; }
        default: *info = PvmBadParam;
        }
        return;
    case OP_PROD:
        switch (t) {
        REAL_CASES(MULOP)
        case PVM_CPLX: CMUL(float); break;
        case PVM_DCPLX: CMUL(double); break;
        default: *info = PvmBadParam;
        }
        return;
    }
}

void PvmMax(int *t, void *x, void *y, int *n, int *info) { apply(OP_MAX, *t, x, y, *n, info); }
void PvmMin(int *t, void *x, void *y, int *n, int *info) { apply(OP_MIN, *t, x, y, *n, info); }
void PvmSum(int *t, void *x, void *y, int *n, int *info) { apply(OP_SUM, *t, x, y, *n, info); }
void PvmProduct(int *t, void *x, void *y, int *n, int *info) { apply(OP_PROD, *t, x, y, *n, info); }
