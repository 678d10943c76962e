#!/bin/bash
# report.sh - medians over the rounds and the summary table of a parallel
# FFT comparison run (see run.sh).
#   report.sh OUTDIR CONFIG...
# Reads OUTDIR/rounds/CFG/rK/sS.txt (fft's output lines); writes, per
# configuration, OUTDIR/dat/CFG.spread (slaves median min max passes, in
# seconds, over every timed pass of every round), CFG.dat (slaves median),
# CFG.speedup (slaves speedup low high: the median at the smallest slave
# count over the median, and over the max and min), and OUTDIR/summary.txt.
set -u
OUT=$1; shift
CONFIGS="$*"
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
D=$OUT/dat
mkdir -p "$D"

CFGS=""
for cfg in $CONFIGS; do
    ls "$OUT/rounds/$cfg"/r*/s*.txt >/dev/null 2>&1 || continue
    cat "$OUT/rounds/$cfg"/r*/s*.txt | awk -f "$here/seconds.awk" | bench_agg > "$D/$cfg.spread"
    [ -s "$D/$cfg.spread" ] || continue
    CFGS="$CFGS $cfg"
    awk '{ print $1, $2 }' "$D/$cfg.spread" > "$D/$cfg.dat"
    awk 'NR == 1 { base = $2 } { printf "%s %.4g %.4g %.4g\n", $1, base / $2, base / $4, base / $3 }' \
        "$D/$cfg.spread" > "$D/$cfg.speedup"
done
[ -n "$CFGS" ] || { echo "report.sh: no passing timed runs in $OUT/rounds" >&2; exit 1; }

read -r N GRAN ROUNDS REPS WARM < "$OUT/params" 2>/dev/null || { N=? GRAN=? ROUNDS=? REPS=? WARM=?; }
# what a libpvm3am task uses when PVMAM_TRANSPORT is not set (shm,tcp):
# am-default when the run has it, else am-tcp as before the default changed
DEF=am-tcp
case " $CFGS " in *" am-default "*) DEF=am-default ;; esac

# one table: slave counts down, configurations across; cell from a file's columns
table() {  # title, file suffix, awk format of one cell from $2 $3 $4 $5
    echo
    echo "== $1"
    for c in $CFGS; do
        awk -v c="$c" "{ printf \"%s %s %s\\n\", c, \$1, $3 }" "$D/$c.$2"
    done | bench_table slaves 7
}

{
    echo "Parallel 2-D FFT, N = $N, granularity $GRAN, $(date '+%Y-%m-%d %H:%M'), $(uname -n), $(nproc) cpus;"
    echo "$ROUNDS round(s) x $REPS timed forward passes per configuration and slave count (after $WARM untimed),"
    echo "configurations interleaved.  Values are medians over every timed pass of every round;"
    echo "'+-' is half the min..max spread relative to the median (full spread in dat/*.spread)."
    echo "Only passes that printed PASS count.  The machine is shared and noisy: compare within one run."
    case " $CFGS " in *" fftw-mpi "*)
        echo "fftw-mpi: FFTW's MPI 2-D transform (bench/fft/fftw_mpi.c), S ranks, rank 0 holding the array,"
        echo "timed the same way (scatter of the rows, transform, gather of the result)." ;;
    esac
    table "execution time (seconds; clock from the first row sent to the last result in)" spread \
        'sprintf("%.4f", $2) ($5 > 1 ? sprintf(" +-%.0f%%", ($4 - $3) / 2 / $2 * 100) : "")'
    table "speedup over the smallest slave count (its median / this median)" speedup 'sprintf("%.2f", $2)'
    echo
    echo "== libpvm3am against stock PVM's best route at each slave count"
    echo "   (best stock median / ours: above 1.00x ours is faster)"
    awk -v cfgs="$CFGS" -v def="$DEF" '
        FNR == 1 { c = FILENAME; sub(/.*\//, "", c); sub(/\.dat$/, "", c) }
        { t[c " " $1] = $2; if (!($1 in seen)) { seen[$1] = 1; sz[++k] = $1 + 0 } }
        END {
            n = split(cfgs, cl, " ")
            printf "%7s %22s", "slaves", "best stock (s)"
            for (j = 1; j <= n; j++) if (cl[j] ~ /^am-/) printf " %10s", cl[j]
            printf "\n"
            for (x = 2; x <= k; x++) { v = sz[x]; for (y = x - 1; y >= 1 && sz[y] > v; y--) sz[y + 1] = sz[y]; sz[y + 1] = v }
            for (i = 1; i <= k; i++) {
                s = sz[i]; best = ""; bc = ""
                for (j = 1; j <= n; j++)
                    if (cl[j] ~ /^stock/ && ((cl[j] " " s) in t) && (best == "" || t[cl[j] " " s] < best)) { best = t[cl[j] " " s]; bc = cl[j] }
                printf "%7s %22s", s, best == "" ? "-" : sprintf("%.4f %s", best, bc)
                for (j = 1; j <= n; j++) if (cl[j] ~ /^am-/)
                    printf " %10s", (best != "" && ((cl[j] " " s) in t)) ? sprintf("%.2fx", best / t[cl[j] " " s]) : "-"
                printf "\n"
            }
            # FFTW-MPI (fftw-mpi) where it ran: its median over ours
            if (index(" " cfgs " ", " fftw-mpi ")) {
                printf "\n== libpvm3am against FFTW itself over MPI (fftw-mpi, S ranks) at each slave count\n"
                printf "   (fftw-mpi median / ours: above 1.00x ours is faster)\n"
                printf "%7s %14s", "slaves", "fftw-mpi (s)"
                for (j = 1; j <= n; j++) if (cl[j] ~ /^am-/) printf " %10s", cl[j]
                printf "\n"
                for (i = 1; i <= k; i++) {
                    s = sz[i]; f = ("fftw-mpi " s) in t ? t["fftw-mpi " s] : ""
                    printf "%7s %14s", s, f == "" ? "-" : sprintf("%.4f", f)
                    for (j = 1; j <= n; j++) if (cl[j] ~ /^am-/)
                        printf " %10s", (f != "" && ((cl[j] " " s) in t)) ? sprintf("%.2fx", f / t[cl[j] " " s]) : "-"
                    printf "\n"
                }
            }
            # oversubscription: the largest slave count against stock and against our own S = 2
            if (k >= 1 && ((def " " sz[k]) in t)) {
                s = sz[k]; ours = t[def " " s]; best = ""
                for (j = 1; j <= n; j++)
                    if (cl[j] ~ /^stock/ && ((cl[j] " " s) in t) && (best == "" || t[cl[j] " " s] < best)) best = t[cl[j] " " s]
                printf "\n== oversubscribed: %d slaves (+ master) on %d cpus, %s%s\n", s, ncpu, def,
                    def == "am-default" ? " (the default transports, shm,tcp)" : " (am-default, the default shm,tcp, did not run)"
                if (best != "") printf "   against stock best at %d slaves: %.4f s vs %.4f s (%.2fx)\n", s, ours, best, best / ours
                if ((def " 2") in t) printf "   against its own time at 2 slaves: %.4f s vs %.4f s (%.2fx of it)\n", ours, t[def " 2"], ours / t[def " 2"]
            }
        }' ncpu="$(nproc)" $(for c in $CFGS; do echo "$D/$c.dat"; done)
} > "$OUT/summary.txt"
