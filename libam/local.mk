# libam: standalone Active Messages library (no PVM knowledge).
lib_LTLIBRARIES += libam.la
include_HEADERS += libam/am.h
libam_la_SOURCES = libam/am.h libam/am_int.h libam/am_base.c libam/am_proto.c \
	libam/am_net.c libam/tr_stub.c libam/tr_tcp.c libam/tr_udp.c
libam_la_LDFLAGS = -version-info 0:0:0
pkgconfig_DATA += libam/libam.pc
