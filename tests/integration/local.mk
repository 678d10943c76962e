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

EXTRA_DIST += tests/integration/interop.sh tests/lib/pvmvm.sh tests/lib/devshm.sh

check_PROGRAMS += tests/integration/badinput_stock tests/integration/badinput_am
tests_integration_badinput_stock_SOURCES = tests/integration/badinput.c
tests_integration_badinput_stock_CPPFLAGS =
tests_integration_badinput_stock_LDADD = -lpvm3
tests_integration_badinput_am_SOURCES = tests/integration/badinput.c
tests_integration_badinput_am_CPPFLAGS = -DPVMAM_BUILD -I$(top_srcdir)/pvmam
tests_integration_badinput_am_LDADD = libpvm3am.la
tests_integration_badinput_am_LDFLAGS = -no-install
EXTRA_DIST += tests/integration/badinput.sh tests/integration/examples.sh tests/integration/launch.c

check_PROGRAMS += tests/integration/ampath_am
tests_integration_ampath_am_SOURCES = tests/integration/ampath.c
tests_integration_ampath_am_LDADD = libpvm3am.la
tests_integration_ampath_am_LDFLAGS = -no-install

# The whole integration suite (interop, badinput, examples, ampath) runs
# once per PVMAM_TRANSPORT, and once with none set (the default, shm,tcp).
TESTS += tests/integration/suite-off.sh tests/integration/suite-tcp.sh \
	tests/integration/suite-udp.sh tests/integration/suite-shm.sh \
	tests/integration/suite-mixed.sh tests/integration/suite-ucx.sh
EXTRA_DIST += tests/integration/suite.sh tests/integration/suite-off.sh \
	tests/integration/suite-tcp.sh tests/integration/suite-udp.sh \
	tests/integration/suite-shm.sh tests/integration/suite-mixed.sh tests/integration/suite-ucx.sh \
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

# Link set-up under stress (issue 13): tasks talk the moment they start.
check_PROGRAMS += tests/integration/linkstress_stock tests/integration/linkstress_am
tests_integration_linkstress_stock_SOURCES = tests/integration/linkstress.c
tests_integration_linkstress_stock_CPPFLAGS =
tests_integration_linkstress_stock_LDADD = -lpvm3
tests_integration_linkstress_am_SOURCES = tests/integration/linkstress.c
tests_integration_linkstress_am_CPPFLAGS = -DPVMAM_BUILD -I$(top_srcdir)/pvmam
tests_integration_linkstress_am_LDADD = libpvm3am.la
tests_integration_linkstress_am_LDFLAGS = -no-install
TESTS += tests/integration/linkstress.sh
EXTRA_DIST += tests/integration/linkstress.sh

# More rounds of the same, by hand: make stress [STRESS_ROUNDS=2000]
STRESS_ROUNDS ?= 2000
.PHONY: stress
stress: tests/integration/linkstress_stock tests/integration/linkstress_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  PVM_ALLOW_ROOT=1 STRESS_ROUNDS='$(STRESS_ROUNDS)' \
	  sh $(top_srcdir)/tests/integration/linkstress.sh

# Frozen groups answer from the frozen map (issue 13): stock and ours.
check_PROGRAMS += tests/integration/frozen_stock tests/integration/frozen_am
tests_integration_frozen_stock_SOURCES = tests/integration/frozen.c
tests_integration_frozen_stock_CPPFLAGS =
tests_integration_frozen_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_frozen_am_SOURCES = tests/integration/frozen.c
tests_integration_frozen_am_CPPFLAGS =
tests_integration_frozen_am_LDADD = libpvm3am.la
tests_integration_frozen_am_LDFLAGS = -no-install
EXTRA_DIST += tests/integration/frozen.sh

# Stock symbols (issue 13): libfpvm3.a/libgpvm3.so link against us, the
# export list covers stock's (symbols.sh, no pvmd); stock names' meaning
# and stock's stderr warnings (stocknames.sh) and a Fortran SPMD program
# (fortran.sh, gfortran) run inside suite.sh, once per transport.
check_PROGRAMS += tests/integration/stocknames_stock tests/integration/stocknames_am
tests_integration_stocknames_stock_SOURCES = tests/integration/stocknames.c
tests_integration_stocknames_stock_CPPFLAGS =
tests_integration_stocknames_stock_LDADD = -lpvm3
tests_integration_stocknames_am_SOURCES = tests/integration/stocknames.c
tests_integration_stocknames_am_CPPFLAGS =
tests_integration_stocknames_am_LDADD = libpvm3am.la
tests_integration_stocknames_am_LDFLAGS = -no-install
TESTS += tests/integration/symbols.sh
EXTRA_DIST += tests/integration/symbols.sh tests/integration/symbols.exclude \
	tests/integration/stocknames.sh tests/integration/fortran.sh tests/integration/fspmd.f

# The parallel 2-D FFT example (issue 17): correct results both builds,
# mixed, every transport; a damaged result fails; the driver, tiny.
TESTS += tests/integration/fft.sh
EXTRA_DIST += tests/integration/fft.sh

# A task farm's long life (issue 19): no growth of descriptors, memory,
# mailbox entries or files while workers come and go.
check_PROGRAMS += tests/integration/churn_am tests/integration/churn_stock
tests_integration_churn_stock_SOURCES = tests/integration/churn.c tests/integration/selfstat.h
tests_integration_churn_stock_CPPFLAGS =
tests_integration_churn_stock_LDADD = -lpvm3
tests_integration_churn_am_SOURCES = tests/integration/churn.c tests/integration/selfstat.h
tests_integration_churn_am_CPPFLAGS =
tests_integration_churn_am_LDADD = libpvm3am.la
tests_integration_churn_am_LDFLAGS = -no-install
TESTS += tests/integration/churn.sh
EXTRA_DIST += tests/integration/churn.sh

# More tasks than cores (issue 14): collectives over every transport and
# waiting policy, and idle tasks that use no CPU.
check_PROGRAMS += tests/integration/crowd_am
tests_integration_crowd_am_SOURCES = tests/integration/crowd.c
tests_integration_crowd_am_LDADD = libpvm3am.la
tests_integration_crowd_am_LDFLAGS = -no-install
TESTS += tests/integration/crowd.sh
EXTRA_DIST += tests/integration/crowd.sh

# Two tasks stream big messages at each other before receiving, over
# every transport (the wait rule, docs/architecture.md "Waits").
check_PROGRAMS += tests/integration/bistream_am
tests_integration_bistream_am_SOURCES = tests/integration/bistream.c
tests_integration_bistream_am_LDADD = libpvm3am.la
tests_integration_bistream_am_LDFLAGS = -no-install
TESTS += tests/integration/bistream.sh
EXTRA_DIST += tests/integration/bistream.sh

# Authenticated AM links (issue 19): a process outside the VM sends to a
# task's AM address; built with libam's internals (amx_pack_hdr), hence
# statically against libam.
check_PROGRAMS += tests/integration/stranger_am tests/integration/stranger_raw
tests_integration_stranger_am_SOURCES = tests/integration/stranger.c tests/integration/stranger.h
tests_integration_stranger_am_LDADD = libpvm3am.la
tests_integration_stranger_am_LDFLAGS = -no-install
tests_integration_stranger_raw_SOURCES = tests/integration/stranger_raw.c tests/integration/stranger.h libam/tr_shm.h
tests_integration_stranger_raw_LDADD = libam.la
tests_integration_stranger_raw_LDFLAGS = -static
TESTS += tests/integration/stranger.sh
EXTRA_DIST += tests/integration/stranger.sh

# Streaming right after pvm_spawn, no pvmam_init (issue 20, link set-up).
check_PROGRAMS += tests/integration/spawnstream_am tests/integration/spawnstream_stock
tests_integration_spawnstream_am_SOURCES = tests/integration/spawnstream.c
tests_integration_spawnstream_am_CPPFLAGS = -DSS_AM -I$(top_srcdir)/pvmam
tests_integration_spawnstream_am_LDADD = libpvm3am.la
tests_integration_spawnstream_am_LDFLAGS = -no-install
tests_integration_spawnstream_stock_SOURCES = tests/integration/spawnstream.c
tests_integration_spawnstream_stock_CPPFLAGS =
tests_integration_spawnstream_stock_LDADD = -lpvm3
TESTS += tests/integration/spawnstream.sh

# One task, several transports (PVMAM_TRANSPORT lists such as shm,tcp):
# the transport chosen per peer, malformed address lists, stats per peer.
check_PROGRAMS += tests/integration/mixed_am
tests_integration_mixed_am_SOURCES = tests/integration/mixed.c
tests_integration_mixed_am_LDADD = libpvm3am.la
tests_integration_mixed_am_LDFLAGS = -no-install
TESTS += tests/integration/mixed.sh
EXTRA_DIST += tests/integration/mixed.sh

# Many tasks (issue 20, scale): a ring, an all-to-all sample and a master
# linked with every child, on demand and with pvmam_init.
check_PROGRAMS += tests/integration/scale_am
tests_integration_scale_am_SOURCES = tests/integration/scale.c tests/integration/selfstat.h
tests_integration_scale_am_CPPFLAGS = -I$(top_srcdir)/pvmam
tests_integration_scale_am_LDADD = libpvm3am.la
tests_integration_scale_am_LDFLAGS = -no-install
TESTS += tests/integration/scale.sh tests/integration/scale-hosts.sh

# Several hosts on one machine (issue 20): network namespaces, real pvmds
# started through PVM_RSH (tests/lib/netvm.sh); skipped where impossible.
check_PROGRAMS += tests/integration/hosts_stock tests/integration/hosts_am
tests_integration_hosts_stock_SOURCES = tests/integration/hosts.c
tests_integration_hosts_stock_CPPFLAGS =
tests_integration_hosts_stock_LDADD = -lgpvm3 -lpvm3
tests_integration_hosts_am_SOURCES = tests/integration/hosts.c
tests_integration_hosts_am_CPPFLAGS = -DPVMAM_BUILD -I$(top_srcdir)/pvmam
tests_integration_hosts_am_LDADD = libpvm3am.la
tests_integration_hosts_am_LDFLAGS = -no-install
TESTS += tests/integration/hosts.sh
EXTRA_DIST += tests/integration/hosts.sh tests/lib/netvm.sh

# A host fails under a running job (issue 20): pvmd stopped or killed, the
# host's cable out, a partition that heals (tests/lib/netvm.sh).
check_PROGRAMS += tests/integration/hostfail_am
tests_integration_hostfail_am_SOURCES = tests/integration/hostfail.c
tests_integration_hostfail_am_CPPFLAGS = -I$(top_srcdir)/pvmam
tests_integration_hostfail_am_LDADD = libpvm3am.la
tests_integration_hostfail_am_LDFLAGS = -no-install
TESTS += tests/integration/hostfail.sh
EXTRA_DIST += tests/integration/hostfail.sh

# pvm_halt does not return while the VM halts, and the halt is never lost.
check_PROGRAMS += tests/integration/halt_stock tests/integration/halt_am
tests_integration_halt_stock_SOURCES = tests/integration/halt.c
tests_integration_halt_stock_CPPFLAGS =
tests_integration_halt_stock_LDADD = -lpvm3
tests_integration_halt_am_SOURCES = tests/integration/halt.c
tests_integration_halt_am_CPPFLAGS =
tests_integration_halt_am_LDADD = libpvm3am.la
tests_integration_halt_am_LDFLAGS = -no-install
TESTS += tests/integration/halt.sh
EXTRA_DIST += tests/integration/halt.sh

# A result sent right before pvm_exit arrives (the exit notice overtaking
# the last AM): children print to a catchout master, send and exit at once.
check_PROGRAMS += tests/integration/exitloss_am
tests_integration_exitloss_am_SOURCES = tests/integration/exitloss.c
tests_integration_exitloss_am_LDADD = libpvm3am.la
tests_integration_exitloss_am_LDFLAGS = -no-install
TESTS += tests/integration/exitloss.sh
