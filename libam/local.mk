# libam: standalone Active Messages library.
lib_LTLIBRARIES += libam.la
include_HEADERS += libam/am.h
libam_la_SOURCES = libam/am.h
libam_la_LDFLAGS = -version-info 0:0:0
pkgconfig_DATA += libam/libam.pc
