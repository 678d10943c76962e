#!/bin/bash
# Job start-up time: startup_stock and startup_am (startup.c)
# spawn N copies of themselves in one private VM and wait for one packed
# reply from each.  Configurations run interleaved, ROUNDS times; prints
# the median of spawn-to-last-reply and each configuration over stock.
#   run.sh [N] [ROUNDS] [CONFIGS...]    configs: stock am-off am-tcp am-udp am-shm am-default,
#   am-T@POLICY runs with PVMAM_WAIT=POLICY, am-init with pvmam_init in every
#   task (the default transports); base-... as am-... with the startup_am of
#   another build, folder STARTUP_BASE (a before/after in the same run)
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
B=$(bench_dir bench/startup)
N=${1:-8} ROUNDS=${2:-15}
shift 2 2>/dev/null || shift $#
CONFIGS=${*:-stock am-default am-off}
bench_tmpvm
for r in $(seq "$ROUNDS"); do
    for c in $CONFIGS; do
        lib=${c%%-*} tr=${c#*-} wait= prog=
        case $lib in
        base) prog=${STARTUP_BASE:?base-... needs STARTUP_BASE}/startup_am ;;
        *) prog=$B/startup_$lib ;;
        esac
        case $tr in *@*) wait=${tr#*@} tr=${tr%@*} ;; esac
        if [ "$lib" = stock ]; then tr=; fi
        init=
        if [ "$tr" = init ]; then tr= init=1; fi
        if [ "$tr" = default ]; then tr=; fi
        ( [ -n "$tr" ] && export PVMAM_TRANSPORT=$tr
          [ -n "$wait" ] && export PVMAM_WAIT=$wait
          [ -n "$init" ] && export STARTUP_INIT=1
          timeout 60 "$prog" "$N" ) > "$OUT/run" || { echo "FAIL: $c" >&2; exit 1; }
        awk -v c="$c" '$1 == "all_ms" { print c, $3 }' "$OUT/run" >> "$OUT/all"
    done
done
echo "spawn $N tasks, wait for one packed reply from each: ms, median of $ROUNDS (min..max)"
for c in $CONFIGS; do
    awk -v c="$c" '$1 == c { print $2 }' "$OUT/all" | sort -n |
        awk -v c="$c" '{ v[NR] = $1 } END { printf "%-12s %8.2f  (%.2f..%.2f)\n", c, v[int((NR+1)/2)], v[1], v[NR] }'
done | tee "$OUT/med"
awk 'NR == 1 { s = $2 } { printf "%-12s %6.2fx stock\n", $1, $2 / s }' "$OUT/med"
