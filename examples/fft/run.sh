#!/bin/bash
# run.sh - the parallel FFT comparison: fft_stock with the default (pvmd)
# route and with PvmRouteDirect, fft_am with each PVMAM_TRANSPORT (off =
# the daemon route, tcp, udp), for several slave counts, in one private VM,
# interleaved (per round: per slave count: every configuration); then
# medians, the table and the figures (report.sh, plot.sh).
#   run.sh [--quick] [--out DIR] [--rounds N] [--reps N] [--warm N] [--n N]
#          [--slaves LIST] [--gran row|pair] [--configs LIST] [--hosts H]
# --hosts H: on a VM of H namespace hosts (tests/lib/netvm.sh, as root),
# the master on node1 and the slaves spread over all hosts by pvm_spawn;
# am-default is libpvm3am with PVMAM_TRANSPORT unset (shm on a host, tcp
# between hosts).
# Full run: N = 1152, 1,2,4,8 slaves, 5 rounds x 3 timed passes after one
# untimed pass (under 1.5 minutes here).  Quick: 1 round (under 20 s).
# Environment: top_builddir (default .), top_srcdir (default: from this
# script), PVMD, BENCH_QUICK=1 (same as --quick).  Progress goes to stderr.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-.}
B=$(cd "$top_builddir" && pwd)/examples/fft
OUTDIR=$top_builddir/bench-fft-out
CONFIGS="stock-default stock-direct am-off am-tcp am-udp am-shm"
ROUNDS=5 REPS=3 WARM=1 N=1152 SLAVES="1 2 4 8" GRAN=row HOSTS=
quick=${BENCH_QUICK:-}
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --out) OUTDIR=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --warm) WARM=$2; shift ;;
    --n) N=$2; shift ;;
    --slaves) SLAVES=$(echo "$2" | tr , ' '); shift ;;
    --gran) GRAN=$2; shift ;;
    --configs) CONFIGS=$(echo "$2" | tr , ' '); shift ;;
    --hosts) HOSTS=$2; shift ;;
    *) echo "usage: run.sh [--quick] [--out DIR] [--rounds N] [--reps N] [--warm N] [--n N]" \
            "[--slaves LIST] [--gran row|pair] [--configs LIST] [--hosts H]" >&2; exit 2 ;;
    esac
    shift
done
[ "$quick" = 0 ] && quick=
# explicit options given with --quick still win
[ -n "$quick" ] && [ "$ROUNDS" = 5 ] && ROUNDS=1
for p in fft_stock fft_am; do
    [ -x "$B/$p" ] || { echo "run.sh: $B/$p not built (make)" >&2; exit 2; }
done

mkdir -p "$OUTDIR" || exit 2
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$OUTDIR/rounds" "$OUTDIR/dat" "$OUTDIR/failed"
mkdir -p "$OUTDIR/rounds" "$OUTDIR/dat"
if [ -n "$HOSTS" ]; then
    . "$top_srcdir/tests/lib/netvm.sh"
    nvm_start "$HOSTS" || exit 1
    nvm_addhosts || exit 1
    on1() { nvm_on 1 "$@"; }
else
    . "$top_srcdir/tests/lib/pvmvm.sh"
    vm_start || exit 1
    on1() { "$@"; }
fi
start=$(date +%s)
say() { echo "[fft $(( $(date +%s) - start ))s] $*" >&2; }
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
    case $cfg in
    stock-default) (unset PVMAM_TRANSPORT; on1 timeout 120 "$B/fft_stock" "${args[@]}") ;;
    stock-direct)  (unset PVMAM_TRANSPORT; on1 timeout 120 "$B/fft_stock" -d "${args[@]}") ;;
    am-default) (unset PVMAM_TRANSPORT; on1 timeout 120 "$B/fft_am" "${args[@]}") ;;
    am-*)
        # spawned tasks get the transport through PVM_EXPORT, as users would do it
        (export PVMAM_TRANSPORT=${cfg#am-} PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_TRANSPORT
         on1 timeout 120 "$B/fft_am" "${args[@]}") ;;
    *) echo "run.sh: unknown configuration $cfg" >&2; return 2 ;;
    esac > "$dir/s$s.txt" 2> "$dir/s$s.err"
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
vm_stop
say "measurements done; medians, table and figures"
bash "$here/report.sh" "$OUTDIR" $CONFIGS || exit 1
bash "$here/plot.sh" "$OUTDIR" $CONFIGS || say "no figures (gnuplot missing or failed)"
cat "$OUTDIR/summary.txt"
say "done: $OUTDIR/summary.txt, $OUTDIR/*.png, $OUTDIR/dat/"
if [ -s "$OUTDIR/failed" ]; then
    say "FAILED runs: $(tr '\n' ';' < "$OUTDIR/failed")"
    exit 1
fi
exit 0
