#!/bin/bash
# Instructions per small message (bench/pingpong/insns.c under callgrind,
# the master only, in one private VM).  Ping-pong: pvm_psend and
# pvm_precv, pvm_send and pvm_recv (packing and unpacking not counted),
# per call, and psend + precv, one message sent and one received.
# Streaming (mpbench's bandwidth test: windows of 8 pvm_psends, each
# answered by an empty pvm_send): the sender's and the receiver's
# instructions per message, acks included.  Counts do not depend on the
# load (the slave says through a FIFO when what the master receives is in).
#   insns.sh [round-trips] [transport] [sizes]   (default 3000 shm "8 256")
# (streaming: round-trips / 8 windows each way)
# KEEP=DIR keeps callgrind's outputs there (callgrind_annotate DIR/FILE).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../lib/bench.sh"
bench_tag=insns
B=$(bench_dir bench/pingpong)
N=${1:-3000} TR=${2:-shm} SIZES=${3:-8 256}
bench_need insns
command -v valgrind > /dev/null || { echo "insns.sh: valgrind not installed" >&2; exit 2; }
bench_tmpvm

# cg NAME MODE ROUNDS SIZE FUNCTION...: callgrind of the master, collecting
# inside the functions named; the output in $OUT/NAME
cg() {
    local name=$1 mode=$2 n=$3 size=$4 f tog=()
    shift 4
    for f in "$@"; do tog+=(--toggle-collect="$f"); done
    PVMAM_TRANSPORT=$TR timeout 600 valgrind --tool=callgrind \
        --callgrind-out-file="$OUT/$name" "${tog[@]}" \
        "$B/insns" "$mode" "$B/insns" "$n" "$size" > "$OUT/log" 2>&1 ||
        { cat "$OUT/log" >&2; exit 1; }
    [ -z "${KEEP:-}" ] || { mkdir -p "$KEEP" && cp "$OUT/$name" "$KEEP/"; }
}

# inclusive cost and calls of each function named, from the calls= lines
# of its callers: "name calls cost" lines
costs() {
    awk -v want="$2" '
        /^c?fn=/ { f = $0; sub(/^c?fn=\([0-9]+\) ?/, "", f); id = $0; sub(/\).*/, "", id)
                   sub(/.*\(/, "", id); if (f != "") name[id] = f
                   if ($0 ~ /^cfn=/) cur = name[id] }
        /^calls=/ { split($0, c, "[= ]"); pend = c[2]; next }
        pend != "" { calls[cur] += pend; incl[cur] += $2; pend = "" }
        END { n = split(want, fs, " ")
              for (i = 1; i <= n; i++) print fs[i], calls[fs[i]] + 0, incl[fs[i]] + 0 }' "$1"
}

for size in $SIZES; do
    say "callgrind of $N round trips of $size bytes over $TR"
    cg "pp.$size" MASTER "$N" "$size" pvm_psend pvm_precv pvm_send pvm_recv
    costs "$OUT/pp.$size" "pvm_psend pvm_precv pvm_send pvm_recv" | awk -v s="$size" '
        { per[$1] = $2 ? $3 / $2 : 0
          printf "%4d B ping-pong: %-10s %6.0f instructions per call (%d calls)\n", s, $1, per[$1], $2 }
        END { printf "%4d B ping-pong, one way: pvm_psend + pvm_precv %.0f; pvm_send + pvm_recv %.0f\n",
                     s, per["pvm_psend"] + per["pvm_precv"], per["pvm_send"] + per["pvm_recv"] }'
done
W=8 NW=$(( (N + 7) / 8 ))
for size in $SIZES; do
    say "callgrind of $NW windows of $W x $size bytes each way over $TR"
    cg "stream.$size" STREAM "$NW" "$size" stream_send stream_ack stream_recv
    costs "$OUT/stream.$size" "stream_send stream_ack stream_recv" | awk -v s="$size" -v w="$W" '
        { calls[$1] = $2; incl[$1] = $3 }
        END { m = calls["stream_send"] * w; r = calls["stream_recv"] * w
              printf "%4d B streaming, per message: sender %.0f (pvm_psend %.0f, ack %.0f), receiver %.0f (pvm_precv and ack)\n",
                     s, m ? (incl["stream_send"] + incl["stream_ack"]) / m : 0,
                     m ? incl["stream_send"] / m : 0, m ? incl["stream_ack"] / m : 0,
                     r ? incl["stream_recv"] / r : 0 }'
done
