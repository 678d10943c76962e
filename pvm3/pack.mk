# pvm3 buffers and packing: add to PVM3_PACK_SOURCES
PVM3_PACK_SOURCES += pvm3/pmsg.h
