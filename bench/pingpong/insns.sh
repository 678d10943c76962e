#!/bin/bash
# Instructions per one-way 8-byte message (bench/pingpong/insns.c under
# callgrind, the master only, in one private VM): pvm_psend and pvm_precv,
# pvm_send and pvm_recv (packing and unpacking not counted), per call, and
# psend + precv, one message sent and one received.  Counts do not depend
# on the load.  insns.sh [round-trips] [transport]   (default 3000 shm)
# KEEP=FILE keeps callgrind's output there (callgrind_annotate FILE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_tag=insns
B=$(bench_dir bench/pingpong)
N=${1:-3000} TR=${2:-shm}
bench_need insns
command -v valgrind > /dev/null || { echo "insns.sh: valgrind not installed" >&2; exit 2; }
bench_tmpvm
say "callgrind of $N round trips over $TR"
PVMAM_TRANSPORT=$TR timeout 600 valgrind --tool=callgrind --callgrind-out-file="$OUT/cg.out" \
    --toggle-collect=pvm_psend --toggle-collect=pvm_precv --toggle-collect=pvm_send \
    --toggle-collect=pvm_recv "$B/insns" MASTER "$B/insns" "$N" > "$OUT/log" 2>&1 ||
    { cat "$OUT/log" >&2; exit 1; }
[ -z "${KEEP:-}" ] || cp "$OUT/cg.out" "$KEEP"
# inclusive cost and calls of each function, from the calls= lines of its callers
awk -v n="$N" '
    /^c?fn=/ { f = $0; sub(/^c?fn=\([0-9]+\) ?/, "", f); id = $0; sub(/\).*/, "", id)
               sub(/.*\(/, "", id); if (f != "") name[id] = f
               if ($0 ~ /^cfn=/) cur = name[id] }
    /^calls=/ { split($0, c, "[= ]"); pend = c[2]; next }
    pend != "" { calls[cur] += pend; incl[cur] += $2; pend = "" }
    END {
        split("pvm_psend pvm_precv pvm_send pvm_recv", fs, " ")
        for (i = 1; i <= 4; i++) { f = fs[i]; per[f] = calls[f] ? incl[f] / calls[f] : 0
            printf "%-10s %6.0f instructions per call (%d calls)\n", f, per[f], calls[f] }
        printf "one way, pvm_psend + pvm_precv: %.0f; pvm_send + pvm_recv: %.0f\n",
            per["pvm_psend"] + per["pvm_precv"], per["pvm_send"] + per["pvm_recv"]
    }' "$OUT/cg.out"
