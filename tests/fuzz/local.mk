# libFuzzer targets: built with clang by tests/fuzz/build.sh,
# not by the main compiler.  make check runs each briefly; make fuzz longer.
# (not in sanitizer trees: the targets carry their own sanitizers)
if !SANITIZERS
TESTS += tests/fuzz/fuzz.sh
endif
EXTRA_DIST += tests/fuzz/build.sh tests/fuzz/fuzz.sh tests/fuzz/fuzz_am.h \
	tests/fuzz/fuzz_upk.c tests/fuzz/fuzz_wire.c tests/fuzz/fuzz_am_udp.c \
	tests/fuzz/fuzz_am_tcp.c tests/fuzz/fuzz_am_shm.c tests/fuzz/fuzz_ctrl.c tests/fuzz/no_routes.c \
	tests/fuzz/seeds.py tests/fuzz/corpus
FUZZ_SECONDS ?= 600
.PHONY: fuzz
fuzz:
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' \
	  FUZZ_SECONDS='$(FUZZ_SECONDS)' sh $(top_srcdir)/tests/fuzz/fuzz.sh
