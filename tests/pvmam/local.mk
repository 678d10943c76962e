# pvmam: its files call each other in layers (no call circle of more
# than two files), checked on the built objects.
TESTS += tests/pvmam/call-circles.sh
EXTRA_DIST += tests/pvmam/call-circles.sh tests/lib/call-circles.sh

# The link state machine (Check), linked from its sources only: it needs
# the shared state for its log, nothing of pvm3's or libam's code.
check_PROGRAMS += tests/pvmam/test_linkstate
tests_pvmam_test_linkstate_SOURCES = tests/pvmam/test_linkstate.c pvmam/linkstate.c pvmam/state.c
tests_pvmam_test_linkstate_CPPFLAGS = $(AM_CPPFLAGS) $(TIRPC_CFLAGS) $(CHECK_CFLAGS)
tests_pvmam_test_linkstate_LDADD = $(CHECK_LIBS)
TESTS += tests/pvmam/test_linkstate

# Fragment reassembly (Check) over a real libam udp link inside one
# process, built from the library's sources so that pvmam's internal
# functions can be called; no pvmd.
check_PROGRAMS += tests/pvmam/test_frag
tests_pvmam_test_frag_SOURCES = tests/pvmam/test_frag.c $(PVM3_PACK_SOURCES) \
	$(PVM3_CORE_SOURCES) $(PVMAM_SOURCES)
nodist_tests_pvmam_test_frag_SOURCES = pvmam/route_table.c
tests_pvmam_test_frag_CPPFLAGS = $(AM_CPPFLAGS) $(TIRPC_CFLAGS) $(CHECK_CFLAGS)
tests_pvmam_test_frag_LDADD = libam.la $(TIRPC_LIBS) $(CHECK_LIBS)
TESTS += tests/pvmam/test_frag
