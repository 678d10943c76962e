#!/bin/sh
# Smoke test of the MPBench suite, not timing-dependent: mpbench built
# against both libraries and rawbench run tiny sizes (0 included) in a
# private VM, then the driver runs a tiny comparison end to end.  Checks
# that every .dat file exists with one sane value (finite, positive; 0
# allowed for bandwidths of 0 bytes) per size, and that the driver writes
# its table (and figures where gnuplot exists).  mpbench_mpi, where
# configure found mpicc, runs once tiny under mpirun (outside PVM), and
# mpbench_ucx, where configure found UCX, once tiny and in the driver.  The
# group variant (pvm_bcast/pvm_reduce; MPI's collectives) runs too.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$top_builddir/bench/mpbench
OUT=$(mktemp -d)
vm_cleanup() { rm -rf "$OUT"; }
SIZES=0,8,4096
rc=0
bad() { echo "FAILED: $*"; rc=1; }

# file, expected number of lines
check_dat() {
    [ -s "$1" ] || { bad "$1 missing or empty"; return; }
    awk -v want="$2" -v f="$1" '
        { n++
          if ($2 !~ /^[0-9.]+([eE][-+]?[0-9]+)?$/) { print f ": not a finite number: " $0; bad = 1 }
          else if ($2 + 0 <= 0 && !($1 == 0 && f ~ /bandwidth/)) { print f ": not positive: " $0; bad = 1 }
          if (NF != 2) { print f ": not two columns: " $0; bad = 1 } }
        END { if (n != want) { print f ": " n " lines, want " want; bad = 1 }; exit bad }' "$1" || rc=1
}

vm_start || exit 99
ln -s "${PVMGS:-/usr/bin/pvmgs}" "$VM_BIN/pvmgs"   # stock libgpvm3 spawns it by name
# collectives with 3 tasks, not the default 4, are named TEST-p3
TESTS="latency roundtrip bandwidth bibandwidth broadcast-p3 reduce-p3 allreduce-p3"
for lib in stock am; do
    echo "== mpbench_$lib"
    if ! timeout 25 "$B/mpbench_$lib" -q -s $SIZES -i 4 -w 1 -r 2 -p 3 -V psend,pack,group -o "$OUT/$lib" > "$OUT/$lib.txt"; then
        bad "mpbench_$lib exited with an error"
        cat "$OUT/$lib.txt"
        continue
    fi
    for t in $TESTS; do
        for v in psend pack; do
            check_dat "$OUT/$lib/${t}_$v.dat" 3
        done
        case $t in *-p3) check_dat "$OUT/$lib/${t}_group.dat" 3 ;; esac
    done
done
echo "== mpbench_stock, direct route"
timeout 20 "$B/mpbench_stock" -q -d -T latency,bandwidth -s 8,4096 -i 4 -w 1 -r 1 -o "$OUT/direct" > "$OUT/direct.txt" ||
    bad "mpbench_stock -d exited with an error"
check_dat "$OUT/direct/latency_psend.dat" 2
check_dat "$OUT/direct/bandwidth_pack.dat" 2
vm_stop

echo "== rawbench"
timeout 20 "$B/rawbench" -q -s 8,4096 -i 4 -w 1 -r 2 -o "$OUT/raw" > "$OUT/raw.txt" || bad "rawbench exited with an error"
for t in tcp_latency udp_latency tcp_bandwidth; do
    check_dat "$OUT/raw/$t.dat" 2
done

echo "== mpbench_mpi"
if [ -x "$B/mpbench_mpi" ]; then
    # 3 ranks: the collectives are named TEST-p3, as above.  In sanitizer
    # builds LeakSanitizer would report Open MPI's own allocations (its
    # plugins are unloaded, so no suppression can name them); mpi.c uses
    # none of our libraries.
    if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 30 mpirun --allow-run-as-root --oversubscribe -np 3 --bind-to none "$B/mpbench_mpi" -q \
            -s $SIZES -i 4 -w 1 -r 2 -V psend,group -o "$OUT/mpi" > "$OUT/mpi.txt" 2>&1; then
        for t in latency bandwidth broadcast-p3 reduce-p3 allreduce-p3; do
            check_dat "$OUT/mpi/${t}_psend.dat" 3
        done
        for t in broadcast-p3 reduce-p3 allreduce-p3; do
            check_dat "$OUT/mpi/${t}_group.dat" 3
        done
    else
        bad "mpbench_mpi exited with an error"
        cat "$OUT/mpi.txt"
    fi
else
    echo "skipped: mpbench_mpi not built (configure found no mpicc)"
fi

echo "== mpbench_ucx"
drvcfg=stock-default,am-off,raw
if [ -x "$B/mpbench_ucx" ]; then
    # 0 bytes, eager and (1 MiB) rendezvous sizes; collectives are skipped
    drvcfg=$drvcfg,am-shm,ucx
    if timeout 30 "$B/mpbench_ucx" -q -s 0,8,4096,1048576 -i 4 -w 1 -r 2 -T all -o "$OUT/ucx" > "$OUT/ucx.txt" 2>&1; then
        check_dat "$OUT/ucx/latency_psend.dat" 4
        check_dat "$OUT/ucx/bandwidth_psend.dat" 4
        [ ! -e "$OUT/ucx/reduce_psend.dat" ] || bad "mpbench_ucx wrote a reduce series it cannot measure"
    else
        bad "mpbench_ucx exited with an error"
        cat "$OUT/ucx.txt"
    fi
else
    echo "skipped: mpbench_ucx not built (configure found no UCX)"
fi

echo "== run.sh, tiny"
if ! timeout 60 bash "$top_srcdir/bench/mpbench/run.sh" --out "$OUT/drv" --configs "$drvcfg" \
        --sizes 8,4096 --rounds 2 --reps 1 --tests latency,bandwidth,reduce --crowd 3 -- -i 4 -w 1 \
        > "$OUT/drv.txt" 2> "$OUT/drv.err"; then
    bad "run.sh exited with an error"
    cat "$OUT/drv.err"
fi
for s in stock-default_latency_psend am-off_bandwidth_pack raw-tcp_latency raw-tcp_bandwidth \
         am-off_reduce_psend stock-default_reduce-p3_pack; do
    check_dat "$OUT/drv/dat/$s.dat" 2
done
grep -q '^am-off  *psend' "$OUT/drv/summary.txt" || bad "summary table has no am-off row"
grep -q '== latency_psend' "$OUT/drv/summary.txt" || bad "summary table has no latency table"
grep -q '== reduce-p3_psend' "$OUT/drv/summary.txt" || bad "summary table has no reduce-p3 table"
case $drvcfg in *ucx*)
    check_dat "$OUT/drv/dat/ucx_latency_psend.dat" 2
    check_dat "$OUT/drv/dat/ucx_bandwidth_psend.dat" 2
    grep -q '^ucx  *psend' "$OUT/drv/summary.txt" || bad "summary table has no ucx row"
    grep -Eq '^ +4096( +[0-9.e+-]+){3} +[0-9.]+x( +[0-9.e+-]+){3} +[0-9.]+x$' "$OUT/drv/summary.txt" ||
        bad "summary table has no am-shm/ucx row for 4096 bytes" ;;
esac
if command -v gnuplot >/dev/null; then
    for f in latency_psend bandwidth_pack; do
        [ -s "$OUT/drv/$f.png" ] || bad "figure $f.png missing"
    done
fi
[ $rc = 0 ] && echo "mpbench smoke test passed"
exit $rc
