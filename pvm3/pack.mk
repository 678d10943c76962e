# pvm3 buffers and packing
PVM3_PACK_SOURCES += pvm3/pmsg.h pvm3/pmsg.c pvm3/buf.c pvm3/pack.h pvm3/pack.c \
	pvm3/pack_xdr.c pvm3/pack_raw.c pvm3/packf.c pvm3/pkmesg.c
