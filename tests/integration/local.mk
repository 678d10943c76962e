# Integration tests: a private real pvmd per test, stock libpvm3 peers.
# -no-install: the pvmd spawns these binaries directly, without libtool's
# wrapper script, so they must find libpvm3am.so by rpath.
check_PROGRAMS += tests/integration/interop_stock tests/integration/interop_am
tests_integration_interop_stock_SOURCES = tests/integration/interop.c
tests_integration_interop_stock_CPPFLAGS =
tests_integration_interop_stock_LDADD = -lpvm3
tests_integration_interop_am_SOURCES = tests/integration/interop.c
tests_integration_interop_am_CPPFLAGS =
tests_integration_interop_am_LDADD = libpvm3am.la
tests_integration_interop_am_LDFLAGS = -no-install

TESTS += tests/integration/interop.sh
EXTRA_DIST += tests/integration/interop.sh tests/lib/pvmvm.sh

check_PROGRAMS += tests/integration/badinput_stock tests/integration/badinput_am
tests_integration_badinput_stock_SOURCES = tests/integration/badinput.c
tests_integration_badinput_stock_CPPFLAGS =
tests_integration_badinput_stock_LDADD = -lpvm3
tests_integration_badinput_am_SOURCES = tests/integration/badinput.c
tests_integration_badinput_am_CPPFLAGS = -DPVMAM_BUILD
tests_integration_badinput_am_LDADD = libpvm3am.la
tests_integration_badinput_am_LDFLAGS = -no-install
TESTS += tests/integration/badinput.sh tests/integration/examples.sh
EXTRA_DIST += tests/integration/badinput.sh tests/integration/examples.sh tests/integration/launch.c

# Services (notify, mailbox, handlers, hosts, groups over pvmgs, catchout):
# the stock build also links libgpvm3.
check_PROGRAMS += tests/integration/svc_stock tests/integration/svc_am
tests_integration_svc_stock_SOURCES = tests/integration/svc.c
tests_integration_svc_stock_CPPFLAGS =
tests_integration_svc_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_svc_am_SOURCES = tests/integration/svc.c
tests_integration_svc_am_CPPFLAGS =
tests_integration_svc_am_LDADD = libpvm3am.la
tests_integration_svc_am_LDFLAGS = -no-install
TESTS += tests/integration/svc.sh tests/integration/examples-svc.sh
EXTRA_DIST += tests/integration/svc.sh tests/integration/examples-svc.sh
