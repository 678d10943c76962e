#!/bin/bash
# Job start-up time: startup_stock and startup_am (startup.c)
# spawn N copies of themselves in one private VM and wait for one packed
# reply from each.  Configurations run interleaved, ROUNDS times; prints
# the median of spawn-to-last-reply and each configuration over the first.
#   run.sh [--hosts H] [--pairs] [N] [ROUNDS] [CONFIGS...]
#   configs: stock, stock-direct (every task sets PvmRouteDirect), am-off,
#   am-tcp, am-udp, am-shm, am-default; am-T@POLICY runs with
#   PVMAM_WAIT=POLICY, am-init with pvmam_init in every task (the default
#   transports); base-... as am-... with the startup_am of another build,
#   folder STARTUP_BASE (a before/after in the same run).
#   --hosts H: H namespace hosts (tests/lib/netvm.sh, as root; pvm_spawn
#   spreads the tasks over them).  --pairs: every pair of tasks also
#   exchanges one message (each task sends one to every other) before the
#   reply.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
B=$(bench_dir bench/startup)
HOSTS= PAIRS=
while [ $# -gt 0 ]; do
    case $1 in
    --hosts) HOSTS=$2; shift 2 ;;
    --pairs) PAIRS=1; shift ;;
    *) break ;;
    esac
done
N=${1:-8} ROUNDS=${2:-15}
shift 2 2>/dev/null || shift $#
CONFIGS=${*:-stock am-default am-off}
secs=60
[ -n "$HOSTS" ] && secs=300
bench_vm "$HOSTS"
OUT=$(mktemp -d)
vm_cleanup() { rm -rf "$OUT"; }
for r in $(seq "$ROUNDS"); do
    for c in $CONFIGS; do
        lib=${c%%-*} tr=${c#*-} wait= prog= direct=
        case $lib in
        base) prog=${STARTUP_BASE:?base-... needs STARTUP_BASE}/startup_am ;;
        *) prog=$B/startup_$lib ;;
        esac
        case $tr in *@*) wait=${tr#*@} tr=${tr%@*} ;; esac
        if [ "$lib" = stock ]; then
            [ "$tr" = direct ] && direct=1
            tr=
        fi
        init=
        if [ "$tr" = init ]; then tr= init=1; fi
        if [ "$tr" = default ]; then tr=; fi
        ( unset PVMAM_TRANSPORT STARTUP_INIT STARTUP_PAIRS STARTUP_DIRECT
          [ -n "$tr" ] && export PVMAM_TRANSPORT=$tr PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_TRANSPORT
          [ -n "$wait" ] && export PVMAM_WAIT=$wait PVM_EXPORT=${PVM_EXPORT:+$PVM_EXPORT:}PVMAM_WAIT
          [ -n "$init" ] && export STARTUP_INIT=1
          [ -n "$PAIRS" ] && export STARTUP_PAIRS=1
          [ -n "$direct" ] && export STARTUP_DIRECT=1
          on1 sh -c "ulimit -n 4096 2>/dev/null; exec timeout $secs '$prog' '$N'" ) > "$OUT/run" ||
            { echo "FAIL: $c" >&2; cat "$OUT/run" >&2; exit 1; }
        awk -v c="$c" '$1 == "all_ms" { print c, $3 }' "$OUT/run" >> "$OUT/all"
    done
done
what="spawn $N tasks${HOSTS:+ on $HOSTS hosts}, ${PAIRS:+every pair exchanges one message, }wait for one packed reply from each"
echo "$what: ms, median of $ROUNDS (min..max), load average $(cut -d' ' -f1-3 /proc/loadavg)"
for c in $CONFIGS; do
    awk -v c="$c" '$1 == c { print $2 }' "$OUT/all" | sort -n |
        awk -v c="$c" '{ v[NR] = $1 } END { printf "%-14s %9.2f  (%.2f..%.2f)\n", c, v[int((NR+1)/2)], v[1], v[NR] }'
done | tee "$OUT/med"
first=${CONFIGS%% *}
awk -v f="$first" 'NR == 1 { s = $2 } { printf "%-14s %6.2fx %s\n", $1, $2 / s, f }' "$OUT/med"
