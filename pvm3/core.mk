# pvm3 core: connection, wire, messaging, tasks, routes
PVM3_CORE_SOURCES += pvm3/perr.h pvm3/perr.c pvm3/lpvm.h pvm3/tid.h pvm3/route.h pvm3/route_int.h pvm3/dwatch.c \
	pvm3/conn.c pvm3/wire.c pvm3/sink.c pvm3/tm.c pvm3/tm_match.c pvm3/rxq.c pvm3/progress.c pvm3/wait.c pvm3/route.c pvm3/xbuf.c \
	pvm3/send.c pvm3/recv.c pvm3/ctrl.c pvm3/spawn.c pvm3/tasks.c \
	pvm3/opts.c pvm3/misc.c pvm3/trace.h pvm3/trace.c pvm3/trace_calls.c pvm3/trace_more.c pvm3/trace_group.c \
	pvm3/compat.h pvm3/compat_vars.c pvm3/compat_util.c pvm3/compat_log.c pvm3/compat_task.c
