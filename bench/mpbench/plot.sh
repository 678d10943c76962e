#!/bin/bash
# plot.sh - gnuplot PNG figures of an MPBench comparison run (see run.sh):
# one figure per test and variant, every configuration on it, log axes,
# median over the rounds with the min..max spread as error bars.
#   plot.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_plot_init "$1"
for t in $(cd "$D" && ls *.spread | sed 's/\.spread$//; s/^[^_]*_//' | grep -E '_(psend|pack|group)$' | sort -u); do
    base=${t%_*} var=${t##*_}
    unit=$(grep -h "^# $t (" "$OUT"/rounds/*/r*/table.txt 2>/dev/null | head -1 | sed 's/^# [^(]*(\(.*\)): median.*/\1/')
    plots=()
    for f in "$D"/*_"$t".spread "$D"/raw-*_"$base".spread; do
        [ -e "$f" ] || continue
        c=$(basename "$f" .spread); c=${c%%_*}
        # log axes: drop size 0 and non-positive values
        dash=1; case $c in raw-*) dash=2 ;; esac
        plots+=("'$f' using (\$1>0?\$1:1/0):(\$2>0?\$2:1/0):3:4 with yerrorlines lw 1.5 dt $dash lc rgb '$(bench_colour "$c")' title '$c'")
    done
    [ ${#plots[@]} -gt 0 ] || continue
    what=$var
    [ "$var" = psend ] && what="pvm_psend / pvm_precv"
    [ "$var" = pack ] && what="pvm_initsend + pvm_pk* + pvm_send / pvm_recv + pvm_upk*"
    {
        bench_gp_head "$t" "$base: $what" "message size (bytes, K = 1024)" "$unit"
        echo "set logscale x 2"
        echo "set logscale y"
        echo "set xtics ('1' 1, '16' 16, '256' 256, '4K' 4096, '64K' 65536, '1M' 1048576, '16M' 16777216)"
        [ "$base" = latency ] || [ "$base" = broadcast ] || [ "$base" = reduce ] || [ "$base" = allreduce ] ||
            echo "set key right bottom"
        echo "plot $(IFS=,; echo "${plots[*]}")"
    } > "$OUT/gp/$t.gp"
    bench_gnuplot "$t"
done
exit $plot_rc
