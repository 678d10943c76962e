#!/bin/bash
# run.sh - the parallel FFT comparison: fft_stock with the default (pvmd)
# route and with PvmRouteDirect, fft_am with each PVMAM_TRANSPORT (off =
# the daemon route, tcp, udp, shm), and FFTW's own MPI transform
# (fftw-mpi: fft_fftw_mpi under mpirun, S ranks, outside PVM; where it was
# built, else skipped with a message), for several slave counts, in one
# private VM, interleaved (per round: per slave count: every
# configuration); then medians, the table and the figures (report.sh,
# plot.sh).
#   run.sh [--quick] [--out DIR] [--rounds N] [--reps N] [--warm N] [--n N]
#          [--slaves LIST] [--gran row|pair] [--configs LIST] [--hosts H]
# --hosts H: on a VM of H namespace hosts (tests/lib/netvm.sh, as root),
# the master on node1 and the slaves spread over all hosts by pvm_spawn;
# am-default is libpvm3am with PVMAM_TRANSPORT unset (shm on a host, tcp
# between hosts); fftw-mpi runs on one host only and is left out.
# Full run: N = 1152, 1,2,4,8 slaves, 5 rounds x 3 timed passes after one
# untimed pass (under 1.5 minutes here).  Quick: 1 round (under 20 s).
# Environment: top_builddir (default .), top_srcdir (default: from this
# script), PVMD, BENCH_QUICK=1 (same as --quick).  Progress goes to stderr.
# The program is examples/fft; what the drivers share: ../lib/bench.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_tag=fft
B=$(bench_dir examples/fft)
F=$(bench_dir bench/fft)
OUTDIR=$top_builddir/bench-fft-out
CONFIGS="stock-default stock-direct am-off am-tcp am-udp am-shm"
# FFTW-MPI joins where configure found MPI and libfftw3_mpi
[ -x "$F/fft_fftw_mpi" ] && CONFIGS="$CONFIGS fftw-mpi"
ROUNDS=5 REPS=3 WARM=1 N=1152 SLAVES="1 2 4 8" GRAN=row HOSTS=
bench_usage="[--quick] [--out DIR] [--rounds N] [--reps N] [--warm N] [--n N]
    [--slaves LIST] [--gran row|pair] [--configs LIST] [--hosts H]"
driver_opt() {
    case $1 in
    --warm) WARM=$2 ;;
    --n) N=$2 ;;
    --slaves) SLAVES=$(echo "$2" | tr , ' ') ;;
    --gran) GRAN=$2 ;;
    --hosts) HOSTS=$2 ;;
    *) bench_used=0 ;;
    esac
}
bench_args "$@"
# explicit options given with --quick still win
[ -n "$quick" ] && [ "$ROUNDS" = 5 ] && ROUNDS=1
bench_need fft_stock fft_am
if [ ! -x "$F/fft_fftw_mpi" ] || [ -n "$HOSTS" ]; then
    case " $CONFIGS " in
    *" fftw-mpi "*)
        CONFIGS=$(for c in $CONFIGS; do [ "$c" = fftw-mpi ] || echo "$c"; done | paste -sd' ')
        if [ -n "$HOSTS" ]; then
            echo "run.sh: fftw-mpi skipped: it runs on one host only (mpirun here)" >&2
        else
            echo "run.sh: fftw-mpi skipped: $F/fft_fftw_mpi not built (configure found no mpicc" \
                 "or no libfftw3_mpi: install 'libopenmpi-dev libfftw3-mpi-dev', scripts/install-deps.sh" \
                 "does, and configure again)" >&2
        fi ;;
    esac
fi
bench_outdir
bench_vm "$HOSTS"
say "output in $OUTDIR; N=$N, granularity $GRAN, slaves: $SLAVES; configurations: $CONFIGS;" \
    "rounds: $ROUNDS x $REPS timed passes${quick:+ (quick)}"
echo "$N $GRAN $ROUNDS $REPS $WARM" > "$OUTDIR/params"

# One configuration, one slave count, one round: the program's lines land
# in rounds/CFG/rK/sS.txt.  A run may take at most 120 s (a lost message
# would otherwise hang it; fft's own -T gives up first).
run_one() {
    local cfg=$1 s=$2 k=$3 dir=$OUTDIR/rounds/$1/r$3 rc
    local args=(-n "$N" -s "$s" -g "$GRAN" -w "$WARM" -r "$REPS" -T 110)
    mkdir -p "$dir"
    if [ "$cfg" = fftw-mpi ]; then
        # S ranks, unpinned like fft's tasks; no granularity of its own
        timeout 120 mpirun --allow-run-as-root --oversubscribe -np "$s" --bind-to none \
            "$F/fft_fftw_mpi" -n "$N" -w "$WARM" -r "$REPS" -T 110 > "$dir/s$s.txt" 2> "$dir/s$s.err"
    else
        bench_cfg "$cfg" 120 "$B/fft_stock" "$B/fft_am" "${args[@]}" > "$dir/s$s.txt" 2> "$dir/s$s.err"
    fi
    rc=$?
    if [ $rc != 0 ] || grep -q ' FAIL$' "$dir/s$s.txt"; then
        say "$cfg S=$s round $k FAILED (exit $rc): $(grep -v 'BEGIN\|EOF\|waiting' "$dir/s$s.err" | tail -2 | tr '\n' ' ')"
        echo "$cfg S=$s round $k exit $rc" >> "$OUTDIR/failed"
    fi
    return $rc
}

ncfg=$(( $(echo $CONFIGS | wc -w) * $(echo $SLAVES | wc -w) ))
for k in $(seq "$ROUNDS"); do
    i=0
    for s in $SLAVES; do
        for cfg in $CONFIGS; do
            i=$((i + 1))
            run_one "$cfg" "$s" "$k"
            med=$(awk -f "$here/seconds.awk" "$OUTDIR/rounds/$cfg/r$k/s$s.txt" | sort -g -k2 |
                  awk '{ v[NR] = $2 } END { if (NR) printf "median %.4f s", v[int((NR + 1) / 2)] }')
            say "round $k/$ROUNDS, S=$s, $cfg ($i/$ncfg): ${med:-no result}"
        done
    done
done
bench_report
if [ -s "$OUTDIR/failed" ]; then
    say "FAILED runs: $(tr '\n' ';' < "$OUTDIR/failed")"
    exit 1
fi
exit 0
