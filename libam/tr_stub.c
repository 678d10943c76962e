/*
 * tr_stub.c - the shared "not supported" ops for transports that lack an
 * optional operation (thesis appendix C marks connect/accept optional).
 */
#include "am_int.h"

int amx_stub_connect(am_interface_t *ifc, am_endpoint_t *ep) { return AM_ERR_NOTSUP; }
int amx_stub_accept(am_interface_t *ifc, am_endpoint_t *ep) { return AM_ERR_NOTSUP; }
