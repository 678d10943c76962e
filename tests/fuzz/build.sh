#!/bin/sh
# Build the libFuzzer targets with clang (ASan + UBSan + libFuzzer) into DIR.
# usage: build.sh SRCDIR BUILDDIR DIR   exit 77 when clang cannot build fuzzers here
# (BUILDDIR holds the generated tables: libam/tr_table.c)
set -eu
src=$1; bld=$2; out=$3
CLANG=${FUZZ_CC:-clang}
command -v "$CLANG" >/dev/null 2>&1 || { echo "SKIP: no $CLANG"; exit 77; }
mkdir -p "$out"
probe=$out/probe.c
echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { (void)d; (void)n; return 0; }' > "$probe"
"$CLANG" -fsanitize=fuzzer "$probe" -o "$out/probe" 2>/dev/null ||
    { echo "SKIP: $CLANG cannot link libFuzzer (Debian: libclang-rt-14-dev)"; exit 77; }
FL="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"
INC="-I$src/libam -I$src/pvm3/core -I$src/pvm3/pack -I$src/pvm3/svc -I$src/pvmam -I$src/tests/fuzz $(pkg-config --cflags libtirpc)"
TIRPC=$(pkg-config --libs libtirpc)
LIBAM="$(ls "$src"/libam/*.c "$src"/libam/shm/*.c | grep -v '/tr_table\.c$') $bld/libam/tr_table.c"
# the build's transport table names ucx only when configure found UCX
# (then with its other files, libam/ucx/)
if grep -q amx_tr_ucx "$bld/libam/tr_table.c"; then
    LIBAM="$LIBAM $(ls "$src"/libam/ucx/*.c) $(pkg-config --cflags --libs ucx)"
else
    LIBAM=$(echo "$LIBAM" | tr ' ' '\n' | grep -v '/tr_ucx\.c$' | tr '\n' ' ')
fi
PVM3=$(ls "$src"/pvm3/*/*.c)
PVMAM=$(ls "$src"/pvmam/*.c | grep -v '/route_table\.c$')
PACK="$src/pvm3/pack/pmsg.c $src/pvm3/pack/buf.c $src/pvm3/pack/pack.c $src/pvm3/pack/pack_xdr.c \
      $src/pvm3/pack/pack_raw.c $src/pvm3/pack/packf.c $src/pvm3/pack/pkmesg.c $src/pvm3/core/perr.c"
build() { name=$1; shift; echo "fuzz: building $name"; "$CLANG" $FL $INC "$@" -o "$out/$name" -lm; }
build fuzz_upk -DPVMI_TRACE_NONE "$src/tests/fuzz/fuzz_upk.c" $PACK $TIRPC   # the packing part alone, as tests/pvm3/local.mk
build fuzz_am_udp "$src/tests/fuzz/fuzz_am_udp.c" $LIBAM
build fuzz_am_tcp "$src/tests/fuzz/fuzz_am_tcp.c" $LIBAM
build fuzz_am_shm "$src/tests/fuzz/fuzz_am_shm.c" $LIBAM
build fuzz_wire "$src/tests/fuzz/fuzz_wire.c" "$src/tests/fuzz/no_routes.c" $PVM3 $TIRPC
build fuzz_ctrl "$src/tests/fuzz/fuzz_ctrl.c" "$src/tests/fuzz/no_routes.c" $PVM3 $PVMAM $LIBAM $TIRPC
