# pvm3 services: notify, mailbox, message handlers, hosts, output,
# registration, and the dynamic-group client of pvmgs.
PVM3_CORE_SOURCES += pvm3/svc/notify.c pvm3/svc/mbox.c pvm3/svc/mhf.c pvm3/svc/hosts.c \
	pvm3/svc/catchout.c pvm3/svc/reg.c \
	pvm3/svc/group.h pvm3/svc/group.c pvm3/svc/group_cache.c pvm3/svc/group_host.c \
	pvm3/svc/group_coll.c pvm3/svc/group_ops.c
