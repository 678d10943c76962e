# libam: standalone Active Messages library (no PVM knowledge).
#
# Transports: one file each, libam/tr_NAME.c defining
# `const struct am_transport_ops amx_tr_NAME` (libam/am_int.h).  To add one,
# write the file and add its line here; the table libam iterates
# (amx_transport_table, hence am_transports() and am_init) is generated
# from this list, and it references every transport, so a static libam.a
# keeps them all too.
LIBAM_TRANSPORTS =
LIBAM_TRANSPORTS += libam/tr_tcp.c
LIBAM_TRANSPORTS += libam/tr_udp.c
LIBAM_TRANSPORTS += libam/tr_shm.c
if HAVE_UCX
LIBAM_TRANSPORTS += libam/tr_ucx.c
endif

lib_LTLIBRARIES += libam.la
include_HEADERS += libam/am.h
libam_la_SOURCES = libam/am.h libam/am_int.h libam/am_base.c libam/am_handlers.c libam/am_wire.c \
	libam/am_send.c libam/am_input.c libam/am_poll.c libam/am_auth.c \
	libam/am_net.h libam/am_net.c libam/tr_shm.h $(LIBAM_TRANSPORTS)
# the shm transport's other files (libam/shm/shm.h lists them) and the
# parking of incoming connections that tcp and shm share
libam_la_SOURCES += libam/conn_park.h libam/conn_park.c libam/shm/shm.h libam/shm/ring.h \
	libam/shm/short.h \
	libam/shm/ring.c libam/shm/segment.c libam/shm/copy.c
# the ucx transport's other files (libam/ucx/ucx.h lists them), with it
LIBAM_UCX_FILES = libam/ucx/ucx.h libam/ucx/worker.c libam/ucx/endpoint.c libam/ucx/recv.c \
	libam/ucx/addr.c libam/ucx/dl.h libam/ucx/dl.c
if HAVE_UCX
libam_la_SOURCES += $(LIBAM_UCX_FILES)
endif
nodist_libam_la_SOURCES = libam/tr_table.c
# libam.so exports the API of libam/am.h (am_*) and nothing else.
libam_la_CFLAGS = $(AM_CFLAGS) $(LIB_CFLAGS) $(UCX_CFLAGS)
# UCX itself is opened with dlopen (libam/ucx/dl.h): not linked
libam_la_LIBADD =
if HAVE_UCX
libam_la_LIBADD += -ldl
endif
libam_la_LDFLAGS = -version-info 0:0:0 -Wl,--version-script=$(srcdir)/libam/libam.map
EXTRA_libam_la_DEPENDENCIES = libam/libam.map
EXTRA_DIST += libam/libam.map libam/tr_ucx.c $(LIBAM_UCX_FILES)
pkgconfig_DATA += libam/libam.pc
CLEANFILES += libam/tr_table.c

libam/tr_table.c: Makefile
	$(AM_V_GEN)$(MKDIR_P) libam && { \
	  echo '/* Generated from LIBAM_TRANSPORTS in libam/local.mk: do not edit. */'; \
	  echo '#include "am_int.h"'; \
	  for f in $(LIBAM_TRANSPORTS); do n=$${f##*/tr_}; \
	    echo "extern const struct am_transport_ops amx_tr_$${n%.c};"; done; \
	  echo 'const struct am_transport_ops *const amx_transport_table[] = {'; \
	  for f in $(LIBAM_TRANSPORTS); do n=$${f##*/tr_}; echo "    &amx_tr_$${n%.c},"; done; \
	  echo '    NULL'; \
	  echo '};'; \
	} > $@-t && mv $@-t $@
