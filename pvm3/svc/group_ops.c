/*
 * group_ops.c - the predefined reduce functions PvmMax, PvmMin, PvmSum and
 * PvmProduct: x[i] = x[i] op y[i] for num elements of the given type.
 * Complex max/min pick the operand of larger/smaller modulus; sum and
 * product are the complex ones.  Max/min also take bytes; unsupported
 * types set *info to PvmBadParam, as stock does.
 */
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
