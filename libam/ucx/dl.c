/*
 * dl.c - UCX loaded when the first ucx interface is made (libam/ucx/dl.h
 * says why).  RTLD_GLOBAL, as if linked: UCX's own modules (libuct_*.so,
 * which UCX opens itself) find its symbols either way.
 */
#include <dlfcn.h>
#include "am_int.h"
#define AMX_UCX_DL_SELF
#include "dl.h"

#define AMX_UCX_DEF(f) __typeof__(f) *amx_##f;
AMX_UCX_FNS(AMX_UCX_DEF)

#define UCP_SONAME "libucp.so.0"   /* the ABI libam was built against (ucp.h, UCP_API_MAJOR) */

int amx_ucx_load(void)
{
    static int state;   /* 0: not tried; AM_OK or AM_ERR_NOTSUP */
    if (state)
        return state < 0 ? state : AM_OK;
    void *h = dlopen(UCP_SONAME, RTLD_NOW | RTLD_GLOBAL);
    state = h ? 1 : AM_ERR_NOTSUP;
#define AMX_UCX_SYM(f) \
    if (state > 0 && !(amx_##f = (__typeof__(amx_##f))dlsym(h, #f))) \
        state = AM_ERR_NOTSUP;
    AMX_UCX_FNS(AMX_UCX_SYM)
    return state < 0 ? state : AM_OK;
}
