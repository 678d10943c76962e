# pvm3: libpvm3am = pvm3 (pack/, core/, svc/) + pvmam + libam.
# Sources are listed by the two parts of pvm3 in their own fragments.
PVM3_PACK_SOURCES =
PVM3_CORE_SOURCES =
include pvm3/pack.mk
include pvm3/core.mk
include pvm3/svc.mk

lib_LTLIBRARIES += libpvm3am.la
libpvm3am_la_SOURCES = $(PVM3_PACK_SOURCES) $(PVM3_CORE_SOURCES) $(PVMAM_SOURCES)
libpvm3am_la_CPPFLAGS = $(AM_CPPFLAGS) $(TIRPC_CFLAGS)
libpvm3am_la_LIBADD = libam.la
libpvm3am_la_CFLAGS = $(AM_CFLAGS) $(LIB_CFLAGS)
libpvm3am_la_LDFLAGS = -version-info 0:0:0 -Wl,--version-script=$(srcdir)/pvm3/libpvm3am.map
EXTRA_libpvm3am_la_DEPENDENCIES = pvm3/libpvm3am.map
EXTRA_DIST += pvm3/libpvm3am.map
pkgconfig_DATA += pvm3/pvm3am.pc
