#!/bin/bash
# plot.sh - gnuplot PNG figures of a parallel FFT comparison run (see
# run.sh), in the style of the thesis's figures 6 and 7: execution time
# against the number of slaves (time.png) and speedup over the smallest
# slave count (speedup.png), every configuration on each, median over the
# rounds with the min..max spread as error bars.
#   plot.sh OUTDIR
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_plot_init "$1"
read -r N GRAN _ < "$OUT/params" 2>/dev/null || { N=?; GRAN=?; }
cfgs=$(cd "$D" && ls *.spread 2>/dev/null | sed 's/\.spread$//')
[ -n "$cfgs" ] || { echo "plot.sh: no data in $D" >&2; exit 1; }
xs=$(cat "$D"/*.spread | awk '{ print $1 }' | sort -nu)
xtics=$(for x in $xs; do printf "'%s' %s," "$x" "$x"; done | sed 's/,$//')
xmax=$(echo "$xs" | tail -1)
plot() {  # name, title, ylabel, file suffix, extra plot clause
    local name=$1 title=$2 ylabel=$3 suffix=$4 extra=$5 plots=()
    for c in $cfgs; do
        [ -s "$D/$c.$suffix" ] || continue
        dash=1; case $c in stock-*) dash=2 ;; esac
        plots+=("'$D/$c.$suffix' using 1:2:3:4 with yerrorlines lw 1.5 dt $dash pt 7 lc rgb '$(bench_colour "$c")' title '$c'")
    done
    [ -n "$extra" ] && plots+=("$extra")
    {
        bench_gp_head "$name" "$title" "slaves (tasks besides the master)" "$ylabel"
        echo "set xtics ($xtics)"
        echo "set xrange [0.5:$xmax + 0.5]"
        echo "set yrange [0:*]"
        echo "plot $(IFS=,; echo "${plots[*]}")"
    } > "$OUT/gp/$name.gp"
    bench_gnuplot "$name"
}
plot time "Parallel FFT execution time, N = $N, $GRAN messages" "seconds (median, min..max)" spread ""
plot speedup "Parallel FFT scalability, N = $N, $GRAN messages" "speedup over the fewest slaves" speedup \
    "x with lines dt 3 lc rgb '#bbbbbb' title 'linear'"
exit $plot_rc
