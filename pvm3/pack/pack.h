/*
 * pack.h - pvm3 internal: data encoders.  Each encoding is one codec (an
 * ops table); pack.c picks the codec of the buffer and does the argument
 * checks shared by all of them.
 */
#ifndef PVM3_PACK_H
#define PVM3_PACK_H

#include "pmsg.h"

/* Element types, in the order of pvm_pk*.  Memory sizes in pvmi_type_size. */
enum pvmi_type {
    PVMI_BYTE, PVMI_SHORT, PVMI_USHORT, PVMI_INT, PVMI_UINT, PVMI_LONG,
    PVMI_ULONG, PVMI_FLOAT, PVMI_DOUBLE, PVMI_CPLX, PVMI_DCPLX, PVMI_NTYPES
};
extern const size_t pvmi_type_size[PVMI_NTYPES];

struct pvmi_codec {
    /* n items, stride in items; both already checked (n > 0, stride >= 0; 0 repeats item 0). */
    int (*pk)(struct pmsg *m, enum pvmi_type t, const void *p, int n, int stride);
    int (*upk)(struct pmsg *m, enum pvmi_type t, void *p, int n, int stride);
    int (*pkstr)(struct pmsg *m, const char *s);
    int (*upkstr)(struct pmsg *m, char *s);
};

extern const struct pvmi_codec pvmi_codec_xdr;
extern const struct pvmi_codec pvmi_codec_raw;
extern const struct pvmi_codec pvmi_codec_inplace;
extern const struct pvmi_codec pvmi_codec_alien;
extern const struct pvmi_codec pvmi_codec_unsupported;

/* Codec used to pack into / unpack from m. */
const struct pvmi_codec *pvmi_codec_pk(const struct pmsg *m);
const struct pvmi_codec *pvmi_codec_upk(const struct pmsg *m);

/* Typed pack/unpack on the current buffers (checks + dispatch), used by the
 * pvm_pk* wrappers and by packf. */
int pvmi_pk(const char *fn, enum pvmi_type t, const void *p, int n, int stride);
int pvmi_upk(const char *fn, enum pvmi_type t, void *p, int n, int stride);

#endif /* PVM3_PACK_H */
