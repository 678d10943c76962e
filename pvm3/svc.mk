# pvm3 services: notify, mailbox, message handlers, hosts, output,
# registration, and the dynamic-group client of pvmgs.
PVM3_CORE_SOURCES += pvm3/notify.c pvm3/mbox.c pvm3/mhf.c pvm3/hosts.c \
	pvm3/catchout.c pvm3/reg.c \
	pvm3/group.h pvm3/group.c pvm3/group_cache.c pvm3/group_host.c \
	pvm3/group_coll.c pvm3/group_ops.c
