# The console: pvmam against the stock pvm console, amstat,
# bad input.  amjob is spawned by the pvmd, so it is linked without
# libtool's wrapper (-no-install), like the integration test programs.
check_PROGRAMS += tests/console/amjob
tests_console_amjob_SOURCES = tests/console/amjob.c
tests_console_amjob_LDADD = libpvm3am.la
tests_console_amjob_LDFLAGS = -no-install
TESTS += tests/console/console.sh tests/console/preload.sh tests/console/trace.sh \
	tests/console/trace_calls.sh tests/console/trace_cons.sh
EXTRA_DIST += tests/console/console.sh tests/console/preload.sh tests/console/lib.sh \
	tests/console/trace.sh tests/console/trace_calls.sh tests/console/trace_cons.sh \
	tests/console/trcjob.c
