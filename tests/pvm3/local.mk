# pvm3 unit tests (Check): buffers and packing, linked from the sources so
# they do not depend on the daemon part of the library.
check_PROGRAMS += tests/pvm3/test_pack
tests_pvm3_test_pack_SOURCES = tests/pvm3/test_pack.c $(PVM3_PACK_SOURCES) pvm3/core/perr.c pvm3/core/perr.h
tests_pvm3_test_pack_CPPFLAGS = $(AM_CPPFLAGS) $(TIRPC_CFLAGS) $(CHECK_CFLAGS) -DPVMI_TRACE_NONE
tests_pvm3_test_pack_LDADD = $(TIRPC_LIBS) $(CHECK_LIBS)
TESTS += tests/pvm3/test_pack
