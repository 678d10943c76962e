# pvm3 core: add to PVM3_CORE_SOURCES
PVM3_CORE_SOURCES += pvm3/perr.h pvm3/perr.c
