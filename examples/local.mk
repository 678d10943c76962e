# examples: benchmarks and example programs

# Daemon-route ping-pong, one source built against both libraries.
noinst_PROGRAMS += examples/pingpong/pingpong_stock examples/pingpong/pingpong_am
examples_pingpong_pingpong_stock_SOURCES = examples/pingpong/pingpong.c
examples_pingpong_pingpong_stock_CPPFLAGS =
examples_pingpong_pingpong_stock_LDADD = -lpvm3
examples_pingpong_pingpong_am_SOURCES = examples/pingpong/pingpong.c
examples_pingpong_pingpong_am_CPPFLAGS =
examples_pingpong_pingpong_am_LDADD = libpvm3am.la
examples_pingpong_pingpong_am_LDFLAGS = -no-install
EXTRA_DIST += examples/pingpong/compare.sh

.PHONY: bench-pingpong
bench-pingpong: examples/pingpong/pingpong_stock examples/pingpong/pingpong_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  bash $(top_srcdir)/examples/pingpong/compare.sh $(BENCH_MAX) $(BENCH_SECS) $(BENCH_ROUNDS)
BENCH_TARGETS += bench-pingpong
BENCH_MAX ?= 4194304
BENCH_SECS ?= 0.15
BENCH_ROUNDS ?= 3

# libam next to raw sockets (issue 2's benchmark).
noinst_PROGRAMS += examples/ambench/ambench
examples_ambench_ambench_SOURCES = examples/ambench/ambench.c
examples_ambench_ambench_CPPFLAGS = -I$(top_srcdir)/libam
examples_ambench_ambench_LDADD = libam.la

.PHONY: bench-am
bench-am: examples/ambench/ambench
	examples/ambench/ambench $(BENCH_ROUNDS)
BENCH_TARGETS += bench-am
