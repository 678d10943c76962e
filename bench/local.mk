# bench: the benchmark programs and their drivers (bench/lib/bench.sh: what
# the drivers share)

# Daemon-route ping-pong, one source built against both libraries.
noinst_PROGRAMS += bench/pingpong/pingpong_stock bench/pingpong/pingpong_am
bench_pingpong_pingpong_stock_SOURCES = bench/pingpong/pingpong.c
bench_pingpong_pingpong_stock_CPPFLAGS =
bench_pingpong_pingpong_stock_LDADD = -lpvm3
bench_pingpong_pingpong_am_SOURCES = bench/pingpong/pingpong.c
bench_pingpong_pingpong_am_CPPFLAGS =
bench_pingpong_pingpong_am_LDADD = libpvm3am.la
bench_pingpong_pingpong_am_LDFLAGS = -no-install
EXTRA_DIST += bench/pingpong/compare.sh bench/pingpong/trace_cost.sh

# Instructions per one-way 8-byte message, under callgrind (not in
# BENCH_TARGETS: it needs valgrind and counts, it does not time).
noinst_PROGRAMS += bench/pingpong/insns
bench_pingpong_insns_SOURCES = bench/pingpong/insns.c
bench_pingpong_insns_LDADD = libpvm3am.la
bench_pingpong_insns_LDFLAGS = -no-install
EXTRA_DIST += bench/pingpong/insns.sh
.PHONY: bench-insns
bench-insns: bench/pingpong/insns
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  bash $(top_srcdir)/bench/pingpong/insns.sh $(INSNS_ROUNDS)
INSNS_ROUNDS ?= 3000

.PHONY: bench-pingpong
bench-pingpong: bench/pingpong/pingpong_stock bench/pingpong/pingpong_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  bash $(top_srcdir)/bench/pingpong/compare.sh $(BENCH_MAX) $(BENCH_SECS) $(BENCH_ROUNDS)
BENCH_TARGETS += bench-pingpong

# What the trace hooks cost while tracing is off (not in BENCH_TARGETS: it
# builds the sources a second time).
.PHONY: bench-trace-cost
bench-trace-cost: bench/pingpong/pingpong_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  bash $(top_srcdir)/bench/pingpong/trace_cost.sh $(TRACE_COST_ROUNDS)
TRACE_COST_ROUNDS ?= 11
BENCH_MAX ?= 4194304
BENCH_SECS ?= 0.15
BENCH_ROUNDS ?= 3

# libam next to raw sockets (libam's own benchmark).
noinst_PROGRAMS += bench/ambench/ambench
bench_ambench_ambench_SOURCES = bench/ambench/ambench.c bench/ambench/floor.c \
	bench/ambench/floor.h
bench_ambench_ambench_CPPFLAGS = -I$(top_srcdir)/libam
bench_ambench_ambench_LDADD = libam.la
EXTRA_DIST += bench/ambench/periods.sh

.PHONY: bench-am
bench-am: bench/ambench/ambench
	bench/ambench/ambench $(BENCH_ROUNDS)
BENCH_TARGETS += bench-am

# MPBench-style suite: one source against both libraries, raw
# socket baselines, and the driver that runs them all in one VM.
noinst_PROGRAMS += bench/mpbench/mpbench_stock bench/mpbench/mpbench_am \
	bench/mpbench/rawbench
MPBENCH_COMMON = bench/mpbench/common.c bench/mpbench/common.h
bench_mpbench_mpbench_stock_SOURCES = bench/mpbench/mpbench.c $(MPBENCH_COMMON)
bench_mpbench_mpbench_stock_CPPFLAGS = -DMPB_LIB='"stock libpvm3"'
bench_mpbench_mpbench_stock_LDADD = -lgpvm3 -lpvm3 -lm
bench_mpbench_mpbench_am_SOURCES = bench/mpbench/mpbench.c $(MPBENCH_COMMON)
bench_mpbench_mpbench_am_CPPFLAGS = -DMPB_LIB='"libpvm3am"'
bench_mpbench_mpbench_am_LDADD = libpvm3am.la -lm
bench_mpbench_mpbench_am_LDFLAGS = -no-install
bench_mpbench_rawbench_SOURCES = bench/mpbench/rawbench.c $(MPBENCH_COMMON)
bench_mpbench_rawbench_LDADD = -lm
EXTRA_DIST += bench/mpbench/run.sh bench/mpbench/report.sh bench/mpbench/plot.sh \
	bench/mpbench/headline.sh bench/mpbench/builds.sh

# The same benchmark against MPI, built only where configure found mpicc:
# mpicc's flags, taken from the wrapper itself, so no other object changes.
if HAVE_MPI
noinst_PROGRAMS += bench/mpbench/mpbench_mpi
bench_mpbench_mpbench_mpi_SOURCES = bench/mpbench/mpi.c $(MPBENCH_COMMON)
bench_mpbench_mpbench_mpi_CPPFLAGS = $(MPI_CFLAGS)
bench_mpbench_mpbench_mpi_LDADD = $(MPI_LIBS) -lm
else
EXTRA_DIST += bench/mpbench/mpi.c
endif

# The latency and bandwidth tests against UCX itself (ucp active
# messages, two processes on this host), built only where configure found
# UCX; the comparison's ucx configuration (bench/mpbench/run.sh).
if HAVE_UCX
noinst_PROGRAMS += bench/mpbench/mpbench_ucx
bench_mpbench_mpbench_ucx_SOURCES = bench/mpbench/ucx.c $(MPBENCH_COMMON)
bench_mpbench_mpbench_ucx_CPPFLAGS = $(UCX_CFLAGS)
bench_mpbench_mpbench_ucx_LDADD = $(UCX_LIBS) -lm
BENCH_MPB_UCX = bench/mpbench/mpbench_ucx
else
EXTRA_DIST += bench/mpbench/ucx.c
BENCH_MPB_UCX =
endif

MPBENCH_OUT ?= $(abs_top_builddir)/bench-out
.PHONY: bench-mpbench
bench-mpbench: bench/mpbench/mpbench_stock bench/mpbench/mpbench_am bench/mpbench/rawbench $(BENCH_MPB_UCX)
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  BENCH_QUICK='$(BENCH_QUICK)' bash $(top_srcdir)/bench/mpbench/run.sh --out '$(MPBENCH_OUT)'
BENCH_TARGETS += bench-mpbench

# The parallel FFT's comparison run (the program: examples/local.mk).
EXTRA_DIST += bench/lib/bench.sh bench/fft/run.sh bench/fft/report.sh bench/fft/plot.sh bench/fft/seconds.awk \
	bench/fft/figures

# FFTW's own MPI 2-D transform, timed like examples/fft (the comparison's
# fftw-mpi configuration), built only where configure found MPI and
# libfftw3_mpi; check.c gives it the same input and oracle.
if HAVE_FFTW_MPI
noinst_PROGRAMS += bench/fft/fft_fftw_mpi
bench_fft_fft_fftw_mpi_SOURCES = bench/fft/fftw_mpi.c examples/fft/check.c examples/fft/fft.h
bench_fft_fft_fftw_mpi_CPPFLAGS = -I$(top_srcdir)/examples/fft $(MPI_CFLAGS) $(FFTW3_CFLAGS)
bench_fft_fft_fftw_mpi_LDADD = $(FFTW3_MPI_LIBS) $(FFTW3_LIBS) $(MPI_LIBS) -lm
BENCH_FFT_MPI = bench/fft/fft_fftw_mpi
else
EXTRA_DIST += bench/fft/fftw_mpi.c
BENCH_FFT_MPI =
endif

FFT_OUT ?= $(abs_top_builddir)/bench-fft-out
.PHONY: bench-fft
bench-fft: examples/fft/fft_stock examples/fft/fft_am $(BENCH_FFT_MPI)
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  BENCH_QUICK='$(BENCH_QUICK)' bash $(top_srcdir)/bench/fft/run.sh --out '$(FFT_OUT)'
BENCH_TARGETS += bench-fft

# Job start-up time: spawn N, one packed reply from each.
noinst_PROGRAMS += bench/startup/startup_stock bench/startup/startup_am
bench_startup_startup_stock_SOURCES = bench/startup/startup.c
bench_startup_startup_stock_CPPFLAGS =
bench_startup_startup_stock_LDADD = -lpvm3
bench_startup_startup_am_SOURCES = bench/startup/startup.c
bench_startup_startup_am_CPPFLAGS = -DSTARTUP_AM -I$(top_srcdir)/pvmam
bench_startup_startup_am_LDADD = libpvm3am.la
bench_startup_startup_am_LDFLAGS = -no-install
EXTRA_DIST += bench/startup/run.sh
# The kernel's share of one shm link (its socket, segment, pidfds), alone.
noinst_PROGRAMS += bench/startup/linkcost
bench_startup_linkcost_SOURCES = bench/startup/linkcost.c

.PHONY: bench-startup
bench-startup: bench/startup/startup_stock bench/startup/startup_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  bash $(top_srcdir)/bench/startup/run.sh 8 15 stock am-default am-off
BENCH_TARGETS += bench-startup

# libam's ucx transport against UCX's own ucx_perftest (bench/ucxbench/run.sh;
# docs/performance.md), built only where configure found UCX; not in
# make bench (it needs ucx_perftest too): make bench-ucx.
if HAVE_UCX
noinst_PROGRAMS += bench/ucxbench/amucx
bench_ucxbench_amucx_SOURCES = bench/ucxbench/amucx.c
bench_ucxbench_amucx_CPPFLAGS = -I$(top_srcdir)/libam
bench_ucxbench_amucx_LDADD = libam.la
bench-ucx: bench/ucxbench/amucx
	top_builddir='$(abs_top_builddir)' sh $(top_srcdir)/bench/ucxbench/run.sh $(BENCH_ROUNDS)
else
EXTRA_DIST += bench/ucxbench/amucx.c
endif
EXTRA_DIST += bench/ucxbench/run.sh
.PHONY: bench-ucx
