#!/bin/bash
# plot.sh - gnuplot PNG figures of a parallel FFT comparison run (see
# run.sh), in the style of the thesis's figures 6 and 7: execution time
# against the number of slaves (time.png) and speedup over the smallest
# slave count (speedup.png), every configuration on each, median over the
# rounds with the min..max spread as error bars.
#   plot.sh OUTDIR
set -u
OUT=$1
D=$OUT/dat
command -v gnuplot >/dev/null || { echo "plot.sh: gnuplot not found" >&2; exit 1; }
term="pngcairo size 900,600 font ',10'"
echo 'set terminal pngcairo' | gnuplot 2>/dev/null || term="png size 900,600"
mkdir -p "$OUT/gp"
read -r N GRAN _ < "$OUT/params" 2>/dev/null || { N=?; GRAN=?; }
# the same configuration keeps its colour (as in examples/mpbench/plot.sh)
colour() {
    case $1 in
    stock-default) echo '#000000' ;; stock-direct) echo '#7f7f7f' ;;
    am-off) echo '#1f77b4' ;; am-tcp) echo '#d62728' ;; am-udp) echo '#2ca02c' ;; am-shm) echo '#9467bd' ;;
    *) echo '#17becf' ;;
    esac
}
cfgs=$(cd "$D" && ls *.spread 2>/dev/null | sed 's/\.spread$//')
[ -n "$cfgs" ] || { echo "plot.sh: no data in $D" >&2; exit 1; }
xs=$(cat "$D"/*.spread | awk '{ print $1 }' | sort -nu)
xtics=$(for x in $xs; do printf "'%s' %s," "$x" "$x"; done | sed 's/,$//')
xmax=$(echo "$xs" | tail -1)
rc=0
plot() {  # name, title, ylabel, file suffix, extra plot clause
    local name=$1 title=$2 ylabel=$3 suffix=$4 extra=$5 plots=()
    for c in $cfgs; do
        [ -s "$D/$c.$suffix" ] || continue
        dash=1; case $c in stock-*) dash=2 ;; esac
        plots+=("'$D/$c.$suffix' using 1:2:3:4 with yerrorlines lw 1.5 dt $dash pt 7 lc rgb '$(colour "$c")' title '$c'")
    done
    [ -n "$extra" ] && plots+=("$extra")
    {
        echo "set terminal $term noenhanced"
        echo "set output '$OUT/$name.png'"
        echo "set title '$title'"
        echo "set xlabel 'slaves (tasks besides the master)'"
        echo "set ylabel '$ylabel'"
        echo "set xtics ($xtics)"
        echo "set xrange [0.5:$xmax + 0.5]"
        echo "set yrange [0:*]"
        echo "set grid"
        echo "set key left top"
        echo "plot $(IFS=,; echo "${plots[*]}")"
    } > "$OUT/gp/$name.gp"
    gnuplot "$OUT/gp/$name.gp" 2>"$OUT/gp/$name.err" || { rc=1; cat "$OUT/gp/$name.err" >&2; }
}
plot time "Parallel FFT execution time, N = $N, $GRAN messages" "seconds (median, min..max)" spread ""
plot speedup "Parallel FFT scalability, N = $N, $GRAN messages" "speedup over the fewest slaves" speedup \
    "x with lines dt 3 lc rgb '#bbbbbb' title 'linear'"
exit $rc
