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

EXTRA_DIST += tests/integration/interop.sh tests/lib/pvmvm.sh

check_PROGRAMS += tests/integration/badinput_stock tests/integration/badinput_am
tests_integration_badinput_stock_SOURCES = tests/integration/badinput.c
tests_integration_badinput_stock_CPPFLAGS =
tests_integration_badinput_stock_LDADD = -lpvm3
tests_integration_badinput_am_SOURCES = tests/integration/badinput.c
tests_integration_badinput_am_CPPFLAGS = -DPVMAM_BUILD
tests_integration_badinput_am_LDADD = libpvm3am.la
tests_integration_badinput_am_LDFLAGS = -no-install
EXTRA_DIST += tests/integration/badinput.sh tests/integration/examples.sh tests/integration/launch.c

check_PROGRAMS += tests/integration/ampath_am
tests_integration_ampath_am_SOURCES = tests/integration/ampath.c
tests_integration_ampath_am_LDADD = libpvm3am.la
tests_integration_ampath_am_LDFLAGS = -no-install

# The whole integration suite (interop, badinput, examples, ampath) runs
# once per PVMAM_TRANSPORT.
TESTS += tests/integration/suite-off.sh tests/integration/suite-tcp.sh \
	tests/integration/suite-udp.sh
EXTRA_DIST += tests/integration/suite.sh tests/integration/suite-off.sh \
	tests/integration/suite-tcp.sh tests/integration/suite-udp.sh \
	tests/integration/ampath.sh tests/integration/ampath.c

# PVM over AM/udp with real loss (a network namespace and nftables).
check_PROGRAMS += tests/integration/pvmloss_am
tests_integration_pvmloss_am_SOURCES = tests/integration/pvmloss.c
tests_integration_pvmloss_am_LDADD = libpvm3am.la
tests_integration_pvmloss_am_LDFLAGS = -no-install
TESTS += tests/integration/pvmloss.sh
EXTRA_DIST += tests/integration/pvmloss.sh

# MPBench suite smoke test (issue 6): runs, files and sane numbers, no timing.
TESTS += tests/integration/mpbench.sh
EXTRA_DIST += tests/integration/mpbench.sh

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
# svc.sh and examples-svc.sh run inside suite.sh, once per transport.
EXTRA_DIST += tests/integration/svc.sh tests/integration/examples-svc.sh

# The parallel 2-D FFT example (issue 17): correct results both builds,
# mixed, every transport; a damaged result fails; the driver, tiny.
TESTS += tests/integration/fft.sh
EXTRA_DIST += tests/integration/fft.sh
