#!/bin/bash
# report.sh - medians over the rounds, the Fast Messages metrics and the
# summary table of an MPBench comparison run (see run.sh).
#   report.sh OUTDIR CONFIG...
# Reads OUTDIR/rounds/CFG/rK/*.runs (every timed run); writes
# OUTDIR/dat/CFG_TEST.dat (size median) and OUTDIR/dat/CFG_TEST.spread
# (size median min max runs), statistics over all runs of all rounds,
# OUTDIR/metrics.dat and OUTDIR/summary.txt.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
OUT=$1; shift
CONFIGS="$*"
D=$OUT/dat
mkdir -p "$D"

# raw-socket series are named after their socket: raw-tcp_latency, ...
for cfg in $CONFIGS; do
    [ -d "$OUT/rounds/$cfg" ] || continue
    for f in "$OUT/rounds/$cfg"/r*/*.runs; do [ -e "$f" ] && basename "$f" .runs; done | sort -u |
    while read -r t; do
        name=${cfg}_$t
        [ "$cfg" = raw ] && name=raw-${t%%_*}_${t#*_}
        bench_agg "$OUT/rounds/$cfg"/r*/"$t.runs" > "$D/$name.spread"
        awk '{ print $1, $2 }' "$D/$name.spread" > "$D/$name.dat"
    done
done
SERIES=$(cd "$D" && ls *.dat 2>/dev/null | sed 's/\.dat$//')
CFGS=$(for s in $SERIES; do echo "${s%%_*}"; done | awk '!seen[$0]++')
[ -n "$SERIES" ] || { echo "report.sh: no data in $OUT/rounds" >&2; exit 1; }

# Fast Messages metrics per configuration and variant:
#  t0     latency (half round trip) at the smallest size measured
#  rmax   r_inf as the largest median streaming bandwidth observed
#  rfit   r_inf from a least-squares fit of latency t(n) = t0 + n / r_inf
#  nhalf  n_1/2: size where streaming bandwidth first reaches rmax / 2,
#         interpolated linearly between the two sizes around it
metrics() {  # cfg variant latency-file bandwidth-file
    awk -v cfg="$1" -v var="$2" -v lf="$3" -v bf="$4" 'BEGIN {
        t0 = "-"; rmax = "-"; rfit = "-"; nh = "-"; t0n = "-"
        while ((getline l < lf) > 0) {
            split(l, a, " "); n++; x = a[1] + 0; y = a[2] + 0
            if (n == 1) { t0 = y; t0n = x }
            sx += x; sy += y; sxx += x * x; sxy += x * y
        }
        if (n >= 2 && n * sxx - sx * sx > 0) {
            b = (n * sxy - sx * sy) / (n * sxx - sx * sx)
            if (b > 0) rfit = 1 / b          # bytes per us = MB/s
        }
        m = 0
        while ((getline l < bf) > 0) { split(l, a, " "); m++; bx[m] = a[1] + 0; by[m] = a[2] + 0
            if (rmax == "-" || by[m] > rmax) rmax = by[m] }
        if (m) {
            for (i = 1; i <= m && by[i] < rmax / 2; i++) ;
            if (i == 1) nh = "<=" bx[1]
            else nh = bx[i - 1] + (rmax / 2 - by[i - 1]) * (bx[i] - bx[i - 1]) / (by[i] - by[i - 1])
        }
        print cfg, var, t0n, t0, rmax, rfit, nh
    }'
}
: > "$OUT/metrics.dat"
for var in psend pack; do
    for c in $CFGS; do
        case $c in
        raw-*) metrics "$c" "$var" "$D/${c}_latency.dat" "$D/${c}_bandwidth.dat" ;;
        *) [ -e "$D/${c}_latency_$var.dat" ] || [ -e "$D/${c}_bandwidth_$var.dat" ] || continue
           metrics "$c" "$var" "$D/${c}_latency_$var.dat" "$D/${c}_bandwidth_$var.dat" ;;
        esac
    done
done 2>/dev/null >> "$OUT/metrics.dat"

{
    echo "MPBench comparison, $(date '+%Y-%m-%d %H:%M'), $(uname -n), $(nproc) cpus;" \
         "rounds: $(ls -d "$OUT"/rounds/*/r* 2>/dev/null | sed 's,.*/,,' | sort -u | wc -l)"
    echo "Values are medians over every timed run of every round; '+-' is half the min..max"
    echo "spread relative to the median (full spread in dat/*.spread). Ratios are taken within"
    echo "this run, so machine noise hits all configurations alike."
    echo
    echo "== Fast Messages metrics (t0 us at the smallest size; r_inf MB/s; n_1/2 bytes)"
    echo "   ratios: t0 and r_inf (max) against stock-default and raw-tcp, same variant;"
    echo "   r_inf against raw-udp (acknowledged UDP streaming, rawbench.c) where it ran;"
    echo "   against Open MPI's MPI_Send/MPI_Recv (mpi, psend rows) where it ran;"
    echo "   against UCX's ucp_am_send_nbx (ucx, psend rows) where it ran"
    awk '{ k = $1 " " $2; t0[k] = $4; r[k] = $5; row[++n] = $0; if ($1 == "mpi") mpi = 1; if ($1 == "ucx") ucx = 1
           if ($1 == "raw-udp" && $5 != "-") rudp = 1 }
    function ratio(a, b) { return (a == "-" || b == "-" || b + 0 == 0) ? "-" : sprintf("%.2fx", a / b) }
    function num(x, f) { return x == "-" ? "-" : (x ~ /^</ ? x : sprintf(f, x)) }
    END {
        printf "%-14s %-6s %10s %10s %11s %11s %10s %9s %9s %9s %9s", "config", "var", "t0_size", "t0_us",
            "rinf_max", "rinf_fit", "n_1/2", "t0/stock", "r/stock", "t0/raw", "r/raw"
        if (rudp) printf " %9s", "r/rawudp"
        if (mpi) printf " %9s %9s", "t0/mpi", "r/mpi"
        if (ucx) printf " %9s %9s", "t0/ucx", "r/ucx"
        printf "\n"
        for (i = 1; i <= n; i++) {
            split(row[i], a, " "); v = a[2]
            printf "%-14s %-6s %10s %10s %11s %11s %10s %9s %9s %9s %9s", a[1], (a[1] ~ /^raw/ ? "-" : v),
                a[3], num(a[4], "%.2f"), num(a[5], "%.1f"), num(a[6], "%.1f"), num(a[7], "%.0f"),
                ratio(a[4], t0["stock-default " v]), ratio(a[5], r["stock-default " v]),
                ratio(a[4], t0["raw-tcp " v]), ratio(a[5], r["raw-tcp " v])
            if (rudp) printf " %9s", ratio(a[5], r["raw-udp " v])
            # MPI has one variant: every row is compared with its psend row
            if (mpi) printf " %9s %9s", ratio(a[4], t0["mpi psend"]), ratio(a[5], r["mpi psend"])
            if (ucx) printf " %9s %9s", ratio(a[4], t0["ucx psend"]), ratio(a[5], r["ucx psend"])
            printf "\n"
        }
    }' "$OUT/metrics.dat" | awk '!($1 ~ /^raw/ && seen[$1]++)'
    # ours next to Open MPI and UCX, size by size, where UCX ran
    ours=
    for c in am-shm am-default; do
        [ -e "$D/${c}_latency_psend.dat" ] || [ -e "$D/${c}_bandwidth_psend.dat" ] || continue
        ours=$c; break
    done
    if [ -n "$ours" ] && { [ -e "$D/ucx_latency_psend.dat" ] || [ -e "$D/ucx_bandwidth_psend.dat" ]; }; then
        echo
        echo "== $ours (pvm_psend) next to Open MPI (mpi) and UCX itself (ucx), per size"
        echo "   latency us, half round trip: $ours/ucx above 1.00x means ours is slower;"
        echo "   bandwidth MB/s: $ours/ucx above 1.00x means ours is faster"
        for c in "$ours" mpi ucx; do
            for t in latency bandwidth; do
                f=$D/${c}_${t}_psend.dat
                [ -e "$f" ] && awk -v k="$c $t" '{ print k, $1, $2 }' "$f"
            done
        done | awk -v ours="$ours" '
            { v[$1 " " $2 " " $3] = $4; if (!($3 in seen)) { seen[$3] = 1; sz[++n] = $3 + 0 } }
            function cell(c, t, s) { return ((c " " t " " s) in v) ? sprintf("%.4g", v[c " " t " " s]) : "-" }
            function rat(t, s) { a = ours " " t " " s; b = "ucx " t " " s
                return (a in v) && (b in v) && v[b] + 0 > 0 ? sprintf("%.2fx", v[a] / v[b]) : "-" }
            END {
                for (x = 2; x <= n; x++) { t = sz[x]; for (y = x - 1; y >= 1 && sz[y] > t; y--) sz[y + 1] = sz[y]; sz[y + 1] = t }
                printf "%10s %10s %10s %10s %10s   %10s %10s %10s %10s\n", "bytes", "lat " ours, "lat mpi",
                    "lat ucx", ours "/ucx", "bw " ours, "bw mpi", "bw ucx", ours "/ucx"
                for (i = 1; i <= n; i++) { s = sz[i]
                    printf "%10s %10s %10s %10s %10s   %10s %10s %10s %10s\n", s, cell(ours, "latency", s),
                        cell("mpi", "latency", s), cell("ucx", "latency", s), rat("latency", s),
                        cell(ours, "bandwidth", s), cell("mpi", "bandwidth", s), cell("ucx", "bandwidth", s),
                        rat("bandwidth", s) }
            }'
    fi
    # per test: sizes down, configurations across
    for t in $(for s in $SERIES; do echo "${s#*_}"; done | grep -E '_(psend|pack|group)$' | awk '!seen[$0]++'); do
        base=${t%_*}
        files=()
        for c in $CFGS; do
            case $c in raw-*) f=$D/${c}_$base.dat ;; *) f=$D/${c}_$t.dat ;; esac
            [ -e "$f" ] && files+=("$c=${f%.dat}.spread")
        done
        unit=$(grep -h "^# $t (" "$OUT"/rounds/*/r*/table.txt 2>/dev/null | head -1 | sed 's/^# [^(]*(\(.*\)): median.*/\1/')
        echo
        echo "== $t ($unit)"
        for cf in "${files[@]}"; do
            awk -v c="${cf%%=*}" '{ p = $2 != 0 ? sprintf("+-%.0f%%", ($4 - $3) / 2 / $2 * 100) : "+-0%"
                printf "%s %s %.4g %s\n", c, $1, $2, ($5 > 1 ? p : "") }' "${cf#*=}"
        done | bench_table bytes 10
    done
} > "$OUT/summary.txt"
