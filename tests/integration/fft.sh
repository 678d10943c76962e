#!/bin/sh
# The parallel 2-D FFT example (examples/fft) computes the right answer:
# N = 64 and 1152, 1..5 slaves, both message granularities, built against
# stock libpvm3 and against libpvm3am, and mixed (a stock master with our
# slaves and the reverse); ours over tcp (the default), udp and off; stock
# with PvmRouteDirect too.  Every pass must print PASS (the master checks
# against FFTW's serial transform and a forward-inverse round trip), and a
# deliberately damaged result must print FAIL.  Also: the transpose really
# travels over AM, bad options and a missing pvmd give clear errors, and
# the benchmark driver runs a tiny comparison (files and sane numbers; no
# timing is asserted).  Where built, FFTW's MPI transform (bench/fft) must
# PASS too and join the driver's comparison.  Every run is bounded (fft -T and timeout): a lost
# message fails the run instead of hanging the test.
. "$top_srcdir/tests/lib/pvmvm.sh"
B=$(cd "$top_builddir" && pwd)/examples/fft
OUT=$(mktemp -d)
vm_cleanup() { rm -rf "$OUT"; }
rc=0 nruns=0
bad() { echo "FAILED: $*"; rc=1; }
for p in fft_stock fft_am; do
    [ -x "$B/$p" ] || { echo "$B/$p not built"; exit 99; }
done

# fftrun WANT PROGRAM ARGS...: one run of the example with the given
# options; WANT is pass (two lines, forward and roundtrip, both PASS, exit
# 0), or fwd / inv (that pass prints FAIL, the other PASS, exit 1).
fftrun() {
    want=$1; shift
    nruns=$((nruns + 1))
    timeout 45 "$@" -T 30 > "$OUT/o" 2> "$OUT/e"
    st=$?
    ok=1
    [ "$(grep -c '^fft ' "$OUT/o")" = 2 ] || ok=0
    # every line is well formed: a finite, non-negative error and time
    awk '/^fft / { for (i = 2; i <= NF; i++) { split($i, kv, "="); f[kv[1]] = kv[2] }
                   if (f["error"] !~ /^[0-9.]+(e[-+]?[0-9]+)?$/ || f["seconds"] !~ /^[0-9.]+$/ ||
                       f["seconds"] + 0 <= 0 || $NF !~ /^(PASS|FAIL)$/) exit 1 }' "$OUT/o" || ok=0
    case $want in
    pass) [ $st = 0 ] && [ "$(grep -c ' PASS$' "$OUT/o")" = 2 ] || ok=0 ;;
    fwd)  [ $st = 1 ] && grep -q 'pass=forward .* FAIL$' "$OUT/o" && grep -q 'pass=roundtrip .* PASS$' "$OUT/o" || ok=0 ;;
    inv)  [ $st = 1 ] && grep -q 'pass=forward .* PASS$' "$OUT/o" && grep -q 'pass=roundtrip .* FAIL$' "$OUT/o" || ok=0 ;;
    esac
    if [ $ok = 1 ]; then
        echo "ok ($want): ${PVMAM_TRANSPORT:+PVMAM_TRANSPORT=$PVMAM_TRANSPORT }$(basename "$1") $(shift; echo "$*" | sed "s,$B/,,g")"
    else
        why="exit $st"
        [ $st = 3 ] && why="hung: a message never arrived (fft -T gave up)"
        bad "${PVMAM_TRANSPORT:+PVMAM_TRANSPORT=$PVMAM_TRANSPORT }$* (want $want): $why"
        grep -v 'BEGIN$\|EOF$\|still running' "$OUT/o" "$OUT/e" | sed 's/^/    | /'
    fi
}

echo "== bad options and no pvmd: a clear error, exit 2 (1 without a pvmd)"
for args in "-n 1" "-s 0" "-s 65" "-n 4 -s 5" "-g columns" "-r 0" "-e 2" "-C both" "-S fft_am" "-T x" "-n 64 stray"; do
    # shellcheck disable=SC2086
    timeout 10 "$B/fft_am" $args > "$OUT/o" 2> "$OUT/e"
    st=$?
    if [ $st = 2 ] && grep -q '^fft: ' "$OUT/e" && [ ! -s "$OUT/o" ]; then
        echo "ok: fft_am $args: $(head -1 "$OUT/e")"
    else
        bad "fft_am $args: exit $st, want 2 and a message"; cat "$OUT/o" "$OUT/e"
    fi
done
timeout 10 "$B/fft_stock" -h > "$OUT/o" 2>&1 && grep -q 'granularity' "$OUT/o" || bad "fft_stock -h"
mkdir "$OUT/nopvm"
PVM_TMP=$OUT/nopvm timeout 20 "$B/fft_am" -n 8 -s 1 > "$OUT/o" 2> "$OUT/e"
st=$?
[ $st = 1 ] && grep -q 'cannot reach a pvmd' "$OUT/e" && echo "ok: no pvmd: $(grep 'cannot reach' "$OUT/e")" ||
    { bad "no pvmd: exit $st"; cat "$OUT/e"; }

vm_start || exit 99
unset PVMAM_TRANSPORT PVMAM_VERBOSE

echo "== both builds, N = 64 and 1152, 1..5 slaves, both granularities (ours over tcp, the default)"
for n in 64 1152; do
    for s in 1 2 3 4 5; do
        for g in row pair; do
            for lib in stock am; do
                fftrun pass "$B/fft_$lib" -n $n -s $s -g $g
            done
        done
    done
done

echo "== mixed: a stock master with our slaves, and the reverse"
for n in 64 1152; do
    for s in 1 2 3 4 5; do
        for g in row pair; do
            fftrun pass "$B/fft_stock" -n $n -s $s -g $g -S "$B/fft_am"
            fftrun pass "$B/fft_am" -n $n -s $s -g $g -S "$B/fft_stock"
        done
    done
done

echo "== stock with PvmRouteDirect"
for s in 1 2 3 4 5; do
    fftrun pass "$B/fft_stock" -d -n 64 -s $s
done
fftrun pass "$B/fft_stock" -d -n 1152 -s 3 -g row
fftrun pass "$B/fft_stock" -d -n 1152 -s 4 -g pair

echo "== ours over udp and over the daemon route (off)"
export PVM_EXPORT=PVMAM_TRANSPORT
for t in udp off; do
    export PVMAM_TRANSPORT=$t
    for s in 1 2 3 4 5; do
        fftrun pass "$B/fft_am" -n 64 -s $s -g row
    done
    fftrun pass "$B/fft_am" -n 64 -s 5 -g pair
    fftrun pass "$B/fft_am" -n 1152 -s 3 -g row
    fftrun pass "$B/fft_am" -n 1152 -s 4 -g pair
    fftrun pass "$B/fft_stock" -n 1152 -s 3 -S "$B/fft_am"
done
unset PVMAM_TRANSPORT PVM_EXPORT

echo "== the transpose travels over AM (tcp, udp), not with off"
# 2 slaves, N = 64, row messages, 4 passes (-w 2, one timed, the round
# trip): per pass each slave sends 32 segments to its sibling and 32
# result columns to the master, 256 messages in all.  Until the link
# between the two slaves is up, some of the first pass may take the daemon
# route; every later pass must go over AM: at least 192 each (a control
# message such as the slave's ready may go over AM too).
for t in tcp udp off; do
    PVMAM_TRANSPORT=$t PVMAM_VERBOSE=1 PVM_EXPORT=PVMAM_TRANSPORT:PVMAM_VERBOSE \
        timeout 45 "$B/fft_am" -n 64 -s 2 -w 2 -T 30 > "$OUT/o" 2> "$OUT/e"
    st=$?
    # the slaves' totals reach the master's stderr through pvm_catchout
    am=$(grep '^\[t[0-9a-f]*\] .*exit: sent [0-9]* messages over AM' "$OUT/e" |
         sed 's/.*sent \([0-9]*\) messages over AM.*/\1/' | tr '\n' ' ')
    case $t in
    off) good=$(echo "$am" | awk '{ for (i = 1; i <= NF; i++) if ($i > 0) bad = 1; print !bad }') ;;
    *) good=$(echo "$am" | awk '{ print (NF == 2 && $1 >= 192 && $2 >= 192) }') ;;
    esac
    if [ $st = 0 ] && [ "$good" = 1 ]; then
        echo "ok: $t: messages each slave sent over AM: ${am:-none}"
    else
        bad "$t: messages the slaves sent over AM: '$am' (exit $st)"; grep -v 'BEGIN$\|EOF$' "$OUT/e" | head -20
    fi
done

echo "== a deliberately damaged result fails the check"
for lib in stock am; do
    fftrun fwd "$B/fft_$lib" -n 64 -s 3 -C fwd
    fftrun inv "$B/fft_$lib" -n 64 -s 3 -g pair -C inv
    fftrun fwd "$B/fft_$lib" -n 1152 -s 4 -C fwd
done
# a tolerance below the transform's rounding error fails both passes
timeout 45 "$B/fft_am" -n 1152 -s 2 -e 1e-30 -T 30 > "$OUT/o" 2> "$OUT/e"
st=$?
[ $st = 1 ] && [ "$(grep -c ' FAIL$' "$OUT/o")" = 2 ] && echo "ok: -e 1e-30: both passes FAIL" ||
    { bad "-e 1e-30: exit $st, want two FAILs"; cat "$OUT/o"; }

echo "== input from a file"
if command -v perl >/dev/null; then
    perl -e 'print pack("d*", map { sin($_ * 0.37) } 1 .. 2 * 48 * 48)' > "$OUT/in48"
    fftrun pass "$B/fft_am" -n 48 -s 5 -i "$OUT/in48"
    timeout 10 "$B/fft_am" -n 47 -s 2 -i "$OUT/in48" > "$OUT/o" 2> "$OUT/e"
    [ $? = 2 ] && grep -q 'expected exactly' "$OUT/e" && echo "ok: wrong-sized input: $(cat "$OUT/e")" ||
        bad "a wrong-sized input file was not refused"
fi
vm_stop

# FFTW's MPI transform (bench/fft/fftw_mpi.c), where configure found MPI
# and libfftw3_mpi: N = 64 and an uneven 50 over 3 ranks must PASS against
# the same serial oracle.  LeakSanitizer off as for mpbench_mpi
# (tests/integration/mpbench.sh): Open MPI's own allocations.
F=$(cd "$top_builddir" && pwd)/bench/fft
drvcfg=stock-default,stock-direct,am-tcp
echo "== fft_fftw_mpi"
if [ -x "$F/fft_fftw_mpi" ]; then
    drvcfg=$drvcfg,fftw-mpi
    for ns in "64 2" "50 3"; do
        set -- $ns
        nruns=$((nruns + 1))
        if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 45 mpirun --allow-run-as-root \
                --oversubscribe -np "$2" --bind-to none "$F/fft_fftw_mpi" -n "$1" -r 2 -T 30 > "$OUT/o" 2> "$OUT/e" &&
                [ "$(grep -c "^fft n=$1 slaves=$2 .*lib=fftw-mpi .*pass=forward .* PASS\$" "$OUT/o")" = 2 ]; then
            echo "ok: fftw-mpi N=$1 S=$2: $(tail -1 "$OUT/o")"
        else
            bad "fft_fftw_mpi -n $1 on $2 ranks"; cat "$OUT/o" "$OUT/e"
        fi
    done
else
    echo "skipped: fft_fftw_mpi not built (configure found no mpicc or no libfftw3_mpi)"
fi

echo "== the benchmark driver, tiny"
if ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0" timeout 120 bash "$top_srcdir/bench/fft/run.sh" \
        --out "$OUT/drv" --n 64 --slaves 1,2 --rounds 2 --reps 2 \
        --configs "$drvcfg" > "$OUT/drv.txt" 2> "$OUT/drv.err"; then
    for c in $(echo "$drvcfg" | tr , ' '); do
        # slaves median min max passes: 2 slave counts, 2 rounds x 2 passes each
        awk -v f="$c" 'NF != 5 || $2 <= 0 || $3 > $2 || $2 > $4 || $5 != 4 { print f ": bad line: " $0; bad = 1 }
            END { if (NR != 2) { print f ": " NR " lines, want 2"; bad = 1 }; exit bad }' "$OUT/drv/dat/$c.spread" ||
            bad "dat/$c.spread"
        [ "$(head -1 "$OUT/drv/dat/$c.speedup" | cut -d' ' -f1-2)" = "1 1" ] || bad "dat/$c.speedup does not start at 1 1"
    done
    grep -q '^== execution time' "$OUT/drv/summary.txt" && grep -q 'best stock' "$OUT/drv/summary.txt" &&
        grep -Eq '^ +2 .*am-tcp|^ +2 +[0-9.]+ stock-' "$OUT/drv/summary.txt" || bad "summary.txt incomplete"
    grep -q 'round 2/2, S=2, am-tcp' "$OUT/drv.err" || bad "no progress on stderr"
    case $drvcfg in *fftw-mpi*)
        grep -Eq '^ +2 +[0-9.]+ +[0-9.]+x$' "$OUT/drv/summary.txt" || bad "summary.txt: no fftw-mpi ratio row" ;;
    esac
    if command -v gnuplot >/dev/null; then
        for f in time speedup; do [ -s "$OUT/drv/$f.png" ] || bad "figure $f.png missing"; done
    fi
    [ $rc = 0 ] && echo "ok: driver: $(ls "$OUT/drv" | tr '\n' ' ')"
else
    bad "run.sh exited with an error"; cat "$OUT/drv.err"
fi

echo "$nruns FFT runs checked"
[ $rc = 0 ] && echo "fft test passed"
exit $rc
