# pvmam: the Active Messages route of libpvm3am (sources go into libpvm3am,
# see pvm3/local.mk).  Only this folder includes both pvm3 and libam.
PVMAM_SOURCES = pvmam/pvmam.h pvmam/pvmam_int.h pvmam/config.c pvmam/peer.c \
	pvmam/link.c pvmam/frag.c pvmam/am_route.c pvmam/init.c pvmam/stats.c \
	pvmam/amstat.c
include_HEADERS += pvmam/pvmam.h
