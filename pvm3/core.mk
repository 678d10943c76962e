# pvm3 core: connection, wire, messaging, tasks, routes
PVM3_CORE_SOURCES += pvm3/core/perr.h pvm3/core/perr.c pvm3/core/lpvm.h pvm3/core/tid.h pvm3/core/route.h pvm3/core/route_int.h pvm3/core/dwatch.c \
	pvm3/core/conn.c pvm3/core/wire.c pvm3/core/sink.c pvm3/core/tm.c pvm3/core/tm_match.c pvm3/core/rxq.c pvm3/core/progress.c pvm3/core/wait.c pvm3/core/route.c pvm3/core/xbuf.c \
	pvm3/core/send.c pvm3/core/recv.c pvm3/core/ctrl.c pvm3/core/spawn.c pvm3/core/tasks.c \
	pvm3/core/opts.c pvm3/core/misc.c pvm3/core/trace.h pvm3/core/tev_names.h pvm3/core/trace.c pvm3/core/trace_calls.c pvm3/core/trace_more.c pvm3/core/trace_group.c \
	pvm3/core/compat.h pvm3/core/compat_vars.c pvm3/core/compat_util.c pvm3/core/compat_log.c pvm3/core/compat_task.c
