#!/bin/bash
# run.sh - the MPBench comparison: stock PVM (default and direct route),
# libpvm3am with each PVMAM_TRANSPORT (am-default: none set), raw sockets and Open MPI (mpi, where
# mpbench_mpi was built), in one private VM, interleaved round by round;
# then medians, figures and the summary table.
#   run.sh [--quick] [--out DIR] [--rounds N] [--reps N] [--configs LIST]
#          [--sizes LIST] [--max BYTES] [--tcap SECS] [--tests LIST]
#          [--crowd N] [--hosts] [-- more mpbench options]
# --hosts: between two hosts of a netvm VM (network namespaces on a bridge,
# tests/lib/netvm.sh; as root): the master on node1, its slaves on node2;
# configurations stock-default, stock-direct, am-tcp, am-udp and raw by
# default (raw: rawbench -N, its far end's sockets in node2's namespace);
# one-host-only ones (am-off, am-shm, am-default, mpi) are left out.
# A configuration am-TRANSPORT@POLICY runs with PVMAM_WAIT=POLICY.
# The collectives run with 4 tasks, and again with --crowd tasks (default
# 8, 0: not) as TEST-pN: more tasks than this machine has cores.
# Full run: all tests, 8 B..1 MiB, 3 rounds x 3 timed runs of <= 10 ms per
# point (about 5 minutes).  Quick: latency and bandwidth, 8 B..1 MiB in
# powers of 4 (and 1 MiB), 3 rounds x 3 runs of <= 5 ms (under a minute).
# Environment: top_builddir (default .), top_srcdir (default: from this
# script), PVMD, BENCH_QUICK=1 (same as --quick).  Progress goes to stderr.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-.}
B=$(cd "$top_builddir" && pwd)/examples/mpbench
OUTDIR=$top_builddir/bench-out
CONFIGS="stock-default stock-direct am-off am-tcp am-udp am-shm raw"
# Open MPI joins the default comparison where configure found mpicc
[ -x "$B/mpbench_mpi" ] && CONFIGS="$CONFIGS mpi"
ROUNDS=3 REPS=3 MAX=1048576 TCAP=0.01 SIZES="" TESTS=all CROWD=8
quick=${BENCH_QUICK:-}
hosts= configs_given=
extra=()
while [ $# -gt 0 ]; do
    case $1 in
    --quick) quick=1 ;;
    --out) OUTDIR=$2; shift ;;
    --rounds) ROUNDS=$2; shift ;;
    --reps) REPS=$2; shift ;;
    --configs) CONFIGS=$(echo "$2" | tr , ' '); configs_given=1; shift ;;
    --sizes) SIZES=$2; shift ;;
    --max) MAX=$2; shift ;;
    --tcap) TCAP=$2; shift ;;
    --tests) TESTS=$2; shift ;;
    --crowd) CROWD=$2; shift ;;
    --hosts) hosts=1 ;;
    --) shift; extra=("$@"); break ;;
    *) echo "usage: run.sh [--quick] [--out DIR] [--rounds N] [--reps N] [--configs LIST]" \
            "[--sizes LIST] [--max BYTES] [--tcap SECS] [--tests LIST] [--crowd N]" \
            "[-- mpbench options]" >&2; exit 2 ;;
    esac
    shift
done
[ "$quick" = 0 ] && quick=
if [ -n "$quick" ]; then
    # explicit options given with --quick still win
    [ "$TCAP" = 0.01 ] && TCAP=0.005
    [ "$TESTS" = all ] && TESTS=latency,bandwidth
    [ -z "$SIZES" ] && SIZES=$(awk -v m="$MAX" 'BEGIN { for (n = 8; n < m; n *= 4) printf "%d,", n; print m }')
fi
for p in mpbench_stock mpbench_am rawbench; do
    [ -x "$B/$p" ] || { echo "run.sh: $B/$p not built (make)" >&2; exit 2; }
done
case " $CONFIGS " in
*" mpi "*) [ -x "$B/mpbench_mpi" ] ||
    { echo "run.sh: $B/mpbench_mpi not built (configure found no mpicc)" >&2; exit 2; } ;;
esac
if [ -n "$SIZES" ]; then sizeopt=(-s "$SIZES"); else sizeopt=(-m "$MAX"); fi
common=(-r "$REPS" -w 5 -i 1000 -t "$TCAP" "${sizeopt[@]}")

mkdir -p "$OUTDIR" || exit 2
OUTDIR=$(cd "$OUTDIR" && pwd)
rm -rf "$OUTDIR/rounds" "$OUTDIR/dat"
mkdir -p "$OUTDIR/rounds" "$OUTDIR/dat"
if [ -n "$hosts" ]; then
    # two namespace hosts; every program of the run on node1, slaves on node2
    [ -n "$configs_given" ] || CONFIGS="stock-default stock-direct am-tcp am-udp raw"
    CONFIGS=$(for c in $CONFIGS; do
        case $c in am-off*|am-shm*|am-default*|mpi) ;; *) echo "$c" ;; esac
    done | paste -sd' ')
    CROWD=0
    . "$top_srcdir/tests/lib/netvm.sh"
    nvm_start 2 || exit 1
    nvm_addhosts || exit 1
    MPBENCH_HOST=$(nvm_name 2); export MPBENCH_HOST
    on1() { nvm_on 1 "$@"; }
    RAW_NS=(-N "/run/netns/$(nvm_ns 2):$(nvm_addr 1):$(nvm_addr 2)")
else
    RAW_NS=()
    . "$top_srcdir/tests/lib/pvmvm.sh"
    vm_start || exit 1
    on1() { "$@"; }
fi
start=$(date +%s)
say() { echo "[mpbench $(( $(date +%s) - start ))s] $*" >&2; }
say "output in $OUTDIR; configurations: $CONFIGS; rounds: $ROUNDS;" \
    "sizes: ${SIZES:-8..$MAX}${quick:+ (quick)}"

# The collectives among the chosen tests, comma-separated (or nothing).
collectives() {
    case $TESTS in
    all) echo broadcast,reduce,allreduce ;;
    *) echo "$TESTS" | tr , '\n' | grep -xE 'broadcast|reduce|allreduce' | paste -sd, ;;
    esac
}

# One mpbench run of configuration cfg: mpbench ARGS...
mpb() {
    local cfg=$1; shift
    case $cfg in
    stock-default) (unset PVMAM_TRANSPORT; on1 timeout 300 "$B/mpbench_stock" "$@") ;;
    stock-direct)  (unset PVMAM_TRANSPORT; on1 timeout 300 "$B/mpbench_stock" -d "$@") ;;
    am-*@*)   # am-TRANSPORT@POLICY: with PVMAM_WAIT=POLICY
        (export PVMAM_WAIT=${cfg#*@}; mpb "${cfg%@*}" "$@") ;;
    am-default)   # no PVMAM_TRANSPORT: what a user gets (shm,tcp)
        (unset PVMAM_TRANSPORT; export PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_WAIT
         timeout 300 "$B/mpbench_am" "$@") ;;
    am-*)
        # spawned tasks get the transport through PVM_EXPORT, as users would do it
        (export PVMAM_TRANSPORT=${cfg#am-} PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_TRANSPORT:PVMAM_WAIT
         on1 timeout 300 "$B/mpbench_am" "$@") ;;
    mpi) mpi_run "$@" ;;
    *) echo "run.sh: unknown configuration $cfg" >&2; return 2 ;;
    esac
}

# mpbench_mpi under mpirun, outside PVM: one rank per task of mpbench, so
# -p N (the collectives' crowd) becomes N ranks, 4 when collectives run,
# 2 otherwise.  The program pins its ranks itself, as mpbench does.
mpi_run() {
    local np=2 args=()
    [ -n "$(collectives)" ] && np=4
    while [ $# -gt 0 ]; do
        if [ "$1" = -p ]; then np=$2; shift; else args+=("$1"); fi
        shift
    done
    timeout 300 mpirun --allow-run-as-root --oversubscribe -np "$np" --bind-to none \
        "$B/mpbench_mpi" "${args[@]}"
}

# One configuration, one round: its .dat files land in rounds/CFG/rK.
run_one() {
    local cfg=$1 k=$2 dir=$OUTDIR/rounds/$1/r$2 rc coll
    mkdir -p "$dir"
    if [ "$cfg" = raw ]; then
        on1 timeout 300 "$B/rawbench" "${RAW_NS[@]}" "${common[@]}" -T "$(raw_tests)" -o "$dir" > "$dir/table.txt"
    else
        mpb "$cfg" "${common[@]}" -T "$TESTS" -o "$dir" "${extra[@]}" > "$dir/table.txt" &&
        coll=$(collectives) &&
        if [ "$CROWD" -gt 0 ] && [ -n "$coll" ]; then
            mpb "$cfg" "${common[@]}" -T "$coll" -p "$CROWD" -o "$dir" "${extra[@]}" >> "$dir/table.txt"
        fi
    fi
    rc=$?
    [ $rc = 0 ] || { say "$cfg round $k FAILED (exit $rc)"; echo "$cfg" >> "$OUTDIR/failed"; }
    return $rc
}

# the raw baselines that match the chosen tests
raw_tests() {
    case $TESTS in
    all) echo all ;;
    *) echo "$TESTS" | sed 's/roundtrip//; s/latency/tcp_latency,udp_latency/; s/bandwidth/tcp_bandwidth,udp_bandwidth/' ;;
    esac
}

rm -f "$OUTDIR/failed"
ncfg=$(echo $CONFIGS | wc -w)
for k in $(seq "$ROUNDS"); do
    i=0
    for cfg in $CONFIGS; do
        i=$((i + 1))
        say "round $k/$ROUNDS, $cfg ($i/$ncfg)"
        run_one "$cfg" "$k"
    done
done
vm_atexit
say "measurements done; medians, figures and table"
bash "$here/report.sh" "$OUTDIR" $CONFIGS || exit 1
bash "$here/plot.sh" "$OUTDIR" $CONFIGS || say "no figures (gnuplot missing or failed)"
cat "$OUTDIR/summary.txt"
say "done: $OUTDIR/summary.txt, $OUTDIR/*.png, $OUTDIR/dat/"
failed=
[ -s "$OUTDIR/failed" ] && failed=$(sort -u "$OUTDIR/failed" | paste -sd' ')
echo
bash "$here/headline.sh" "$OUTDIR/metrics.dat" "$failed" | fold -s -w 100
if [ -n "$failed" ]; then
    say "FAILED configurations: $failed"
    exit 1
fi
exit 0
