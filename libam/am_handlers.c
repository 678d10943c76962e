/*
 * am_handlers.c - the address-identifier table (thesis 5.2): handler ids,
 * the same in every process that binds them alike, and their placers
 * (am_set_placer).  Process-wide, shared by every interface; calls
 * nothing of libam's, so the protocol (am_input.c) looks handlers up
 * without calling into the file that makes interfaces (am_base.c).
 */
#include <stdlib.h>
#include <string.h>
#include "am_int.h"

static am_handler_fn *ids;
static struct placer { am_place_fn fn; size_t head; } *placers;   /* by id, like ids */
static int nids, capids;

int am_global_shutdown(void)
{
    free(ids);
    free(placers);
    ids = NULL;
    placers = NULL;
    nids = capids = 0;
    return AM_OK;
}

int am_bind_address_with_id(am_handler_fn fn, int id)
{
    if (id < 0 || id >= AMX_BLANK)
        return AM_ERR_INVAL;
    if (id >= capids) {
        int cap = capids ? capids : 16;
        while (cap <= id)
            cap *= 2;
        am_handler_fn *t = realloc(ids, sizeof *t * (size_t)cap);
        if (!t)
            return AM_ERR_NOMEM;
        memset(t + capids, 0, sizeof *t * (size_t)(cap - capids));
        ids = t;
        struct placer *pl = realloc(placers, sizeof *pl * (size_t)cap);
        if (!pl)
            return AM_ERR_NOMEM;
        memset(pl + capids, 0, sizeof *pl * (size_t)(cap - capids));
        placers = pl;
        capids = cap;
    }
    ids[id] = fn;
    if (id >= nids)
        nids = id + 1;
    return AM_OK;
}

int am_address_to_id(am_handler_fn fn)
{
    if (!fn)
        return AM_ERR_INVAL;
    int rc = am_bind_address_with_id(fn, nids);
    return rc < 0 ? rc : nids - 1;
}

am_handler_fn am_id_to_address(int id)
{
    return id >= 0 && id < nids ? ids[id] : NULL;
}

int am_set_placer(int handler, am_place_fn place, size_t head_len)
{
    if (handler < 0 || handler >= nids || head_len > AM_PLACE_HEAD_MAX)
        return AM_ERR_INVAL;
    placers[handler].fn = place;
    placers[handler].head = head_len;
    return AM_OK;
}

am_place_fn amx_placer(int id, size_t *head_len)
{
    if (id < 0 || id >= nids || !placers[id].fn)
        return NULL;
    *head_len = placers[id].head;
    return placers[id].fn;
}
