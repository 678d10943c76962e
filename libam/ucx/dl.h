/*
 * dl.h - UCX's functions, reached through pointers that dl.c fills from
 * libucp with dlopen when the first ucx interface is made (amx_ucx_load),
 * not linked into libam: loading UCX's libraries costs every process
 * about 1 ms of CPU (docs/performance.md, "a profile of the mesh's
 * set-up"), and most tasks never make a ucx interface.  Included by
 * ucx.h after UCX's headers: the names below then call the pointers.
 */
#ifndef UCX_DL_H
#define UCX_DL_H

#include <ucp/api/ucp.h>
#include <ucs/config/global_opts.h>

#define AMX_UCX_FNS(X) \
    X(ucp_am_data_release) X(ucp_am_recv_data_nbx) X(ucp_am_send_nbx) X(ucp_cleanup) \
    X(ucp_config_modify) X(ucp_config_read) X(ucp_config_release) X(ucp_ep_close_nbx) \
    X(ucp_ep_create) X(ucp_init_version) X(ucp_request_check_status) X(ucp_request_free) \
    X(ucp_worker_arm) X(ucp_worker_create) X(ucp_worker_destroy) \
    X(ucp_worker_get_address) X(ucp_worker_get_efd) X(ucp_worker_progress) \
    X(ucp_worker_query) X(ucp_worker_release_address) X(ucp_worker_set_am_recv_handler) \
    X(ucs_global_opts_set_value)

#define AMX_UCX_DECL(f) extern __typeof__(f) *amx_##f;
AMX_UCX_FNS(AMX_UCX_DECL)

/* AM_OK once UCX is loaded and every function found, else AM_ERR_NOTSUP
 * (tried once). */
int amx_ucx_load(void);

#ifndef AMX_UCX_DL_SELF
#define ucp_am_data_release amx_ucp_am_data_release
#define ucp_am_recv_data_nbx amx_ucp_am_recv_data_nbx
#define ucp_am_send_nbx amx_ucp_am_send_nbx
#define ucp_cleanup amx_ucp_cleanup
#define ucp_config_modify amx_ucp_config_modify
#define ucp_config_read amx_ucp_config_read
#define ucp_config_release amx_ucp_config_release
#define ucp_ep_close_nbx amx_ucp_ep_close_nbx
#define ucp_ep_create amx_ucp_ep_create
#define ucp_request_check_status amx_ucp_request_check_status
#define ucp_request_free amx_ucp_request_free
#define ucp_worker_arm amx_ucp_worker_arm
#define ucp_worker_create amx_ucp_worker_create
#define ucp_worker_destroy amx_ucp_worker_destroy
#define ucp_worker_get_address amx_ucp_worker_get_address
#define ucp_worker_get_efd amx_ucp_worker_get_efd
#define ucp_worker_progress amx_ucp_worker_progress
#define ucp_worker_query amx_ucp_worker_query
#define ucp_worker_release_address amx_ucp_worker_release_address
#define ucp_worker_set_am_recv_handler amx_ucp_worker_set_am_recv_handler
#define ucs_global_opts_set_value amx_ucs_global_opts_set_value
/* ucp_init is an inline of ucp.h that calls ucp_init_version by name */
#undef ucp_init
#define ucp_init(params, config, ctx) \
    amx_ucp_init_version(UCP_API_MAJOR, UCP_API_MINOR, params, config, ctx)
#endif

#endif
