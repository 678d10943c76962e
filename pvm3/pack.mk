# pvm3 buffers and packing
PVM3_PACK_SOURCES += pvm3/pack/pmsg.h pvm3/pack/pmsg.c pvm3/pack/buf.c pvm3/pack/pack.h pvm3/pack/pack.c \
	pvm3/pack/pack_xdr.c pvm3/pack/pack_raw.c pvm3/pack/packf.c pvm3/pack/pkmesg.c
