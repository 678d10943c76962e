# Randomized, seeded, replayable torture test (tests/torture/README.md):
# one program, built against libpvm3am and stock libpvm3 (-no-install: the
# pvmd spawns the binary itself, it finds libpvm3am.so by rpath).
TORTURE_SRC = tests/torture/torture.c tests/torture/torture.h tests/torture/shape.c \
	tests/torture/shape.h tests/torture/worker.c tests/torture/runner.c tests/torture/halt.c \
	tests/integration/selfstat.h
check_PROGRAMS += tests/torture/torture_am tests/torture/torture_stock
tests_torture_torture_am_SOURCES = $(TORTURE_SRC)
tests_torture_torture_am_CPPFLAGS =
tests_torture_torture_am_LDADD = libpvm3am.la
tests_torture_torture_am_LDFLAGS = -no-install
tests_torture_torture_stock_SOURCES = $(TORTURE_SRC)
tests_torture_torture_stock_CPPFLAGS =
tests_torture_torture_stock_LDADD = -lgpvm3 -lpvm3
TESTS += tests/torture/check.sh
EXTRA_DIST += tests/torture/check.sh tests/torture/torture.sh tests/torture/README.md

# As long as asked: make torture [TORTURE_MINUTES=10]
TORTURE_MINUTES ?= 10
.PHONY: torture
torture: tests/torture/torture_am tests/torture/torture_stock
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  PVM_ALLOW_ROOT=1 CFLAGS='$(CFLAGS)' \
	  sh $(top_srcdir)/tests/torture/torture.sh --minutes '$(TORTURE_MINUTES)'
