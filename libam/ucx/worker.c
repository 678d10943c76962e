/*
 * worker.c - the ucx transport's interface (libam/ucx/ucx.h): one ucp
 * context and worker, UCX's settings that libam picks (log level,
 * keepalive, shared memory's error handling), the AM handler, and the
 * fds the caller waits on.
 */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <ucs/config/global_opts.h>
#include "am_net.h"
#include "ucx.h"

int amx_ucx_init(am_interface_t *ifc)
{
    struct ucx *u = calloc(1, sizeof *u);
    ucp_config_t *cfg = NULL;
    ucp_address_t *wa = NULL;
    size_t wlen;
    struct in_addr ip;
    int rc = AM_ERR_NOMEM;
    if (!u)
        return rc;
    u->ifc = ifc;
    u->pid = getpid();
    u->efd = u->epfd = u->evfd = -1;
    rc = AM_ERR_SYS;
    if (amx_key_new(&u->id) < 0 || amx_self_ip(ifc->cfg.bind_host, &ip) < 0)
        goto fail;
    rc = AM_ERR_NOTSUP;
    if (amx_ucx_load() < 0 || ucp_config_read(NULL, NULL, &cfg) != UCS_OK)
        goto fail;
    /* UCX's own messages (UCX_LOG_LEVEL, default "warn") would reach the
     * program's stderr whenever a peer has just gone, which libam reports
     * itself (AM_ERR_DEAD): only fatal ones, unless the user says. */
    if (!getenv("UCX_LOG_LEVEL"))
        ucs_global_opts_set_value("LOG_LEVEL", "fatal");
    /* A keepalive that notices a silent peer within timeout_max_us. */
    if (!getenv("UCX_KEEPALIVE_INTERVAL")) {   /* the user's setting wins */
        char ka[32];
        snprintf(ka, sizeof ka, "%uus", ifc->cfg.timeout_max_us / 4 ? ifc->cfg.timeout_max_us / 4 : 1);
        ucp_config_modify(cfg, "KEEPALIVE_INTERVAL", ka);
    }
    /* Shared memory that takes part in peer failure handling: UCX's default
     * leaves posix and sysv out of UCP_ERR_HANDLING_MODE_PEER, so UCX_TLS=sm
     * would find no transport.  And bigger pieces of a big AM over tcp:
     * with UCP_ERR_HANDLING_MODE_PEER, UCX's rendezvous has no memory
     * access lane on tcp (UCX's lane selection wants memory invalidation,
     * UCT_MD_FLAG_INVALIDATE, which tcp's memory domain lacks), so the
     * data goes as AM fragments of UCX_TCP_RX_SEG_SIZE (64K by default):
     * at 256K a 4 MiB AM takes about 18 sendmsg calls instead of 66
     * (ucx_perftest -e shows UCX's own cost of that mode; docs/performance.md).
     * The error handling ones are read from the environment only
     * (ucp_config_modify does not reach them), so all three are put there
     * while the worker is made, unless the user set them, and taken out
     * again. */
    const char *const env_def[] = { "UCX_POSIX_ERROR_HANDLING", "UCX_SYSV_ERROR_HANDLING",
                                    "UCX_TCP_RX_SEG_SIZE" };
    const char *const env_val[] = { "y", "y", "256K" };
    int env_set[3] = { 0, 0, 0 };
    for (int i = 0; i < 3; i++)
        env_set[i] = !getenv(env_def[i]) && setenv(env_def[i], env_val[i], 0) == 0;
    ucp_params_t prm = { .field_mask = UCP_PARAM_FIELD_FEATURES | UCP_PARAM_FIELD_NAME,
                         .features = UCP_FEATURE_AM | UCP_FEATURE_WAKEUP,
                         .name = "libam" };
    ucs_status_t st = ucp_init(&prm, cfg, &u->ctx);
    ucp_config_release(cfg);
    if (st != UCS_OK) {
        for (int i = 0; i < 3; i++)
            if (env_set[i])
                unsetenv(env_def[i]);
        goto fail;
    }
    ucp_worker_params_t wp = { .field_mask = UCP_WORKER_PARAM_FIELD_THREAD_MODE,
                               .thread_mode = UCS_THREAD_MODE_SINGLE };
    st = ucp_worker_create(u->ctx, &wp, &u->w);
    for (int i = 0; i < 3; i++)
        if (env_set[i])
            unsetenv(env_def[i]);
    if (st != UCS_OK)
        goto fail_ctx;
    ucp_worker_attr_t wat = { .field_mask = UCP_WORKER_ATTR_FIELD_MAX_AM_HEADER };
    if (ucp_worker_query(u->w, &wat) != UCS_OK || wat.max_am_header < WIRE_HDR)
        goto fail_worker;
    u->max_hdr = wat.max_am_header;
    /* whole messages only: amx_ucx_amx_ucx_on_am never sees a fragment (recv.c's direct) */
    ucp_am_handler_param_t hp = { .field_mask = UCP_AM_HANDLER_PARAM_FIELD_ID |
                                                UCP_AM_HANDLER_PARAM_FIELD_FLAGS |
                                                UCP_AM_HANDLER_PARAM_FIELD_CB |
                                                UCP_AM_HANDLER_PARAM_FIELD_ARG,
                                  .id = UCX_AM_ID, .flags = UCP_AM_FLAG_WHOLE_MSG,
                                  .cb = amx_ucx_on_am, .arg = u };
    if (ucp_worker_set_am_recv_handler(u->w, &hp) != UCS_OK ||
        ucp_worker_get_efd(u->w, &u->efd) != UCS_OK)
        goto fail_worker;
    rc = AM_ERR_SYS;
    if ((u->epfd = amx_epoll_with(u->efd)) < 0)
        goto fail_worker;
    u->evfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    struct epoll_event ev = { .events = EPOLLIN };
    if (u->evfd < 0 || epoll_ctl(u->epfd, EPOLL_CTL_ADD, u->evfd, &ev) < 0)
        goto fail_fds;
    rc = AM_ERR_NOTSUP;
    if (ucp_worker_get_address(u->w, &wa, &wlen) != UCS_OK)
        goto fail_fds;
    /* too long: UCX offers too many devices (UCX_NET_DEVICES, UCX_TLS narrow it) */
    if (amx_ucx_self_addr(ifc->self_addr, sizeof ifc->self_addr, ip, u->id, wa, wlen) < 0)
        goto fail_addr;
    ucp_worker_release_address(u->w, wa);
    ifc->trd = u;
    return AM_OK;
fail_addr:
    ucp_worker_release_address(u->w, wa);
fail_fds:
    if (u->evfd >= 0)
        close(u->evfd);
    close(u->epfd);
fail_worker:
    ucp_worker_destroy(u->w);
fail_ctx:
    ucp_cleanup(u->ctx);
fail:
    free(u);
    return rc;
}

void amx_ucx_shutdown(am_interface_t *ifc)
{
    struct ucx *u = ifc->trd;
    if (!ucx_forked(u)) {   /* a child's copy is the parent's UCX: leave it */
        amx_ucx_drop_queue(u, &u->q);
        amx_ucx_drop_queue(u, &u->early);
        ucp_worker_destroy(u->w);
        ucp_cleanup(u->ctx);
    }
    while (u->sfree) {
        struct sbuf *sb = u->sfree;
        u->sfree = sb->next;
        free(sb);
    }
    close(u->evfd);
    close(u->epfd);
    free(u);
}
