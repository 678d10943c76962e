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
examples_ambench_ambench_SOURCES = examples/ambench/ambench.c examples/ambench/floor.c \
	examples/ambench/floor.h
examples_ambench_ambench_CPPFLAGS = -I$(top_srcdir)/libam
examples_ambench_ambench_LDADD = libam.la
EXTRA_DIST += examples/ambench/periods.sh

.PHONY: bench-am
bench-am: examples/ambench/ambench
	examples/ambench/ambench $(BENCH_ROUNDS)
BENCH_TARGETS += bench-am

# MPBench-style suite (issue 6): one source against both libraries, raw
# socket baselines, and the driver that runs them all in one VM.
noinst_PROGRAMS += examples/mpbench/mpbench_stock examples/mpbench/mpbench_am \
	examples/mpbench/rawbench
MPBENCH_COMMON = examples/mpbench/common.c examples/mpbench/common.h
examples_mpbench_mpbench_stock_SOURCES = examples/mpbench/mpbench.c $(MPBENCH_COMMON)
examples_mpbench_mpbench_stock_CPPFLAGS = -DMPB_LIB='"stock libpvm3"'
examples_mpbench_mpbench_stock_LDADD = -lpvm3 -lm
examples_mpbench_mpbench_am_SOURCES = examples/mpbench/mpbench.c $(MPBENCH_COMMON)
examples_mpbench_mpbench_am_CPPFLAGS = -DMPB_LIB='"libpvm3am"'
examples_mpbench_mpbench_am_LDADD = libpvm3am.la -lm
examples_mpbench_mpbench_am_LDFLAGS = -no-install
examples_mpbench_rawbench_SOURCES = examples/mpbench/rawbench.c $(MPBENCH_COMMON)
examples_mpbench_rawbench_LDADD = -lm
EXTRA_DIST += examples/mpbench/run.sh examples/mpbench/report.sh examples/mpbench/plot.sh \
	examples/mpbench/headline.sh

# The same benchmark against MPI, built only where configure found mpicc:
# mpicc's flags, taken from the wrapper itself, so no other object changes.
if HAVE_MPI
noinst_PROGRAMS += examples/mpbench/mpbench_mpi
examples_mpbench_mpbench_mpi_SOURCES = examples/mpbench/mpi.c $(MPBENCH_COMMON)
examples_mpbench_mpbench_mpi_CPPFLAGS = $(MPI_CFLAGS)
examples_mpbench_mpbench_mpi_LDADD = $(MPI_LIBS) -lm
else
EXTRA_DIST += examples/mpbench/mpi.c
endif

MPBENCH_OUT ?= $(abs_top_builddir)/bench-out
.PHONY: bench-mpbench
bench-mpbench: examples/mpbench/mpbench_stock examples/mpbench/mpbench_am examples/mpbench/rawbench
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  BENCH_QUICK='$(BENCH_QUICK)' bash $(top_srcdir)/examples/mpbench/run.sh --out '$(MPBENCH_OUT)'
BENCH_TARGETS += bench-mpbench

# The thesis's parallel 2-D FFT (issue 17): one ordinary PVM source built
# against both libraries; FFTW does the 1-D transforms.  -no-install: the
# pvmd spawns fft_am's slaves directly, so it finds libpvm3am.so by rpath.
noinst_PROGRAMS += examples/fft/fft_stock examples/fft/fft_am
FFT_SOURCES = examples/fft/main.c examples/fft/master.c examples/fft/slave.c \
	examples/fft/messages.c examples/fft/check.c examples/fft/fft.h
examples_fft_fft_stock_SOURCES = $(FFT_SOURCES)
examples_fft_fft_stock_CPPFLAGS = -DFFT_LIB='"stock"' $(FFTW3_CFLAGS)
examples_fft_fft_stock_LDADD = -lpvm3 $(FFTW3_LIBS) -lm
examples_fft_fft_am_SOURCES = $(FFT_SOURCES)
examples_fft_fft_am_CPPFLAGS = -DFFT_LIB='"libpvm3am"' $(FFTW3_CFLAGS)
examples_fft_fft_am_LDADD = libpvm3am.la $(FFTW3_LIBS) -lm
examples_fft_fft_am_LDFLAGS = -no-install
EXTRA_DIST += examples/fft/run.sh examples/fft/report.sh examples/fft/plot.sh examples/fft/seconds.awk \
	examples/fft/figures

FFT_OUT ?= $(abs_top_builddir)/bench-fft-out
.PHONY: bench-fft
bench-fft: examples/fft/fft_stock examples/fft/fft_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  BENCH_QUICK='$(BENCH_QUICK)' bash $(top_srcdir)/examples/fft/run.sh --out '$(FFT_OUT)'
BENCH_TARGETS += bench-fft

# Job start-up time (issue 20): spawn N, one packed reply from each.
noinst_PROGRAMS += examples/startup/startup_stock examples/startup/startup_am
examples_startup_startup_stock_SOURCES = examples/startup/startup.c
examples_startup_startup_stock_CPPFLAGS =
examples_startup_startup_stock_LDADD = -lpvm3
examples_startup_startup_am_SOURCES = examples/startup/startup.c
examples_startup_startup_am_CPPFLAGS = -DSTARTUP_AM -I$(top_srcdir)/pvmam
examples_startup_startup_am_LDADD = libpvm3am.la
examples_startup_startup_am_LDFLAGS = -no-install
EXTRA_DIST += examples/startup/run.sh

.PHONY: bench-startup
bench-startup: examples/startup/startup_stock examples/startup/startup_am
	top_builddir='$(abs_top_builddir)' top_srcdir='$(abs_top_srcdir)' PVMD='$(PVMD)' \
	  bash $(top_srcdir)/examples/startup/run.sh 8 15 stock am-default am-off
BENCH_TARGETS += bench-startup
