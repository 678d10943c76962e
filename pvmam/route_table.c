/* Generated from PVM3_ROUTES in pvmam/local.mk: do not edit. */
#include "route_int.h"
extern const struct pvm_route_ops pvmx_am_route;
extern const struct pvm_route_ops pvmx_amstat_route;
const struct pvm_route_ops *const pvmi_route_table[] = {
    &pvmx_am_route,
    &pvmx_amstat_route,
    0
};
