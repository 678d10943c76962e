# examples: programs users read (their benchmark drivers live in bench/)

# The thesis's parallel 2-D FFT: one ordinary PVM source built
# against both libraries; FFTW does the 1-D transforms.  -no-install: the
# pvmd spawns fft_am's slaves directly, so it finds libpvm3am.so by rpath.
# Its comparison run is bench-fft (bench/local.mk, bench/fft/run.sh).
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
