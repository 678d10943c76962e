# libam tests (Check): one program, run once per transport; one file per
# concern over one fixture (tests/libam/fixture.h).
check_PROGRAMS += tests/libam/test_am
tests_libam_test_am_SOURCES = tests/libam/test_am.c tests/libam/fixture.c tests/libam/fixture.h \
	tests/libam/basics.c tests/libam/exchange.c tests/libam/placement.c tests/libam/echo.c \
	tests/libam/hostile.c tests/libam/ring.c tests/libam/park.c tests/libam/waits.c tests/libam/acks.c tests/libam/sum.h
tests_libam_test_am_CPPFLAGS = -I$(top_srcdir)/libam $(CHECK_CFLAGS)
tests_libam_test_am_LDADD = libam.la $(CHECK_LIBS)
if HAVE_UCX
# the ucx run also plays a stranger through UCX itself (garbage_survived)
tests_libam_test_am_CPPFLAGS += -DHAVE_UCX $(UCX_CFLAGS)
tests_libam_test_am_LDADD += $(UCX_LIBS)
endif
TESTS += tests/libam/am-tcp.sh tests/libam/am-udp.sh tests/libam/am-shm.sh
EXTRA_DIST += tests/libam/am-tcp.sh tests/libam/am-udp.sh tests/libam/am-shm.sh
# ucx twice: over UCX's tcp and over its shared memory (skipped, 77, without UCX)
TESTS += tests/libam/am-ucx-tcp.sh tests/libam/am-ucx-sm.sh
EXTRA_DIST += tests/libam/am-ucx-tcp.sh tests/libam/am-ucx-sm.sh

# Real loss through nftables in network namespaces (skipped where impossible).
check_PROGRAMS += tests/libam/amloss
tests_libam_amloss_SOURCES = tests/libam/amloss.c
tests_libam_amloss_CPPFLAGS = -I$(top_srcdir)/libam
tests_libam_amloss_LDADD = libam.la
tests_libam_amloss_LDFLAGS = -no-install
TESTS += tests/libam/loss-udp.sh
EXTRA_DIST += tests/libam/loss-udp.sh

# libam's files call each other in layers (no call circle of more than
# two files), checked on the built objects.
TESTS += tests/libam/call-circles.sh
EXTRA_DIST += tests/libam/call-circles.sh

# Exported symbols of libam.so, names in libam.a, transports kept by a static link.
TESTS += tests/libam/symbols.sh
EXTRA_DIST += tests/libam/symbols.sh
