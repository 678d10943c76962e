# Integration tests: a private real pvmd per test, stock libpvm3 peers.
# Their programs (NAME_stock against libpvm3, NAME_am against libpvm3am)
# are listed in tests/integration/programs.list; programs.mk, made of it by
# programs.sh, defines them.
include tests/integration/programs.mk
EXTRA_DIST += tests/integration/programs.list tests/integration/programs.sh
# programs.mk is what programs.sh makes of the list now
TESTS += tests/integration/programs-mk.sh
EXTRA_DIST += tests/integration/programs-mk.sh

# Remake programs.mk after editing the list (make then reruns automake).
.PHONY: programs-mk
programs-mk:
	sh $(srcdir)/tests/integration/programs.sh > $(srcdir)/tests/integration/programs.mk

EXTRA_DIST += tests/lib/pvmvm.sh tests/lib/devshm.sh

# The whole integration suite (interop, badinput, examples, ampath) runs
# once per PVMAM_TRANSPORT, and once with none set (the default, shm,tcp).
TESTS += tests/integration/suite-off.sh tests/integration/suite-tcp.sh \
	tests/integration/suite-udp.sh tests/integration/suite-shm.sh \
	tests/integration/suite-mixed.sh tests/integration/suite-ucx.sh
EXTRA_DIST += tests/integration/suite.sh tests/integration/suite-off.sh \
	tests/integration/suite-tcp.sh tests/integration/suite-udp.sh \
	tests/integration/suite-shm.sh tests/integration/suite-mixed.sh tests/integration/suite-ucx.sh \
	tests/integration/ampath.sh tests/integration/interop.sh tests/integration/badinput.sh \
	tests/integration/examples.sh tests/integration/launch.c

# PVM over AM/udp with real loss (a network namespace and nftables).
TESTS += tests/integration/pvmloss.sh
EXTRA_DIST += tests/integration/pvmloss.sh

# MPBench suite smoke test: runs, files and sane numbers, no timing.
TESTS += tests/integration/mpbench.sh
EXTRA_DIST += tests/integration/mpbench.sh

# Services (notify, mailbox, handlers, hosts, groups over pvmgs, catchout):
# the stock build also links libgpvm3.
# svc.sh and examples-svc.sh run inside suite.sh, once per transport.
EXTRA_DIST += tests/integration/svc.sh tests/integration/examples-svc.sh

# Link set-up under stress: tasks talk the moment they start.
TESTS += tests/integration/linkstress.sh
EXTRA_DIST += tests/integration/linkstress.sh

# More rounds of the same, by hand: make stress [STRESS_ROUNDS=2000]
STRESS_ROUNDS ?= 2000
.PHONY: stress
stress: tests/integration/linkstress_stock tests/integration/linkstress_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  PVM_ALLOW_ROOT=1 STRESS_ROUNDS='$(STRESS_ROUNDS)' \
	  sh $(top_srcdir)/tests/integration/linkstress.sh

# Frozen groups answer from the frozen map: stock and ours.
EXTRA_DIST += tests/integration/frozen.sh
# Randomized reduce, gather and scatter among stock and our members.
EXTRA_DIST += tests/integration/collrand.sh

# Stock symbols: libfpvm3.a/libgpvm3.so link against us, the
# export list covers stock's (symbols.sh, no pvmd); stock names' meaning
# and stock's stderr warnings (stocknames.sh) and a Fortran SPMD program
# (fortran.sh, gfortran) run inside suite.sh, once per transport.
TESTS += tests/integration/symbols.sh
EXTRA_DIST += tests/integration/symbols.sh tests/integration/symbols.exclude \
	tests/integration/stocknames.sh tests/integration/fortran.sh tests/integration/fspmd.f

# The parallel 2-D FFT example: correct results both builds,
# mixed, every transport; a damaged result fails; the driver, tiny.
TESTS += tests/integration/fft.sh
EXTRA_DIST += tests/integration/fft.sh

# A task farm's long life: no growth of descriptors, memory,
# mailbox entries or files while workers come and go.
TESTS += tests/integration/churn.sh
EXTRA_DIST += tests/integration/churn.sh

# More tasks than cores: collectives over every transport and
# waiting policy, and idle tasks that use no CPU.
TESTS += tests/integration/crowd.sh
EXTRA_DIST += tests/integration/crowd.sh

# Two tasks stream big messages at each other before receiving, over
# every transport (the wait rule, docs/architecture.md "Waits").
TESTS += tests/integration/bistream.sh
EXTRA_DIST += tests/integration/bistream.sh

# Short messages and the general path interleaved at random, both ways at
# once, every transport: order and content (a seeded run, seed printed).
TESTS += tests/integration/shortmix.sh
EXTRA_DIST += tests/integration/shortmix.sh

# pvm_mcast to a list with a task that has exited: the others still get it.
TESTS += tests/integration/mcastgone.sh
EXTRA_DIST += tests/integration/mcastgone.sh

# Authenticated AM links: a process outside the VM sends to a
# task's AM address; built with libam's internals (amx_pack_hdr), hence
# statically against libam.
check_PROGRAMS += tests/integration/stranger_raw
tests_integration_stranger_raw_SOURCES = tests/integration/stranger_raw.c tests/integration/stranger.h libam/tr_shm.h
tests_integration_stranger_raw_LDADD = libam.la
tests_integration_stranger_raw_LDFLAGS = -static
TESTS += tests/integration/stranger.sh
EXTRA_DIST += tests/integration/stranger.sh

# Streaming right after pvm_spawn, no pvmam_init.
TESTS += tests/integration/spawnstream.sh

# One task, several transports (PVMAM_TRANSPORT lists such as shm,tcp):
# the transport chosen per peer, malformed address lists, stats per peer.
TESTS += tests/integration/mixed.sh
EXTRA_DIST += tests/integration/mixed.sh

# pvmam_init's mesh: links without per-link messages, next to pairs with
# a history through the pvmd, and the fall-back when the call fails.
TESTS += tests/integration/meshinit.sh
EXTRA_DIST += tests/integration/meshinit.sh

# Many tasks: a ring, an all-to-all sample and a master
# linked with every child, on demand and with pvmam_init.
TESTS += tests/integration/scale.sh tests/integration/scale-hosts.sh

# Links opened on demand between 2 hosts: the pvmds pass no exit watch
# per link between them (host 1's pvmd log, tests/lib/netvm.sh).
TESTS += tests/integration/linkwatch.sh
EXTRA_DIST += tests/integration/linkwatch.sh

# Longer than make check: scale-hosts.sh also with every pair of its 256
# tasks exchanging one message, links on demand (1 to 2 minutes more, and
# timing-sensitive on a loaded machine: tests/integration/scale-hosts.sh).
check-long:
	SCALE_PAIRS=1 $(MAKE) $(AM_MAKEFLAGS) check TESTS=tests/integration/scale-hosts.sh
.PHONY: check-long

# Several hosts on one machine: network namespaces, real pvmds
# started through PVM_RSH (tests/lib/netvm.sh); skipped where impossible.
TESTS += tests/integration/hosts.sh
EXTRA_DIST += tests/integration/hosts.sh tests/lib/netvm.sh

# A host fails under a running job: pvmd stopped or killed, the
# host's cable out, a partition that heals (tests/lib/netvm.sh).
TESTS += tests/integration/hostfail.sh
EXTRA_DIST += tests/integration/hostfail.sh

# pvm_halt does not return while the VM halts, and the halt is never lost.
TESTS += tests/integration/halt.sh
EXTRA_DIST += tests/integration/halt.sh

# A result sent right before pvm_exit arrives (the exit notice overtaking
# the last AM): children print to a catchout master, send and exit at once.
TESTS += tests/integration/exitloss.sh
