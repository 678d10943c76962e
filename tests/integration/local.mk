# Integration tests: a private real pvmd per test, stock libpvm3 peers.
check_PROGRAMS += tests/integration/interop_stock tests/integration/interop_am
tests_integration_interop_stock_SOURCES = tests/integration/interop.c
tests_integration_interop_stock_CPPFLAGS =
tests_integration_interop_stock_LDADD = -lpvm3
tests_integration_interop_am_SOURCES = tests/integration/interop.c
tests_integration_interop_am_CPPFLAGS =
tests_integration_interop_am_LDADD = libpvm3am.la

TESTS += tests/integration/interop.sh
EXTRA_DIST += tests/integration/interop.sh tests/lib/pvmvm.sh
