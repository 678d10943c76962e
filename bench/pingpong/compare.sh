#!/bin/bash
# Ping-pong: the same source built against stock libpvm3 and libpvm3am, run
# in one private VM, interleaved, tasks pinned to cores 0/1.  Configurations:
# stock (daemon route), stock-direct (PvmRouteDirect), ours with
# PVMAM_TRANSPORT=off (daemon route), tcp and udp (AM route).  Prints median half round trips and bandwidth, and each
# configuration's speedup over stock.
#   compare.sh [max-bytes] [seconds-per-size] [rounds]
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
B=$(bench_dir bench/pingpong)
MAX=${1:-4194304} SECS=${2:-0.3} ROUNDS=${3:-3}
CONFIGS="stock stock-direct am-off am-tcp am-udp"
bench_tmpvm
for r in $(seq "$ROUNDS"); do
    for c in $CONFIGS; do
        echo "round $r/$ROUNDS: $c" >&2
        lib=${c%%-*}
        tr=${c#am-}
        [ "$lib" = stock ] && tr=off
        direct=; [ "$c" = stock-direct ] && direct=1
        PINGPONG_DIRECT=$direct PVMAM_TRANSPORT=$tr timeout 300 "$B/pingpong_$lib" MASTER "$B/pingpong_$lib" "$MAX" "$SECS" \
            >> "$OUT/$c" || exit 1
    done
done
# median of the rounds per (mode, size): "mode_size value"
med() { sort -k1,1 -k2,2n -k3,3n "$1" | awk '
    { key=$1"_"$2; v[key]=v[key]" "$3; n[key]++; if (!(key in seen)) { seen[key]=1; order[++k]=key } }
    END { for (i=1;i<=k;i++) { split(v[order[i]], a, " "); print order[i], a[int((n[order[i]]+1)/2)] } }' | sort; }
for c in $CONFIGS; do med "$OUT/$c" > "$OUT/$c.med"; done
echo "half round trip in us (median of $ROUNDS rounds), cores 0/1; x = speedup over stock"
printf '%-7s %9s' mode bytes
for c in $CONFIGS; do printf ' %10s' "$c"; done
for c in $CONFIGS; do [ $c = stock ] || printf ' %8s' "x$c"; done
echo
joined() { join -j 1 "$OUT/stock.med" "$OUT/stock-direct.med" | join -j 1 - "$OUT/am-off.med" |
    join -j 1 - "$OUT/am-tcp.med" | join -j 1 - "$OUT/am-udp.med" | tr '_' ' ' | sort -k1,1 -k2,2n; }
joined | awk '
    { printf "%-7s %9d %10.2f %10.2f %10.2f %10.2f %10.2f %7.2fx %7.2fx %7.2fx %7.2fx\n",
        $1, $2, $3, $4, $5, $6, $7, $3/$4, $3/$5, $3/$6, $3/$7 }'
echo "bandwidth in MB/s at the largest sizes:"
joined | awk -v max="$MAX" '
    $2 >= max / 4 { printf "%-7s %9d %10.1f %10.1f %10.1f %10.1f %10.1f\n", $1, $2, $2/$3, $2/$4, $2/$5, $2/$6, $2/$7 }'
