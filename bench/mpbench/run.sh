#!/bin/bash
# run.sh - the MPBench comparison: stock PVM (default and direct route),
# libpvm3am with each PVMAM_TRANSPORT (am-default: none set), raw sockets,
# Open MPI (mpi, where mpbench_mpi was built) and UCX itself (ucx: ucp
# active messages, latency and bandwidth only, UCX_TLS=sm,self unless set;
# where mpbench_ucx was built, else skipped with a message), in one private
# VM, interleaved round by round; then medians, figures and the summary
# table.
#   run.sh [--quick] [--out DIR] [--rounds N] [--reps N] [--configs LIST]
#          [--sizes LIST] [--max BYTES] [--tcap SECS] [--tests LIST]
#          [--crowd N] [--hosts] [-- more mpbench options]
# --hosts: between two hosts of a netvm VM (network namespaces on a bridge,
# tests/lib/netvm.sh; as root): the master on node1, its slaves on node2;
# configurations stock-default, stock-direct, am-tcp, am-udp and raw by
# default (raw: rawbench -N, its far end's sockets in node2's namespace);
# one-host-only ones (am-off, am-shm, am-default, mpi, ucx) are left out.
# A configuration am-TRANSPORT@POLICY runs with PVMAM_WAIT=POLICY.
# The collectives run with 4 tasks, and again with --crowd tasks (default
# 8, 0: not) as TEST-pN: more tasks than this machine has cores.
# Full run: all tests, 8 B..1 MiB, 3 rounds x 3 timed runs of <= 10 ms per
# point (about 5 minutes).  Quick: latency and bandwidth, 8 B..1 MiB in
# powers of 4 (and 1 MiB), 3 rounds x 3 runs of <= 5 ms (under a minute).
# Environment: top_builddir (default .), top_srcdir (default: from this
# script), PVMD, BENCH_QUICK=1 (same as --quick).  Progress goes to stderr.
# What the drivers share (options, VM, configurations): ../lib/bench.sh.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_tag=mpbench
B=$(bench_dir bench/mpbench)
OUTDIR=$top_builddir/bench-out
CONFIGS="stock-default stock-direct am-off am-tcp am-udp am-shm raw"
# Open MPI joins the default comparison where configure found mpicc
[ -x "$B/mpbench_mpi" ] && CONFIGS="$CONFIGS mpi"
# and UCX where configure found it (a few seconds per round)
[ -x "$B/mpbench_ucx" ] && CONFIGS="$CONFIGS ucx"
ROUNDS=3 REPS=3 MAX=1048576 TCAP=0.01 SIZES="" TESTS=all CROWD=8
hosts=
extra=()
bench_usage="[--quick] [--out DIR] [--rounds N] [--reps N] [--configs LIST] [--sizes LIST]
    [--max BYTES] [--tcap SECS] [--tests LIST] [--crowd N] [--hosts] [-- mpbench options]"
driver_opt() {
    case $1 in
    --sizes) SIZES=$2 ;;
    --max) MAX=$2 ;;
    --tcap) TCAP=$2 ;;
    --tests) TESTS=$2 ;;
    --crowd) CROWD=$2 ;;
    --hosts) hosts=1 bench_used=1 ;;
    --) shift; extra=("$@"); bench_used=$(($# + 1)) ;;
    *) bench_used=0 ;;
    esac
}
bench_args "$@"
if [ -n "$quick" ]; then
    # explicit options given with --quick still win
    [ "$TCAP" = 0.01 ] && TCAP=0.005
    [ "$TESTS" = all ] && TESTS=latency,bandwidth
    [ -z "$SIZES" ] && SIZES=$(awk -v m="$MAX" 'BEGIN { for (n = 8; n < m; n *= 4) printf "%d,", n; print m }')
fi
bench_need mpbench_stock mpbench_am rawbench
case " $CONFIGS " in
*" mpi "*) [ -x "$B/mpbench_mpi" ] ||
    { echo "run.sh: $B/mpbench_mpi not built (configure found no mpicc)" >&2; exit 2; } ;;
esac
if [ ! -x "$B/mpbench_ucx" ]; then
    CONFIGS=$(for c in $CONFIGS; do [ "$c" = ucx ] || echo "$c"; done | paste -sd' ')
    echo "run.sh: ucx skipped: $B/mpbench_ucx not built (configure found no UCX: install" \
         "'libucx-dev', scripts/install-deps.sh does, and configure again)" >&2
fi
if [ -n "$SIZES" ]; then sizeopt=(-s "$SIZES"); else sizeopt=(-m "$MAX"); fi
common=(-r "$REPS" -w 5 -i 1000 -t "$TCAP" "${sizeopt[@]}")

bench_outdir
if [ -n "$hosts" ]; then
    # two namespace hosts; every program of the run on node1, slaves on node2
    [ -n "$configs_given" ] || CONFIGS="stock-default stock-direct am-tcp am-udp raw"
    CONFIGS=$(for c in $CONFIGS; do
        case $c in am-off*|am-shm*|am-default*|mpi|ucx) ;; *) echo "$c" ;; esac
    done | paste -sd' ')
    CROWD=0
    bench_vm 2
    MPBENCH_HOST=$(nvm_name 2); export MPBENCH_HOST
    RAW_NS=(-N "/run/netns/$(nvm_ns 2):$(nvm_addr 1):$(nvm_addr 2)")
else
    RAW_NS=()
    bench_vm ""
fi
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
    mpi) mpi_run "$@" ;;
    ucx) ucx_run "$@" ;;
    *) bench_cfg "$cfg" 300 "$B/mpbench_stock" "$B/mpbench_am" "$@" ;;
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

# mpbench_ucx, outside PVM: two processes of its own on cores 0 and 1.
# It has no collectives: the crowd's run (-p N) is left out.
ucx_run() {
    case " $* " in *" -p "*) return 0 ;; esac
    timeout 300 "$B/mpbench_ucx" "$@"
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

ncfg=$(echo $CONFIGS | wc -w)
for k in $(seq "$ROUNDS"); do
    i=0
    for cfg in $CONFIGS; do
        i=$((i + 1))
        say "round $k/$ROUNDS, $cfg ($i/$ncfg)"
        run_one "$cfg" "$k"
    done
done
bench_report
failed=
[ -s "$OUTDIR/failed" ] && failed=$(sort -u "$OUTDIR/failed" | paste -sd' ')
echo
bash "$here/headline.sh" "$OUTDIR/metrics.dat" "$failed" | fold -s -w 100
if [ -n "$failed" ]; then
    say "FAILED configurations: $failed"
    exit 1
fi
exit 0
