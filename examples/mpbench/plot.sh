#!/bin/bash
# plot.sh - gnuplot PNG figures of an MPBench comparison run (see run.sh):
# one figure per test and variant, every configuration on it, log axes,
# median over the rounds with the min..max spread as error bars.
#   plot.sh OUTDIR
set -u
OUT=$1
D=$OUT/dat
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found" >&2; exit 1; }
term="pngcairo size 900,600 font ',10'"
echo 'set terminal pngcairo' | gnuplot 2>/dev/null || term="png size 900,600"
mkdir -p "$OUT/gp"
# distinct, readable colours; the same configuration keeps its colour
colour() {
    case $1 in
    stock-default) echo '#000000' ;; stock-direct) echo '#7f7f7f' ;;
    am-off) echo '#1f77b4' ;; am-tcp) echo '#d62728' ;; am-udp) echo '#2ca02c' ;; am-shm) echo '#9467bd' ;;
    raw-tcp) echo '#ff7f0e' ;; raw-udp) echo '#8c564b' ;; *) echo '#17becf' ;;
    esac
}
rc=0
for t in $(cd "$D" && ls *.spread | sed 's/\.spread$//; s/^[^_]*_//' | grep -E '_(psend|pack)$' | sort -u); do
    base=${t%_*} var=${t##*_}
    unit=$(grep -h "^# $t (" "$OUT"/rounds/*/r*/table.txt 2>/dev/null | head -1 | sed 's/^# [^(]*(\(.*\)): median.*/\1/')
    plots=()
    for f in "$D"/*_"$t".spread "$D"/raw-*_"$base".spread; do
        [ -e "$f" ] || continue
        c=$(basename "$f" .spread); c=${c%%_*}
        # log axes: drop size 0 and non-positive values
        dash=1; case $c in raw-*) dash=2 ;; esac
        plots+=("'$f' using (\$1>0?\$1:1/0):(\$2>0?\$2:1/0):3:4 with yerrorlines lw 1.5 dt $dash lc rgb '$(colour "$c")' title '$c'")
    done
    [ ${#plots[@]} -gt 0 ] || continue
    what=$var
    [ "$var" = psend ] && what="pvm_psend / pvm_precv"
    [ "$var" = pack ] && what="pvm_initsend + pvm_pk* + pvm_send / pvm_recv + pvm_upk*"
    {
        echo "set terminal $term noenhanced"
        echo "set output '$OUT/$t.png'"
        echo "set title '$base: $what'"
        echo "set xlabel 'message size (bytes, K = 1024)'"
        echo "set ylabel '$unit'"
        echo "set logscale x 2"
        echo "set logscale y"
        echo "set xtics ('1' 1, '16' 16, '256' 256, '4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216)"
        echo "set grid"
        echo "set key left top"
        [ "$base" = latency ] || [ "$base" = broadcast ] || [ "$base" = reduce ] || [ "$base" = allreduce ] ||
            echo "set key right bottom"
        echo "plot $(IFS=,; echo "${plots[*]}")"
    } > "$OUT/gp/$t.gp"
    gnuplot "$OUT/gp/$t.gp" 2>"$OUT/gp/$t.err" || { rc=1; cat "$OUT/gp/$t.err" >&2; }
done
exit $rc
