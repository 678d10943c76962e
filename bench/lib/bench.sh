# bench.sh - what the benchmark drivers share (bench/mpbench, bench/fft,
# bench/pingpong, bench/startup): options, the output folder, the private
# VM, running one configuration, the median tables and gnuplot figures.
# Source it after setting here (the driver's own folder):
#     here=$(cd "$(dirname "$0")" && pwd); . "$here/../lib/bench.sh"
# Environment: top_builddir (default .), top_srcdir (default: from here),
# PVMD.  A configuration is named stock-default, stock-direct (stock with
# PvmRouteDirect), am-default (libpvm3am, PVMAM_TRANSPORT unset), am-T
# (PVMAM_TRANSPORT=T) or am-T@POLICY (also PVMAM_WAIT=POLICY).

top_srcdir=${top_srcdir:-$(cd "$here/../.." && pwd)}
top_builddir=${top_builddir:-.}
bench_start=$(date +%s)

# The build folder of benchmark NAME (where make put its programs).
bench_dir() { echo "$(cd "$top_builddir" && pwd)/$1"; }

# Progress on stderr, with seconds since the start: say TEXT...
# (bench_tag names the driver: [mpbench 12s] ...)
say() { echo "[$bench_tag $(( $(date +%s) - bench_start ))s] $*" >&2; }

# Every program named is built in folder B, or the driver stops.
bench_need() {
    local p
    for p in "$@"; do
        [ -x "$B/$p" ] || { echo "run.sh: $B/$p not built (make)" >&2; exit 2; }
    done
}

# The options: bench_args "$@" reads those every driver takes (below) and
# hands the others to the driver's own driver_opt "$@", which sets
# bench_used to how many words it took (0: not its own either, then the
# usage line bench_usage goes to stderr and the driver stops).
# BENCH_QUICK=1 is --quick, BENCH_QUICK=0 is not.
quick=${BENCH_QUICK:-}
configs_given=
bench_args() {
    while [ $# -gt 0 ]; do
        bench_used=2
        case $1 in
        --quick) quick=1 bench_used=1 ;;
        --out) OUTDIR=$2 ;;
        --rounds) ROUNDS=$2 ;;
        --reps) REPS=$2 ;;
        --configs) CONFIGS=$(echo "$2" | tr , ' ') configs_given=1 ;;
        *) driver_opt "$@" ;;
        esac
        [ "$bench_used" -gt 0 ] || { echo "usage: run.sh $bench_usage" >&2; exit 2; }
        shift "$bench_used"
    done
    [ "$quick" = 0 ] && quick=
    return 0
}

# OUTDIR made absolute, emptied of an earlier run's rounds and results.
bench_outdir() {
    mkdir -p "$OUTDIR" || exit 2
    OUTDIR=$(cd "$OUTDIR" && pwd)
    rm -rf "$OUTDIR/rounds" "$OUTDIR/dat" "$OUTDIR/failed"
    mkdir -p "$OUTDIR/rounds" "$OUTDIR/dat"
}

# The private VM: bench_vm HOSTS starts HOSTS netvm hosts (network
# namespaces, tests/lib/netvm.sh, as root) or, HOSTS empty, one pvmd on
# this host (tests/lib/pvmvm.sh).  on1 CMD... runs CMD on the master's host.
bench_vm() {
    if [ -n "$1" ]; then
        . "$top_srcdir/tests/lib/netvm.sh"
        nvm_start "$1" || exit 1
        nvm_addhosts || exit 1
        on1() { nvm_on 1 "$@"; }
    else
        . "$top_srcdir/tests/lib/pvmvm.sh"
        vm_start || exit 1
        on1() { "$@"; }
    fi
}

# One run of configuration CFG: bench_cfg CFG SECONDS STOCK AM ARGS...
# runs program STOCK or AM (paths) with ARGS on the master's host, killed
# after SECONDS.  Spawned tasks get PVMAM_TRANSPORT and PVMAM_WAIT through
# PVM_EXPORT, as users would do it.
bench_cfg() {
    local cfg=$1 secs=$2 stock=$3 am=$4
    shift 4
    case $cfg in
    stock-default) (unset PVMAM_TRANSPORT; on1 timeout "$secs" "$stock" "$@") ;;
    stock-direct)  (unset PVMAM_TRANSPORT; on1 timeout "$secs" "$stock" -d "$@") ;;
    am-*@*) (export PVMAM_WAIT=${cfg#*@}; bench_cfg "${cfg%@*}" "$secs" "$stock" "$am" "$@") ;;
    am-default)   # what a user gets: shm on a host, tcp between hosts
        (unset PVMAM_TRANSPORT; export PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_WAIT
         on1 timeout "$secs" "$am" "$@") ;;
    am-*)
        (export PVMAM_TRANSPORT=${cfg#am-} PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_TRANSPORT:PVMAM_WAIT
         on1 timeout "$secs" "$am" "$@") ;;
    *) echo "run.sh: unknown configuration $cfg" >&2; return 2 ;;
    esac
}

# The measurements are done: stop the VM, then report.sh and plot.sh of
# the driver's folder over OUTDIR and CONFIGS, and show the summary.
bench_report() {
    vm_atexit
    say "measurements done; medians, table and figures"
    bash "$here/report.sh" "$OUTDIR" $CONFIGS || exit 1
    bash "$here/plot.sh" "$OUTDIR" $CONFIGS || say "no figures (gnuplot missing or failed)"
    cat "$OUTDIR/summary.txt"
    say "done: $OUTDIR/summary.txt, $OUTDIR/*.png, $OUTDIR/dat/"
}

# A VM for a driver that keeps its results in a temporary folder OUT,
# removed at exit with the VM.
bench_tmpvm() {
    bench_vm ""
    OUT=$(mktemp -d)
    vm_cleanup() { rm -rf "$OUT"; }
}

# ---- report.sh -------------------------------------------------------------

# "key v1 v2 ..." lines (from FILEs, or stdin) -> "key median min max
# count" over all values of a key, keys in numeric order.
bench_agg() {
    awk '{ if (!($1 in v)) sz[++k] = $1; for (f = 2; f <= NF; f++) v[$1] = v[$1] " " $f }
    END {
        for (i = 1; i <= k; i++) {
            n = split(v[sz[i]], a, " ")
            for (x = 2; x <= n; x++) { t = a[x] + 0; for (y = x - 1; y >= 1 && a[y] + 0 > t; y--) a[y + 1] = a[y]; a[y + 1] = t }
            med = n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
            printf "%s %.6g %.6g %.6g %d\n", sz[i], med, a[1], a[n], n
        }
    }' "$@" | sort -n
}

# "column row cell [spread]" lines on stdin -> one table, rows (numbers)
# down in order, columns across as they came: bench_table HEAD WIDTH
# (HEAD over the row numbers, WIDTH their column's width).
bench_table() {
    awk -v head="$1" -v w="$2" '
        { if (!($2 in s)) sz[++k] = $2 + 0; s[$2] = 1
          if (!($1 in cs)) col[++m] = $1; cs[$1] = 1
          cell[$1 " " $2] = $3 (NF > 3 ? " " $4 : "") }
        END {
            for (x = 2; x <= k; x++) { t = sz[x]; for (y = x - 1; y >= 1 && sz[y] > t; y--) sz[y + 1] = sz[y]; sz[y + 1] = t }
            printf "%*s", w, head; for (j = 1; j <= m; j++) printf " %16s", col[j]; printf "\n"
            for (i = 1; i <= k; i++) { printf "%*s", w, sz[i]
                for (j = 1; j <= m; j++) printf " %16s", ((col[j] " " sz[i]) in cell) ? cell[col[j] " " sz[i]] : "-"
                printf "\n" }
        }'
}

# ---- plot.sh ---------------------------------------------------------------

# bench_plot_init OUTDIR: gnuplot or exit 1; sets OUT, D (its dat/) and
# term (pngcairo where gnuplot has it), makes OUT/gp.
bench_plot_init() {
    OUT=$1 D=$1/dat
    command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found" >&2; exit 1; }
    term="pngcairo size 900,600 font ',10'"
    echo 'set terminal pngcairo' | gnuplot 2>/dev/null || term="png size 900,600"
    mkdir -p "$OUT/gp"
    plot_rc=0
}

# Distinct, readable colours; a configuration keeps its colour in every figure.
bench_colour() {
    case $1 in
    stock-default) echo '#000000' ;; stock-direct) echo '#7f7f7f' ;;
    am-off) echo '#1f77b4' ;; am-tcp) echo '#d62728' ;; am-udp) echo '#2ca02c' ;; am-shm) echo '#9467bd' ;;
    raw-tcp) echo '#ff7f0e' ;; raw-udp) echo '#8c564b' ;; mpi) echo '#e377c2' ;;
    ucx) echo '#bcbd22' ;; fftw-mpi) echo '#e377c2' ;; *) echo '#17becf' ;;
    esac
}

# The lines every figure starts with: bench_gp_head NAME TITLE XLABEL YLABEL
# (it goes to OUT/NAME.png).
bench_gp_head() {
    echo "set terminal $term noenhanced"
    echo "set output '$OUT/$1.png'"
    echo "set title '$2'"
    echo "set xlabel '$3'"
    echo "set ylabel '$4'"
    echo "set grid"
    echo "set key left top"
}

# gnuplot over OUT/gp/NAME.gp; a failure shows gnuplot's words and sets plot_rc.
bench_gnuplot() {
    gnuplot "$OUT/gp/$1.gp" 2>"$OUT/gp/$1.err" || { plot_rc=1; cat "$OUT/gp/$1.err" >&2; }
}
